#include "live/history_merge.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

namespace leasesim::live {
namespace {

using Json = nlohmann::json;

checker::LeaseValue ValueOf(const Json& json) {
  checker::LeaseValue value;
  if (!json.is_object()) return value;
  value.holder = json.value("holder", std::string());
  value.term = json.value("term", std::int64_t{0});
  value.duration_ns = json.value("duration_ns", std::int64_t{0});
  return value;
}

struct OpenBelief {
  checker::LeadershipBelief belief;
  std::int64_t deadline = 0;  // true time
};

// Per-journal state while reading it.
struct FileState {
  std::map<std::int64_t, std::size_t> ops;     // local op id -> index in history.store_ops
  std::map<std::int64_t, std::size_t> writes;  // local write id -> index in history.ledger_writes
  std::map<std::size_t, std::string> write_ids;
  std::map<std::size_t, std::int64_t> write_replies;  // index -> reply time (true)
  std::optional<OpenBelief> open;
  std::optional<std::int64_t> last_cas_latency;
};

void Close(FileState& state, std::int64_t at, const std::string& reason, checker::History& history) {
  if (!state.open) return;
  checker::LeadershipBelief belief = state.open->belief;
  belief.until_ns = std::max(belief.from_ns, std::min(at, state.open->deadline));
  belief.end_reason = reason;
  history.beliefs.push_back(std::move(belief));
  state.open.reset();
}

}  // namespace

std::int64_t Quantile(std::vector<std::int64_t> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(q * static_cast<double>(values.size()));
  const std::size_t index = static_cast<std::size_t>(std::clamp(rank, 1.0, static_cast<double>(values.size()))) - 1;
  return values[index];
}

MergeOutput MergeJournals(const MergeInput& input) {
  MergeOutput out;
  checker::History& history = out.history;
  history.node_count = input.node_count;
  history.assumptions = input.assumptions;
  history.end_ns = input.end_mono - input.start_mono;
  history.faults = input.faults;
  history.due_windows = input.due_windows;
  auto rel = [&](std::int64_t mono) { return mono - input.start_mono; };

  std::map<std::string, std::size_t> write_by_id;  // write id -> ledger write index
  std::map<std::size_t, std::int64_t> reply_of;    // ledger write index -> reply (true time)
  std::map<std::size_t, std::string> status_of;    // ledger write index -> client-seen status

  for (const JournalFile& file : input.journals) {
    std::ifstream in(file.path);
    if (!in) {
      out.warnings.push_back("cannot read journal " + file.path);
      continue;
    }
    FileState state;
    std::string identity = "n" + std::to_string(file.node) + "#" + std::to_string(file.incarnation);
    std::string line;
    int line_number = 0;
    while (std::getline(in, line)) {
      ++line_number;
      if (line.empty()) continue;
      const Json json = Json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (!json.is_object() || !json.contains("t")) {
        // A SIGKILL can cut the very last line short; anything else is a bug.
        out.warnings.push_back(file.path + ":" + std::to_string(line_number) + ": unreadable line skipped");
        continue;
      }
      const std::string t = json.value("t", std::string());
      const std::int64_t at = rel(json.value("at", std::int64_t{0}));
      if (t == "hello") {
        identity = json.value("identity", identity);
      } else if (t == "si") {
        checker::StoreOp op;
        op.node = file.node;
        op.process = identity;
        op.key = json.value("key", std::string());
        const std::string kind = json.value("kind", std::string());
        op.kind = kind == "create" ? checker::StoreOpKind::kCreate
                  : kind == "cas"  ? checker::StoreOpKind::kCas
                                   : checker::StoreOpKind::kRead;
        op.expected_version = json.value("ev", std::int64_t{0});
        if (json.contains("v")) op.value = ValueOf(json["v"]);
        op.invoke_ns = at;
        op.outcome = checker::Outcome::kUnknown;
        op.complete_ns = checker::kNeverNs;
        state.ops[json.value("op", std::int64_t{0})] = history.store_ops.size();
        history.store_ops.push_back(std::move(op));
      } else if (t == "sc") {
        auto it = state.ops.find(json.value("op", std::int64_t{0}));
        if (it == state.ops.end()) continue;
        checker::StoreOp& op = history.store_ops[it->second];
        const std::string status = json.value("status", std::string());
        if (status == "timeout") continue;  // unknown: stays open-ended
        op.outcome = status == "ok" ? checker::Outcome::kOk : checker::Outcome::kFail;
        op.complete_ns = at;
        op.found = json.value("found", false);
        op.version = json.value("version", std::int64_t{0});
        if (json.contains("rv") && (op.kind == checker::StoreOpKind::kRead || status != "ok")) {
          op.read_value = ValueOf(json["rv"]);
        }
        if (op.kind == checker::StoreOpKind::kCas && status == "ok") state.last_cas_latency = at - op.invoke_ns;
      } else if (t == "ls") {
        checker::LedgerWrite write;
        write.node = file.node;
        write.holder = identity;
        write.token = json.value("token", std::int64_t{0});
        write.idempotency_key = json.value("key", std::string());
        write.window = json.value("window", std::int64_t{0});
        write.sent_ns = at;
        write.lease_valid_at_send = json.value("valid", true);
        write.result = checker::LedgerResult::kLost;
        const std::size_t index = history.ledger_writes.size();
        state.writes[json.value("w", std::int64_t{0})] = index;
        write_by_id[json.value("write_id", std::string())] = index;
        history.ledger_writes.push_back(std::move(write));
      } else if (t == "lc") {
        auto it = state.writes.find(json.value("w", std::int64_t{0}));
        if (it == state.writes.end()) continue;
        reply_of[it->second] = at;
        status_of[it->second] = json.value("status", std::string());
      } else if (t == "ev") {
        const std::string event = json.value("event", std::string());
        const std::int64_t when = json.contains("monotonic_ns") ? rel(json["monotonic_ns"].get<std::int64_t>()) : at;
        if (event == "acquired") {
          Close(state, when, "reacquired", history);
          OpenBelief open;
          open.belief.node = file.node;
          open.belief.holder = json.value("holder", identity);
          open.belief.term = json.value("term", std::int64_t{0});
          open.belief.from_ns = when;
          open.deadline = rel(json.value("valid_until_ns", std::int64_t{0}));
          state.open = std::move(open);
        } else if (event == "renewed") {
          if (state.open) state.open->deadline = rel(json.value("valid_until_ns", std::int64_t{0}));
          if (state.last_cas_latency) out.renewal_latencies_ns.push_back(*state.last_cas_latency);
          state.last_cas_latency.reset();
        } else if (event == "demoted") {
          Close(state, when, json.value("reason", std::string("demoted")), history);
        } else if (event == "released") {
          Close(state, when, "released", history);
        }
      }
    }
    // The process's end: killed by the orchestrator, or alive at the run's end.
    std::optional<std::int64_t> killed;
    for (const KillRecord& kill : input.kills) {
      if (kill.node == file.node && kill.incarnation == file.incarnation) killed = rel(kill.at_mono);
    }
    if (killed) {
      Close(state, *killed, "crash", history);
    } else {
      Close(state, history.end_ns, "end_of_run", history);
    }
  }

  // Ledger outcomes: the ledger's own record decides what was applied.
  std::vector<std::size_t> applied_order;  // ledger write indices in revision order
  for (const etcd::AppliedBatch& batch : input.applied) {
    auto it = write_by_id.find(batch.write_id);
    if (it == write_by_id.end()) {
      out.warnings.push_back("the ledger holds batch " + batch.write_id + " that no journal recorded sending");
      continue;
    }
    history.ledger_writes[it->second].result = checker::LedgerResult::kApplied;
    applied_order.push_back(it->second);
  }
  for (std::size_t i = 0; i < history.ledger_writes.size(); ++i) {
    checker::LedgerWrite& write = history.ledger_writes[i];
    if (write.result == checker::LedgerResult::kApplied) continue;
    const std::string status = status_of.count(i) ? status_of[i] : "";
    if (status == "stale") write.result = checker::LedgerResult::kRejectedStale;
    else if (status == "duplicate") write.result = checker::LedgerResult::kDuplicate;
    else write.result = checker::LedgerResult::kLost;
    if (status == "stale" || status == "duplicate") write.arrived_ns = reply_of[i];
    if (status == "applied") out.warnings.push_back("a write reported applied is missing from the ledger");
  }
  // Arrival instants of applied writes: within [sent, reply] and increasing
  // in revision order (walk backwards from the last).
  std::int64_t later = history.end_ns + 1;
  for (auto it = applied_order.rbegin(); it != applied_order.rend(); ++it) {
    checker::LedgerWrite& write = history.ledger_writes[*it];
    const std::int64_t reply = reply_of.count(*it) ? reply_of[*it] : history.end_ns;
    std::int64_t arrived = std::min(reply, later - 1);
    arrived = std::max(arrived, write.sent_ns);
    write.arrived_ns = arrived;
    later = arrived;
  }

  // Ids in time order.
  std::stable_sort(history.store_ops.begin(), history.store_ops.end(),
                   [](const checker::StoreOp& a, const checker::StoreOp& b) { return a.invoke_ns < b.invoke_ns; });
  for (std::size_t i = 0; i < history.store_ops.size(); ++i) history.store_ops[i].id = static_cast<std::int64_t>(i);
  std::stable_sort(history.ledger_writes.begin(), history.ledger_writes.end(),
                   [](const checker::LedgerWrite& a, const checker::LedgerWrite& b) { return a.sent_ns < b.sent_ns; });
  for (std::size_t i = 0; i < history.ledger_writes.size(); ++i) {
    history.ledger_writes[i].id = static_cast<std::int64_t>(i);
  }
  std::stable_sort(history.beliefs.begin(), history.beliefs.end(),
                   [](const checker::LeadershipBelief& a, const checker::LeadershipBelief& b) {
                     return a.from_ns < b.from_ns;
                   });
  return out;
}

}  // namespace leasesim::live
