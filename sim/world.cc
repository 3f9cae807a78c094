#include "sim/world.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace leasesim::sim {
namespace {

#if defined(LEASESIM_ASAN)
constexpr std::size_t kStackBytes = 1024 * 1024;
#else
constexpr std::size_t kStackBytes = 256 * 1024;
#endif

}  // namespace

World::World(std::uint64_t master_seed, bool retain_trace)
    : master_seed_(master_seed), trace_(retain_trace), stacks_(kStackBytes) {
  fibers_.emplace_back();  // id 0 means "no fiber"
}

World::~World() {
  // Unwind every fiber while the hosts and their processes still exist.
  for (Host& host : hosts_) DestroyProcess(host);
}

World::FiberRecord* World::FindFiber(FiberId id) {
  if (id == 0 || id >= fibers_.size()) return nullptr;
  FiberRecord& record = fibers_[id];
  return record.fiber ? &record : nullptr;
}

World::Host& World::Get(HostId host) {
  assert(host >= 0);
  assert(host < static_cast<HostId>(hosts_.size()));
  return hosts_[static_cast<std::size_t>(host)];
}

const World::Host& World::Get(HostId host) const {
  assert(host >= 0);
  assert(host < static_cast<HostId>(hosts_.size()));
  return hosts_[static_cast<std::size_t>(host)];
}

HostId World::AddHost(const HostConfig& config) {
  assert(hosts_.size() < kHostsMax);
  hosts_.push_back(Host{.name = config.name,
                        .clock = NodeClock(config.monotonic_start, config.wall_start, config.drift_ppm)});
  return static_cast<HostId>(hosts_.size() - 1);
}

void World::SetBoot(HostId host, BootFn boot) { Get(host).boot = std::move(boot); }

void World::Start(HostId id) {
  Host& host = Get(id);
  assert(host.state == HostState::kCrashed);
  assert(host.incarnation == 0);
  Restart(id);
}

void World::Restart(HostId id) {
  Host& host = Get(id);
  if (host.state != HostState::kCrashed) return;  // restarting a live process is a no-op
  host.incarnation += 1;
  host.state = HostState::kUp;
  trace_.Record(now_, id, "boot", static_cast<std::int64_t>(host.incarnation));
  if (host.boot) host.process = host.boot(id, host.incarnation);
}

void World::DestroyProcess(Host& host) {
  // Unwinding runs destructors on the fibers' stacks; none of them may park.
  std::vector<FiberId> fibers = std::move(host.fibers);
  host.fibers.clear();
  for (FiberId id : fibers) {
    FiberRecord* record = FindFiber(id);
    if (record == nullptr) continue;
    assert(current_ != id && "a process cannot crash itself from its own fiber");
    std::unique_ptr<Fiber> fiber = std::move(record->fiber);
    fiber.reset();  // unwinds; may touch fibers_, so `record` is not used after
  }
  host.process.reset();
  host.deferred.clear();
  host.frozen_timers.clear();
}

void World::Crash(HostId id) {
  Host& host = Get(id);
  if (host.state == HostState::kCrashed) return;
  if (host.state == HostState::kSuspended) host.clock.Unfreeze(now_);
  host.state = HostState::kCrashed;
  trace_.Record(now_, id, "crash", static_cast<std::int64_t>(host.incarnation));
  DestroyProcess(host);
}

void World::Pause(HostId id) {
  Host& host = Get(id);
  if (host.state != HostState::kUp) return;
  host.state = HostState::kPaused;
  trace_.Record(now_, id, "pause");
}

void World::Unpause(HostId id) {
  Host& host = Get(id);
  if (host.state != HostState::kPaused) return;
  host.state = HostState::kUp;
  trace_.Record(now_, id, "unpause");
  FlushDeferred(id);
}

void World::Suspend(HostId id) {
  Host& host = Get(id);
  if (host.state != HostState::kUp) return;
  host.state = HostState::kSuspended;
  host.clock.Freeze(now_);
  trace_.Record(now_, id, "suspend", host.clock.Monotonic(now_));
}

void World::Unsuspend(HostId id) {
  Host& host = Get(id);
  if (host.state != HostState::kSuspended) return;
  host.state = HostState::kUp;
  host.clock.Unfreeze(now_);
  trace_.Record(now_, id, "unsuspend", host.clock.Monotonic(now_));
  std::vector<Host::FrozenTimer> timers = std::move(host.frozen_timers);
  host.frozen_timers.clear();
  for (Host::FrozenTimer& timer : timers) {
    ArmLocalTimer(id, timer.incarnation, timer.local_deadline, std::move(timer.fn));
  }
  FlushDeferred(id);
}

void World::FlushDeferred(HostId id) {
  Host& host = Get(id);
  std::vector<Callback> deferred = std::move(host.deferred);
  host.deferred.clear();
  const std::uint64_t incarnation = host.incarnation;
  for (Callback& fn : deferred) {
    At(now_, [this, id, incarnation, fn = std::move(fn)]() mutable {
      RunOnHost(id, incarnation, std::move(fn));
    });
  }
}

void World::At(Nanos when, Callback fn) {
  assert(when >= now_);
  assert(queue_.size() < kEventsQueuedMax);
  std::uint32_t slot = 0;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(callbacks_.size());
    callbacks_.push_back(std::move(fn));
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    callbacks_[slot] = std::move(fn);
  }
  queue_.push_back(Event{when, next_sequence_++, slot});
  std::push_heap(queue_.begin(), queue_.end(), Later{});
}

