#include "runner/fault_catalogue.h"

#include "runner/fault_kinds.h"

namespace leasesim::runner {
namespace {

using F = FaultField;
using T = FaultTarget;
namespace k = fault_kinds;

// The catalogue. One entry per FaultKind, in enum order (checked below).
// draw_rank is the generator's order: the nemesis drew its kinds in this
// order before the catalogue existed, and seeds keep drawing what they drew.
constexpr FaultKindSpec kCatalogue[] = {
    {FaultKind::kCrash, "crash", "the process dies: fibers unwound, memory lost, messages to it dropped",
     T::kNode, {F::kNode}, false, true, nullptr, &k::StrikeCrash, 0, nullptr, &k::DrawCrash},
    {FaultKind::kRestart, "restart", "a crashed node boots a new incarnation (a new identity); a live node is left alone",
     T::kNode, {F::kNodeNumber}, false, false, nullptr, &k::StrikeRestart, -1, nullptr, nullptr},
    {FaultKind::kPause, "pause", "stop-the-world (GC): nothing runs, clocks go on, messages and timers queue",
     T::kNode, {F::kNode, F::kDuration}, false, true, &k::WithinPauseBudget, &k::StrikePause, 1,
     &k::HasPauseBudgetOrMayExceed, &k::DrawPauseOrSuspend},
    {FaultKind::kSuspend, "suspend", "as pause, and the monotonic clock stands still (VM suspend)",
     T::kNode, {F::kNode, F::kDuration}, false, true, &k::WithinPauseBudget, &k::StrikeSuspend, 2,
     &k::HasPauseBudgetOrMayExceed, &k::DrawPauseOrSuspend},
    {FaultKind::kPartition, "partition", "no messages between hosts of different groups",
     T::kLinks, {F::kDuration, F::kGroups}, false, true, nullptr, &k::StrikePartition, 3, nullptr,
     &k::DrawPartition},
    {FaultKind::kClockDrift, "clock_drift", "the node's oscillator rate (all its clocks) from now on",
     T::kNode, {F::kNode, F::kDriftPpm}, false, true, &k::WithinDriftBound, &k::StrikeClockDrift, 10, nullptr,
     &k::DrawClockDrift},
    {FaultKind::kClockStep, "clock_step", "the node's wall clock jumps by step_ms (negative: backwards)",
     T::kNode, {F::kNode, F::kStep}, false, true, nullptr, &k::StrikeClockStep, 11, nullptr, &k::DrawClockStep},
    {FaultKind::kPartitionOneWay, "partition_oneway", "messages from `from` hosts to `to` hosts are dropped",
     T::kLinks, {F::kDuration, F::kFrom, F::kTo}, false, true, nullptr, &k::StrikeOneWay, 6, nullptr,
     &k::DrawOneWay},
    {FaultKind::kIsolateFromStore, "isolate_from_store", "the node and the store cannot talk",
     T::kNode, {F::kNode, F::kDuration}, false, true, nullptr, &k::StrikeIsolateFromStore, 5, &k::HasSingleStore,
     &k::DrawIsolation},
    {FaultKind::kClog, "clog", "messages from -> to are held until the clog ends, then delivered",
     T::kLinks, {F::kDuration, F::kFrom, F::kTo}, false, true, nullptr, &k::StrikeClog, 7,
     &k::HasPauseBudgetOrMayExceed, &k::DrawClog},
    {FaultKind::kStoreOutage, "store_outage", "the store rejects (unavailable) or ignores (blackhole) every request",
     T::kStore, {F::kDuration, F::kMode}, false, true, nullptr, &k::StrikeStoreOutage, 8, &k::HasSingleStore,
     &k::DrawStoreOutage},
    {FaultKind::kStoreLatency, "store_latency", "every store request takes extra_ms longer",
     T::kStore, {F::kDuration, F::kExtra}, false, true, nullptr, &k::StrikeStoreLatency, 9, &k::HasSingleStore,
     &k::DrawStoreLatency},
    {FaultKind::kShutdown, "shutdown", "graceful handoff (to the successor first), then the process exits",
     T::kNode, {F::kNode, F::kSuccessor}, false, true, nullptr, &k::StrikeShutdown, 12, &k::HasTwoNodes,
     &k::DrawShutdown},
    {FaultKind::kIsolate, "isolate", "the node can reach no other host, nor they it",
     T::kNode, {F::kNode, F::kDuration}, false, true, nullptr, &k::StrikeIsolate, 4, nullptr, &k::DrawIsolation},
    {FaultKind::kReplicaCrash, "replica_crash", "a store replica dies (its log survives on disk)",
     T::kReplica, {F::kReplica}, true, true, nullptr, &k::StrikeReplicaCrash, 13, &k::HasReplicatedStore,
     &k::DrawReplicaCrash},
    {FaultKind::kReplicaRestart, "replica_restart", "a crashed replica boots again; a live one is left alone",
     T::kReplica, {F::kReplicaNumber}, true, true, nullptr, &k::StrikeReplicaRestart, -1, nullptr, nullptr},
    {FaultKind::kReplicaPause, "replica_pause", "a store replica stops the world for duration_ms",
     T::kReplica, {F::kReplica, F::kDuration}, true, true, nullptr, &k::StrikeReplicaPause, 14,
     &k::HasReplicatedStore, &k::DrawReplicaPause},
    {FaultKind::kIsolateRegion, "isolate_region", "no messages in or out of the region",
     T::kRegion, {F::kRegion, F::kDuration}, true, true, nullptr, &k::StrikeIsolateRegion, 15, &k::HasRegions,
     &k::DrawIsolateRegion},
    {FaultKind::kKvPause, "kv_pause", "a KV store host stops the world: no expiry, requests queue, TTLs run on",
     T::kKv, {F::kKv, F::kDuration}, false, true, nullptr, &k::StrikeKvPause, 16, &k::HasKvStores, &k::DrawKvStop},
    {FaultKind::kKvCrash, "kv_crash", "a KV store host is down for duration_ms, then up: data kept, every TTL restarted",
     T::kKv, {F::kKv, F::kDuration}, false, true, nullptr, &k::StrikeKvCrash, 17, &k::HasKvStores, &k::DrawKvStop},
    {FaultKind::kKvClockDrift, "kv_clock_drift", "a KV store host's oscillator rate from now on (its TTLs run at it)",
     T::kKv, {F::kKv, F::kDriftPpm}, false, true, &k::WithinDriftBound, &k::StrikeKvClockDrift, 18, &k::HasKvStores,
     &k::DrawKvClockDrift},
    {FaultKind::kKvClockStep, "kv_clock_step", "a KV store host's wall clock jumps (ends wall-judged TTLs early or late)",
     T::kKv, {F::kKv, F::kStep}, false, true, nullptr, &k::StrikeKvClockStep, 19, &k::HasKvStores,
     &k::DrawKvClockStep},
    {FaultKind::kKvOutage, "kv_outage", "a KV store rejects (unavailable) or ignores (blackhole) every request",
     T::kKv, {F::kKv, F::kDuration, F::kMode}, false, true, nullptr, &k::StrikeKvOutage, 20, &k::HasKvStores,
     &k::DrawKvOutage},
    {FaultKind::kKvLatency, "kv_latency", "every request to a KV store takes extra_ms longer",
     T::kKv, {F::kKv, F::kDuration, F::kExtra}, false, true, nullptr, &k::StrikeKvLatency, 21, &k::HasKvStores,
     &k::DrawKvLatency},
    {FaultKind::kKvIsolate, "kv_isolate", "a KV store host can reach no other host, nor they it",
     T::kKv, {F::kKv, F::kDuration}, false, true, nullptr, &k::StrikeKvIsolate, 22, &k::HasKvStores, &k::DrawKvStop},
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
  for (const FaultKindSpec& spec : kCatalogue) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

std::string FaultKindNames() {
  std::string names;
  for (const FaultKindSpec& spec : kCatalogue) names += (names.empty() ? "" : ", ") + std::string(spec.name);
  return names;
}

bool WithinAssumptions(const Fault& fault, const core::TimingConfig& timing) {
  const FaultKindSpec& spec = SpecOf(fault.kind);
  return spec.within == nullptr || spec.within(fault, timing);
}

const char* FaultKindName(FaultKind kind) { return SpecOf(kind).name.data(); }

}  // namespace leasesim::runner
