#include "runner/run.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <memory>
#include <set>

#include "backends/sim_node.h"
#include "backends/sim_services.h"
#include "checker/checker.h"
#include "checker/history_figures.h"
#include "runner/nemesis.h"
#include "runner/recorder.h"
#include "runner/replicated_parse.h"
#include "runner/replicated_setup.h"
#include "sim/network.h"
#include "sim/world.h"
#include "zoo/variants.h"

namespace leasesim::runner {
namespace {

const char* kFaultNames[] = {"crash",     "restart",    "pause",         "suspend",          "partition",
                             "clock_drift", "clock_step", "partition_oneway", "isolate_from_store", "clog",
                             "store_outage", "store_latency", "shutdown", "isolate",
                             "replica_crash", "replica_restart", "replica_pause", "isolate_region"};

const zoo::Variant& VariantOf(const Scenario& scenario) {
  const zoo::Variant* variant = zoo::FindVariant(scenario.variant);
  assert(variant != nullptr && "the parser admits only known variants");
  return *variant;
}

// Everything one run builds, torn down in the right order (world last:
// destroying it unwinds fibers that reference the rest).
class RunWorld {
 public:
  RunWorld(const Scenario& scenario, std::uint64_t seed, const RunOptions& options)
      : scenario_(scenario), variant_(VariantOf(scenario)), world_(seed, options.retain_trace) {
    sim::Prng clocks = world_.MakePrng("clocks");
    for (int node = 1; node <= scenario.nodes; ++node) {
      sim::HostConfig config;
      config.name = "n" + std::to_string(node);
      // Monotonic clocks start at unrelated readings (nodes booted at different times).
      config.monotonic_start = clocks.UniformRange(sim::Seconds(1), sim::Seconds(1'000'000));
      config.wall_start = kWallClockBase;
      for (const ClockSetting& setting : scenario.clocks) {
        if (setting.node != node) continue;
        config.drift_ppm = setting.drift_ppm;
        config.wall_start += setting.wall_offset;
        wall_offset_[node] += setting.wall_offset;
      }
      node_hosts_.push_back(world_.AddHost(config));
    }
    store_host_ = world_.AddHost({.name = "store", .wall_start = kWallClockBase});
    ledger_host_ = world_.AddHost({.name = "ledger", .wall_start = kWallClockBase});
    network_ = std::make_unique<sim::Network>(world_, world_.MakePrng("network"), scenario.network);
    recorder_ = std::make_unique<Recorder>(world_, node_hosts_);
    recorder_->SetFaultPointAction([this](int node, std::string_view point) { return FaultPointReached(node, point); });
    store_ = std::make_unique<backends::SimStoreServer>(world_, store_host_, world_.MakePrng("store"),
                                                        scenario.store, *recorder_);
    ledger_ = std::make_unique<backends::SimLedgerServer>(
        world_, ledger_host_, world_.MakePrng("ledger"), scenario.store.service, *recorder_,
        backends::LedgerOptions{.check_fence = variant_.ledger.checks_fence});
    replicated_ = ReplicatedRun::Make(scenario, world_, *network_, *recorder_, node_hosts_, store_host_, ledger_host_, kWallClockBase);
    // Clock settings are faults from the start when they break the drift bound.
    for (const ClockSetting& setting : scenario.clocks) {
      if (setting.wall_offset < 0) {
        // A wall clock behind true time holds the node's settlement schedule
        // back for the whole run (as a clock_step back would).
        recorder_->AddFault(checker::FaultRecord{
            .kind = "clock_step", .nodes = {setting.node}, .start_ns = 0, .end_ns = scenario.duration,
            .description = "wall clock " + std::to_string(-setting.wall_offset / sim::kNanosPerMilli) +
                           " ms behind from the start"});
      }
      if (setting.drift_ppm == 0) continue;
      checker::FaultRecord record;
      record.kind = "clock_drift";
      record.nodes = {setting.node};
      record.start_ns = 0;
      record.end_ns = scenario.duration;
      record.within_assumptions = std::abs(setting.drift_ppm) <= scenario.timing.drift_bound_ppm;
      record.description = "drift " + std::to_string(setting.drift_ppm) + " ppm from the start";
      recorder_->AddFault(std::move(record));
    }
  }

