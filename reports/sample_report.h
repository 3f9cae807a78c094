#pragma once
// A hand-made failing run for tests and the browser test: three nodes; n1
// leads with term 1, is paused beyond the protocol's assumptions, n2 takes
// over with term 2, and n1, waking up, writes with its stale token 1, which
// a ledger without fencing applies (a stale_token_write), and once more,
// which a fenced ledger rejects. Texts carry characters that need escaping.

#include "base/units.h"
#include "reports/run_summary.h"
#include "reports/timeline.h"

namespace leasesim::reports::testing {

inline constexpr base::Nanos kS = base::kNanosPerSecond;
inline constexpr base::Nanos kMs = base::kNanosPerMilli;

inline Timeline SampleFailingTimeline() {
  Timeline t;
  t.scenario = "gc-pause<&>\"unfenced\"";
  t.seed = 17;
  t.ok = false;
  t.trace_hash = 0x5f0c1234abcd9876ULL;
  t.node_count = 3;
  t.end_ns = 60 * kS;
  t.replay_command = "leasesim replay 'sc&n.json' --scenario x --seed 17";
  t.beliefs = {{1, "n1#1", 1, 500 * kMs, 41 * kS, "deadline"}, {2, "n2#1", 2, 31 * kS, 60 * kS, "end_of_run"}};
  t.holders = {{1, "n1#1", 1, 500 * kMs, 31 * kS}, {2, "n2#1", 2, 31 * kS, 60 * kS}};
  t.faults = {
      {"partition", {3}, 10 * kS, 15 * kS, true, "n3 | n1 n2 store ledger"},
      {"pause", {1}, 18 * kS, 40 * kS, false, ""},
      {"clock_step", {3}, 50 * kS, 50 * kS, true, "wall clock stepped by -2000 ms"},
      {"crash", {3}, 52 * kS, 52 * kS, true, ""},
      {"restart", {3}, 55 * kS, 55 * kS, true, ""},
  };
  for (int w = 0; w < 11; ++w) {
    const std::int64_t at = (5 * w + 5) * kS;
    if (at >= 18 * kS && at < 31 * kS) continue;
    const bool by_n2 = at >= 31 * kS;
    t.writes.push_back({by_n2 ? 2 : 1, by_n2 ? "n2#1" : "n1#1", by_n2 ? 2 : 1, w, at, at + 4 * kMs, "applied", true});
  }
  t.writes.push_back({1, "n1#1", 1, 3, 40'100 * kMs, 40'200 * kMs, "applied", false});
  t.writes.push_back({1, "n1#1", 1, 4, 40'600 * kMs, 40'700 * kMs, "rejected_stale", false});
  t.writes.push_back({2, "n2#1", 2, 9, 50'000 * kMs, -1, "lost", true});
  t.violations = {{"stale_token_write",
                   "n1 (n1#1) wrote window 3 with token 1 at 40.100 s after the ledger had applied token 2 from "
                   "n2 (n2#1) at 35.004 s, and the ledger applied it: <no fencing> & \"stale\"",
                   40'200 * kMs, {1, 2}, false},
                  {"lease_overlap", "n1 and n2 both believed they led from 31.000 s to 41.000 s", 31 * kS, {1, 2},
                   true}};
  t.notes = {"lease overlap outside the stated assumptions (pause of 22 s > pause budget 0 s)"};
  return t;
}

inline SweepSummary SampleFailingSweep() {
  const Timeline t = SampleFailingTimeline();
  SweepSummary sweep{.scenario_file = "sc&n.json", .seeds = "16-18", .scenarios = {"steady", t.scenario}};
  for (std::uint64_t seed = 16; seed <= 18; ++seed) {
    RunSummary ok{.scenario = "steady", .seed = seed, .ok = true, .trace_hash = seed * 7919};
    ok.figures = {{"leaderless_ms", static_cast<std::int64_t>(seed)}, {"leader_terms", 1}};
    ok.replay_command = "leasesim replay 'sc&n.json' --scenario steady --seed " + std::to_string(seed);
    sweep.runs.push_back(ok);
  }
  for (std::uint64_t seed = 16; seed <= 18; ++seed) {
    RunSummary run{.scenario = t.scenario, .seed = seed, .ok = seed != 17, .trace_hash = seed * 104729};
    run.figures = {{"leaderless_ms", 900}, {"leader_terms", 2}};
    run.replay_command = "leasesim replay 'sc&n.json' --scenario x --seed " + std::to_string(seed);
    if (seed == 17) {
      run.trace_hash = t.trace_hash;
      for (const TimelineViolation& v : t.violations) {
        run.violations.push_back({v.kind, v.message, v.at_ns, v.expected});
      }
      run.notes = t.notes;
      run.replay_command = t.replay_command;
    }
    sweep.runs.push_back(run);
  }
  return sweep;
}

}  // namespace leasesim::reports::testing
