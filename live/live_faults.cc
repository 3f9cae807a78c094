#include "live/live_faults.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <optional>
#include <sstream>

#include <absl/strings/str_format.h>
#include <absl/strings/str_join.h>

#include "base/units.h"
#include "live/processes.h"

namespace leasesim::live {
namespace {

std::string For(const LiveFault& fault) { return " for " + Seconds(fault.duration_ms * kNanosPerMilli); }

// --- Within the assumptions -------------------------------------------------

bool Always(const LiveFault&, std::int64_t) { return true; }

// A stop longer than the pause budget is beyond what the timing rules allow for.
bool WithinPauseBudget(const LiveFault& fault, std::int64_t pause_budget_ms) {
  return fault.duration_ms <= pause_budget_ms;
}

// --- Strikes and heals ------------------------------------------------------

StrikeOutcome StrikePause(FaultMechanisms& m, const LiveFault& fault, const StruckTarget& t, std::string& d) {
  m.StopNode(t.number);
  d = "SIGSTOP " + t.who + For(fault);
  return StrikeOutcome::kStruck;
}

HealNote HealPause(FaultMechanisms& m, const LiveFault&, const StruckTarget& t) {
  m.ContinueNode(t.number, t.incarnation);
  return {};
}

StrikeOutcome ArmPauseMidBatch(FaultMechanisms& m, const LiveFault&, const StruckTarget& t, std::string& d) {
  m.ArmStop(t.number);
  d = "armed " + t.who + " to stop before its next ledger write";
  return StrikeOutcome::kArmed;
}

StrikeOutcome StrikeKill(FaultMechanisms& m, const LiveFault& fault, const StruckTarget& t, std::string& d) {
  m.KillNode(t.number);
  d = "SIGKILL " + t.who;
  if (fault.duration_ms > 0) d += ", restart in " + Seconds(fault.duration_ms * kNanosPerMilli);
  return StrikeOutcome::kStruck;
}

HealNote HealKill(FaultMechanisms& m, const LiveFault&, const StruckTarget& t) {
  const std::string node = "n" + std::to_string(t.number);
  const int incarnation = m.RestartNode(t.number);
  if (incarnation == 0) return {"could not restart " + node, std::nullopt};
  return {"restarted " + node + " as " + node + "#" + std::to_string(incarnation), checker::FaultKind::kRestart};
}

StrikeOutcome StrikeEtcdStop(FaultMechanisms& m, const LiveFault& fault, const StruckTarget& t, std::string& d) {
  if (!m.EtcdMemberRunning(t.number)) {
    d = "no such running member";
    return StrikeOutcome::kSkipped;
  }
  m.KillEtcdMember(t.number);
  d = t.who + " killed" + For(fault);
  return StrikeOutcome::kStruck;
}

HealNote HealEtcdStop(FaultMechanisms& m, const LiveFault&, const StruckTarget& t) {
  const std::string error = m.RestartEtcdMember(t.number);
  const std::string member = "etcd member m" + std::to_string(t.number);
  return {error.empty() ? member + " restarted" : member + " did not restart: " + error, std::nullopt};
}

StrikeOutcome StrikeCut(FaultMechanisms& m, const LiveFault& fault, const StruckTarget& t, std::string& d) {
  if (!m.BehindProxy(t.number)) {
    d = "node not behind the proxy";
    return StrikeOutcome::kSkipped;
  }
  m.CutNode(t.number, true);
  d = "cut " + t.who + " off etcd" + For(fault);
  return StrikeOutcome::kStruck;
}

HealNote HealCut(FaultMechanisms& m, const LiveFault&, const StruckTarget& t) {
  m.CutNode(t.number, false);
  return {};
}

StrikeOutcome StrikeDelay(FaultMechanisms& m, const LiveFault& fault, const StruckTarget& t, std::string& d) {
  if (!m.BehindProxy(t.number)) {
    d = "node not behind the proxy";
    return StrikeOutcome::kSkipped;
  }
  const LinkLatency latency{fault.value_ms, fault.jitter_ms};
  const bool up = fault.kind != LiveFaultKind::kDelayDown;
  const bool down = fault.kind != LiveFaultKind::kDelayUp;
  m.SlowNode(t.number, up ? latency : LinkLatency{}, down ? latency : LinkLatency{});
  const char* way = up && down ? "etcd traffic" : (up ? "requests to etcd" : "answers from etcd");
  d = "delay " + t.who + "'s " + way + " by " + std::to_string(fault.value_ms) +
      (fault.jitter_ms > 0 ? "+[0.." + std::to_string(fault.jitter_ms) + "]" : std::string()) + " ms per chunk" +
      For(fault);
  return StrikeOutcome::kStruck;
}

HealNote HealDelay(FaultMechanisms& m, const LiveFault&, const StruckTarget& t) {
  m.SlowNode(t.number, {}, {});
  return {};
}

StrikeOutcome StrikeStall(FaultMechanisms& m, const LiveFault& fault, const StruckTarget& t, std::string& d) {
  if (!m.BehindProxy(t.number)) {
    d = "node not behind the proxy";
    return StrikeOutcome::kSkipped;
  }
  m.StallNode(t.number, true);
  d = "stall " + t.who + "'s etcd connections (open, passing nothing)" + For(fault);
  return StrikeOutcome::kStruck;
}

HealNote HealStall(FaultMechanisms& m, const LiveFault&, const StruckTarget& t) {
  m.StallNode(t.number, false);
  return {};
}

// --- The table ----------------------------------------------------------------

// The delays differ only in the way they hold (StrikeDelay reads it from the
// kind). Any delay is within the assumptions: the protocol assumes an
// asynchronous network and judges leases on its own clock only.
constexpr LiveFaultSpec DelayRow(LiveFaultKind kind, const char* name, const char* summary) {
  return {.kind = kind,
          .name = name,
          .is = checker::FaultKind::kStoreLatency,
          .summary = summary,
          .target = TargetKind::kNode,
          .duration = DurationRule::kRequired,
          .value = "milliseconds each forwarded chunk is held",
          .value_max = 10'000,
          .jitter = true,
          .behind_proxy = true,
          .within_assumptions = Always,
          .strike = StrikeDelay,
          .heal = HealDelay};
}

constexpr LiveFaultSpec kTable[] = {
    {.kind = LiveFaultKind::kPause,
     .name = "pause",
     .is = checker::FaultKind::kPause,
     .summary = "SIGSTOP the node, SIGCONT after DURATION",
     .target = TargetKind::kNode,
     .duration = DurationRule::kRequired,
     .measures_failover = true,
     .within_assumptions = WithinPauseBudget,
     .strike = StrikePause,
     .heal = HealPause},
    {.kind = LiveFaultKind::kPauseMidBatch,
     .name = "pause-mid-batch",
     .is = checker::FaultKind::kPause,
     .summary = "the node stops itself just before its next ledger write, held for DURATION",
     .target = TargetKind::kNode,
     .duration = DurationRule::kRequired,
     .measures_failover = true,
     .within_assumptions = WithinPauseBudget,
     .strike = ArmPauseMidBatch,
     .heal = HealPause},
    {.kind = LiveFaultKind::kKill,
     .name = "kill",
     .is = checker::FaultKind::kCrash,
     .summary = "SIGKILL the node; with +DURATION restart it (a new incarnation) after DURATION",
     .target = TargetKind::kNode,
     .duration = DurationRule::kOptional,
     .measures_failover = true,
     .instantaneous = true,
     .within_assumptions = Always,
     .strike = StrikeKill,
     .heal = HealKill},
    {.kind = LiveFaultKind::kEtcdStop,
     .name = "etcd-stop",
     .is = checker::FaultKind::kReplicaCrash,
     .summary = "SIGKILL an etcd member (TARGET: the raft leader or 1..3), restart it after DURATION",
     .target = TargetKind::kEtcdMember,
     .duration = DurationRule::kRequired,
     .within_assumptions = Always,
     .strike = StrikeEtcdStop,
     .heal = HealEtcdStop},
    {.kind = LiveFaultKind::kCut,
     .name = "cut",
     .is = checker::FaultKind::kIsolateFromStore,
     .summary = "close the node's etcd connections (through the proxy) and refuse new ones for DURATION",
     .target = TargetKind::kNode,
     .duration = DurationRule::kRequired,
     .behind_proxy = true,
     .measures_failover = true,
     .within_assumptions = Always,
     .strike = StrikeCut,
     .heal = HealCut},
    DelayRow(LiveFaultKind::kDelay, "delay",
             "hold each chunk of the node's etcd traffic, both ways (proxy), MS ms plus up to J, for DURATION"),
    DelayRow(LiveFaultKind::kDelayUp, "delay-up", "the same for the node's requests to etcd only"),
    DelayRow(LiveFaultKind::kDelayDown, "delay-down", "the same for etcd's answers to the node only"),
    // A stall is a clog of the node's etcd traffic (held, then delivered),
    // not a cut: requests time out (unknown outcome) instead of being refused.
    {.kind = LiveFaultKind::kStall,
     .name = "stall",
     .is = checker::FaultKind::kClog,
     .summary = "keep the node's etcd connections open but pass nothing either way, for DURATION",
     .target = TargetKind::kNode,
     .duration = DurationRule::kRequired,
     .behind_proxy = true,
     .measures_failover = true,
     .within_assumptions = Always,
     .strike = StrikeStall,
     .heal = HealStall},
};

// --- Parsing ----------------------------------------------------------------

std::optional<std::int64_t> ParseSecondsAsMs(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (...) {
    return std::nullopt;
  }
  if (used != text.size() || !(value >= 0) || value > 1e6) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(value * 1000));
}

std::optional<std::int64_t> ParseWhole(const std::string& text) {
  try {
    std::size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used != text.size()) return std::nullopt;
    return value;
  } catch (...) {
    return std::nullopt;
  }
}

