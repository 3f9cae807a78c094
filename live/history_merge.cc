#include "live/history_merge.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

namespace leasesim::live {
namespace {

using Json = nlohmann::json;

// A journal's file never holds more lines than this; the rest is ignored
// (a node writes a few lines per store call: hours of a run).
constexpr int kMaxJournalLines = 10'000'000;

checker::LeaseValue ValueOf(const Json& json) {
  checker::LeaseValue value;
  if (!json.is_object()) return value;
  value.holder = json.value("holder", std::string());
  value.term = json.value("term", std::int64_t{0});
  value.duration_ns = json.value("duration_ns", std::int64_t{0});
  return value;
}

checker::StoreOpKind StoreOpKindOf(const std::string& kind) {
  if (kind == "create") return checker::StoreOpKind::kCreate;
  if (kind == "cas") return checker::StoreOpKind::kCas;
  return checker::StoreOpKind::kRead;
}

// A leadership belief not yet ended, and its holder's own validity deadline.
struct OpenBelief {
  checker::LeadershipBelief belief;
  std::int64_t deadline = 0;  // true time
};

// What is known of one ledger write beyond the history's record of it.
struct WriteReply {
  std::int64_t at = 0;  // true time of the reply
  std::string status;   // as the client saw it
};

// Builds the history from the journals (one at a time), then lets the
// ledger decide what was applied, then orders everything by time.
class Merger {
 public:
  explicit Merger(const MergeInput& input) : input_(input) {
    checker::History& h = out_.history;
    h.node_count = input.node_count;
    h.assumptions = input.assumptions;
    h.end_ns = input.end_mono - input.start_mono;
    h.faults = input.faults;
    h.due_windows = input.due_windows;
  }

  void ReadJournal(const JournalFile& file);
  void ApplyLedgerRecord();
  MergeOutput Finish();

 private:
  // Per-journal state while reading it.
  struct FileState {
    const JournalFile* file = nullptr;
    std::string identity;
    std::map<std::int64_t, std::size_t> ops;     // local op id -> index in history.store_ops
    std::map<std::int64_t, std::size_t> writes;  // local write id -> index in history.ledger_writes
    std::optional<OpenBelief> open;
    std::optional<std::int64_t> last_cas_latency;
    std::int64_t last_at = 0;  // the latest line's time: the process was alive then
  };

  std::int64_t Rel(std::int64_t mono) const { return mono - input_.start_mono; }
  void Line(FileState& state, const Json& json);
  void StoreInvoke(FileState& state, const Json& json, std::int64_t at);
  void StoreComplete(FileState& state, const Json& json, std::int64_t at);
  void LedgerSend(FileState& state, const Json& json, std::int64_t at);
  void LedgerReply(FileState& state, const Json& json, std::int64_t at);
  void Event(FileState& state, const Json& json, std::int64_t at);
  // A callback or metric event (core/events.h): a record of its own.
  bool Observation(FileState& state, const std::string& event, const Json& json, std::int64_t when);
  void Close(FileState& state, std::int64_t at, const std::string& reason);
  void CloseAtProcessEnd(FileState& state);
  void PlaceAppliedArrivals(const std::vector<std::size_t>& applied_order);

