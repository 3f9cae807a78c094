#pragma once
// What one live node process records, one JSON object per line, into its own
// file: every store operation (invoke and completion), every ledger write
// attempt, and every protocol event, each stamped with CLOCK_MONOTONIC. All
// processes of one machine share that clock, so the orchestrator can merge
// the files of every node incarnation into one history on one time line.
// Each line is written with one write(2) as soon as it happens: a SIGKILL
// loses nothing already recorded (an operation whose completion line is
// missing simply has an unknown outcome).
//
// Line kinds ("t"):
//   hello  {node, identity, pid, metrics_port, at}
//   si     store invoke   {op, kind: read|create|cas, key, ev, v: {holder, term, duration_ns}, at}
//   sc     store complete {op, status: ok|conflict|unavailable|timeout, found, version, rv, at}
//   ls     ledger send    {w, write_id, token, key, window, valid, late_ns, wall_seen_ns?, at}
//          (wall_seen_ns: the latest wall-clock reading the process had taken)
//   lc     ledger complete{w, status: applied|stale|duplicate|unavailable|timeout, at}
//   ev     protocol event {event, holder, term, version, monotonic_ns, valid_until_ns?, reason?, window?,
//          other?, metric?, value?, at} (core::ToJson; the callbacks' and metrics' events too)
//   stop   the process stops itself at a fault point {point, at}

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "backends/etcd/etcd_ledger.h"
#include "core/env.h"
#include "core/events.h"

namespace leasesim::etcd {
class RealEnv;
}  // namespace leasesim::etcd

namespace leasesim::live {

// One process's journal file, appended to one whole line per write(2).
class NodeJournal {
 public:
  // Opens (creates, appends to) `path`; ok() tells whether that worked.
  explicit NodeJournal(const std::string& path);
  ~NodeJournal();
  NodeJournal(const NodeJournal&) = delete;
  NodeJournal& operator=(const NodeJournal&) = delete;

  bool ok() const { return fd_ >= 0; }
  // Appends one line (a JSON object without the newline).
  void Write(const std::string& json_line);
  std::int64_t NextId() { return next_id_.fetch_add(1); }

 private:
  int fd_ = -1;
  std::mutex mu_;
  std::atomic<std::int64_t> next_id_{1};
};

// A StoreClient that journals every call around the real one.
class JournaledStore final : public core::StoreClient {
 public:
  JournaledStore(core::StoreClient& inner, NodeJournal& journal) : inner_(inner), journal_(journal) {}
  core::StoreResult Read(std::string_view key, core::Nanos timeout) override;
  core::StoreResult Create(std::string_view key, const core::LeaseRecord& record, core::Nanos timeout) override;
  core::StoreResult CompareAndSet(std::string_view key, std::int64_t expected_version,
                                  const core::LeaseRecord& record, core::Nanos timeout) override;

 private:
  template <typename Call>
  core::StoreResult Journaled(const char* kind, std::string_view key, std::int64_t expected,
                              const core::LeaseRecord* record, Call&& call);
  core::StoreClient& inner_;
  NodeJournal& journal_;
};

// A LedgerClient that journals every commit (with a write id the ledger
// stores, so the orchestrator can find it in etcd afterwards).
class JournaledLedger final : public core::LedgerClient {
 public:
  JournaledLedger(etcd::EtcdLedgerClient& inner, NodeJournal& journal, core::Nanos (*now)())
      : inner_(inner), journal_(journal), now_(now) {}
  core::LedgerResult Commit(const core::SettlementBatch& batch, core::Nanos timeout) override;
  core::LedgerResult LastAppliedWindow(core::Nanos timeout) override;
  // The env whose wall-clock readings each send line reports (its
  // high-water mark); the env is built after this ledger, so it comes later.
  void ReportWallSeenOf(const etcd::RealEnv& env) { wall_env_ = &env; }

 private:
  etcd::EtcdLedgerClient& inner_;
  NodeJournal& journal_;
  core::Nanos (*now_)();
  const etcd::RealEnv* wall_env_ = nullptr;
};

// An EventSink that journals every event.
class JournaledEvents final : public core::EventSink {
 public:
  explicit JournaledEvents(NodeJournal& journal) : journal_(journal) {}
  void Emit(const core::LeaseEvent& event) override;

 private:
  NodeJournal& journal_;
};

// CLOCK_MONOTONIC in nanoseconds.
core::Nanos MonotonicNanos();
// CLOCK_BOOTTIME in nanoseconds (lease deadlines are on it).
core::Nanos BootNanos();

const char* StoreStatusName(core::StoreStatus status);
const char* LedgerStatusName(core::LedgerStatus status);

}  // namespace leasesim::live
