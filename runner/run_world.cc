#include "runner/run_world.h"

#include <cassert>
#include <iterator>
#include <limits>
#include <string>
#include <utility>

#include "backends/sim_node.h"

namespace leasesim::runner {
namespace {

core::Protocol ProtocolOf(const Scenario& scenario) {
  core::ProtocolRegistry::Lookup found = core::Protocols().Find(scenario.protocol);
  assert(found.protocol.has_value() && "the parser and run --protocol admit only registered protocols");
  return std::move(*found.protocol);
}

// The lease store as a KV server: the scenario's store latency and, for the
// stale-read store, how its reads lag. Its compaction window is etcd's
// default, none (--auto-compaction-retention=0): a watch from any revision
// is answered, as the record store always answered one.
backends::KvServerConfig LeaseStoreConfig(const backends::StoreServerConfig& store) {
  backends::KvServerConfig config;
  config.service = store.service;
  config.stale_read_ppm = store.stale_read_ppm;
  config.stale_lag_max = store.stale_lag_ns_max;
  config.state.history_revisions = std::numeric_limits<std::int64_t>::max() / 2;
  return config;
}

}  // namespace

RunWorld::RunWorld(const Scenario& scenario, std::uint64_t seed, const RunOptions& options)
    : scenario_(scenario), protocol_(ProtocolOf(scenario)), world_(seed, options.retain_trace) {
  AddHosts();
  network_ = std::make_unique<sim::Network>(world_, world_.MakePrng("network"), scenario.network);
  recorder_ = std::make_unique<Recorder>(world_, node_hosts_);
  // About one store op per node and renew interval (the leader's renewals
  // and the watch answers they cause, or the followers' reads): reserved,
  // the history is not moved op by op as it grows.
  if (scenario.timing.renew_interval > 0) {
    const Nanos intervals = scenario.duration / scenario.timing.renew_interval + 1;
    recorder_->ExpectStoreOps(static_cast<std::size_t>(scenario.nodes) * static_cast<std::size_t>(intervals) * 5 / 4);
  }
  store_recorder_ = std::make_unique<KvRecorder>(world_, "store", KvRecorder::KvOps::kProjectOnly);
  store_recorder_->ProjectRecord(scenario.lease_key, *recorder_);
  if (scenario.timing.renew_interval > 0) {
    // A renewal per renew interval, each pushed to every other node's stream.
    const Nanos intervals = scenario.duration / scenario.timing.renew_interval + 1;
    store_recorder_->ExpectStreamAnswers(static_cast<std::size_t>(scenario.nodes) *
                                         static_cast<std::size_t>(intervals));
  }
  store_ = std::make_unique<backends::SimKvServer>(world_, store_host_, world_.MakePrng("store"),
                                                   LeaseStoreConfig(scenario.store), *store_recorder_);
  world_.SetBoot(store_host_, [server = store_.get()](sim::HostId, std::uint64_t) {
    server->Start();
    return std::unique_ptr<sim::ProcessState>();
  });
  ledger_ = std::make_unique<backends::SimLedgerServer>(
      world_, ledger_host_, world_.MakePrng("ledger"), scenario.store.service, *recorder_,
      backends::LedgerOptions{.check_fence = protocol_.ledger_checks_fence});
  replicated_ = ReplicatedRun::Make(scenario, world_, *network_, node_hosts_, store_host_, ledger_host_,
                                    kWallClockBase);
  AddReplicatedRecorder();
  AddKvStores();
}

RunWorld::~RunWorld() {
  // Fibers reference the servers, network and recorder: unwind them first.
  for (sim::HostId host : node_hosts_) world_.Crash(host);
}

void RunWorld::AddHosts() {
  base::Prng clocks = world_.MakePrng("clocks");
  for (int node = 1; node <= scenario_.nodes; ++node) {
    sim::HostConfig config;
    config.name = "n" + std::to_string(node);
    // Monotonic clocks start at unrelated readings (nodes booted at different times).
    config.monotonic_start = clocks.UniformRange(sim::Seconds(1), sim::Seconds(1'000'000));
    config.wall_start = kWallClockBase;
    for (const ClockSetting& setting : scenario_.clocks) {
      if (setting.node != node) continue;
      config.drift_ppm = setting.drift_ppm;
      config.wall_start += setting.wall_offset;
    }
    node_hosts_.push_back(world_.AddHost(config));
  }
  store_host_ = world_.AddHost({.name = "store", .wall_start = kWallClockBase});
  ledger_host_ = world_.AddHost({.name = "ledger", .wall_start = kWallClockBase});
}

void RunWorld::AddReplicatedRecorder() {
  if (replicated_ == nullptr || replicated_->store() == nullptr) {
    assert(!scenario_.kv.replicated && "the parser requires a replicated store");
    return;
  }
  // Its replicas and the nodes' clients report to one recorder, which
  // projects core's record calls into the run's history; offered to the
  // protocols as well (docs/SCENARIOS.md, "kv": no host of its own), its KV
  // calls are recorded and judged too.
  const KvRecorder::KvOps ops = scenario_.kv.replicated ? KvRecorder::KvOps::kRecord : KvRecorder::KvOps::kProjectOnly;
  auto recorder = std::make_unique<KvRecorder>(world_, "store", ops);
  recorder->ProjectRecord(scenario_.lease_key, *recorder_);
  replicated_->store()->UseKvObserver(*recorder);
  replicated_recorder_ = recorder.get();
  if (scenario_.kv.replicated) {
    kv_recorders_.push_back(std::move(recorder));
  } else {
    lease_store_recorder_ = std::move(recorder);
  }
}

void RunWorld::AddKvStores() {
  if (scenario_.kv.replicated) return;  // the replicated store's (AddReplicatedRecorder)
  // Hosts after every other (a world without KV stores keeps its host ids),
  // and their own PRNG streams, so nothing else in the world draws differently.
  base::Prng clocks = world_.MakePrng("kv_clocks");
  for (int server = 1; server <= scenario_.kv.servers; ++server) {
    const std::string name = KvHostName(server, scenario_.kv.servers);
    const sim::HostId host = world_.AddHost({.name = name,
                                             .monotonic_start = clocks.UniformRange(sim::Seconds(1), sim::Seconds(1'000'000)),
                                             .wall_start = kWallClockBase});
    kv_recorders_.push_back(std::make_unique<KvRecorder>(world_, name));
    // The first store is where a protocol on core's record store keeps its
    // record (core::KvRecordStore over Env::kv(0)): its calls on the lease
    // key are also the record store's history.
    if (server == 1) kv_recorders_.back()->ProjectRecord(scenario_.lease_key, *recorder_);
    kv_servers_.push_back(std::make_unique<backends::SimKvServer>(world_, host, world_.MakePrng(name),
                                                                  scenario_.kv.server, *kv_recorders_.back()));
    // The store runs on every incarnation of its host (a kv_crash restarts it).
    world_.SetBoot(host, [server = kv_servers_.back().get()](sim::HostId, std::uint64_t) {
      server->Start();
      return std::unique_ptr<sim::ProcessState>();
    });
  }
}

std::vector<checker::KvStoreOp> RunWorld::TakeKvOps() {
  std::vector<checker::KvStoreOp> ops;
  for (const std::unique_ptr<KvRecorder>& recorder : kv_recorders_) {
    std::vector<checker::KvStoreOp> store_ops = recorder->TakeOps();
    ops.insert(ops.end(), std::make_move_iterator(store_ops.begin()), std::make_move_iterator(store_ops.end()));
  }
  return ops;
}

const core::TimingConfig& RunWorld::TimingOf(int node) const {
  for (const NodeTiming& timing : scenario_.timing_by_node) {
    if (timing.node == node) return timing.timing;
  }
  return scenario_.timing;
}

void RunWorld::Start() {
  world_.Start(store_host_);
  world_.Start(ledger_host_);
  if (replicated_) replicated_->Start();
  for (const std::unique_ptr<backends::SimKvServer>& server : kv_servers_) world_.Start(server->host());
  for (const ClockSetting& setting : scenario_.clocks) {
    if (setting.ntp.poll == 0) continue;
    time_syncs_.push_back(std::make_unique<sim::TimeSync>(world_, HostOf(setting.node), kWallClockBase, setting.ntp));
    time_syncs_.back()->Start();
  }
  for (int node = 1; node <= scenario_.nodes; ++node) StartNode(node);
}

void RunWorld::StartNode(int node) {
  const sim::HostId host = HostOf(node);
  backends::SimNodeConfig config;
  config.node = node;
  config.setup.key = scenario_.lease_key;
  config.setup.timing = TimingOf(node);
  config.protocol = &protocol_;
  config.setup.settlement.period = scenario_.settlement_period;
  config.setup.settlement.schedule_epoch_wall = kWallClockBase;
  config.setup.settlement.batch_items = scenario_.batch_items;
  config.setup.settlement.poll = scenario_.settlement_poll;
  config.replicated_store = replicated_ ? replicated_->store() : nullptr;
  config.replicated_observer = replicated_recorder_;
  config.replicated_kv = scenario_.kv.replicated;
  for (const std::unique_ptr<backends::SimKvServer>& server : kv_servers_) config.kv_servers.push_back(server.get());
  config.setup.settlement.request_timeout = scenario_.timing.request_timeout;
  world_.SetBoot(host, [this, config](sim::HostId id, std::uint64_t) {
    return std::make_unique<backends::SimNodeProcess>(world_, *network_, id, config, *store_, *ledger_,
                                                      *recorder_);
  });
  world_.Start(host);
}

}  // namespace leasesim::runner