  const MergeInput& input_;
  MergeOutput out_;
  std::map<std::string, std::size_t> write_by_id_;  // write id -> ledger write index
  std::map<std::size_t, WriteReply> replies_;       // ledger write index -> its reply
};

void Merger::ReadJournal(const JournalFile& file) {
  std::ifstream in(file.path);
  if (!in) {
    out_.warnings.push_back("cannot read journal " + file.path);
    return;
  }
  FileState state;
  state.file = &file;
  state.identity = "n" + std::to_string(file.node) + "#" + std::to_string(file.incarnation);
  std::string line;
  for (int line_number = 1; line_number <= kMaxJournalLines && std::getline(in, line); ++line_number) {
    if (line.empty()) continue;
    const Json json = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!json.is_object() || !json.contains("t")) {
      // A SIGKILL can cut the very last line short; anything else is a bug.
      out_.warnings.push_back(file.path + ":" + std::to_string(line_number) + ": unreadable line skipped");
      continue;
    }
    Line(state, json);
  }
  CloseAtProcessEnd(state);
}

void Merger::Line(FileState& state, const Json& json) {
  const std::string t = json.value("t", std::string());
  const std::int64_t at = Rel(json.value("at", std::int64_t{0}));
  state.last_at = std::max(state.last_at, at);
  if (t == "hello") state.identity = json.value("identity", state.identity);
  else if (t == "si") StoreInvoke(state, json, at);
  else if (t == "sc") StoreComplete(state, json, at);
  else if (t == "ls") LedgerSend(state, json, at);
  else if (t == "lc") LedgerReply(state, json, at);
  else if (t == "ev") Event(state, json, at);
}

void Merger::StoreInvoke(FileState& state, const Json& json, std::int64_t at) {
  checker::StoreOp op;
  op.node = state.file->node;
  op.process = state.identity;
  op.key = json.value("key", std::string());
  op.kind = StoreOpKindOf(json.value("kind", std::string()));
  op.expected_version = json.value("ev", std::int64_t{0});
  if (json.contains("v")) op.value = ValueOf(json["v"]);
  op.invoke_ns = at;
  op.outcome = checker::Outcome::kUnknown;  // until its completion line says otherwise
  op.complete_ns = checker::kNeverNs;
  std::vector<checker::StoreOp>& ops = out_.history.store_ops;
  state.ops[json.value("op", std::int64_t{0})] = ops.size();
  ops.push_back(std::move(op));
}

void Merger::StoreComplete(FileState& state, const Json& json, std::int64_t at) {
  auto it = state.ops.find(json.value("op", std::int64_t{0}));
  if (it == state.ops.end()) return;
  checker::StoreOp& op = out_.history.store_ops[it->second];
  const std::string status = json.value("status", std::string());
  if (status == "timeout") return;  // unknown: stays open-ended
  op.outcome = status == "ok" ? checker::Outcome::kOk : checker::Outcome::kFail;
  op.complete_ns = at;
  op.found = json.value("found", false);
  op.version = json.value("version", std::int64_t{0});
  if (json.contains("rv") && (op.kind == checker::StoreOpKind::kRead || status != "ok")) {
    op.read_value = ValueOf(json["rv"]);
  }
  if (op.kind == checker::StoreOpKind::kCas && status == "ok") state.last_cas_latency = at - op.invoke_ns;
}

void Merger::LedgerSend(FileState& state, const Json& json, std::int64_t at) {
  checker::LedgerWrite write;
  write.node = state.file->node;
  write.holder = state.identity;
  write.token = json.value("token", std::int64_t{0});
  write.idempotency_key = json.value("key", std::string());
  write.window = json.value("window", std::int64_t{0});
  write.sent_ns = at;
  write.lease_valid_at_send = json.value("valid", true);
  write.late_ns = json.value("late_ns", std::int64_t{0});
  // A wall-clock reading, not a time on the merge's time line (the
  // schedule's windows are on the wall clock too).
  write.wall_seen_ns = json.value("wall_seen_ns", checker::kNeverNs);
  write.result = checker::LedgerResult::kLost;  // until the ledger or the reply says otherwise
  std::vector<checker::LedgerWrite>& writes = out_.history.ledger_writes;
  state.writes[json.value("w", std::int64_t{0})] = writes.size();
  write_by_id_[json.value("write_id", std::string())] = writes.size();
  writes.push_back(std::move(write));
}

void Merger::LedgerReply(FileState& state, const Json& json, std::int64_t at) {
  auto it = state.writes.find(json.value("w", std::int64_t{0}));
  if (it == state.writes.end()) return;
  replies_[it->second] = WriteReply{at, json.value("status", std::string())};
}

// The deadline is on the node's boot clock; the merge's timeline is the
// machine's monotonic clock: the two differ by the suspended time, read at
// the event. (Journals before boot_ns carried a monotonic deadline.)
std::int64_t DeadlineOnMonotonic(const Json& json) {
  const std::int64_t deadline = json.value("valid_until_ns", std::int64_t{0});
  if (!json.contains("boot_ns") || !json.contains("monotonic_ns")) return deadline;
  return json["monotonic_ns"].get<std::int64_t>() + (deadline - json["boot_ns"].get<std::int64_t>());
}

bool Merger::Observation(FileState& state, const std::string& event, const Json& json, std::int64_t when) {
  const int node = state.file->node;
  // Metric and callback events carry no holder of their own: the process's.
  std::string process = json.value("holder", std::string());
  if (process.empty()) process = state.identity;
  if (event == "metric") {
    out_.history.metrics.push_back(checker::MetricSample{.node = node,
                                                         .process = process,
                                                         .name = json.value("metric", std::string()),
                                                         .value = json.value("value", std::int64_t{0}),
                                                         .at_ns = when});
    return true;
  }
  checker::CallbackRecord c{.node = node, .process = process, .term = json.value("term", std::int64_t{0}), .at_ns = when};
  if (event == "leading_started") c.kind = checker::CallbackKind::kStarted;
  else if (event == "leading_stopped") c.kind = checker::CallbackKind::kStopped;
  else if (event == "job_step") c.kind = checker::CallbackKind::kJobStep;
  else if (event == "new_leader_reported") c.kind = checker::CallbackKind::kNewLeader;
  else return false;
  c.reason = json.value("reason", std::string());
  c.leader = json.value("other", std::string());
  c.lease_valid = json.value("value", std::int64_t{1}) != 0;
  out_.history.callbacks.push_back(std::move(c));
  return true;
}

void Merger::Event(FileState& state, const Json& json, std::int64_t at) {
  const std::string event = json.value("event", std::string());
  const std::int64_t when = json.contains("monotonic_ns") ? Rel(json["monotonic_ns"].get<std::int64_t>()) : at;
  if (Observation(state, event, json, when)) return;
  if (event == "acquired") {
    Close(state, when, "reacquired");
    OpenBelief open;
    open.belief.node = state.file->node;
    open.belief.holder = json.value("holder", state.identity);
    open.belief.term = json.value("term", std::int64_t{0});
    open.belief.from_ns = when;
    open.deadline = Rel(DeadlineOnMonotonic(json));
    state.open = std::move(open);
  } else if (event == "renewed") {
    if (state.open) state.open->deadline = Rel(DeadlineOnMonotonic(json));
    if (state.last_cas_latency) out_.renewal_latencies_ns.push_back(*state.last_cas_latency);
    state.last_cas_latency.reset();
  } else if (event == "demoted") {
    Close(state, when, json.value("reason", std::string("demoted")));
  } else if (event == "released") {
    Close(state, when, "released");
  }
}

// A belief ends at the earliest of `at` and its holder's own deadline.
void Merger::Close(FileState& state, std::int64_t at, const std::string& reason) {
  if (!state.open) return;
  checker::LeadershipBelief belief = state.open->belief;
  belief.until_ns = std::max(belief.from_ns, std::min(at, state.open->deadline));
  belief.end_reason = reason;
  out_.history.beliefs.push_back(std::move(belief));
  state.open.reset();
}

// The process's end: killed by the orchestrator, or alive at the run's end.
void Merger::CloseAtProcessEnd(FileState& state) {
  for (const KillRecord& kill : input_.kills) {
    if (kill.node == state.file->node && kill.incarnation == state.file->incarnation) {
      Close(state, Rel(kill.at_mono), "crash");
      return;
    }
  }
  // Alive at the end: it led until its process was gone, which is no
  // earlier than its last line (the kill may reach it after the run's end).
  Close(state, std::max(out_.history.end_ns, state.last_at), "end_of_run");
}

// The ledger's own record decides what was applied; the client's view
// decides the rest (a fenced or duplicate reply, or lost).
void Merger::ApplyLedgerRecord() {
  std::vector<checker::LedgerWrite>& writes = out_.history.ledger_writes;
  std::vector<std::size_t> applied_order;  // ledger write indices in revision order
  for (const etcd::AppliedBatch& batch : input_.applied) {
    auto it = write_by_id_.find(batch.write_id);
    if (it == write_by_id_.end()) {
      out_.warnings.push_back("the ledger holds batch " + batch.write_id + " that no journal recorded sending");
      continue;
    }
    writes[it->second].result = checker::LedgerResult::kApplied;
    applied_order.push_back(it->second);
  }
  for (std::size_t i = 0; i < writes.size(); ++i) {
    checker::LedgerWrite& write = writes[i];
    if (write.result == checker::LedgerResult::kApplied) continue;
    const auto reply = replies_.find(i);
    const std::string status = reply == replies_.end() ? "" : reply->second.status;
    if (status == "stale") write.result = checker::LedgerResult::kRejectedStale;
    else if (status == "duplicate") write.result = checker::LedgerResult::kDuplicate;
    else write.result = checker::LedgerResult::kLost;
    if (status == "stale" || status == "duplicate") write.arrived_ns = reply->second.at;
    if (status == "applied") out_.warnings.push_back("a write reported applied is missing from the ledger");
  }
  PlaceAppliedArrivals(applied_order);
}

// Arrival instants of applied writes: within [sent, reply] and increasing
// in revision order (walked backwards from the last).
void Merger::PlaceAppliedArrivals(const std::vector<std::size_t>& applied_order) {
  const std::int64_t end = out_.history.end_ns;
  std::int64_t later = end + 1;
  for (auto it = applied_order.rbegin(); it != applied_order.rend(); ++it) {
    checker::LedgerWrite& write = out_.history.ledger_writes[*it];
    const auto reply = replies_.find(*it);
    const std::int64_t reply_at = reply == replies_.end() ? end : reply->second.at;
    const std::int64_t arrived = std::max(std::min(reply_at, later - 1), write.sent_ns);
    write.arrived_ns = arrived;
    later = arrived;
  }
}

// Everything in time order, numbered in that order.
MergeOutput Merger::Finish() {
  checker::History& h = out_.history;
  std::stable_sort(h.store_ops.begin(), h.store_ops.end(),
                   [](const checker::StoreOp& a, const checker::StoreOp& b) { return a.invoke_ns < b.invoke_ns; });
  for (std::size_t i = 0; i < h.store_ops.size(); ++i) h.store_ops[i].id = static_cast<std::int64_t>(i);
  std::stable_sort(h.ledger_writes.begin(), h.ledger_writes.end(),
                   [](const checker::LedgerWrite& a, const checker::LedgerWrite& b) { return a.sent_ns < b.sent_ns; });
  for (std::size_t i = 0; i < h.ledger_writes.size(); ++i) h.ledger_writes[i].id = static_cast<std::int64_t>(i);
  std::stable_sort(h.beliefs.begin(), h.beliefs.end(),
                   [](const checker::LeadershipBelief& a, const checker::LeadershipBelief& b) {
                     return a.from_ns < b.from_ns;
                   });
  // Each process's in its journal's order: a stable sort keeps it.
  std::stable_sort(h.callbacks.begin(), h.callbacks.end(),
                   [](const checker::CallbackRecord& a, const checker::CallbackRecord& b) { return a.at_ns < b.at_ns; });
  std::stable_sort(h.metrics.begin(), h.metrics.end(),
                   [](const checker::MetricSample& a, const checker::MetricSample& b) { return a.at_ns < b.at_ns; });
  return std::move(out_);
}

}  // namespace

MergeOutput MergeJournals(const MergeInput& input) {
  Merger merger(input);
  for (const JournalFile& file : input.journals) merger.ReadJournal(file);
  merger.ApplyLedgerRecord();
  return merger.Finish();
}

}  // namespace leasesim::live
