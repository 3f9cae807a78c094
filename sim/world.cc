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

const World::FiberRecord* World::FindFiber(FiberId id) const {
  if (id == 0 || id >= fibers_.size()) return nullptr;
  const FiberRecord& record = fibers_[id];
  return record.fiber ? &record : nullptr;
}

World::FiberRecord* World::FindFiber(FiberId id) {
  return const_cast<FiberRecord*>(std::as_const(*this).FindFiber(id));
}

HostId World::AddHost(const HostConfig& config) {
  assert(hosts_.size() < kHostsMax);
  hosts_.push_back(Host{.name = config.name,
                        .clock = NodeClock(config.monotonic_start, config.wall_start, config.drift_ppm)});
  host_count_ = static_cast<HostId>(hosts_.size());
  return host_count_ - 1;
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
    ArmLocalTimer(id, timer.incarnation, timer.local_deadline, std::move(timer.deed));
  }
  FlushDeferred(id);
}

void World::FlushDeferred(HostId id) {
  Host& host = Get(id);
  std::vector<Deed> deferred = std::move(host.deferred);
  host.deferred.clear();
  const std::uint64_t incarnation = host.incarnation;
  for (Deed& deed : deferred) {
    Entry& entry = Schedule(now_);
    entry.gate = Entry::Gate::kOnHost;
    entry.host = id;
    entry.incarnation = incarnation;
    entry.deed = std::move(deed);
  }
}