// The words of the kinds the rows are, each once, in table order.
std::string KindWords() {
  std::string words;
  for (std::size_t i = 0; i < std::size(kTable); ++i) {
    bool earlier = false;
    for (std::size_t j = 0; j < i; ++j) earlier = earlier || kTable[j].is == kTable[i].is;
    if (!earlier) words += (words.empty() ? "" : ", ") + std::string(checker::FaultKindName(kTable[i].is));
  }
  return words;
}

// The parts of one item, split at its punctuation.
struct ItemParts {
  std::string kind, value, target, when, duration;
  bool has_value = false, has_duration = false;
};

std::string Split(const std::string& item, ItemParts& parts) {
  const std::size_t at = item.find('@');
  if (at == std::string::npos) return "missing @AT (e.g. pause:leader@6+8)";
  std::string head = item.substr(0, at);
  parts.when = item.substr(at + 1);
  if (const std::size_t plus = parts.when.find('+'); plus != std::string::npos) {
    parts.duration = parts.when.substr(plus + 1);
    parts.when.resize(plus);
    parts.has_duration = true;
  }
  if (const std::size_t colon = head.find(':'); colon != std::string::npos) {
    parts.target = head.substr(colon + 1);
    head.resize(colon);
  }
  if (const std::size_t equals = head.find('='); equals != std::string::npos) {
    parts.value = head.substr(equals + 1);
    head.resize(equals);
    parts.has_value = true;
  }
  parts.kind = head;
  return {};
}