  ~RunWorld() {
    // Fibers reference the servers, network and recorder: unwind them first.
    for (sim::HostId host : node_hosts_) world_.Crash(host);
  }

  RunResult Run(const RunOptions& options) {
    world_.Start(store_host_);
    world_.Start(ledger_host_);
    if (replicated_) replicated_->Start();
    for (int node = 1; node <= scenario_.nodes; ++node) {
      const sim::HostId host = node_hosts_[static_cast<std::size_t>(node - 1)];
      backends::SimNodeConfig config;
      config.node = node;
      config.elector.key = scenario_.lease_key;
      config.elector.timing = TimingOf(node);
      config.rules = variant_.rules;
      config.settlement.period = scenario_.settlement_period;
      config.settlement.schedule_epoch_wall = kWallClockBase;
      config.settlement.batch_items = scenario_.batch_items;
      config.settlement.poll = scenario_.settlement_poll;
      config.replicated_store = replicated_ ? replicated_->store() : nullptr;
      config.settlement.request_timeout = scenario_.timing.request_timeout;
      world_.SetBoot(host, [this, config](sim::HostId id, std::uint64_t) {
        return std::make_unique<backends::SimNodeProcess>(world_, *network_, id, config, *store_,
                                                          *ledger_, *recorder_);
      });
      world_.Start(host);
    }
    for (const Fault& fault : scenario_.faults) {
      world_.At(fault.at, [this, &fault] { Inject(fault); });
    }
    world_.RunUntil(scenario_.duration);
    for (const Armed& armed : armed_) {
      recorder_->AddFault(checker::FaultRecord{.kind = kFaultNames[static_cast<int>(armed.fault->kind)],
                                               .nodes = {armed.node},
                                               .start_ns = world_.now(),
                                               .end_ns = world_.now(),
                                               .description = "never struck: node " + std::to_string(armed.node) +
                                                              " did not reach " + armed.fault->at_point});
    }

    RunResult result;
    result.scenario = scenario_.name;
    result.seed = world_.master_seed();
    checker::Assumptions assumptions;
    assumptions.drift_bound_ppm = scenario_.timing.drift_bound_ppm;
    assumptions.pause_budget_ns = scenario_.timing.pause_budget;
    assumptions.lease_duration_ns = scenario_.timing.lease_duration;
    assumptions.renew_interval_ns = scenario_.timing.renew_interval;
    assumptions.retry_ns = scenario_.timing.retry;
    assumptions.settlement_period_ns = scenario_.settlement_period;
    // Nodes with a longer lease (lease.by_node) take longer to replace.
    Nanos derived_bound = core::RecoveryBound(scenario_.timing);
    for (const NodeTiming& node : scenario_.timing_by_node) {
      derived_bound = std::max(derived_bound, core::RecoveryBound(node.timing));
    }
    assumptions.recovery_bound_ns = scenario_.recovery_bound > 0 ? scenario_.recovery_bound : derived_bound;
    std::vector<std::int64_t> due;
    for (std::int64_t k = 0; (k + 1) * scenario_.settlement_period <= scenario_.duration; ++k) due.push_back(k);
    checker::History history = recorder_->Finish(assumptions, std::move(due));
    result.verdict = checker::CheckHistory(history);
    const std::set<std::string> expected(scenario_.expect_violations.begin(), scenario_.expect_violations.end());
    for (const checker::Violation& violation : result.verdict.violations) {
      if (!expected.contains(violation.kind)) result.unexpected.push_back(violation);
    }
    result.figures = Figures(history);
    if (replicated_) replicated_->AddFigures(result.figures);
    for (const std::string& point : scenario_.expect_fault_points) {
      if (result.figures.contains("fault_point_" + point)) continue;
      checker::Violation violation{
          .kind = "fault_point_not_reached",
          .message = "The scenario expects every run to reach the fault point " + point +
                     ", but this run never did: a fault aimed there could not have struck.",
          .at_ns = history.end_ns,
          .nodes = {},
      };
      result.verdict.violations.push_back(violation);
      if (!expected.contains(violation.kind)) result.unexpected.push_back(std::move(violation));
    }
    result.trace_hash = world_.trace().hash();
    result.trace_events = world_.trace().count();
    if (options.retain_trace) result.trace = world_.trace().events();
    if (options.keep_history) result.history = std::move(history);
    return result;
  }

