// The timing half of a generated world: a configuration the protocol's own
// validator accepts, with some of its fields pushed to the edge of what it
// accepts.

#include <algorithm>
#include <array>
#include <cassert>

#include "base/units.h"
#include "core/timing.h"
#include "runner/fault_generator.h"
#include "runner/world_generator.h"

namespace leasesim::runner {
namespace {

using base::Millis;
using base::WholeMillis;
using base::kNanosPerMilli;

using Field = std::int64_t core::TimingConfig::*;

bool Valid(const core::TimingConfig& t) { return core::ValidateTiming(t).empty(); }

// One field the edge pass may push, the way the rules limit it, and its
// granularity (whole milliseconds, or 1 ppm).
struct EdgeField {
  Field field;
  bool up;
  std::int64_t unit;
};

// In the order the loose draw sets them, then the fields drawn before them.
constexpr std::array<EdgeField, 8> kEdgeFields{{
    {&core::TimingConfig::renew_deadline, true, Millis(1)},
    {&core::TimingConfig::pause_budget, true, Millis(1)},
    {&core::TimingConfig::renew_interval, true, Millis(1)},
    {&core::TimingConfig::request_timeout, true, Millis(1)},
    {&core::TimingConfig::retry, true, Millis(1)},
    {&core::TimingConfig::safety_margin, false, Millis(1)},
    {&core::TimingConfig::drift_bound_ppm, true, 1},
    {&core::TimingConfig::lease_duration, false, Millis(1)},
}};

// The valid value of `edge.field` farthest from its current (valid) value
// in the edge's direction, the others held: found by bisection on
// core::ValidateTiming itself, so the generator holds no copy of the rules
// and a rule loosened by mistake moves the edge the search tests. The
// valid values of one field form an interval (the rules are linear), so
// bisection between a valid and an invalid value finds its end.
std::int64_t EdgeOf(const core::TimingConfig& t, const EdgeField& edge) {
  assert(Valid(t));
  core::TimingConfig probe = t;
  std::int64_t valid = t.*edge.field;
  std::int64_t invalid = edge.up ? core::kLeaseDurationMax + 1 : -1;
  probe.*edge.field = invalid;
  if (Valid(probe)) return invalid;  // unbounded that way (cannot happen with today's rules)
  for (int step = 0; step < 64 && (edge.up ? invalid - valid : valid - invalid) > edge.unit; ++step) {
    const std::int64_t mid = (valid + (invalid - valid) / 2) / edge.unit * edge.unit;
    if (mid == valid || mid == invalid) break;
    probe.*edge.field = mid;
    (Valid(probe) ? valid : invalid) = mid;
  }
  return valid;
}

// Sets `field` to `value` when the result is valid; keeps it otherwise.
void SetIfValid(core::TimingConfig& t, Field field, std::int64_t value) {
  const std::int64_t before = t.*field;
  t.*field = value;
  if (!Valid(t)) t.*field = before;
}

// `value` scaled by a share in [low, high] per mille, whole milliseconds, at least 1 ms.
Nanos Share(FaultDraw& draw, Nanos value, int low_permille, int high_permille) {
  const std::int64_t permille = draw.Range(low_permille, high_permille);
  return std::max<Nanos>(Millis(1), WholeMillis(value * permille / 1000));
}

// A share of the way from a field's value to its upper edge.
void DrawBelowEdge(FaultDraw& draw, core::TimingConfig& t, const EdgeField& edge, int low, int high) {
  SetIfValid(t, edge.field, Share(draw, EdgeOf(t, edge), low, high));
}

// Pushes the field to its edge, less a gap drawn log-uniformly from half
// the way back down to none (the edge itself): boundary-value testing, since a
// rule's edge is where a protocol's arithmetic is wrong if it is wrong
// anywhere.
void PushToEdge(FaultDraw& draw, core::TimingConfig& t, const EdgeField& edge) {
  const std::int64_t from = t.*edge.field;
  const std::int64_t to = EdgeOf(t, edge);
  const std::int64_t span = edge.up ? to - from : from - to;
  if (span <= 0) return;
  const int halvings = static_cast<int>(draw.Range(0, 20));
  const std::int64_t gap = halvings >= 20 ? 0 : ((span / 2) >> halvings) / edge.unit * edge.unit;
  SetIfValid(t, edge.field, edge.up ? to - gap : to + gap);
}

// A configuration every rule accepts by a wide margin, from which the
// loose draw starts.
core::TimingConfig Provisional(Nanos lease, std::int64_t drift_bound_ppm, Nanos margin) {
  return {.lease_duration = lease, .renew_interval = Millis(3), .renew_deadline = Millis(6), .retry = Millis(1),
          .request_timeout = Millis(1), .drift_bound_ppm = drift_bound_ppm, .safety_margin = margin, .pause_budget = 0};
}

}  // namespace

core::TimingConfig GenerateTiming(FaultDraw& draw) {
  const Nanos lease =
      std::array<Nanos, 8>{1000, 2000, 3000, 5000, 8000, 10'000, 15'000, 20'000}[draw.Below(8)] * kNanosPerMilli;
  const std::int64_t bound = std::array<std::int64_t, 5>{0, 10, 100, 1000, 10'000}[draw.Below(5)];
  // The margin's edge is zero: half the time a share of the lease, half the
  // time log-uniformly small.
  Nanos margin = Share(draw, lease, 10, 100);
  if (draw.Percent(50)) margin = std::max<Nanos>(Millis(1), WholeMillis(margin >> draw.Range(0, 10)));
  core::TimingConfig t = Provisional(lease, bound, margin);
  if (!Valid(t)) return t;  // cannot happen: the caller's validation reports it
  // The loose draw: each field a share of the room the rules leave it.
  DrawBelowEdge(draw, t, kEdgeFields[0], 500, 995);
  if (!draw.Percent(20)) DrawBelowEdge(draw, t, kEdgeFields[1], 100, 900);
  DrawBelowEdge(draw, t, kEdgeFields[2], 150, 600);
  DrawBelowEdge(draw, t, kEdgeFields[3], 150, 900);
  DrawBelowEdge(draw, t, kEdgeFields[4], 50, 900);
  // Candidates that poll fast (or watch the record) as often as slow ones.
  if (draw.Percent(30)) SetIfValid(t, &core::TimingConfig::retry, std::min(t.retry, std::array<Nanos, 3>{10, 50, 200}[draw.Below(3)] * kNanosPerMilli));
  // The edge pass: some fields pushed to the edge their rules allow.
  for (const EdgeField& edge : kEdgeFields) {
    if (draw.Percent(50)) PushToEdge(draw, t, edge);
  }
  assert(Valid(t));
  return t;
}

}  // namespace leasesim::runner
