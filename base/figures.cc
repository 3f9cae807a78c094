#include "base/figures.h"

#include <array>
#include <cassert>

namespace leasesim::base {
namespace {

constexpr FigureDirection kLower = FigureDirection::kLowerIsBetter;
constexpr FigureDirection kHigher = FigureDirection::kHigherIsBetter;
constexpr FigureDirection kNeutral = FigureDirection::kNeutral;

// Neutral figures count what the fault script did to the protocol (a crash
// demotes its leader whatever the protocol), coverage, or simulator work;
// the near misses are neutral too: a wider gap is safer and a slower
// failover at once.
constexpr std::array kDefinitions = std::to_array<FigureDefinition>({
    // checker/history_figures.cc: simulated and live runs alike.
    {.name = "leaderless_ms", .unit = "ms", .direction = kLower, .source = FigureSource::kHistory,
     .meaning = "true time during which no node believed it led"},
    {.name = "recovery_ms", .unit = "ms", .direction = kLower, .source = FigureSource::kHistory,
     .meaning = "from the end of the last fault until some node led again (0: a leader held throughout; -1: none did)",
     .minus_one_is_never = true},
    {.name = "leader_terms", .unit = "count", .direction = kLower, .source = FigureSource::kHistory,
     .meaning = "distinct holder/term pairs that led"},
    {.name = "demotions_crash", .unit = "count", .direction = kNeutral, .source = FigureSource::kHistory,
     .meaning = "beliefs a crash ended (what the fault script did)"},
    {.name = "demotions_released", .unit = "count", .direction = kNeutral, .source = FigureSource::kHistory,
     .meaning = "beliefs ended by releasing the lease"},
    {.name = "demotions_*", .unit = "count", .direction = kLower, .source = FigureSource::kHistory,
     .meaning = "beliefs ended for the reason `*` (deadline, pause_detected, conflict, store_unavailable, fenced, ...)"},
    {.name = "overlap_ms", .unit = "ms", .direction = kLower, .source = FigureSource::kHistory,
     .meaning = "true time during which two or more nodes believed they led",
     .near_miss = NearMiss::kLargerIsCloser},
    {.name = "writes_during_overlap", .unit = "count", .direction = kLower, .source = FigureSource::kHistory,
     .meaning = "ledger writes sent while two or more nodes believed they led",
     .near_miss = NearMiss::kLargerIsCloser},
    {.name = "handover_gap_min_ms", .unit = "ms", .direction = kNeutral, .source = FigureSource::kHistory,
     .meaning = "the closest handover: least time from a belief ending at its own deadline, pause or store "
                "refusal to another node's belief starting, plus 1 (0: no such handover)",
     .near_miss = NearMiss::kSmallerIsCloser},
    {.name = "store_ops", .unit = "count", .direction = kLower, .source = FigureSource::kHistory,
     .meaning = "lease store operations"},
    {.name = "store_ops_unknown", .unit = "count", .direction = kLower, .source = FigureSource::kHistory,
     .meaning = "lease store operations whose outcome the caller never learnt"},
    {.name = "store_call_max_ms", .unit = "ms", .direction = kLower, .source = FigureSource::kHistory,
     .meaning = "the slowest store call that completed, invoke to reply"},
    {.name = "stale_arrivals", .unit = "count", .direction = kLower, .source = FigureSource::kHistory,
     .meaning = "writes that reached the ledger with a token older than one it had applied",
     .near_miss = NearMiss::kLargerIsCloser},
    {.name = "stale_arrivals_unsettled", .unit = "count", .direction = kLower, .source = FigureSource::kHistory,
     .meaning = "stale arrivals whose window the ledger had not settled: without the fence they would have"},
    {.name = "stale_arrival_lost_by_min_ms", .unit = "ms", .direction = kNeutral, .source = FigureSource::kHistory,
     .meaning = "the closest a stale write came to winning its window: least time from the window's settlement "
                "to its arrival, plus 1 (0: none lost a race)",
     .near_miss = NearMiss::kSmallerIsCloser},
    {.name = "lease_end_margin_min_ms", .unit = "ms", .direction = kNeutral, .source = FigureSource::kHistory,
     .meaning = "least time by which a belief, or a claim on the slowest clock the drift bound allows, ended "
                "before its record's lease, plus 1 (1: a breach; 0: nothing judged)",
     .near_miss = NearMiss::kSmallerIsCloser},
    {.name = "takeover_margin_min_ms", .unit = "ms", .direction = kNeutral, .source = FigureSource::kHistory,
     .meaning = "least time by which a takeover of another holder's record came after its lease ended, plus 1 "
                "(1: a breach; 0: nothing judged)",
     .near_miss = NearMiss::kSmallerIsCloser},
    {.name = "write_lease_margin_min_ms", .unit = "ms", .direction = kNeutral, .source = FigureSource::kHistory,
     .meaning = "least time by which a ledger write was sent before its term's lease ended, plus 1 (1: a "
                "breach; 0: the history says nothing of when writes applied)",
     .near_miss = NearMiss::kSmallerIsCloser},
    {.name = "writes_after_lease", .unit = "count", .direction = kLower, .source = FigureSource::kHistory,
     .meaning = "ledger writes sent when the writer's lease was no longer valid",
     .near_miss = NearMiss::kLargerIsCloser},
    {.name = "settlements_applied", .unit = "count", .direction = kHigher, .source = FigureSource::kHistory,
     .meaning = "ledger writes applied"},
    {.name = "fenced_writes_rejected", .unit = "count", .direction = kLower, .source = FigureSource::kHistory,
     .meaning = "ledger writes the fence rejected as stale"},
    {.name = "duplicate_settlements_suppressed", .unit = "count", .direction = kLower,
     .source = FigureSource::kHistory, .meaning = "ledger writes whose idempotency key was already applied (the earlier result returned)"},
    {.name = "ledger_writes_lost", .unit = "count", .direction = kLower, .source = FigureSource::kHistory,
     .meaning = "ledger writes that never reached the ledger (loss, partition, crash, end of run)"},
    // runner/judgement.cc and runner/recorder.cc: only the simulator knows these.
    {.name = "renewals_ok", .unit = "count", .direction = kNeutral, .source = FigureSource::kSimulator,
     .meaning = "lease renewals that succeeded"},
    {.name = "renew_failed_*", .unit = "count", .direction = kLower, .source = FigureSource::kSimulator,
     .meaning = "lease renewals that failed for the reason `*` (timeout, unavailable, conflict, ...)"},
    {.name = "fault_point_*", .unit = "count", .direction = kNeutral, .source = FigureSource::kSimulator,
     .meaning = "times the fault point `*` was reached"},
    {.name = "probe_*", .unit = "count", .direction = kNeutral, .source = FigureSource::kSimulator,
     .meaning = "times the coverage probe `*` was reached"},
    {.name = "sim_events", .unit = "count", .direction = kNeutral, .source = FigureSource::kSimulator,
     .meaning = "events the simulated world ran"},
    // backends/replicated_figures.cc (docs/REPLICATED_STORE.md).
    {.name = "store_leaders_elected", .unit = "count", .direction = kLower, .source = FigureSource::kReplicatedStore,
     .meaning = "store elections won"},
    {.name = "store_highest_term", .unit = "count", .direction = kNeutral, .source = FigureSource::kReplicatedStore,
     .meaning = "the highest term a store leader was elected in"},
    {.name = "store_first_leader_ms", .unit = "ms", .direction = kLower, .source = FigureSource::kReplicatedStore,
     .meaning = "when the first store leader was elected (-1: never)", .minus_one_is_never = true},
    {.name = "store_failovers", .unit = "count", .direction = kLower, .source = FigureSource::kReplicatedStore,
     .meaning = "store elections after the first that followed a confirmed leader"},
    {.name = "store_election_ms_max", .unit = "ms", .direction = kLower, .source = FigureSource::kReplicatedStore,
     .meaning = "longest store failover, from the last confirmed heartbeat round to the next election"},
    {.name = "store_election_ms_mean", .unit = "ms", .direction = kLower, .source = FigureSource::kReplicatedStore,
     .meaning = "mean store failover"},
    {.name = "store_calls_answered", .unit = "count", .direction = kNeutral,
     .source = FigureSource::kReplicatedStore, .meaning = "client calls the store answered (ok or conflict)"},
    {.name = "store_calls_failed", .unit = "count", .direction = kLower, .source = FigureSource::kReplicatedStore,
     .meaning = "client calls that failed"},
    {.name = "store_call_ms_mean", .unit = "ms", .direction = kLower, .source = FigureSource::kReplicatedStore,
     .meaning = "mean latency of an answered client call"},
    {.name = "store_call_ms_max", .unit = "ms", .direction = kLower, .source = FigureSource::kReplicatedStore,
     .meaning = "slowest answered client call"},
    {.name = "store_client_unavailable_ms_max", .unit = "ms", .direction = kLower,
     .source = FigureSource::kReplicatedStore,
     .meaning = "longest run of failed calls a client saw, from its first call's invoke to the next answer"},
    {.name = "store_client_unavailable_ms_sum", .unit = "ms", .direction = kLower,
     .source = FigureSource::kReplicatedStore, .meaning = "the clients' runs of failed calls, summed"},
    {.name = "store_client_redirects", .unit = "count", .direction = kLower,
     .source = FigureSource::kReplicatedStore, .meaning = "calls a replica redirected to the leader"},
    {.name = "store_client_resends", .unit = "count", .direction = kLower, .source = FigureSource::kReplicatedStore,
     .meaning = "calls a client sent again"},
    {.name = "store_stale_reads", .unit = "count", .direction = kLower, .source = FigureSource::kReplicatedStore,
     .meaning = "unsafe reads answered by a replica behind the newest commit (unsafe read mode only)"},
    // runner/judgement.cc, worlds with KV hosts.
    {.name = "kv_ops", .unit = "count", .direction = kNeutral, .source = FigureSource::kKvStore,
     .meaning = "KV store operations recorded"},
    {.name = "kv_lease_expiries", .unit = "count", .direction = kNeutral, .source = FigureSource::kKvStore,
     .meaning = "KV leases the store expired"},
    // timing/measure.cc (docs/TIMING.md).
    {.name = "timing_failovers", .unit = "count", .direction = kNeutral, .source = FigureSource::kTiming,
     .meaning = "faults on the leader that moved the lease (at most 64 kept)"},
    {.name = "timing_failover_*_ms", .unit = "ms", .direction = kLower, .source = FigureSource::kTiming,
     .meaning = "the `*`th such failover, from the fault's start to the next leader"},
    {.name = "timing_recoveries", .unit = "count", .direction = kNeutral, .source = FigureSource::kTiming,
     .meaning = "store outages measured"},
    {.name = "timing_recovery_*_ms", .unit = "ms", .direction = kLower, .source = FigureSource::kTiming,
     .meaning = "from the end of the `*`th store outage until some node led (-1: none by the end)",
     .minus_one_is_never = true},
    {.name = "timing_kept", .unit = "count", .direction = kNeutral, .source = FigureSource::kTiming,
     .meaning = "faults on the leader it rode out, keeping its lease"},
    {.name = "timing_unrecovered", .unit = "count", .direction = kLower, .source = FigureSource::kTiming,
     .meaning = "faults on the leader after which nobody led again"},
    {.name = "timing_calls", .unit = "count", .direction = kNeutral, .source = FigureSource::kTiming,
     .meaning = "store calls answered"},
    {.name = "timing_calls_over_p99", .unit = "count", .direction = kLower, .source = FigureSource::kTiming,
     .meaning = "store calls slower than the p99 asked for"},
    {.name = "timing_calls_over_p999", .unit = "count", .direction = kLower, .source = FigureSource::kTiming,
     .meaning = "store calls slower than the p999 asked for"},
    {.name = "timing_calls_unanswered", .unit = "count", .direction = kLower, .source = FigureSource::kTiming,
     .meaning = "store calls that timed out (outcome unknown)"},
    // live/live_judge.cc (docs/LIVE.md).
    {.name = "due_windows", .unit = "count", .direction = kNeutral, .source = FigureSource::kLive,
     .meaning = "settlement windows due by the end of the run"},
    {.name = "renewals", .unit = "count", .direction = kNeutral, .source = FigureSource::kLive,
     .meaning = "renewals whose latency was measured"},
    {.name = "renewal_latency_p50_us", .unit = "us", .direction = kLower, .source = FigureSource::kLive,
     .meaning = "median renewal latency"},
    {.name = "renewal_latency_p99_us", .unit = "us", .direction = kLower, .source = FigureSource::kLive,
     .meaning = "99th percentile renewal latency"},
    {.name = "renewal_latency_max_us", .unit = "us", .direction = kLower, .source = FigureSource::kLive,
     .meaning = "slowest renewal"},
    {.name = "faults_injected", .unit = "count", .direction = kNeutral, .source = FigureSource::kLive,
     .meaning = "faults the run injected"},
    {.name = "failovers", .unit = "count", .direction = kNeutral, .source = FigureSource::kLive,
     .meaning = "takeouts of the leader after which another node acquired (present when any)"},
    {.name = "failover_ms_max", .unit = "ms", .direction = kLower, .source = FigureSource::kLive,
     .meaning = "slowest failover, from the takeout to another node acquiring"},
    {.name = "failover_ms_min", .unit = "ms", .direction = kLower, .source = FigureSource::kLive,
     .meaning = "fastest failover"},
});

// The text of `pattern` a member must match literally (a family's fixed parts).
std::size_t FixedLength(std::string_view pattern) {
  return pattern.find('*') == std::string_view::npos ? pattern.size() : pattern.size() - 1;
}

}  // namespace

std::span<const FigureDefinition> FigureDefinitions() { return kDefinitions; }

bool FigureNameMatches(std::string_view pattern, std::string_view figure) {
  const std::size_t star = pattern.find('*');
  if (star == std::string_view::npos) return pattern == figure;
  assert(pattern.find('*', star + 1) == std::string_view::npos);  // one wildcard per pattern
  const std::string_view head = pattern.substr(0, star);
  const std::string_view tail = pattern.substr(star + 1);
  return figure.size() > head.size() + tail.size() && figure.starts_with(head) && figure.ends_with(tail);
}

const FigureDefinition* FindFigure(std::string_view figure) {
  const FigureDefinition* best = nullptr;
  for (const FigureDefinition& definition : kDefinitions) {
    if (definition.name == figure) return &definition;
    if (!FigureNameMatches(definition.name, figure)) continue;
    if (best == nullptr || FixedLength(definition.name) > FixedLength(best->name)) best = &definition;
  }
  return best;
}

std::string FigureTableMarkdown() {
  std::string table =
      "| figure | unit | better | written by | meaning |\n"
      "| --- | --- | --- | --- | --- |\n";
  for (const FigureDefinition& definition : kDefinitions) {
    std::string better(kFigureDirectionNames.Name(definition.direction));
    if (definition.minus_one_is_never) better += "; -1 = never";
    if (definition.near_miss == NearMiss::kSmallerIsCloser) better += "; near miss: smaller is closer";
    if (definition.near_miss == NearMiss::kLargerIsCloser) better += "; near miss: larger is closer";
    table += "| `" + std::string(definition.name) + "` | " + std::string(definition.unit) + " | " + better + " | " +
             std::string(kFigureSourceNames.Name(definition.source)) + " | " + std::string(definition.meaning) +
             " |\n";
  }
  return table;
}

}  // namespace leasesim::base