std::string ParseTarget(const LiveFaultSpec& spec, const std::string& target, int nodes, LiveFault& fault) {
  if (target.empty() || target == "leader") {
    fault.leader = true;
    return {};
  }
  const std::optional<std::int64_t> number = ParseWhole(target);
  if (!number) return "target must be \"leader\" or a number";
  const int limit = spec.target == TargetKind::kEtcdMember ? EtcdCluster::kMembers : nodes;
  if (*number < 1 || *number > limit) return "target " + target + " out of range 1.." + std::to_string(limit);
  fault.target = static_cast<int>(*number);
  return {};
}

std::string ParseValue(const LiveFaultSpec& spec, const ItemParts& parts, LiveFault& fault) {
  const std::string name = spec.name;
  if (spec.value == nullptr) {
    return parts.has_value ? name + " takes no =VALUE" : std::string();
  }
  const std::string rule = name + "=MS" + (spec.jitter ? "[~JITTER]" : "") + " needs MS, the " + spec.value +
                           ", a whole number in 1.." + std::to_string(spec.value_max) +
                           (spec.jitter ? " (JITTER: 0.." + std::to_string(spec.value_max) + " ms more at most)" : "") +
                           " (e.g. " + name + (spec.jitter ? "=200~50" : "=200") + ":leader@6+4)";
  if (!parts.has_value) return rule;
  std::string base = parts.value;
  std::optional<std::int64_t> jitter = 0;
  if (const std::size_t tilde = base.find('~'); tilde != std::string::npos) {
    if (!spec.jitter) return rule;
    jitter = ParseWhole(base.substr(tilde + 1));
    base.resize(tilde);
  }
  const std::optional<std::int64_t> ms = ParseWhole(base);
  if (!ms || *ms < 1 || *ms > spec.value_max) return rule;
  if (!jitter || *jitter < 0 || *jitter > spec.value_max) return rule;
  fault.value_ms = *ms;
  fault.jitter_ms = *jitter;
  return {};
}

