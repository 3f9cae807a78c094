#include "runner/run.h"

#include <algorithm>
#include <cassert>
#include <memory>
#include <set>

#include "backends/sim_node.h"
#include "backends/sim_services.h"
#include "checker/checker.h"
#include "runner/recorder.h"
#include "sim/network.h"
#include "sim/world.h"

namespace leasesim::runner {
namespace {

const char* kFaultNames[] = {"crash", "restart", "pause", "suspend", "partition", "clock_drift", "clock_step"};

// Everything one run builds, torn down in the right order (world last:
// destroying it unwinds fibers that reference the rest).
class RunWorld {
 public:
  RunWorld(const Scenario& scenario, std::uint64_t seed, const RunOptions& options)
      : scenario_(scenario), world_(seed, options.retain_trace) {
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
      }
      node_hosts_.push_back(world_.AddHost(config));
    }
    store_host_ = world_.AddHost({.name = "store", .wall_start = kWallClockBase});
    ledger_host_ = world_.AddHost({.name = "ledger", .wall_start = kWallClockBase});
    network_ = std::make_unique<sim::Network>(world_, world_.MakePrng("network"), scenario.network);
    recorder_ = std::make_unique<Recorder>(world_, node_hosts_);
    store_ = std::make_unique<backends::SimStoreServer>(world_, store_host_, world_.MakePrng("store"),
                                                        scenario.store_latency, *recorder_);
    ledger_ = std::make_unique<backends::SimLedgerServer>(
        world_, ledger_host_, world_.MakePrng("ledger"), scenario.store_latency, *recorder_,
        backends::LedgerOptions{});
  }

  ~RunWorld() {
    // Fibers reference the servers, network and recorder: unwind them first.
    for (sim::HostId host : node_hosts_) world_.Crash(host);
  }