void World::RunOnHost(HostId id, std::uint64_t incarnation, Callback fn) {
  Host& host = Get(id);
  if (host.state == HostState::kCrashed || host.incarnation != incarnation) return;
  if (host.state != HostState::kUp) {
    assert(host.deferred.size() < kDeferredMax);
    host.deferred.push_back(std::move(fn));
    return;
  }
  fn();
}

void World::AtLocal(HostId host, std::uint64_t incarnation, Nanos local_deadline, Callback fn) {
  ArmLocalTimer(host, incarnation, local_deadline, std::move(fn));
}

void World::ArmLocalTimer(HostId id, std::uint64_t incarnation, Nanos local_deadline, Callback fn) {
  Host& host = Get(id);
  if (host.state == HostState::kCrashed || host.incarnation != incarnation) return;
  const Nanos when = host.clock.TrueTimeAtMonotonic(local_deadline);
  if (when == kNeverNanos) {
    assert(host.frozen_timers.size() < kDeferredMax);
    host.frozen_timers.push_back(Host::FrozenTimer{incarnation, local_deadline, std::move(fn)});
    return;
  }
  At(when < now_ ? now_ : when, [this, id, incarnation, local_deadline, fn = std::move(fn)]() mutable {
    Host& target = Get(id);
    if (target.state == HostState::kCrashed || target.incarnation != incarnation) return;
    // The clock's rate may have changed since the timer was armed.
    if (target.clock.Monotonic(now_) < local_deadline) {
      ArmLocalTimer(id, incarnation, local_deadline, std::move(fn));
      return;
    }
    RunOnHost(id, incarnation, std::move(fn));
  });
}

FiberId World::Spawn(HostId id, std::function<void()> body) {
  Host& host = Get(id);
  assert(host.state != HostState::kCrashed);
  const FiberId fiber_id = next_fiber_++;
  assert(fiber_id == fibers_.size());
  assert(fibers_.size() < kFibersMax);
  FiberRecord record;
  record.fiber = std::make_unique<Fiber>(stacks_, std::move(body));
  record.host = id;
  record.waiting = true;  // waiting to be started
  fibers_.push_back(std::move(record));
  host.fibers.push_back(fiber_id);
  const WaitToken start{fiber_id, 0};
  const std::uint64_t incarnation = host.incarnation;
  At(now_, [this, id, incarnation, start] {
    RunOnHost(id, incarnation, [this, start] { ResumeFiber(start, true); });
  });
  return fiber_id;
}

HostId World::current_host() const {
  assert(current_ != 0);
  return fibers_[current_].host;
}

WaitToken World::PrepareWait() {
  assert(current_ != 0);
  FiberRecord& record = fibers_[current_];
  record.signal_pending = false;
  return WaitToken{current_, record.generation};
}

void World::Signal(WaitToken token) {
  FiberRecord* found = FindFiber(token.fiber);
  if (found == nullptr) return;
  FiberRecord& record = *found;
  if (record.generation != token.generation) return;
  if (!record.waiting) {
    record.signal_pending = true;  // signalled before it parked
    return;
  }
  const HostId host = record.host;
  const std::uint64_t incarnation = Get(host).incarnation;
  At(now_, [this, host, incarnation, token] {
    RunOnHost(host, incarnation, [this, token] { ResumeFiber(token, true); });
  });
}

bool World::Wait(WaitToken token, Nanos local_deadline) {
  assert(current_ == token.fiber);
  FiberRecord& record = fibers_[current_];
  assert(record.generation == token.generation);
  if (record.signal_pending) {
    record.signal_pending = false;
    record.generation += 1;
    return true;
  }
  if (local_deadline != kNeverNanos) {
    const HostId host = record.host;
    AtLocal(host, Get(host).incarnation, local_deadline, [this, token] { ResumeFiber(token, false); });
  }
  record.waiting = true;
  Fiber* fiber = record.fiber.get();
  fiber->Suspend();
  // Resumed (a fiber destroyed while parked unwinds instead of returning).
  // fibers_ may have grown meanwhile: index again rather than keep `record`.
  FiberRecord& after = fibers_[token.fiber];
  after.generation += 1;
  return after.signalled;
}

void World::SleepUntilLocal(Nanos local_deadline) {
  const WaitToken token = PrepareWait();
  const bool signalled = Wait(token, local_deadline);
  assert(!signalled);
  (void)signalled;
}

void World::ResumeFiber(WaitToken token, bool signalled) {
  FiberRecord* found = FindFiber(token.fiber);
  if (found == nullptr) return;
  if (found->generation != token.generation || !found->waiting) return;
  assert(current_ == 0 && "fibers are resumed only from the scheduler");
  found->waiting = false;
  found->signalled = signalled;
  current_ = token.fiber;
  Fiber* fiber = found->fiber.get();
  fiber->Resume();  // may grow fibers_ (Spawn): `found` is stale after this
  current_ = 0;
  if (fiber->finished()) {
    FiberRecord& done = fibers_[token.fiber];
    Host& host = Get(done.host);
    std::erase(host.fibers, token.fiber);
    done.fiber.reset();
  }
}

void World::RunUntil(Nanos end) {
  assert(end >= now_);
  while (!queue_.empty() && queue_.front().time <= end) {
    std::pop_heap(queue_.begin(), queue_.end(), Later{});
    const Event event = queue_.back();
    queue_.pop_back();
    assert(event.time >= now_);
    now_ = event.time;
    ++events_processed_;
    Callback fn = std::move(callbacks_[event.slot]);
    free_slots_.push_back(event.slot);
    fn();
  }
  now_ = end;
}

}  // namespace leasesim::sim
