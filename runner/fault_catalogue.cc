#include "runner/fault_catalogue.h"

#include "runner/fault_kinds.h"

namespace leasesim::runner {
namespace {

using F = FaultField;
using T = FaultTarget;
namespace k = fault_kinds;

// An entry, named with its kind's one word (checker/fault_kind.h).
constexpr FaultKindSpec Named(FaultKindSpec spec) {
  spec.name = checker::kFaultKindNames.Name(spec.kind);
  return spec;
}

// The catalogue. One entry per FaultKind, in enum order (checked below).
// draw_rank is the generator's order: the nemesis drew its kinds in this
// order before the catalogue existed, and seeds keep drawing what they drew.
constexpr FaultKindSpec kCatalogue[] = {
    Named({.kind = FaultKind::kCrash,
           .summary = "the process dies: fibers unwound, memory lost, messages to it dropped",
           .target = T::kNode,
           .fields = {F::kNode},
           .strike = &k::StrikeCrash,
           .draw_rank = 0,
           .draw = &k::DrawCrash}),
    Named({.kind = FaultKind::kRestart,
           .summary = "a crashed node boots a new incarnation (a new identity); a live node is left alone",
           .target = T::kNode,
           .fields = {F::kNodeNumber},
           .armable = false,
           .strike = &k::StrikeRestart,
           .draw_rank = -1}),
    Named({.kind = FaultKind::kPause,
           .summary = "stop-the-world (GC): nothing runs, clocks go on, messages and timers queue",
           .target = T::kNode,
           .fields = {F::kNode, F::kDuration},
           .within = &k::WithinPauseBudget,
           .strike = &k::StrikePause,
           .draw_rank = 1,
           .drawable = &k::HasPauseBudgetOrMayExceed,
           .draw = &k::DrawPauseOrSuspend}),
    Named({.kind = FaultKind::kSuspend,
           .summary = "as pause, and the monotonic clock stands still (VM suspend)",
           .target = T::kNode,
           .fields = {F::kNode, F::kDuration},
           .within = &k::WithinPauseBudget,
           .strike = &k::StrikeSuspend,
           .draw_rank = 2,
           .drawable = &k::HasPauseBudgetOrMayExceed,
           .draw = &k::DrawPauseOrSuspend}),
    Named({.kind = FaultKind::kPartition,
           .summary = "no messages between hosts of different groups",
           .target = T::kLinks,
           .fields = {F::kDuration, F::kGroups},
           .strike = &k::StrikePartition,
           .draw_rank = 3,
           .draw = &k::DrawPartition}),
    Named({.kind = FaultKind::kClockDrift,
           .summary = "the node's oscillator rate (all its clocks) from now on",
           .target = T::kNode,
           .fields = {F::kNode, F::kDriftPpm},
           .within = &k::WithinDriftBound,
           .strike = &k::StrikeClockDrift,
           .draw_rank = 10,
           .draw = &k::DrawClockDrift}),
    Named({.kind = FaultKind::kClockStep,
           .summary = "the node's wall clock jumps by step_ms (negative: backwards)",
           .target = T::kNode,
           .fields = {F::kNode, F::kStep},
           .strike = &k::StrikeClockStep,
           .draw_rank = 11,
           .draw = &k::DrawClockStep}),
    Named({.kind = FaultKind::kPartitionOneWay,
           .summary = "messages from `from` hosts to `to` hosts are dropped",
           .target = T::kLinks,
           .fields = {F::kDuration, F::kFrom, F::kTo},
           .strike = &k::StrikeOneWay,
           .draw_rank = 6,
           .draw = &k::DrawOneWay}),
    Named({.kind = FaultKind::kIsolateFromStore,
           .summary = "the node and the store cannot talk",
           .target = T::kNode,
           .fields = {F::kNode, F::kDuration},
           .strike = &k::StrikeIsolateFromStore,
           .draw_rank = 5,
           .drawable = &k::HasSingleStore,
           .draw = &k::DrawIsolation}),
    Named({.kind = FaultKind::kClog,
           .summary = "messages from -> to are held until the clog ends, then delivered",
           .target = T::kLinks,
           .fields = {F::kDuration, F::kFrom, F::kTo},
           .strike = &k::StrikeClog,
           .draw_rank = 7,
           .drawable = &k::HasPauseBudgetOrMayExceed,
           .draw = &k::DrawClog}),
    Named({.kind = FaultKind::kStoreOutage,
           .summary = "the store rejects (unavailable) or ignores (blackhole) every request",
           .target = T::kStore,
           .fields = {F::kDuration, F::kMode},
           .strike = &k::StrikeStoreOutage,
           .draw_rank = 8,
           .drawable = &k::HasSingleStore,
           .draw = &k::DrawStoreOutage}),
    Named({.kind = FaultKind::kStoreLatency,
           .summary = "every store request takes extra_ms longer",
           .target = T::kStore,
           .fields = {F::kDuration, F::kExtra},
           .strike = &k::StrikeStoreLatency,
           .draw_rank = 9,
           .drawable = &k::HasSingleStore,
           .draw = &k::DrawStoreLatency}),
    Named({.kind = FaultKind::kShutdown,
           .summary = "graceful handoff (to the successor first), then the process exits",
           .target = T::kNode,
           .fields = {F::kNode, F::kSuccessor},
           .strike = &k::StrikeShutdown,
           .draw_rank = 12,
           .drawable = &k::HasTwoNodes,
           .draw = &k::DrawShutdown}),
    Named({.kind = FaultKind::kIsolate,
           .summary = "the node can reach no other host, nor they it",
           .target = T::kNode,
           .fields = {F::kNode, F::kDuration},
           .strike = &k::StrikeIsolate,
           .draw_rank = 4,
           .draw = &k::DrawIsolation}),
    Named({.kind = FaultKind::kReplicaCrash,
           .summary = "a store replica dies (its log survives on disk)",
           .target = T::kReplica,
           .fields = {F::kReplica},
           .strike = &k::StrikeReplicaCrash,
           .draw_rank = 13,
           .drawable = &k::HasReplicatedStore,
           .draw = &k::DrawReplicaCrash}),
    Named({.kind = FaultKind::kReplicaRestart,
           .summary = "a crashed replica boots again; a live one is left alone",
           .target = T::kReplica,
           .fields = {F::kReplicaNumber},
           .strike = &k::StrikeReplicaRestart,
           .draw_rank = -1}),
    Named({.kind = FaultKind::kReplicaPause,
           .summary = "a store replica stops the world for duration_ms",
           .target = T::kReplica,
           .fields = {F::kReplica, F::kDuration},
           .strike = &k::StrikeReplicaPause,
           .draw_rank = 14,
           .drawable = &k::HasReplicatedStore,
           .draw = &k::DrawReplicaPause}),
    Named({.kind = FaultKind::kIsolateRegion,
           .summary = "no messages in or out of the region",
           .target = T::kRegion,
           .fields = {F::kRegion, F::kDuration},
           .strike = &k::StrikeIsolateRegion,
           .draw_rank = 15,
           .drawable = &k::HasRegions,
           .draw = &k::DrawIsolateRegion}),
    Named({.kind = FaultKind::kKvPause,
           .summary = "a KV store host stops the world: no expiry, requests queue, TTLs run on",
           .target = T::kKv,
           .fields = {F::kKv, F::kDuration},
           .strike = &k::StrikeKvPause,
           .draw_rank = 16,
           .drawable = &k::HasKvStores,
           .draw = &k::DrawKvStop}),
    Named({.kind = FaultKind::kKvCrash,
           .summary = "a KV store host is down for duration_ms, then up: data kept, every TTL restarted",
           .target = T::kKv,
           .fields = {F::kKv, F::kDuration},
           .strike = &k::StrikeKvCrash,
           .draw_rank = 17,
           .drawable = &k::HasKvStores,
           .draw = &k::DrawKvStop}),
    Named({.kind = FaultKind::kKvClockDrift,
           .summary = "a KV store host's oscillator rate from now on (its TTLs run at it)",
           .target = T::kKv,
           .fields = {F::kKv, F::kDriftPpm},
           .within = &k::WithinDriftBound,
           .strike = &k::StrikeKvClockDrift,
           .draw_rank = 18,
           .drawable = &k::HasKvStores,
           .draw = &k::DrawKvClockDrift}),
    Named({.kind = FaultKind::kKvClockStep,
           .summary = "a KV store host's wall clock jumps (ends wall-judged TTLs early or late)",
           .target = T::kKv,
           .fields = {F::kKv, F::kStep},
           .strike = &k::StrikeKvClockStep,
           .draw_rank = 19,
           .drawable = &k::HasKvStores,
           .draw = &k::DrawKvClockStep}),
    Named({.kind = FaultKind::kKvOutage,
           .summary = "a KV store rejects (unavailable) or ignores (blackhole) every request",
           .target = T::kKv,
           .fields = {F::kKv, F::kDuration, F::kMode},
           .strike = &k::StrikeKvOutage,
           .draw_rank = 20,
           .drawable = &k::HasKvStores,
           .draw = &k::DrawKvOutage}),
    Named({.kind = FaultKind::kKvLatency,
           .summary = "every request to a KV store takes extra_ms longer",
           .target = T::kKv,
           .fields = {F::kKv, F::kDuration, F::kExtra},
           .strike = &k::StrikeKvLatency,
           .draw_rank = 21,
           .drawable = &k::HasKvStores,
           .draw = &k::DrawKvLatency}),
    Named({.kind = FaultKind::kKvIsolate,
           .summary = "a KV store host can reach no other host, nor they it",
           .target = T::kKv,
           .fields = {F::kKv, F::kDuration},
           .strike = &k::StrikeKvIsolate,
           .draw_rank = 22,
           .drawable = &k::HasKvStores,
           .draw = &k::DrawKvStop}),
};

// Function pointers are checked by the catalogue test, not here: with the
// sanitizers on, GCC does not treat comparing them as a constant expression.
constexpr bool OneEntryPerKindInOrder() {
  int index = 0;
  for (const FaultKindSpec& spec : kCatalogue) {
    if (static_cast<int>(spec.kind) != index++) return false;
  }
  return index == kFaultKindCount;
}
static_assert(std::size(kCatalogue) == static_cast<std::size_t>(kFaultKindCount),
              "every FaultKind needs exactly one catalogue entry");
static_assert(OneEntryPerKindInOrder(),
              "catalogue entries must follow FaultKind order");

}  // namespace

std::span<const FaultKindSpec> FaultCatalogue() { return kCatalogue; }

const FaultKindSpec& SpecOf(FaultKind kind) { return kCatalogue[static_cast<std::size_t>(kind)]; }

const FaultKindSpec* FindFaultKind(std::string_view name) {
  const std::optional<FaultKind> kind = checker::kFaultKindNames.Parse(name);
  return kind ? &SpecOf(*kind) : nullptr;
}

std::string FaultKindNames() { return checker::kFaultKindNames.List(); }

bool WithinAssumptions(const Fault& fault, const core::TimingConfig& timing) {
  const FaultKindSpec& spec = SpecOf(fault.kind);
  return spec.within == nullptr || spec.within(fault, timing);
}

}  // namespace leasesim::runner
