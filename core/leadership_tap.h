#pragma once
// What a leader-callback runner needs to know about the elector, learnt by
// listening rather than by asking: TappedEnv is the elector's Env, passing
// every call through to the real one unchanged, while LeadershipTap notes
// the protocol events it emits (each demotion names its reason) and the
// holder of every lease
// record its store calls return. The elector itself is untouched, makes no
// extra call, and behaves exactly as without the tap.

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "core/env.h"
#include "core/events.h"

namespace leasesim::core {

// Durations in fixed buckets (Prometheus histogram semantics: bucket i
// counts observations <= kBoundsNs[i]; the last, +Inf, counts the rest).
struct DurationHistogram {
  static constexpr std::array<Nanos, 12> kBoundsNs{
      1'000'000,   2'500'000,   5'000'000,     10'000'000,    25'000'000,    50'000'000,
      100'000'000, 250'000'000, 500'000'000, 1'000'000'000, 2'500'000'000, 5'000'000'000};
  std::array<std::int64_t, kBoundsNs.size() + 1> counts{};  // per bucket, not cumulative
  std::int64_t count = 0;
  Nanos sum_ns = 0;

  void Observe(Nanos duration);
};

// Listens to the elector's events and store calls and keeps what a leader
// runner asks: who holds the lease, and why this process stopped leading.
class LeadershipTap final : public EventSink {
 public:
  explicit LeadershipTap(Env& inner) : inner_(inner), store_(*this) {}

  void Emit(const LeaseEvent& event) override;

  // Why this process last stopped leading in `term`; nullopt when it never
  // did (or more than kDemotionsKept demotions ago).
  std::optional<DemotionReason> DemotionOf(std::int64_t term) const;
  // The holder of the lease record as last seen (empty: released or
  // absent); holder_changes() grows whenever it changes.
  const std::string& holder() const { return holder_; }
  std::int64_t holder_changes() const { return holder_changes_; }

  // Each successful renewal's store call, from just before it was sent to
  // its reply (the elector's own renewal latency, to within a clock read).
  const DurationHistogram& renewal_durations() const { return renewal_durations_; }

  // The store calls of the elector, passed on and watched.
  StoreClient& store() { return store_; }

 private:
  // The elector's store, passed through unchanged while the holder of every
  // record it returns is given to the tap.
  class WatchedStore final : public StoreClient {
   public:
    explicit WatchedStore(LeadershipTap& tap) : tap_(tap) {}
    StoreResult Read(std::string_view key, Nanos timeout) override;
    StoreResult Create(std::string_view key, const LeaseRecord& record, Nanos timeout) override;
    StoreResult CompareAndSet(std::string_view key, std::int64_t expected_version, const LeaseRecord& record,
                              Nanos timeout) override;
    bool CanWatch() const override;
    StoreResult WaitForChange(std::string_view key, std::int64_t known_version, Nanos timeout) override;
    StoreResult WaitForChangeWhile(std::string_view key, std::int64_t known_version,
                                   const std::function<Nanos()>& next_timeout,
                                   const std::function<bool()>& again) override;

   private:
    LeadershipTap& tap_;
  };

  // Times a store call and notes the record it returned.
  template <typename Call>
  StoreResult Watch(Call&& call);
  void Saw(const StoreResult& result);
  void SetHolder(const std::string& holder);

  // A reader may ask after a few more leaderships came and went (a real
  // thread that was descheduled): the latest few demotions are kept.
  static constexpr std::size_t kDemotionsKept = 8;
  struct Ended {
    std::int64_t term = 0;  // 0: empty slot
    DemotionReason reason = DemotionReason::kDeadline;
  };

  Env& inner_;
  WatchedStore store_;
  std::int64_t demotions_ = 0;
  std::array<Ended, kDemotionsKept> ended_{};
  std::string holder_;
  std::int64_t holder_changes_ = 0;
  Nanos last_call_ns_ = 0;  // the latest store call's duration
  DurationHistogram renewal_durations_;
};

// The Env the elector runs on: the real one, with events and store calls
// going through the tap.
class TappedEnv final : public Env {
 public:
  TappedEnv(Env& inner, LeadershipTap& tap) : inner_(inner), tap_(tap) {}

  Nanos MonotonicNow() override { return inner_.MonotonicNow(); }
  Nanos BootNow() override { return inner_.BootNow(); }
  Nanos WallNow() override { return inner_.WallNow(); }
  void SleepUntil(Nanos monotonic_deadline) override { inner_.SleepUntil(monotonic_deadline); }
  // Passed through, so the inner Env's way of polling (a simulator's
  // steps without a task switch) and its KV stores stay visible.
  void SleepInSteps(Nanos period, const std::function<bool()>& done) override { inner_.SleepInSteps(period, done); }
  void Spawn(std::string_view name, std::function<void()> task) override { inner_.Spawn(name, std::move(task)); }
  StoreClient& store() override { return tap_.store(); }
  LedgerClient& ledger() override { return inner_.ledger(); }
  EventSink& events() override { return tap_; }
  int kv_servers() const override { return inner_.kv_servers(); }
  KvClient& kv(int server) override { return inner_.kv(server); }
  std::uint64_t Random() override { return inner_.Random(); }
  void AtFaultPoint(FaultPoint point) override { inner_.AtFaultPoint(point); }
  void Sometimes(Probe probe) override { inner_.Sometimes(probe); }

 private:
  Env& inner_;
  LeadershipTap& tap_;
};

}  // namespace leasesim::core