 private:
  sim::HostId HostOf(int node) const { return node_hosts_.at(static_cast<std::size_t>(node - 1)); }

  const core::TimingConfig& TimingOf(int node) const {
    for (const NodeTiming& timing : scenario_.timing_by_node) {
      if (timing.node == node) return timing.timing;
    }
    return scenario_.timing;
  }

  bool WithinAssumptions(const Fault& fault) const {
    switch (fault.kind) {
      case FaultKind::kPause:
        return fault.duration <= scenario_.timing.pause_budget;
      case FaultKind::kSuspend:
        return fault.duration <= scenario_.timing.pause_budget;
      case FaultKind::kClockDrift:
        return std::abs(fault.drift_ppm) <= scenario_.timing.drift_bound_ppm;
      case FaultKind::kClog:
        // Held messages arrive late: like a pause of the link.
        return fault.duration <= scenario_.timing.pause_budget;
      default:
        return true;
    }
  }

  // Strikes an armed fault-point fault on `node` if one matches.
  bool FaultPointReached(int node, std::string_view point) {
    for (auto it = armed_.begin(); it != armed_.end(); ++it) {
      if (it->node != node || it->fault->at_point != point) continue;
      const Fault* fault = it->fault;
      armed_.erase(it);
      Inject(*fault, node);
      return true;
    }
    return false;
  }

