#pragma once
// Health of a lease holder for /healthz, in the manner of client-go's
// HealthzAdaptor: unhealthy when this process leads — believes it does, or
// the lease record as it last saw it still names it — and its last
// successful renewal's deadline passed more than `timeout` ago. A leader
// that renews is healthy; one that lost the store keeps claiming the lease
// in the record until it can read it again, so after deadline + timeout it
// is reported (an orchestrator may restart it); one that sees another
// holder, or released the lease, is healthy again. Not leading is healthy.
// Its answer says "leading" only while the elector believes it leads; each
// change of that answer is passed on as a metric event (healthz_leading),
// which the checker holds to the lease like the is_leader gauge.
//
// It sits between the core and the world: as the Env's EventSink (passing
// every event on) it learns the deadline; as a wrapper of the Env's store
// client it learns whom the record names. Its state is atomic, so /healthz
// never waits for the core mutex (whose being stuck is one of the things
// it detects).

#include <atomic>
#include <string>

#include "core/env.h"
#include "core/events.h"

namespace leasesim::etcd {

struct HealthStatus {
  bool healthy = true;
  std::string message;  // why not (or "ok: ...")
};

struct LeaseHealthOptions {
  std::string lease;     // the lease key, for messages
  std::string identity;  // this process incarnation's identity (ElectorConfig::identity)
  core::Nanos timeout = 0;  // how long past its deadline a leader may go unrenewed
};

// The /healthz judge: an EventSink on the elector's events that also watches
// the records its store calls return (store()), and answers Check().
class LeaseHealth final : public core::EventSink {
 public:
  LeaseHealth(core::EventSink& events, core::StoreClient& store, LeaseHealthOptions options);

  void Emit(const core::LeaseEvent& event) override;
  // The store client to give the Env: `store`, watched.
  core::StoreClient& store() { return watched_; }

  // The verdict at `boot_now` (CLOCK_BOOTTIME: the clock lease deadlines
  // are on; RealEnv::BootClockNanos()).
  HealthStatus Check(core::Nanos boot_now) const;

 private:
  // The elector's store, passed through unchanged while the holder of every
  // record it returns is noted.
  class WatchedStore final : public core::StoreClient {
   public:
    WatchedStore(LeaseHealth& health, core::StoreClient& inner) : health_(health), inner_(inner) {}
    core::StoreResult Read(std::string_view key, core::Nanos timeout) override;
    core::StoreResult Create(std::string_view key, const core::LeaseRecord& record, core::Nanos timeout) override;
    core::StoreResult CompareAndSet(std::string_view key, std::int64_t expected_version,
                                    const core::LeaseRecord& record, core::Nanos timeout) override;

   private:
    LeaseHealth& health_;
    core::StoreClient& inner_;
  };

  void Saw(const core::StoreResult& result);

  core::EventSink& events_;
  WatchedStore watched_;
  LeaseHealthOptions options_;
  std::atomic<bool> leading_{false};
  std::atomic<bool> record_names_me_{false};
  std::atomic<core::Nanos> valid_until_{0};
};

}  // namespace leasesim::etcd