  RunResult Run(const RunOptions& options) {
    world_.Start(store_host_);
    world_.Start(ledger_host_);
    for (int node = 1; node <= scenario_.nodes; ++node) {
      const sim::HostId host = node_hosts_[static_cast<std::size_t>(node - 1)];
      backends::SimNodeConfig config;
      config.node = node;
      config.elector.key = scenario_.lease_key;
      config.elector.timing = scenario_.timing;
      config.settlement.period = scenario_.settlement_period;
      config.settlement.schedule_epoch_wall = kWallClockBase;
      config.settlement.batch_items = scenario_.batch_items;
      config.settlement.poll = scenario_.settlement_poll;
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
    assumptions.recovery_bound_ns = core::RecoveryBound(scenario_.timing);
    std::vector<std::int64_t> due;
    for (std::int64_t k = 0; (k + 1) * scenario_.settlement_period <= scenario_.duration; ++k) due.push_back(k);
    checker::History history = recorder_->Finish(assumptions, std::move(due));
    result.verdict = checker::CheckHistory(history);
    const std::set<std::string> expected(scenario_.expect_violations.begin(), scenario_.expect_violations.end());
    for (const checker::Violation& violation : result.verdict.violations) {
      if (!expected.contains(violation.kind)) result.unexpected.push_back(violation);
    }
    result.figures = Figures(history);
    result.trace_hash = world_.trace().hash();
    result.trace_events = world_.trace().count();
    if (options.retain_trace) result.trace = world_.trace().events();
    if (options.keep_history) result.history = std::move(history);
    return result;
  }

 private:
  sim::HostId HostOf(int node) const { return node_hosts_.at(static_cast<std::size_t>(node - 1)); }

  bool WithinAssumptions(const Fault& fault) const {
    switch (fault.kind) {
      case FaultKind::kPause:
        return fault.duration <= scenario_.timing.pause_budget;
      case FaultKind::kSuspend:
        return fault.duration <= scenario_.timing.pause_budget;
      case FaultKind::kClockDrift:
        return std::abs(fault.drift_ppm) <= scenario_.timing.drift_bound_ppm;
      default:
        return true;
    }
  }

  void Inject(const Fault& fault) {
    checker::FaultRecord record;
    record.kind = kFaultNames[static_cast<int>(fault.kind)];
    record.start_ns = world_.now();
    record.end_ns = world_.now() + fault.duration;
    record.within_assumptions = WithinAssumptions(fault);
    int node = fault.node.node;
    if (fault.kind != FaultKind::kPartition) {
      if (fault.node.leader) {
        const std::optional<int> leader = recorder_->CurrentLeader();
        if (!leader) {
          record.description = "skipped: no node held the lease when the fault fired";
          record.end_ns = record.start_ns;
          recorder_->AddFault(std::move(record));
          world_.trace().Record(world_.now(), -1, "fault_skipped", static_cast<std::int64_t>(fault.kind));
          return;
        }
        node = *leader;
      }
      record.nodes = {node};
    }
    world_.trace().Record(world_.now(), node == 0 ? -1 : HostOf(node), "fault",
                          static_cast<std::int64_t>(fault.kind), fault.duration);
    switch (fault.kind) {
      case FaultKind::kCrash:
        recorder_->NodeCrashed(node);
        world_.Crash(HostOf(node));
        record.end_ns = record.start_ns;
        break;
      case FaultKind::kRestart:
        world_.Restart(HostOf(node));
        record.end_ns = record.start_ns;
        break;
      case FaultKind::kPause: {
        const sim::HostId host = HostOf(node);
        world_.Pause(host);
        world_.At(world_.now() + fault.duration, [this, host] { world_.Unpause(host); });
        break;
      }
      case FaultKind::kSuspend: {
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
          if (member.kind == Member::Kind::kNode) record.nodes.push_back(member.node);
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
        record.end_ns = record.start_ns;
        record.description = "wall clock stepped by " + std::to_string(fault.step / sim::kNanosPerMilli) + " ms";
        break;
    }
    recorder_->AddFault(std::move(record));
  }

  sim::HostId HostOfMember(const Member& member) const {
    switch (member.kind) {
      case Member::Kind::kStore: return store_host_;
      case Member::Kind::kLedger: return ledger_host_;
      case Member::Kind::kNode: return HostOf(member.node);
    }
    return store_host_;
  }

  std::map<std::string, std::int64_t> Figures(const checker::History& history) const {
    std::map<std::string, std::int64_t> figures;
    // Leaderless time: the part of the run no belief covers.
    std::vector<std::pair<checker::TimeNs, checker::TimeNs>> spans;
    for (const checker::LeadershipBelief& belief : history.beliefs) spans.emplace_back(belief.from_ns, belief.until_ns);
    std::sort(spans.begin(), spans.end());
    checker::TimeNs covered = 0;
    checker::TimeNs reach = 0;
    for (const auto& [from, until] : spans) {
      const checker::TimeNs start = std::max(from, reach);
      if (until > start) covered += until - start;
      reach = std::max(reach, until);
    }
    figures["leaderless_ms"] = (history.end_ns - covered) / sim::kNanosPerMilli;
    std::set<std::pair<std::string, std::int64_t>> holders;
    for (const checker::LeadershipBelief& belief : history.beliefs) {
      holders.emplace(belief.holder, belief.term);
      if (belief.end_reason != "end_of_run" && belief.end_reason != "reacquired") {
        figures["demotions_" + belief.end_reason] += 1;
      }
    }
    figures["leader_terms"] = static_cast<std::int64_t>(holders.size());
    for (const checker::LedgerWrite& write : history.ledger_writes) {
      switch (write.result) {
        case checker::LedgerResult::kApplied: figures["settlements_applied"] += 1; break;
        case checker::LedgerResult::kRejectedStale: figures["fenced_writes_rejected"] += 1; break;
        case checker::LedgerResult::kDuplicate: figures["duplicate_settlements_suppressed"] += 1; break;
        case checker::LedgerResult::kLost: figures["ledger_writes_lost"] += 1; break;
      }
    }
    std::int64_t unknown = 0;
    for (const checker::StoreOp& op : history.store_ops) unknown += op.outcome == checker::Outcome::kUnknown ? 1 : 0;
    figures["store_ops"] = static_cast<std::int64_t>(history.store_ops.size());
    figures["store_ops_unknown"] = unknown;
    figures["sim_events"] = static_cast<std::int64_t>(world_.events_processed());
    return figures;
  }

  const Scenario& scenario_;
  sim::World world_;
  std::vector<sim::HostId> node_hosts_;
  sim::HostId store_host_ = 0;
  sim::HostId ledger_host_ = 0;
  std::unique_ptr<sim::Network> network_;
  std::unique_ptr<Recorder> recorder_;
  std::unique_ptr<backends::SimStoreServer> store_;
  std::unique_ptr<backends::SimLedgerServer> ledger_;
};

}  // namespace

const char* FaultKindName(FaultKind kind) { return kFaultNames[static_cast<int>(kind)]; }

RunResult RunScenario(const Scenario& scenario, std::uint64_t seed, const RunOptions& options) {
  RunWorld world(scenario, seed, options);
  return world.Run(options);
}

}  // namespace leasesim::runner