  void Inject(const Fault& fault, std::optional<int> struck_node = std::nullopt) {
    if (!fault.at_point.empty() && !struck_node) {
      // Armed now; strikes when the node reaches the point.
      const std::optional<int> target = Resolve(fault.node);
      if (target) {
        armed_.push_back(Armed{*target, &fault});
      } else {
        recorder_->AddFault(checker::FaultRecord{.kind = kFaultNames[static_cast<int>(fault.kind)],
                                                 .start_ns = world_.now(),
                                                 .end_ns = world_.now(),
                                                 .description = "skipped: no node had the role it names when armed"});
      }
      return;
    }
    checker::FaultRecord record;
    record.kind = kFaultNames[static_cast<int>(fault.kind)];
    record.start_ns = world_.now();
    record.end_ns = world_.now() + fault.duration;
    record.within_assumptions = WithinAssumptions(fault);
    // Roles ("leader", "follower") resolve now, so a script stays meaningful across seeds.
    resolved_.clear();
    int node = 0;
    bool resolvable = true;
    const bool targets_node = fault.kind != FaultKind::kPartition && fault.kind != FaultKind::kPartitionOneWay &&
                              fault.kind != FaultKind::kClog && fault.kind != FaultKind::kStoreOutage &&
                              fault.kind != FaultKind::kStoreLatency && !IsReplicatedFaultKind(fault.kind);
    if (targets_node) {
      const std::optional<int> target = struck_node ? struck_node : Resolve(fault.node);
      resolvable = target.has_value();
      node = target.value_or(0);
      if (resolvable) record.nodes = {node};
    }
    auto resolve_members = [&](const std::vector<Member>& members) {
      for (const Member& member : members) {
        if (member.kind == Member::Kind::kReplica) {
          const std::optional<int> replica = replicated_ ? replicated_->Resolve(member.replica) : std::nullopt;
          if (!replica) resolvable = false;
          resolved_[&member] = replica.value_or(0);
          continue;
        }
        if (member.kind != Member::Kind::kNode) continue;
        const std::optional<int> target = Resolve(member.node);
        if (!target) resolvable = false;
        resolved_[&member] = target.value_or(0);
      }
    };
    for (const std::vector<Member>& group : fault.groups) resolve_members(group);
    resolve_members(fault.from);
    resolve_members(fault.to);
    if (!resolvable) {
      record.description = "skipped: no node had the role it names when the fault fired";
      record.end_ns = record.start_ns;
      recorder_->AddFault(std::move(record));
      world_.trace().Record(world_.now(), -1, "fault_skipped", static_cast<std::int64_t>(fault.kind));
      return;
    }
    world_.trace().Record(world_.now(), node == 0 ? -1 : HostOf(node), "fault",
                          static_cast<std::int64_t>(fault.kind), fault.duration);
    switch (fault.kind) {
      case FaultKind::kCrash: {
        record.end_ns = record.start_ns;
        if (!fault.at_point.empty()) {
          record.description = "at " + fault.at_point;
          record.at_point = fault.at_point;
        }
        auto crash = [this, node] {
          recorder_->NodeCrashed(node);
          world_.Crash(HostOf(node));
          NoteIfClusterDown();
        };
        if (world_.in_fiber()) {
          world_.At(world_.now(), crash);  // a fiber cannot unwind itself; it yields first
        } else {
          crash();
        }
        break;
      }
      case FaultKind::kRestart:
        world_.Restart(HostOf(node));
        record.end_ns = record.start_ns;
        if (cluster_down_ && world_.running(HostOf(node))) {
          recorder_->SetFaultEnd(*cluster_down_, world_.now());
          cluster_down_.reset();
        }
        break;
      case FaultKind::kPause: {
        if (!fault.at_point.empty()) {
          record.description = "at " + fault.at_point;
          record.at_point = fault.at_point;
        }
        const sim::HostId host = HostOf(node);
        world_.Pause(host);
        world_.At(world_.now() + fault.duration, [this, host] { world_.Unpause(host); });
        break;
      }
      case FaultKind::kSuspend: {
        if (!fault.at_point.empty()) {
          record.description = "at " + fault.at_point;
          record.at_point = fault.at_point;
        }
        const sim::HostId host = HostOf(node);
        world_.Suspend(host);
        world_.At(world_.now() + fault.duration, [this, host] { world_.Unsuspend(host); });
        break;
      }
      case FaultKind::kPartition: {
        std::vector<std::pair<sim::HostId, sim::HostId>> cut;
        for (std::size_t a = 0; a < fault.groups.size(); ++a) {
          for (std::size_t b = 0; b < fault.groups.size(); ++b) {
            if (a == b) continue;
            for (const Member& from : fault.groups[a]) {
              for (const Member& to : fault.groups[b]) cut.emplace_back(HostOfMember(from), HostOfMember(to));
            }
          }
        }
        for (const Member& member : fault.groups[0]) {
          if (member.kind == Member::Kind::kNode) record.nodes.push_back(resolved_.at(&member));
        }
        for (const auto& [from, to] : cut) network_->SetBlocked(from, to, true);
        world_.At(world_.now() + fault.duration, [this, cut] {
          for (const auto& [from, to] : cut) network_->SetBlocked(from, to, false);
        });
        break;
      }
      case FaultKind::kClockDrift:
        world_.clock(HostOf(node)).SetDriftPpm(world_.now(), fault.drift_ppm);
        record.end_ns = scenario_.duration;
        record.description = "drift " + std::to_string(fault.drift_ppm) + " ppm";
        break;
      case FaultKind::kClockStep:
        world_.clock(HostOf(node)).StepWall(fault.step);
        // A wall clock left behind true time holds the node's settlement
        // schedule back for as long as it stays behind (for the rest of the
        // run, unless a later step puts it right): the fault lasts that long.
        wall_offset_[node] += fault.step;
        record.end_ns = wall_offset_[node] < 0 ? scenario_.duration : record.start_ns;
        record.description = "wall clock stepped by " + std::to_string(fault.step / sim::kNanosPerMilli) + " ms";
        break;
      case FaultKind::kPartitionOneWay:
      case FaultKind::kClog: {
        std::vector<std::pair<sim::HostId, sim::HostId>> links;
        for (const Member& from : fault.from) {
          for (const Member& to : fault.to) {
            if (HostOfMember(from) != HostOfMember(to)) links.emplace_back(HostOfMember(from), HostOfMember(to));
          }
        }
        for (const Member& member : fault.from) {
          if (member.kind == Member::Kind::kNode) record.nodes.push_back(resolved_.at(&member));
        }
        if (fault.kind == FaultKind::kClog) {
          for (const auto& [from, to] : links) network_->ClogUntil(from, to, world_.now() + fault.duration);
          break;
        }
        for (const auto& [from, to] : links) network_->SetBlocked(from, to, true);
        world_.At(world_.now() + fault.duration, [this, links] {
          for (const auto& [from, to] : links) network_->SetBlocked(from, to, false);
        });
        break;
      }
      case FaultKind::kIsolate: {
        const sim::HostId host = HostOf(node);
        std::vector<std::pair<sim::HostId, sim::HostId>> links;
        for (sim::HostId other = 0; other < world_.host_count(); ++other) {
          if (other == host) continue;
          links.emplace_back(host, other);
          links.emplace_back(other, host);
        }
        for (const auto& [from, to] : links) network_->SetBlocked(from, to, true);
        world_.At(world_.now() + fault.duration, [this, links] {
          for (const auto& [from, to] : links) network_->SetBlocked(from, to, false);
        });
        break;
      }
      case FaultKind::kIsolateFromStore: {
        const sim::HostId host = HostOf(node);
        network_->SetBlocked(host, store_host_, true);
        network_->SetBlocked(store_host_, host, true);
        world_.At(world_.now() + fault.duration, [this, host] {
          network_->SetBlocked(host, store_host_, false);
          network_->SetBlocked(store_host_, host, false);
        });
        break;
      }
      case FaultKind::kStoreOutage:
        store_->SetOutage(fault.outage);
        record.description = fault.outage == backends::StoreOutage::kUnavailable ? "requests rejected"
                                                                                : "requests never answered";
        world_.At(world_.now() + fault.duration, [this] { store_->SetOutage(backends::StoreOutage::kNone); });
        break;
      case FaultKind::kStoreLatency:
        store_->SetExtraLatency(fault.extra);
        record.description = "+" + std::to_string(fault.extra / sim::kNanosPerMilli) + " ms per request";
        world_.At(world_.now() + fault.duration, [this] { store_->SetExtraLatency(0); });
        break;
      case FaultKind::kReplicaCrash:
      case FaultKind::kReplicaRestart:
      case FaultKind::kReplicaPause:
      case FaultKind::kIsolateRegion:
        if (replicated_) replicated_->Inject(fault, record);
        break;
      case FaultKind::kShutdown: {
        const sim::HostId host = HostOf(node);
        auto* process = dynamic_cast<backends::SimNodeProcess*>(world_.process(host));
        record.end_ns = record.start_ns;
        if (process == nullptr || !world_.running(host)) {
          record.description = "skipped: the node was not running";
          break;
        }
        const std::string successor = fault.successor == 0 ? "" : "n" + std::to_string(fault.successor);
        record.description = successor.empty() ? "graceful handoff" : "graceful handoff to " + successor;
        const std::uint64_t incarnation = world_.incarnation(host);
        process->BeginShutdown(successor, [this, host, node, incarnation] {
          // The process exits once its lease is released.
          world_.At(world_.now(), [this, host, node, incarnation] {
            if (world_.incarnation(host) != incarnation) return;
            recorder_->NodeCrashed(node);
            world_.Crash(host);
            NoteIfClusterDown();
          });
        });
        break;
      }
    }
    recorder_->AddFault(std::move(record));
  }

