#include "runner/explore.h"

#include "base/figures.h"
#include "base/strict_json.h"
#include "base/units.h"

#include <algorithm>
#include <cassert>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/fault_points.h"
#include "core/probes.h"
#include "runner/fault_catalogue.h"
#include "runner/fault_fields.h"
#include "runner/run.h"

namespace leasesim::runner {

using base::InputError;
using base::ObjectReader;
namespace {

using Json = nlohmann::json;
using F = FaultField;
using Faults = std::vector<Fault>;

using base::WholeMillis;
using base::kNanosPerMilli;
constexpr std::int64_t kArrivalMax = 1000;
constexpr std::size_t kAxisMax = 64;  // entries per menu axis
constexpr std::int64_t kDriftMax = 500'000;

bool FieldFillable(FaultField field, const Scenario& scenario) {
  if (field == F::kReplica || field == F::kReplicaNumber) return scenario.replicated.enabled;
  if (field == F::kRegion) return scenario.replicated.regions.enabled();
  return true;
}

bool Admits(const FaultKindSpec& spec, const Scenario& scenario) {
  // Beyond-the-assumptions faults are on the menu: they are what finds bugs.
  const NemesisConfig beyond{.within_assumptions = false};
  if (spec.drawable != nullptr && !spec.drawable(scenario, beyond)) return false;
  return std::all_of(spec.fields.begin(), spec.fields.end(),
                     [&](FaultField field) { return FieldFillable(field, scenario); });
}

// The class's value for a magnitude field, in the field's unit (ms, or ppm
// for drift); see the table in docs/EXPLORE.md.
std::int64_t Magnitude(FaultField field, DurationClass size, const core::TimingConfig& timing) {
  const auto pick = [size](std::int64_t s, std::int64_t m, std::int64_t l) {
    return size == DurationClass::kShort ? s : size == DurationClass::kMedium ? m : l;
  };
  const std::int64_t lease = timing.lease_duration / kNanosPerMilli;
  const std::int64_t budget = timing.pause_budget / kNanosPerMilli;
  const std::int64_t timeout = std::max<std::int64_t>(1, timing.request_timeout / kNanosPerMilli);
  const std::int64_t bound = timing.drift_bound_ppm;
  switch (field) {
    case F::kDuration: return pick(std::max<std::int64_t>(1, budget), std::max(budget + 1, (budget + lease) / 2),
                                   std::max<std::int64_t>(1, lease * 3 / 2));
    case F::kDriftPpm: return std::min(kDriftMax, pick(bound, std::max(bound + 1, 10 * bound),
                                                       std::max(bound + 2, std::int64_t{400'000})));
    case F::kStep: return pick(lease, 2 * lease, 6 * lease);
    case F::kExtra: return pick(std::max<std::int64_t>(1, timeout / 2), timeout, 2 * timeout);
    default: assert(false && "not a magnitude field"); return 0;
  }
}

bool IsMagnitude(FaultField field) {
  return field == F::kDuration || field == F::kDriftPpm || field == F::kStep || field == F::kExtra;
}

// What one (kind, timing, target, class) cell's items are built from.
struct Cell {
  const Scenario& scenario;
  NodeRef target;
  DurationClass size;
};

Member NodeMember(NodeRef ref) { return Member{Member::Kind::kNode, ref}; }

// The store and the ledger, as link members (a replicated store's leader stands in for the store).
std::vector<Member> Services(const Scenario& scenario) {
  const Member store = scenario.replicated.enabled ? Member{Member::Kind::kReplica, {}, kStoreLeaderReplica}
                                                   : Member{Member::Kind::kStore, {}};
  return {store, Member{Member::Kind::kLedger, {}}};
}

// Partition sides: the target alone, and the services with every other numbered node.
std::vector<std::vector<Member>> Sides(const Cell& cell) {
  std::vector<Member> rest;
  if (!cell.target.is_role()) {
    for (int node = 1; node <= cell.scenario.nodes; ++node) {
      if (node != cell.target.node) rest.push_back(NodeMember(NodeRef{.node = node}));
    }
  }
  for (const Member& service : Services(cell.scenario)) rest.push_back(service);
  return {{NodeMember(cell.target)}, rest};
}

// Appends to `out` one copy of `fault` per value the field takes in this cell.
void AddValues(FaultField field, const Cell& cell, const Fault& fault, Faults& out) {
  const auto with = [&](auto set) {
    Fault copy = fault;
    set(copy);
    out.push_back(std::move(copy));
  };
  const int nodes = cell.scenario.nodes;
  const int replicas = cell.scenario.replicated.store.replicas;
  switch (field) {
    case F::kNode: return with([&](Fault& f) { f.node = cell.target; });
    case F::kNodeNumber:
      for (int n = 1; n <= nodes; ++n) with([n](Fault& f) { f.node = NodeRef{.node = n}; });
      return;
    case F::kDuration:
    case F::kExtra: {
      const Nanos value = Magnitude(field, cell.size, cell.scenario.timing) * kNanosPerMilli;
      return with([&](Fault& f) { (field == F::kDuration ? f.duration : f.extra) = value; });
    }
    case F::kDriftPpm:
    case F::kStep:
      for (const std::int64_t sign : {1, -1}) {
        const std::int64_t value = sign * Magnitude(field, cell.size, cell.scenario.timing);
        with([&](Fault& f) { field == F::kDriftPpm ? (f.drift_ppm = value) : (f.step = value * kNanosPerMilli); });
      }
      return;
    case F::kGroups: return with([&](Fault& f) { f.groups = Sides(cell); });
    case F::kFrom:  // both directions between the target and the services; kTo then has its value
      with([&](Fault& f) { f.from = {NodeMember(cell.target)}, f.to = Services(cell.scenario); });
      with([&](Fault& f) { f.from = Services(cell.scenario), f.to = {NodeMember(cell.target)}; });
      return;
    case F::kTo: return with([&](Fault& f) { if (f.to.empty()) f.to = Services(cell.scenario); });
    case F::kMode:
      for (auto mode : {backends::StoreOutage::kUnavailable, backends::StoreOutage::kBlackhole}) {
        with([mode](Fault& f) { f.outage = mode; });
      }
      return;
    case F::kSuccessor:
      for (int n = 0; n <= nodes; ++n) with([n](Fault& f) { f.successor = n; });
      return;
    case F::kReplica:
      if (cell.target.is_role()) {
        return with([&](Fault& f) { f.replica = cell.target.leader ? kStoreLeaderReplica : kStoreFollowerReplica; });
      }
      if (cell.target.node <= replicas) with([&](Fault& f) { f.replica = cell.target.node; });
      return;
    case F::kReplicaNumber:
      for (int r = 1; r <= replicas; ++r) with([r](Fault& f) { f.replica = r; });
      return;
    case F::kRegion:
      for (std::size_t r = 0; r < cell.scenario.replicated.regions.names.size(); ++r) {
        with([r](Fault& f) { f.region = static_cast<int>(r); });
      }
      return;
    case F::kKv:  // every KV store host
      for (int kv = 1; kv <= cell.scenario.kv.hosts(); ++kv) with([kv](Fault& f) { f.kv = kv; });
      return;
  }
}

// Whether a kind's items differ by target (else one per timing and class).
bool UsesTarget(const FaultKindSpec& spec, bool armed) {
  if (armed && spec.target != FaultTarget::kNode) return true;  // the node whose arrival strikes it
  return std::any_of(spec.fields.begin(), spec.fields.end(), [](FaultField field) {
    return field == F::kNode || field == F::kGroups || field == F::kFrom || field == F::kTo || field == F::kReplica;
  });
}

struct Timing {
  Nanos at = 0;
  std::string point;  // empty: unarmed, strikes at `at`
  int arrival = 1;
  Nanos below = 0;
};

std::vector<Timing> Timings(const ExploreMenu& menu) {
  std::vector<Timing> timings;
  for (const std::string& point : menu.points) {
    for (int arrival : menu.arrivals) timings.push_back({menu.arm_at, point, arrival, 0});
    for (Nanos below : menu.lease_remaining_below) timings.push_back({menu.arm_at, point, 1, below});
  }
  for (Nanos at : menu.times) timings.push_back({at, "", 1, 0});
  return timings;
}

std::string Label(const Fault& fault, const Scenario& scenario) {
  const FaultKindSpec& spec = SpecOf(fault.kind);
  Json json = Json::object();
  for (FaultField field : spec.fields) FieldSpecOf(field).write(fault, scenario, json);
  WriteArming(fault, spec, json);
  std::string label(spec.name);
  for (auto it = json.begin(); it != json.end(); ++it) label += " " + it.key() + "=" + it.value().dump();
  return label + " at_ms=" + std::to_string(fault.at / kNanosPerMilli);
}

// The items of one kind at one timing, target and class.
void AddCell(const FaultKindSpec& spec, const Timing& timing, const Cell& cell, std::vector<MenuItem>& items) {
  Fault base{.at = timing.at, .kind = spec.kind};
  if (!timing.point.empty()) {
    base.at_point = timing.point;
    base.arrival = timing.arrival;
    base.lease_remaining_below = timing.below;
    if (spec.target != FaultTarget::kNode) base.node = cell.target;
  }
  Faults faults{base};
  for (FaultField field : spec.fields) {
    Faults next;
    for (const Fault& fault : faults) AddValues(field, cell, fault, next);
    faults = std::move(next);
  }
  for (Fault& fault : faults) {
    std::string label = Label(fault, cell.scenario);
    items.push_back(MenuItem{std::move(fault), std::move(label)});
  }
}

// ---- the menu file ----------------------------------------------------------

// A list field of the menu file: at most kAxisMax entries, none repeated,
// each read by `one` (which throws an InputError naming the entry's path).
template <typename T, typename One>
std::vector<T> ListField(ObjectReader& reader, const std::string& key, bool may_be_empty, One one) {
  const Json& list = reader.Array(key);
  if (list.empty() && !may_be_empty) throw InputError{reader.PathOf(key), "must not be empty"};
  if (list.size() > kAxisMax) throw InputError{reader.PathOf(key), "holds more than " + std::to_string(kAxisMax) + " entries"};
  std::vector<T> values;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = reader.PathOf(key) + "[" + std::to_string(i) + "]";
    if (!seen.insert(list[i].dump()).second) throw InputError{path, "repeats an earlier entry"};
    values.push_back(one(list[i], path));
  }
  return values;
}

std::string NameOf(const Json& value, const std::string& path, const std::string& what) {
  if (!value.is_string()) throw InputError{path, "must be a " + what + " name (a string)"};
  return value.get<std::string>();
}

std::int64_t IntegerOf(const Json& value, const std::string& path, std::int64_t min, std::int64_t max) {
  if (!value.is_number_integer() || value.get<std::int64_t>() < min || value.get<std::int64_t>() > max) {
    throw InputError{path, "must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]"};
  }
  return value.get<std::int64_t>();
}

template <typename Names>
std::string Joined(const Names& names) {
  std::string joined;
  for (const auto& name : names) joined += (joined.empty() ? "" : ", ") + std::string(name);
  return joined;
}

FaultKind KindOf(const Json& value, const std::string& path, const Scenario& scenario) {
  const std::string name = NameOf(value, path, "fault kind");
  std::vector<std::string_view> admitted;
  for (FaultKind kind : AdmittedKinds(scenario)) admitted.push_back(SpecOf(kind).name);
  const FaultKindSpec* spec = FindFaultKind(name);
  if (spec == nullptr) throw InputError{path, "unknown fault kind \"" + name + "\" (known: " + FaultKindNames() + ")"};
  if (!Admits(*spec, scenario)) {
    throw InputError{path, "scenario \"" + scenario.name + "\" does not admit " + name + " (it admits: " +
                            Joined(admitted) + ")"};
  }
  return spec->kind;
}

void ParseAxes(ObjectReader& reader, const Scenario& scenario, ExploreMenu& menu) {
  const std::int64_t run_ms = scenario.duration / kNanosPerMilli;
  if (reader.Has("kinds")) {
    menu.kinds = ListField<FaultKind>(reader, "kinds", false,
                                      [&](const Json& v, const std::string& p) { return KindOf(v, p, scenario); });
  }
  if (reader.Has("points")) {
    menu.points = ListField<std::string>(reader, "points", true, [](const Json& v, const std::string& p) {
      const std::string name = NameOf(v, p, "fault point");
      if (!core::ParseFaultPoint(name)) {
        throw InputError{p, "unknown fault point \"" + name + "\" (known: " + Joined(core::kFaultPointNames) + ")"};
      }
      return name;
    });
  }
  if (reader.Has("arrivals")) {
    menu.arrivals = ListField<int>(reader, "arrivals", false, [](const Json& v, const std::string& p) {
      return static_cast<int>(IntegerOf(v, p, 1, kArrivalMax));
    });
  }
  if (reader.Has("lease_remaining_below_ms")) {
    menu.lease_remaining_below = ListField<Nanos>(reader, "lease_remaining_below_ms", true,
                                                  [](const Json& v, const std::string& p) {
                                                    return IntegerOf(v, p, 1, base::kMillisMax) * kNanosPerMilli;
                                                  });
  }
  if (reader.Has("durations")) {
    menu.durations = ListField<DurationClass>(reader, "durations", false, [](const Json& v, const std::string& p) {
      const std::string name = NameOf(v, p, "duration class");
      const auto* it = std::find(kDurationClassNames.begin(), kDurationClassNames.end(), name);
      if (it == kDurationClassNames.end()) {
        throw InputError{p, "unknown duration class \"" + name + "\" (known: " + Joined(kDurationClassNames) + ")"};
      }
      return static_cast<DurationClass>(it - kDurationClassNames.begin());
    });
  }
  if (reader.Has("targets")) {
    menu.targets = ListField<NodeRef>(reader, "targets", false, [&](const Json& v, const std::string& p) {
      return ParseNodeRef(v, p, scenario.nodes);
    });
  }
  if (reader.Has("times_ms")) {
    menu.times = ListField<Nanos>(reader, "times_ms", true, [&](const Json& v, const std::string& p) {
      return IntegerOf(v, p, 0, run_ms) * kNanosPerMilli;
    });
  }
  if (reader.Has("arm_at_ms")) menu.arm_at = reader.Integer("arm_at_ms", 0, run_ms) * kNanosPerMilli;
}

}  // namespace

std::vector<FaultKind> AdmittedKinds(const Scenario& scenario) {
  std::vector<FaultKind> kinds;
  for (const FaultKindSpec& spec : FaultCatalogue()) {
    if (Admits(spec, scenario)) kinds.push_back(spec.kind);
  }
  return kinds;
}

ExploreMenu DefaultMenu(const Scenario& scenario) {
  ExploreMenu menu;
  menu.kinds = AdmittedKinds(scenario);
  for (std::string_view point : core::kFaultPointNames) menu.points.emplace_back(point);
  menu.arrivals = {1, 2};
  menu.durations = {DurationClass::kShort, DurationClass::kLong};
  menu.targets = {NodeRef{.leader = true}, NodeRef{.follower = true}};
  const Nanos quarter = WholeMillis(scenario.duration / 4);
  menu.times = {quarter, WholeMillis(scenario.duration / 2)};
  menu.arm_at = quarter;
  return menu;
}

std::variant<ExploreMenu, InputError> ParseMenuText(const std::string& text, const Scenario& scenario) {
  // The one strict reader (base/strict_json.h): a repeated key is refused,
  // since the parser would silently drop what was written first.
  std::variant<Json, InputError> parsed = base::ParseStrictJson(text);
  if (const InputError* error = std::get_if<InputError>(&parsed)) return *error;
  try {
    const Json& json = std::get<Json>(parsed);
    ObjectReader reader(json, "");
    ExploreMenu menu = DefaultMenu(scenario);
    ParseAxes(reader, scenario, menu);
    reader.Finish();
    if (menu.points.empty() && menu.times.empty()) {
      throw InputError{"points", "and times_ms are both empty: no fault would have a time to strike"};
    }
    return menu;
  } catch (const InputError& error) {
    return error;
  } catch (const Json::exception& error) {
    return InputError{"", error.what()};
  }
}

std::variant<ExploreMenu, InputError> LoadMenuFile(const std::string& path, const Scenario& scenario) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InputError{"", "cannot be read"};
  std::ostringstream text;
  text << in.rdbuf();
  return ParseMenuText(text.str(), scenario);
}

std::optional<std::string> ExploreRefusal(const Scenario& scenario) {
  if (scenario.nemesis.enabled) {
    return "scenario \"" + scenario.name + "\" draws nemesis faults per seed; explore places every fault itself "
           "(remove its \"nemesis\")";
  }
  return std::nullopt;
}

std::vector<MenuItem> BuildMenu(const Scenario& scenario, const ExploreMenu& menu) {
  assert(!menu.targets.empty());
  assert(!menu.durations.empty());
  std::vector<MenuItem> items;
  const std::vector<Timing> timings = Timings(menu);
  for (FaultKind kind : menu.kinds) {
    const FaultKindSpec& spec = SpecOf(kind);
    const bool sized = std::any_of(spec.fields.begin(), spec.fields.end(), IsMagnitude);
    for (const Timing& timing : timings) {
      const bool armed = !timing.point.empty();
      if (armed && !spec.armable) continue;
      const std::size_t targets = UsesTarget(spec, armed) ? menu.targets.size() : 1;
      const std::size_t sizes = sized ? menu.durations.size() : 1;
      for (std::size_t t = 0; t < targets; ++t) {
        for (std::size_t s = 0; s < sizes; ++s) {
          AddCell(spec, timing, Cell{scenario, menu.targets[t], menu.durations[s]}, items);
        }
      }
    }
  }
  return items;
}

std::uint64_t PlacementCount(std::uint64_t items, int k_max) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t total = 1;   // the empty placement
  std::uint64_t choose = 1;  // C(items, k)
  for (int k = 1; k <= k_max && static_cast<std::uint64_t>(k) <= items; ++k) {
    const std::uint64_t factor = items - static_cast<std::uint64_t>(k) + 1;
    if (choose > kMax / factor) return kMax;
    choose = choose * factor / static_cast<std::uint64_t>(k);  // exact: C(n, k-1)·(n-k+1) is divisible by k
    if (total > kMax - choose) return kMax;
    total += choose;
  }
  return total;
}

PlacementCursor::PlacementCursor(std::size_t items, int k_max) : items_(items), k_max_(k_max) {
  assert(k_max >= 0);
}

void PlacementCursor::Next() {
  assert(!done_);
  ++index_;
  const std::size_t k = current_.size();
  // The rightmost index that can still move right (position i of k tops out at items - k + i).
  for (std::size_t i = k; i-- > 0;) {
    if (current_[i] < items_ - (k - i)) {
      ++current_[i];
      for (std::size_t j = i + 1; j < k; ++j) current_[j] = current_[j - 1] + 1;
      return;
    }
  }
  // Every set of this size is done: the first set of the next size.
  if (k + 1 > static_cast<std::size_t>(k_max_) || k + 1 > items_) {
    done_ = true;
    return;
  }
  current_.resize(k + 1);
  for (std::size_t j = 0; j <= k; ++j) current_[j] = j;
}

std::vector<std::string> ExploreReport::ProbesNeverReached() const {
  std::vector<std::string> never;
  for (const auto& [probe, placements] : probes) {
    if (placements == 0) never.push_back(probe);
  }
  return never;
}

Scenario PlacementScenario(const Scenario& base, const std::vector<MenuItem>& menu,
                           const std::vector<std::size_t>& items, std::uint64_t index) {
  Scenario scenario = base;
  scenario.name = base.name + "-placement-" + std::to_string(index);
  scenario.description = "Placement " + std::to_string(index) + " of leasesim explore on " + base.name + ":";
  for (std::size_t item : items) {
    scenario.faults.push_back(menu.at(item).fault);
    scenario.description += (item == items.front() ? " " : "; ") + menu.at(item).label;
  }
  if (items.empty()) scenario.description += " no fault added";
  return scenario;
}

ExploreReport Explore(const Scenario& base, const std::vector<MenuItem>& menu, const ExploreOptions& options,
                      const std::function<void(const ViolatingPlacement&)>& on_violation,
                      const std::function<void(const ExploreProgress&)>& on_progress) {
  assert(options.faults >= 1);
  assert(options.faults <= kExploreFaultsMax);
  ExploreReport report;
  report.menu_items = menu.size();
  const std::uint64_t all = PlacementCount(menu.size(), options.faults);
  report.planned = options.limit > 0 ? std::min(all, options.limit) : all;
  for (std::string_view probe : core::kProbeNames) report.probes.emplace_back(probe, 0);
  for (std::string_view point : core::kFaultPointNames) report.fault_points.emplace_back(point, 0);
  const auto count = [](const RunResult& result, std::string_view prefix, auto& counts) {
    for (auto& [name, placements] : counts) {
      const auto it = result.figures.find(std::string(prefix) + name);
      if (it != result.figures.end() && it->second > 0) ++placements;
    }
  };
  const auto watch = [&](bool finished) {
    if (on_progress) on_progress({report.ran, report.planned, report.violating, finished});
  };
  watch(false);
  for (PlacementCursor cursor(menu.size(), options.faults); !cursor.done() && report.ran < report.planned;
       cursor.Next()) {
    Scenario scenario = PlacementScenario(base, menu, cursor.current(), cursor.index());
    const RunResult result = RunScenario(scenario, options.seed);
    ++report.ran;
    count(result, base::kProbeFigurePrefix, report.probes);
    count(result, base::kFaultPointFigurePrefix, report.fault_points);
    report.violating += result.ok() ? 0 : 1;
    watch(false);
    if (result.ok()) continue;
    ViolatingPlacement found{cursor.index(), cursor.current(), std::move(scenario), result.unexpected};
    if (on_violation) on_violation(found);
    if (report.kept.size() < options.keep) report.kept.push_back(std::move(found));
    if (options.stop_at_first) break;
  }
  watch(true);
  return report;
}

}  // namespace leasesim::runner