std::uint32_t World::ScheduleSlot(Nanos when) {
  assert(when >= now_);
  assert(queue_.size() < kEventsQueuedMax);
  std::uint32_t slot = 0;
  if (free_slots_.empty()) {
    slot = slots_used_++;
    assert(slot < (std::uint32_t{1} << kSlotBits));
    if ((slot >> kChunkShift) >= chunks_.size()) chunks_.push_back(std::make_unique<Entry[]>(kChunkEntries));
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  const std::uint64_t sequence = next_sequence_++;
  assert(sequence < (std::uint64_t{1} << (64 - kSlotBits)));
  assert(when >= 0);
  const EventQueue::Key key =
      (EventQueue::Key{static_cast<std::uint64_t>(when)} << 64) | ((sequence << kSlotBits) | slot);
  queue_.Push(key, when - now_);
  return slot;
}

void World::Defer(Host& host, Deed&& deed) {
  assert(host.deferred.size() < kDeferredMax);
  host.deferred.push_back(std::move(deed));
}

void World::AtLocal(HostId host, std::uint64_t incarnation, Nanos local_deadline, Callback fn) {
  ArmLocalTimer(host, incarnation, local_deadline, Deed{.fn = std::move(fn)});
}

void World::ArmLocalTimer(HostId id, std::uint64_t incarnation, Nanos local_deadline, Deed&& deed) {
  Host& host = Get(id);
  if (host.state == HostState::kCrashed || host.incarnation != incarnation) return;
  Entry* entry = LocalTimerEntry(host, id, local_deadline);
  if (entry == nullptr) {
    FreezeTimer(host, local_deadline, std::move(deed));
    return;
  }
  entry->deed = std::move(deed);
}

World::Entry* World::LocalTimerEntry(Host& host, HostId id, Nanos local_deadline) {
  const Nanos when = host.clock.TrueTimeAtMonotonic(local_deadline);
  if (when == kNeverNanos) return nullptr;
  const std::uint32_t slot = ScheduleSlot(when < now_ ? now_ : when);
  Entry& entry = EntryAt(slot);
  entry.gate = Entry::Gate::kLocalTimer;
  entry.sequence = next_sequence_ - 1;
  entry.host = id;
  entry.incarnation = host.incarnation;
  entry.local_deadline = local_deadline;
  return &entry;
}

void World::SetDriftPpm(HostId id, std::int64_t drift_ppm) {
  Get(id).clock.SetDriftPpm(now_, drift_ppm);
  RekeyLocalTimers(id);
}

void World::Slew(HostId id, Nanos correction, std::int64_t rate_ppm) {
  Get(id).clock.Slew(now_, correction, rate_ppm);
  RekeyLocalTimers(id);
}

void World::RekeyLocalTimers(HostId id) {
  Host& host = Get(id);
  struct QueuedTimer {
    std::uint64_t sequence;
    std::uint32_t slot;
  };
  std::vector<QueuedTimer> timers;
  for (std::uint32_t slot = 0; slot < slots_used_; ++slot) {
    const Entry& entry = EntryAt(slot);
    if (entry.gate != Entry::Gate::kLocalTimer || entry.host != id || slot == firing_slot_) continue;
    // Would do nothing when it pops: left where it is.
    if (entry.incarnation != host.incarnation || DeadWakeUp(entry.deed)) continue;
    timers.push_back(QueuedTimer{entry.sequence, slot});
  }
  // Armed again in the order first armed: timers due at one instant keep
  // their order (sequence numbers are unique, so the sort is total).
  std::sort(timers.begin(), timers.end(),
            [](const QueuedTimer& a, const QueuedTimer& b) { return a.sequence < b.sequence; });
  for (const QueuedTimer& timer : timers) {
    Entry& entry = EntryAt(timer.slot);
    assert(entry.gate == Entry::Gate::kLocalTimer);
    Deed deed = std::move(entry.deed);
    // The cancelled entry names no call and no wait: it pops as a dead wake-up.
    entry.deed = Deed{};
    entry.gate = Entry::Gate::kNone;
    ArmLocalTimer(id, entry.incarnation, entry.local_deadline, std::move(deed));
  }
}

void World::ArmWakeUp(HostId id, WaitToken token, Nanos local_deadline) {
  Host& host = Get(id);
  if (host.state == HostState::kCrashed) return;
  Entry* entry = LocalTimerEntry(host, id, local_deadline);
  if (entry == nullptr) {
    FreezeTimer(host, local_deadline, Deed{.token = token, .signalled = false});
    return;
  }
  // A wake-up needs no closure: the slot (freed with no callable and no
  // token) gets the wait's token.
  entry->deed.token = token;
  entry->deed.signalled = false;
}

void World::FreezeTimer(Host& host, Nanos local_deadline, Deed&& deed) {
  assert(host.frozen_timers.size() < kDeferredMax);
  host.frozen_timers.push_back(Host::FrozenTimer{host.incarnation, local_deadline, std::move(deed)});
}

void World::Fire(Entry& entry) {
  // The gate first; then, on a host that is up, the deed, at one place, so a
  // wake-up switches to its fiber from this frame (inlined into RunUntil:
  // no frame of the scheduler's to return through once the fiber parks).
  Host* target = nullptr;
  switch (entry.gate) {
    case Entry::Gate::kNone:
      break;
    case Entry::Gate::kOnHost:
      target = &Get(entry.host);
      if (target->state == HostState::kCrashed || target->incarnation != entry.incarnation) return;
      break;
    case Entry::Gate::kLocalTimer:
      target = &Get(entry.host);
      if (target->state == HostState::kCrashed || target->incarnation != entry.incarnation) return;
      // The clock's rate may have changed since the timer was armed.
      if (target->clock.Monotonic(now_) < entry.local_deadline) {
        ArmLocalTimer(entry.host, entry.incarnation, entry.local_deadline, std::move(entry.deed));
        return;
      }
      break;
  }
  if (target != nullptr && target->state != HostState::kUp) {
    Defer(*target, std::move(entry.deed));
    return;
  }
  if (entry.deed.fn) {
    entry.deed.fn();
  } else {
    ResumeNow(entry.deed.token, entry.deed.signalled);
  }
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
  Entry& entry = Schedule(now_);
  entry.gate = Entry::Gate::kOnHost;
  entry.host = id;
  entry.incarnation = host.incarnation;
  entry.deed.token = WaitToken{fiber_id, 0};
  entry.deed.signalled = true;
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
  Entry& entry = Schedule(now_);
  entry.gate = Entry::Gate::kOnHost;
  entry.host = record.host;
  entry.incarnation = Get(record.host).incarnation;
  entry.deed.token = token;
  entry.deed.signalled = true;
}

bool World::WaitOpen(WaitToken token) const {
  const FiberRecord* record = FindFiber(token.fiber);
  return record != nullptr && record->generation == token.generation;
}

void World::SleepInStepsLocal(Nanos step, const std::function<bool()>& done) {
  assert(step > 0);
  const WaitToken token = PrepareWait();
  const HostId host = current_host();
  // What the fiber would read and ask for had it woken and slept again.
  struct Steps {
    World* world;
    HostId host;
    Nanos step;
    const std::function<bool()>* done;
  } const steps{this, host, step, &done};
  const std::function<Nanos()> next = [&steps] {  // one pointer: stored inline, no allocation
    return (*steps.done)() ? Nanos{-1} : steps.world->MonotonicNow(steps.host) + steps.step;
  };
  const bool signalled = WaitStepping(token, MonotonicNow(host) + step, next);
  assert(!signalled);
  (void)signalled;
}

void World::ArmTimeoutStep(HostId id, WaitToken token, Nanos local_deadline, const std::function<Nanos()>* step) {
  auto fn = [this, id, token, step] {
    if (!WaitOpen(token)) return;  // (DeadWakeUp drops it before it gets here)
    const Nanos next = (*step)();
    if (next < 0) {
      ResumeNow(token, false);
    } else {
      ArmTimeoutStep(id, token, next, step);
    }
  };
  Host& host = Get(id);
  if (host.state == HostState::kCrashed) return;
  // Built in its event's slot (no Deed to move there), unless the clock is frozen.
  Entry* entry = LocalTimerEntry(host, id, local_deadline);
  if (entry == nullptr) {
    FreezeTimer(host, local_deadline, Deed{.fn = std::move(fn), .token = token});
    return;
  }
  entry->deed.fn.Emplace(std::move(fn));
  entry->deed.token = token;
}

bool World::DeadWakeUp(const Deed& deed) const {
  if (deed.fn && deed.token.fiber == 0) return false;  // a call of its own
  const FiberRecord* record = FindFiber(deed.token.fiber);
  return record == nullptr || record->generation != deed.token.generation || !record->waiting;
}

void World::ResumeNow(WaitToken token, bool signalled) {
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
  // An event is due by `end` when its key is at most this.
  const EventQueue::Key limit = (EventQueue::Key{static_cast<std::uint64_t>(end)} << 64) | ~std::uint64_t{0};
  EventQueue::Key key = 0;
  while (queue_.PopUpTo(limit, key)) {
    assert(TimeOf(key) >= now_);
    now_ = TimeOf(key);
    const std::uint32_t slot = SlotOf(key);
    Entry& entry = EntryAt(slot);
    // Cancelled (its wait ended first, by a signal or a crash): dropped
    // unrun, as running it would have done nothing.
    if (!DeadWakeUp(entry.deed)) {
      ++events_processed_;
      firing_slot_ = slot;
      Fire(entry);  // may schedule more: they take other slots, and chunks never move
      firing_slot_ = kNoSlot;
    }
    // A free slot is no timer: RekeyLocalTimers scans the slots.
    entry.gate = Entry::Gate::kNone;
    entry.deed.fn.Reset();
    entry.deed.token = WaitToken{};  // At() fills only fn: a reused slot must name no wait
    free_slots_.push_back(slot);
  }
  now_ = end;
}

}  // namespace leasesim::sim