  // When a crash or shutdown leaves no node process alive, no leader can
  // return until a restart: the outage is a fault lasting until then (or
  // the end of the run), so liveness is not judged against it.
  void NoteIfClusterDown() {
    if (cluster_down_) return;
    for (int node = 1; node <= scenario_.nodes; ++node) {
      if (world_.state(HostOf(node)) != sim::HostState::kCrashed) return;
    }
    recorder_->AddFault(checker::FaultRecord{.kind = "cluster_down",
                                             .start_ns = world_.now(),
                                             .end_ns = scenario_.duration,
                                             .description = "every node process is down"});
    cluster_down_ = recorder_->LastFaultIndex();
  }

  std::optional<int> Resolve(const NodeRef& ref) const {
    if (ref.leader) return recorder_->CurrentLeader();
    if (!ref.follower) return ref.node;
    const std::optional<int> leader = recorder_->CurrentLeader();
    for (int node = 1; node <= scenario_.nodes; ++node) {
      if (node != leader && world_.state(HostOf(node)) != sim::HostState::kCrashed) return node;
    }
    return std::nullopt;
  }

  sim::HostId HostOfMember(const Member& member) const {
    switch (member.kind) {
      case Member::Kind::kStore: return store_host_;
      case Member::Kind::kLedger: return ledger_host_;
      case Member::Kind::kReplica: return replicated_->HostOfReplica(resolved_.at(&member));
      case Member::Kind::kNode: return HostOf(resolved_.at(&member));
    }
    return store_host_;
  }

