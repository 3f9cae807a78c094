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

using base::Millis;
using base::Seconds;
using base::kNanosPerSecond;

inline Timeline SampleFailingTimeline() {
  Timeline t;
  t.scenario = "gc-pause<&>\"unfenced\"";
  t.seed = 17;
  t.ok = false;
  t.trace_hash = 0x5f0c1234abcd9876ULL;
  t.node_count = 3;
  t.end_ns = Seconds(60);
  t.replay_command = "leasesim replay 'sc&n.json' --scenario x --seed 17";
  t.beliefs = {{1, "n1#1", 1, Millis(500), Seconds(41), "deadline"}, {2, "n2#1", 2, Seconds(31), Seconds(60), "end_of_run"}};
  t.holders = {{1, "n1#1", 1, Millis(500), Seconds(31)}, {2, "n2#1", 2, Seconds(31), Seconds(60)}};
  t.faults = {
      {"partition", {3}, Seconds(10), Seconds(15), true, "n3 | n1 n2 store ledger"},
      {"pause", {1}, Seconds(18), Seconds(40), false, ""},
      {"clock_step", {3}, Seconds(50), Seconds(50), true, "wall clock stepped by -2000 ms"},
      {"crash", {3}, Seconds(52), Seconds(52), true, ""},
      {"restart", {3}, Seconds(55), Seconds(55), true, ""},
  };
  for (int w = 0; w < 11; ++w) {
    const std::int64_t at = (5 * w + 5) * kNanosPerSecond;
    if (at >= Seconds(18) && at < Seconds(31)) continue;
    const bool by_n2 = at >= Seconds(31);
    t.writes.push_back({by_n2 ? 2 : 1, by_n2 ? "n2#1" : "n1#1", by_n2 ? 2 : 1, w, at, at + Millis(4), "applied", true});
  }
  t.writes.push_back({1, "n1#1", 1, 3, Millis(40'100), Millis(40'200), "applied", false});
  t.writes.push_back({1, "n1#1", 1, 4, Millis(40'600), Millis(40'700), "rejected_stale", false});
  t.writes.push_back({2, "n2#1", 2, 9, Millis(50'000), -1, "lost", true});
  t.violations = {{"stale_token_write",
                   "n1 (n1#1) wrote window 3 with token 1 at 40.100 s after the ledger had applied token 2 from "
                   "n2 (n2#1) at 35.004 s, and the ledger applied it: <no fencing> & \"stale\"",
                   Millis(40'200), {1, 2}, false},
                  {"lease_overlap", "n1 and n2 both believed they led from 31.000 s to 41.000 s", Seconds(31), {1, 2},
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
