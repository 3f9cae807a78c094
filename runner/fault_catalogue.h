#pragma once
// The fault catalogue: every fault kind defined once — its name, what it
// does, the fields it takes (which the parser reads and the scenario writer
// writes), what it targets, whether a given fault stays within the
// protocol's stated assumptions, how it strikes and heals, and how the
// generator (nemesis and fuzz) draws one. The parser, the generator, the
// writer and the injector all iterate this table; docs/ADDING_A_FAULT_KIND.md
// says how to add an entry.
//
// The per-kind code lives with its seam: runner/faults_node.cc,
// faults_network.cc, faults_clock.cc, faults_store.cc, faults_replicated.cc,
// faults_kv.cc.

#include <array>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include "checker/history.h"
#include "core/timing.h"
#include "runner/scenario.h"

namespace leasesim::runner {

class Injector;
class FaultDrawContext;

// What a fault acts on; a kNode fault resolves its node (a role, when it
// fires), the others leave `node` to name who triggers them at a fault point.
enum class FaultTarget {
  kNode,     // one node process, `node`
  kLinks,    // network links between members (`groups`, or `from` -> `to`)
  kStore,    // the single store server
  kReplica,  // one replica of the replicated store, `replica`
  kRegion,   // every host in a region, `region`
  kKv,       // one KV store host, `kv`
};

// The fields a kind takes beside at_ms, kind and the arming fields
// (at_point, arrival, lease_remaining_below_ms). runner/fault_fields.h
// parses and writes each; the table there is indexed by this enum.
enum class FaultField {
  kNode,           // "node": a node number, "leader" or "follower"
  kNodeNumber,     // "node": a node number
  kDuration,       // "duration_ms"
  kGroups,         // "groups": partition sides
  kFrom,           // "from": member list
  kTo,             // "to": member list
  kDriftPpm,       // "drift_ppm"
  kStep,           // "step_ms"
  kMode,           // "mode": store outage mode
  kExtra,          // "extra_ms"
  kSuccessor,      // "successor": optional node number
  kReplica,        // "replica": a number, "store_leader" or "store_follower"
  kReplicaNumber,  // "replica": a number
  kRegion,         // "region": a region name
  kKv,             // "kv": a KV store host's name
};
inline constexpr int kFaultFieldCount = static_cast<int>(FaultField::kKv) + 1;

// A kind's fields, in the order they are parsed (and errors reported).
class FaultFields {
 public:
  constexpr FaultFields(std::initializer_list<FaultField> fields) {
    for (FaultField field : fields) list_[count_++] = field;
  }
  constexpr const FaultField* begin() const { return list_.data(); }
  constexpr const FaultField* end() const { return list_.data() + count_; }
  constexpr bool contains(FaultField field) const {
    for (FaultField f : *this) {
      if (f == field) return true;
    }
    return false;
  }

 private:
  std::array<FaultField, 3> list_{};
  std::size_t count_ = 0;
};

// Undoes a strike; scheduled `duration` after it. Empty: nothing to undo
// (instantaneous faults, and clogs, which the network lifts itself).
using Heal = std::function<void()>;

// One kind's entry. The catalogue writes each with designated initialisers,
// leaving out what takes the default.
struct FaultKindSpec {
  FaultKind kind;
  std::string_view name;     // its word (checker/fault_kind.h): in scenario files, histories, live runs
  std::string_view summary;  // one line, for people
  FaultTarget target;
  FaultFields fields;
  // May be armed at a fault point (a restart may not: its node is down).
  bool armable = true;
  // Whether a fault of this kind stays within the stated assumptions (pause
  // budget, drift bound); null: always.
  bool (*within)(const Fault& fault, const core::TimingConfig& timing) = nullptr;
  // Strikes now: `node` is the resolved target of a kNode fault (else 0);
  // fills in the record's description and nodes; returns the heal.
  Heal (*strike)(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
  // The generator: its place in the draw order (kept, so seeds draw what
  // they drew; -1 = never drawn on its own), whether a scenario admits it
  // (null: always), and the draw itself, which pushes the fault(s) it makes.
  int draw_rank = -1;
  bool (*drawable)(const Scenario& scenario, const NemesisConfig& config) = nullptr;
  void (*draw)(FaultDrawContext& context, Fault fault) = nullptr;
};

// Every kind, in FaultKind order.
std::span<const FaultKindSpec> FaultCatalogue();
const FaultKindSpec& SpecOf(FaultKind kind);
// Null when no kind has this name.
const FaultKindSpec* FindFaultKind(std::string_view name);
// "crash, restart, ...", for messages.
std::string FaultKindNames();

// Whether the fault stays within the assumptions `timing` states.
bool WithinAssumptions(const Fault& fault, const core::TimingConfig& timing);

}  // namespace leasesim::runner