  std::map<std::string, std::int64_t> Figures(const checker::History& history) const {
    // The history's own figures (shared with live runs), plus what only the
    // simulator knows: protocol event counts and the number of events run.
    std::map<std::string, std::int64_t> figures = checker::HistoryFigures(history);
    for (const auto& [name, count] : recorder_->event_counts()) figures[name] = count;
    figures["sim_events"] = static_cast<std::int64_t>(world_.events_processed());
    return figures;
  }


  const Scenario& scenario_;
  const zoo::Variant& variant_;
  sim::World world_;
  std::vector<sim::HostId> node_hosts_;
  sim::HostId store_host_ = 0;
  sim::HostId ledger_host_ = 0;
  std::unique_ptr<sim::Network> network_;
  std::unique_ptr<Recorder> recorder_;
  std::unique_ptr<backends::SimStoreServer> store_;
  std::unique_ptr<backends::SimLedgerServer> ledger_;
  std::unique_ptr<ReplicatedRun> replicated_;  // regions and the replicated store, when the scenario has them
  // Node numbers the current fault's role members resolved to.
  std::map<const Member*, int> resolved_;
  std::optional<std::size_t> cluster_down_;  // the open cluster_down fault record
  // Each node's wall-clock offset from true time, from settings and steps.
  std::map<int, Nanos> wall_offset_;
  // Faults waiting for their node to reach their fault point.
  struct Armed {
    int node;
    const Fault* fault;
  };
  std::vector<Armed> armed_;
};

}  // namespace

const char* FaultKindName(FaultKind kind) { return kFaultNames[static_cast<int>(kind)]; }

RunResult RunScenario(const Scenario& scenario, std::uint64_t seed, const RunOptions& options) {
  if (scenario.nemesis.enabled) {
    // The nemesis' script for this seed, as explicit faults: the same run.
    const Scenario expanded = ExpandNemesis(scenario, seed);
    RunWorld world(expanded, seed, options);
    return world.Run(options);
  }
  RunWorld world(scenario, seed, options);
  return world.Run(options);
}

std::vector<std::string> FaultPointsNeverFired(const std::vector<std::string>& required,
                                               const std::vector<const std::map<std::string, std::int64_t>*>& figures) {
  std::vector<std::string> missing;
  for (const std::string& point : required) {
    bool fired = false;
    for (const auto* run : figures) {
      auto it = run->find("fault_point_" + point);
      fired = fired || (it != run->end() && it->second > 0);
    }
    if (!fired && std::find(missing.begin(), missing.end(), point) == missing.end()) missing.push_back(point);
  }
  return missing;
}

}  // namespace leasesim::runner