std::string ParseTimes(const LiveFaultSpec& spec, const ItemParts& parts, LiveFault& fault) {
  const std::optional<std::int64_t> at_ms = ParseSecondsAsMs(parts.when);
  if (!at_ms) return "AT must be seconds from the start (e.g. 6 or 6.5)";
  fault.at_ms = *at_ms;
  if (parts.has_duration) {
    const std::optional<std::int64_t> ms = ParseSecondsAsMs(parts.duration);
    if (!ms) return "DURATION must be seconds (e.g. +8)";
    fault.duration_ms = *ms;
  } else if (spec.duration == DurationRule::kRequired) {
    return "needs +DURATION (seconds)";
  }
  return {};
}

std::string ParseItem(const std::string& item, int nodes, LiveFault& fault) {
  ItemParts parts;
  if (std::string error = Split(item, parts); !error.empty()) return error;
  const LiveFaultSpec* spec = FindLiveFault(parts.kind);
  if (spec == nullptr) {
    return "unknown kind \"" + parts.kind + "\" (" + FaultKindNames() + "; or the kind one is: " + KindWords() + ")";
  }
  fault.kind = spec->kind;
  fault.text = item;
  if (std::string error = ParseValue(*spec, parts, fault); !error.empty()) return error;
  if (std::string error = ParseTarget(*spec, parts.target, nodes, fault); !error.empty()) return error;
  return ParseTimes(*spec, parts, fault);
}

}  // namespace

std::span<const LiveFaultSpec> LiveFaultTable() { return kTable; }

const LiveFaultSpec& SpecOf(LiveFaultKind kind) {
  const LiveFaultSpec& spec = kTable[static_cast<std::size_t>(kind)];
  assert(spec.kind == kind);  // the table is in LiveFaultKind order
  return spec;
}

const char* FaultKindName(LiveFaultKind kind) { return SpecOf(kind).name; }

std::string FaultKindNames() {
  return absl::StrJoin(kTable, ", ", [](std::string* out, const LiveFaultSpec& spec) { out->append(spec.name); });
}

const LiveFaultSpec* FindLiveFault(const std::string& kind) {
  for (const LiveFaultSpec& spec : kTable) {
    if (kind == spec.name) return &spec;
  }
  const std::optional<checker::FaultKind> word = checker::kFaultKindNames.Parse(kind);
  for (const LiveFaultSpec& spec : kTable) {
    if (word == spec.is) return &spec;
  }
  return nullptr;
}

std::string Seconds(std::int64_t ns) {
  return absl::StrFormat("%.2f s", static_cast<double>(ns) / static_cast<double>(base::kNanosPerSecond));
}

std::optional<base::InputError> ParseFaults(const std::string& text, int nodes, std::vector<LiveFault>& faults) {
  faults.clear();
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item.empty()) continue;
    LiveFault fault;
    if (std::string error = ParseItem(item, nodes, fault); !error.empty()) {
      return base::InputError{"--faults", "fault \"" + item + "\": " + error};
    }
    if (faults.size() == kMaxLiveFaults) {
      return base::InputError{"--faults", "more than " + std::to_string(kMaxLiveFaults) + " faults"};
    }
    faults.push_back(fault);
  }
  std::stable_sort(faults.begin(), faults.end(),
                   [](const LiveFault& a, const LiveFault& b) { return a.at_ms < b.at_ms; });
  return std::nullopt;
}

}  // namespace leasesim::live
