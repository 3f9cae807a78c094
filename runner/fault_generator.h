#pragma once
// The one fault generator, serving the nemesis (runner/nemesis.h) and
// `leasesim fuzz`: swarm style, it draws which catalogue kinds are on in a
// run, how often faults aim at the leader, at fault points and beyond the
// assumptions, then each fault through its kind's draw in the catalogue.
// Where the choices come from is the caller's: the nemesis draws them from
// the run's seed, the fuzzer from a RapidCheck-shrinkable choice sequence.

#include <cassert>
#include <cstdint>
#include <vector>

#include "base/prng.h"
#include "runner/scenario.h"

namespace leasesim::runner {

struct FaultKindSpec;

// A source of choices. Every draw is built on Below, so two sources that
// answer Below alike make the same faults.
class FaultDraw {
 public:
  virtual ~FaultDraw() = default;
  // In [0, bound), bound > 0.
  virtual std::uint64_t Below(std::uint64_t bound) = 0;
  // The questions from here on, up to the next section, decide one part of
  // the case: a node's clock, the network, one fault. A search that redraws
  // a whole part changes one thing about the world at a time.
  virtual void BeginSection() {}

  // In [low, high] (low when high <= low).
  std::int64_t Range(std::int64_t low, std::int64_t high) {
    if (high <= low) return low;
    return low + static_cast<std::int64_t>(Below(static_cast<std::uint64_t>(high - low) + 1));
  }
  // Whole milliseconds in [low, high].
  Nanos Millis(Nanos low, Nanos high) {
    return Range(low / sim::kNanosPerMilli, high / sim::kNanosPerMilli) * sim::kNanosPerMilli;
  }
  bool Percent(int percent) { return Below(100) < static_cast<std::uint64_t>(percent); }
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    assert(!items.empty());
    return items[Below(items.size())];
  }
};

// Choices from a seeded PRNG (sim/prng.h).
class PrngDraw final : public FaultDraw {
 public:
  explicit PrngDraw(std::uint64_t seed) : prng_(seed) {}
  std::uint64_t Below(std::uint64_t bound) override { return prng_.UniformBelow(bound); }

 private:
  base::Prng prng_;
};

// The swarm: which kinds are on, and their knobs, drawn once per run.
struct Swarm {
  Nanos duration_cap = 0;  // longest partition / outage / isolation
  int aim_percent = 0;     // share of faults aimed at a fault point
  int leader_percent = 0;  // share of node faults aimed at the leader
  int beyond_percent = 0;  // share of pauses, clogs and drift beyond the assumptions
  int burst_percent = 0;   // share of faults striking together with the one before
  // Share of faults drawn at the edge of the assumptions: a pause, suspend
  // or delay just under its budget, struck when the lease has all but run
  // out; drift at the bound in the direction that hurts the node's role.
  int edge_percent = 0;
};

// What a kind's draw (FaultKindSpec::draw) works with: the choices, the
// scenario, the generator's config and swarm, and the helpers every kind
// shares. A draw pushes the fault(s) it makes.
class FaultDrawContext {
 public:
  FaultDrawContext(FaultDraw& draw, const Scenario& scenario, const NemesisConfig& config, const Swarm& swarm,
                   std::vector<Fault>& out);

  FaultDraw& draw;
  const Scenario& scenario;
  const core::TimingConfig& timing;
  const NemesisConfig& config;
  const Swarm& swarm;

  // The longest partition, outage or isolation this run draws.
  Nanos OutageMax() const;
  // A node: the leader, a follower or a number, by the swarm's shares.
  NodeRef Target();
  // Whether this fault goes beyond the assumptions (the swarm's share).
  bool Beyond() { return draw.Percent(swarm.beyond_percent); }
  // Whether this fault goes to the edge of the assumptions (the swarm's share).
  bool Edge() { return swarm.edge_percent > 0 && draw.Percent(swarm.edge_percent); }
  // A pause (or suspend) long enough to matter: within the budget, or beyond
  // it; at the edge, the budget less a gap drawn log-uniformly down to none.
  Nanos PauseLength(bool beyond, bool edge = false);
  // A duration just under `budget` (a request timeout, a pause budget): the
  // budget less a gap from half of it down to none, log-uniform, at least 1 ms.
  Nanos JustUnder(Nanos budget);
  // Pauses and suspends at the edge: aimed at a fault point (any: each
  // follows some step of the protocol), striking at the first arrival with
  // almost no lease left, so that what the budget allows of the pause lies
  // past the holder's own deadline. Armed faults wait for such an arrival.
  void AimAtEdge(Fault& fault);
  // The arrival with almost no lease left comes only while renewals fail:
  // half the edge pauses come with a one-way cut of the leader from the
  // store, struck as the pause is armed and long enough for the lease to
  // run out (unless the user's kinds leave out partition_oneway).
  void MaybeRunDownLease(const Fault& edge);
  // Pauses, suspends, crashes: aimed at the config's points always, else at
  // the swarm's share; with timed_strikes, maybe at a later arrival or a short lease.
  void Aim(Fault& fault);
  // Every other armable kind: aimed only with timed_strikes (and then by the
  // swarm's share), with a node whose arrival triggers it.
  void AimIfTimed(Fault& fault);
  // One direction between a node and a service (`from` and `to`).
  void Link(Fault& fault);
  // The store as a partition member: the server, or the store's leader replica.
  Member StoreMember() const;
  void Push(Fault fault) { out_.push_back(std::move(fault)); }
  // Restarts of every node (or replica) at `at`, when that is inside the run.
  void AddRestarts(Nanos at);
  void AddReplicaRestarts(Nanos at);

 private:
  void TimeStrike(Fault& fault);
  std::string DrawPoint();
  std::vector<Fault>& out_;
};

// A drift magnitude (ppm) beyond `bound_ppm`: near the bound or gross.
std::int64_t BeyondDriftPpm(FaultDraw& draw, std::int64_t bound_ppm);

// Drift at the bound (ppm, signed) in the direction that matters for the
// target's role: a leader's clock slow (its validity, counted on it, lasts
// longest in true time), a follower's fast (its wait for an expiry ends
// earliest); a numbered node's either way.
std::int64_t EdgeDriftPpm(FaultDraw& draw, const NodeRef& target, std::int64_t bound_ppm);

// A drift magnitude (ppm) within `bound_ppm`: half the time anywhere in
// [0, bound], half the time the bound itself — the worst clock the
// assumptions allow, where arithmetic that forgets a factor first shows.
std::int64_t WithinDriftPpm(FaultDraw& draw, std::int64_t bound_ppm);

// The catalogue's drawable kinds, by draw rank.
const std::vector<const FaultKindSpec*>& DrawOrder();

// The faults drawn for `scenario` under `config` (enabled or not), ordered by time.
std::vector<Fault> DrawFaults(const Scenario& scenario, const NemesisConfig& config, FaultDraw& draw);

// The fault points the generator aims at: every point but during_release,
// which only a shutdown reaches (and aims at itself).
const std::vector<std::string>& AimPoints();

}  // namespace leasesim::runner
