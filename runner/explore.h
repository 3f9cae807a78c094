#pragma once
// Systematic exploration (`leasesim explore`, docs/EXPLORE.md), in the
// spirit of Coyote and CHESS: a menu of single faults built from the fault
// catalogue for one small scenario (kind x fault point x arrival x duration
// class x target, and unarmed faults at a few fixed times), and every
// placement of up to K of them, enumerated in a fixed order and run on one
// seed. What a random search reaches by luck, this reaches by construction:
// two faults at the same point with different arrivals, a pause inside a
// partition, a crash right after a renewal's reply.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "base/input_error.h"
#include "checker/verdict.h"
#include "runner/scenario.h"
#include "runner/scenario_parser.h"

namespace leasesim::runner {

// How big a fault is, relative to the scenario's timing (the table in
// docs/EXPLORE.md): short stays within the assumptions (pause budget, drift
// bound), medium goes beyond them but stays under a lease, long lasts about
// one and a half leases (or drifts by 40%, steps by six leases).
enum class DurationClass { kShort, kMedium, kLong };
inline constexpr std::array<std::string_view, 3> kDurationClassNames = {"short", "medium", "long"};

// The axes the menu is built from; a menu file (ParseMenuText) overrides
// any of them, the rest come from DefaultMenu.
struct ExploreMenu {
  std::vector<FaultKind> kinds;          // in the order given (DefaultMenu: catalogue order)
  std::vector<std::string> points;       // fault points faults are armed at
  std::vector<int> arrivals;             // strike on this arrival at the point (1 = the first)
  std::vector<Nanos> lease_remaining_below;  // also: the first arrival with less lease left than this
  std::vector<DurationClass> durations;
  std::vector<NodeRef> targets;          // "leader", "follower" or node numbers
  std::vector<Nanos> times;              // unarmed faults start at each of these
  Nanos arm_at = 0;                      // armed faults are armed then
  bool operator==(const ExploreMenu&) const = default;
};

// The kinds `scenario` admits: those the generator may draw for it (with
// faults beyond the assumptions allowed) whose every field has a value in
// it (a replica needs the replicated store, a region needs regions).
std::vector<FaultKind> AdmittedKinds(const Scenario& scenario);

// Every admitted kind, armed at every fault point with arrivals 1 and 2,
// unarmed at a quarter and half of the run, short and long, on the leader
// and a follower; armed at a quarter of the run.
ExploreMenu DefaultMenu(const Scenario& scenario);

// A menu file: a JSON object whose fields (all optional) are "kinds",
// "points", "arrivals", "lease_remaining_below_ms", "durations", "targets",
// "times_ms" and "arm_at_ms". An error is the one bad-input error naming the
// field and the rule; a caller names the file (error.In(file)).
std::variant<ExploreMenu, base::InputError> ParseMenuText(const std::string& text, const Scenario& scenario);
std::variant<ExploreMenu, base::InputError> LoadMenuFile(const std::string& path, const Scenario& scenario);

// Why `scenario` cannot be explored (it draws nemesis faults of its own), or nothing.
std::optional<std::string> ExploreRefusal(const Scenario& scenario);

// One fault on the menu, with the words `--list` and the report print for it.
struct MenuItem {
  Fault fault;
  std::string label;  // "pause node=\"leader\" duration_ms=200 at_point=\"before_renew\" arrival=2 at_ms=5000"
};

// The menu's items, in a fixed order: by kind, then timing (points x
// arrivals, then the fixed times), then target, then field values. A kind
// whose fields ignore the target or the duration class gets one item, not
// one per target or class. Every item is a fault the scenario parser accepts.
std::vector<MenuItem> BuildMenu(const Scenario& scenario, const ExploreMenu& menu);

// The number of placements of 0..k_max faults out of `items`: the sum of
// C(items, k). Saturates at UINT64_MAX.
std::uint64_t PlacementCount(std::uint64_t items, int k_max);

// Enumerates placements: sets of distinct menu indexes, ascending, the
// empty one first, then every set of one, of two, ... of k_max, each size
// in lexicographic order. Placement n is the n-th it yields (from 0).
class PlacementCursor {
 public:
  PlacementCursor(std::size_t items, int k_max);
  bool done() const { return done_; }
  const std::vector<std::size_t>& current() const { return current_; }
  std::uint64_t index() const { return index_; }
  void Next();

 private:
  std::size_t items_;
  int k_max_;
  std::vector<std::size_t> current_;
  std::uint64_t index_ = 0;
  bool done_ = false;
};

inline constexpr int kExploreFaultsMax = 4;

// What to run: how many faults at most, on which seed, and when to stop.
struct ExploreOptions {
  int faults = 1;               // K: placements of up to this many faults, 1..kExploreFaultsMax
  std::uint64_t seed = 1;       // the simulator seed every placement runs on
  std::uint64_t limit = 0;      // run at most this many placements; 0 = all
  bool stop_at_first = false;   // stop after the first violating placement
  std::size_t keep = 100;       // violating placements kept in the report
};

// A placement whose run broke a property the scenario does not expect broken.
struct ViolatingPlacement {
  std::uint64_t index = 0;
  std::vector<std::size_t> items;  // menu indexes
  Scenario scenario;               // the base plus the placement's faults, named "<base>-placement-N"
  std::vector<checker::Violation> violations;
};

// What an exploration ran, found and reached.
struct ExploreReport {
  std::uint64_t menu_items = 0;
  std::uint64_t planned = 0;    // placements the options call for
  std::uint64_t ran = 0;
  std::uint64_t violating = 0;  // violating placements, kept or not
  std::vector<ViolatingPlacement> kept;  // the first options.keep of them
  // How many placements reached each probe (every probe, in core/probes.h
  // order) and each fault point (core/fault_points.h order).
  std::vector<std::pair<std::string, std::uint64_t>> probes;
  std::vector<std::pair<std::string, std::uint64_t>> fault_points;
  std::vector<std::string> ProbesNeverReached() const;
};

// Where an exploration stands, for a progress display: given before the
// first placement, after each, and once at the end (finished).
struct ExploreProgress {
  std::uint64_t done = 0;       // placements run
  std::uint64_t total = 0;      // placements planned
  std::uint64_t violating = 0;  // violating placements so far
  bool finished = false;
};

// The scenario a placement runs: the base with the items' faults appended.
Scenario PlacementScenario(const Scenario& base, const std::vector<MenuItem>& menu,
                           const std::vector<std::size_t>& items, std::uint64_t index);

// Runs the placements in order. on_violation sees each violating placement
// as it is found, kept or not; on_progress, if given, where the run stands.
ExploreReport Explore(const Scenario& base, const std::vector<MenuItem>& menu, const ExploreOptions& options,
                      const std::function<void(const ViolatingPlacement&)>& on_violation = {},
                      const std::function<void(const ExploreProgress&)>& on_progress = {});

}  // namespace leasesim::runner
