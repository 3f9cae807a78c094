#pragma once
// The per-kind functions the fault catalogue's table (fault_catalogue.cc)
// points at, grouped by the seam they act on. Only the catalogue includes
// this header; everyone else goes through FaultCatalogue().

#include "runner/fault_catalogue.h"
#include "runner/fault_generator.h"
#include "runner/injector.h"

namespace leasesim::runner::fault_kinds {

// Shared: a pause-like fault (pause, suspend, clog) stays within the
// assumptions when it is no longer than the pause budget; the generator
// draws one only when there is a budget or it may go beyond.
bool WithinPauseBudget(const Fault& fault, const core::TimingConfig& timing);
bool HasPauseBudgetOrMayExceed(const Scenario& scenario, const NemesisConfig& config);

// Node processes (faults_node.cc).
Heal StrikeCrash(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
Heal StrikeRestart(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
Heal StrikePause(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
Heal StrikeSuspend(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
Heal StrikeShutdown(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
void DrawCrash(FaultDrawContext& context, Fault fault);
void DrawPauseOrSuspend(FaultDrawContext& context, Fault fault);
void DrawShutdown(FaultDrawContext& context, Fault fault);
bool HasTwoNodes(const Scenario& scenario, const NemesisConfig& config);

// The network (faults_network.cc).
Heal StrikePartition(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
Heal StrikeOneWay(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
Heal StrikeClog(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
Heal StrikeIsolate(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
Heal StrikeIsolateFromStore(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
void DrawPartition(FaultDrawContext& context, Fault fault);
void DrawOneWay(FaultDrawContext& context, Fault fault);
void DrawClog(FaultDrawContext& context, Fault fault);
void DrawIsolation(FaultDrawContext& context, Fault fault);  // isolate, isolate_from_store

// Clocks (faults_clock.cc).
bool WithinDriftBound(const Fault& fault, const core::TimingConfig& timing);
Heal StrikeClockDrift(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
Heal StrikeClockStep(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
void DrawClockDrift(FaultDrawContext& context, Fault fault);
void DrawClockStep(FaultDrawContext& context, Fault fault);
// What a clock fault draws, whose clock it is (a node's, a KV store host's).
std::int64_t DrawDriftPpm(FaultDrawContext& context, bool& beyond);
Nanos DrawWallStep(FaultDrawContext& context);

// The single store server (faults_store.cc).
Heal StrikeStoreOutage(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
Heal StrikeStoreLatency(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
void DrawStoreOutage(FaultDrawContext& context, Fault fault);
void DrawStoreLatency(FaultDrawContext& context, Fault fault);
bool HasSingleStore(const Scenario& scenario, const NemesisConfig& config);  // also isolate_from_store

// The replicated store and regions (faults_replicated.cc).
Heal StrikeReplicaCrash(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
Heal StrikeReplicaRestart(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
Heal StrikeReplicaPause(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
Heal StrikeIsolateRegion(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
void DrawReplicaCrash(FaultDrawContext& context, Fault fault);
void DrawReplicaPause(FaultDrawContext& context, Fault fault);
void DrawIsolateRegion(FaultDrawContext& context, Fault fault);
bool HasReplicatedStore(const Scenario& scenario, const NemesisConfig& config);
bool HasRegions(const Scenario& scenario, const NemesisConfig& config);

// KV store hosts (faults_kv.cc; kv_isolate with the network's, faults_network.cc).
Heal StrikeKvPause(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
Heal StrikeKvCrash(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
Heal StrikeKvClockDrift(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
Heal StrikeKvClockStep(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
Heal StrikeKvOutage(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
Heal StrikeKvLatency(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
Heal StrikeKvIsolate(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record);
void DrawKvStop(FaultDrawContext& context, Fault fault);  // kv_pause, kv_crash, kv_isolate
void DrawKvClockDrift(FaultDrawContext& context, Fault fault);
void DrawKvClockStep(FaultDrawContext& context, Fault fault);
void DrawKvOutage(FaultDrawContext& context, Fault fault);
void DrawKvLatency(FaultDrawContext& context, Fault fault);
bool HasKvStores(const Scenario& scenario, const NemesisConfig& config);

}  // namespace leasesim::runner::fault_kinds
