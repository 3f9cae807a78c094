#pragma once
// The simulated world: one true clock, an event queue ordered by (time,
// sequence), hosts with their own clocks, and the fibers their processes run
// on. Everything happens on one OS thread, in an order fixed by the seed, so
// a run can be replayed exactly. The world knows nothing about leases: a
// host's process is whatever its boot function builds.

#include <cassert>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/prng.h"
#include "sim/clock.h"
#include "sim/event_queue.h"
#include "sim/fiber.h"
#include "sim/inline_function.h"
#include "sim/time.h"
#include "sim/trace.h"

namespace leasesim::sim {

using HostId = std::int32_t;
using FiberId = std::uint64_t;

// Whatever a host's process holds in memory; a crash destroys it.
class ProcessState {
 public:
  virtual ~ProcessState() = default;
};

enum class HostState { kUp, kPaused, kSuspended, kCrashed };

struct HostConfig {
  std::string name;
  Nanos monotonic_start = 0;
  Nanos wall_start = 0;
  std::int64_t drift_ppm = 0;
};

// Called at start and at every restart with the new incarnation number.
using BootFn = std::function<std::unique_ptr<ProcessState>(HostId, std::uint64_t incarnation)>;

struct WaitToken {
  FiberId fiber = 0;
  std::uint64_t generation = 0;
};

// One simulated world: its clock, events, hosts and fibers, driven by RunUntil.
class World {
 public:
  World(std::uint64_t master_seed, bool retain_trace);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  Nanos now() const { return now_; }
  std::uint64_t master_seed() const { return master_seed_; }
  base::Prng MakePrng(std::string_view layer) const { return base::Prng(base::DeriveSeed(master_seed_, layer)); }
  Trace& trace() { return trace_; }
  // Events run; a wake-up for a wait that had already ended (the timer of a
  // signalled wait, mostly) is cancelled and not counted.
  std::uint64_t events_processed() const { return events_processed_; }

  // --- hosts ---------------------------------------------------------------
  HostId AddHost(const HostConfig& config);
  int host_count() const { return host_count_; }
  const std::string& host_name(HostId host) const { return Get(host).name; }
  // Read-only: a change of the clock's rate goes through the world (below),
  // which moves the host's pending timers with it.
  const NodeClock& clock(HostId host) const { return Get(host).clock; }
  // Changes of the host's clocks from now on (see NodeClock). A timer armed
  // for a monotonic deadline fires when the clock reads it, as timerfd and
  // nanosleep on CLOCK_MONOTONIC do: a rate change re-keys the host's
  // pending timers to the true instant the new rate reaches their deadline.
  void SetDriftPpm(HostId host, std::int64_t drift_ppm);
  void Slew(HostId host, Nanos correction, std::int64_t rate_ppm);
  void StepWall(HostId host, Nanos delta) { Get(host).clock.StepWall(delta); }
  // What the host's CLOCK_MONOTONIC, CLOCK_BOOTTIME and CLOCK_REALTIME read now.
  // The clocks belong to the machine: a crash and restart keeps them.
  Nanos MonotonicNow(HostId host) const { return clock(host).Monotonic(now_); }
  Nanos BootNow(HostId host) const { return clock(host).Boot(now_); }
  Nanos WallNow(HostId host) const { return clock(host).Wall(now_); }
  HostState state(HostId host) const { return Get(host).state; }
  std::uint64_t incarnation(HostId host) const { return Get(host).incarnation; }
  bool running(HostId host) const { return Get(host).state == HostState::kUp; }
  ProcessState* process(HostId host) { return Get(host).process.get(); }

  void SetBoot(HostId host, BootFn boot);
  void Start(HostId host);    // boots incarnation 1
  void Crash(HostId host);    // fibers unwound, memory lost, pending work dropped
  void Restart(HostId host);  // a new incarnation boots on the same machine: its clocks go on
  void Pause(HostId host);    // nothing runs; clocks go on; work queues
  void Unpause(HostId host);
  // As Pause, and the monotonic clock stands still; on Unsuspend the boot
  // and wall clocks jump forward by the suspended span.
  void Suspend(HostId host);
  void Unsuspend(HostId host);

  // --- scheduling ------------------------------------------------------------
  // Runs fn (any void() callable) at true time `when` (>= now) in the
  // world's own context. The callable is built in its event's slot.
  template <typename F>
  void At(Nanos when, F&& fn) {
    Entry& entry = Schedule(when);
    entry.gate = Entry::Gate::kNone;
    entry.deed.fn.Emplace(std::forward<F>(fn));
  }
  // Runs fn on `host` while `incarnation` lives: at once if the host is up,
  // when it resumes if paused or suspended, never if it crashed meanwhile.
  template <typename F>
  void RunOnHost(HostId host, std::uint64_t incarnation, F&& fn) {
    Host& target = Get(host);
    if (target.state == HostState::kCrashed || target.incarnation != incarnation) return;
    if (target.state != HostState::kUp) {
      Defer(target, Deed{.fn = Callback(std::forward<F>(fn))});
      return;
    }
    fn();
  }
  // As RunOnHost, from true time `when` (>= now): At(when, RunOnHost(...))
  // in one event, without a closure around the closure.
  template <typename F>
  void AtOnHost(Nanos when, HostId host, std::uint64_t incarnation, F&& fn) {
    Entry& entry = Schedule(when);
    entry.gate = Entry::Gate::kOnHost;
    entry.host = host;
    entry.incarnation = incarnation;
    entry.deed.fn.Emplace(std::forward<F>(fn));
  }
  // As RunOnHost, once the host's monotonic clock reads >= local_deadline.
  void AtLocal(HostId host, std::uint64_t incarnation, Nanos local_deadline, Callback fn);

  // --- fibers ----------------------------------------------------------------
  // A fiber of the host's current incarnation; it first runs at the current time.
  FiberId Spawn(HostId host, std::function<void()> body);
  bool in_fiber() const { return current_ != 0; }
  HostId current_host() const;
  // Inside a fiber: prepare, arrange for Signal(token), then Wait(token, ...).
  WaitToken PrepareWait();
  void Signal(WaitToken token);
  // True while the wait `token` was prepared for has not returned: its
  // fiber lives, so whatever the waiter keeps on its stack for the waker
  // is still there.
  bool WaitOpen(WaitToken token) const;
  // True when signalled, false when the local deadline passed first.
  bool Wait(WaitToken token, Nanos local_deadline);
  void SleepUntilLocal(Nanos local_deadline);
  // Inside a fiber: sleeps `step` on its host's monotonic clock at a time,
  // each step from the wake-up that ended the last (as SleepUntilLocal of
  // the monotonic reading + step in a loop), until done() is true at a
  // wake-up. The wake-ups in between run in the scheduler without resuming
  // the fiber, so `done` may only read memory; it is the caller's, and is
  // asked only while this sleep lasts.
  void SleepInStepsLocal(Nanos step, const std::function<bool()>& done);
  // Inside a fiber: as Wait(token, local_deadline), except that when the
  // deadline passes first, step() runs in the scheduler with the fiber still
  // parked and the wait still open: it returns the next local deadline to
  // wait for, or a negative value to end the wait (Wait returns false).
  // `step` is the caller's and is called only while the wait lasts.
  bool WaitStepping(WaitToken token, Nanos local_deadline, const std::function<Nanos()>& step);

  // --- running ---------------------------------------------------------------
  // Processes every event up to and including true time `end`; now() == end after.
  void RunUntil(Nanos end);

 private:
  // What an event (or work deferred by a pause) does: call fn, or, when
  // fn is empty, resume the fiber of `token` (a wake-up needs no closure).
  // A call with a token belongs to that wait and is dropped once it ended.
  struct Deed {
    Callback fn;
    WaitToken token;
    bool signalled = false;
  };
  struct Host {
    std::string name;
    NodeClock clock;
    HostState state = HostState::kCrashed;
    std::uint64_t incarnation = 0;
    BootFn boot;
    std::unique_ptr<ProcessState> process;
    std::vector<FiberId> fibers;
    std::vector<Deed> deferred;  // work queued while not running
    struct FrozenTimer {
      std::uint64_t incarnation;
      Nanos local_deadline;
      Deed deed;
    };
    std::vector<FrozenTimer> frozen_timers;  // timers waiting for the clock to move
  };
  struct FiberRecord {
    std::unique_ptr<Fiber> fiber;  // null once finished or destroyed
    HostId host = 0;
    std::uint64_t generation = 0;
    bool waiting = false;
    bool signal_pending = false;
    bool signalled = false;
  };
  // A queued event's deed and the condition it runs under: always, on a
  // host's incarnation, or on it once its monotonic clock reads
  // local_deadline. Entries live in fixed chunks, so an entry runs in place
  // while the events it schedules take other slots.
  struct Entry {
    enum class Gate : std::uint8_t { kNone, kOnHost, kLocalTimer };
    Gate gate = Gate::kNone;
    HostId host = 0;
    // A kLocalTimer's sequence number, the order a rate change re-arms it in.
    std::uint64_t sequence = 0;
    std::uint64_t incarnation = 0;
    Nanos local_deadline = 0;
    Deed deed;
  };
  static constexpr std::size_t kChunkShift = 8;
  static constexpr std::size_t kChunkEntries = std::size_t{1} << kChunkShift;
  // An event's key is 128 bits: the time above, then the sequence number
  // with the entry's slot in its low bits (sequence numbers are unique, so
  // the slot never decides the order). One key compares without a branch.
  static constexpr int kSlotBits = 24;
  static Nanos TimeOf(EventQueue::Key key) { return static_cast<Nanos>(static_cast<std::uint64_t>(key >> 64)); }
  static std::uint32_t SlotOf(EventQueue::Key key) {
    return static_cast<std::uint32_t>(key) & ((std::uint32_t{1} << kSlotBits) - 1);
  }

  // Inline: every clock reading and delivery goes through here.
  Host& Get(HostId host) {
    assert(host >= 0);
    assert(host < host_count_);
    return hosts_[static_cast<std::size_t>(host)];
  }
  const Host& Get(HostId host) const {
    assert(host >= 0);
    assert(host < host_count_);
    return hosts_[static_cast<std::size_t>(host)];
  }
  // Resuming a parked fiber, and parking the current one: inlined where the
  // scheduler and the fibers switch (see Fiber::Resume), so no frame lies
  // between the switch and the code that goes on after it.
  [[gnu::always_inline]] inline void ResumeNow(WaitToken token, bool signalled);
  [[gnu::always_inline]] bool Park(WaitToken token, Nanos local_deadline);
  void DestroyProcess(Host& host);
  void FlushDeferred(HostId host);
  // Takes a free slot for an event at `when`; the caller fills the entry.
  Entry& Schedule(Nanos when) { return EntryAt(ScheduleSlot(when)); }
  std::uint32_t ScheduleSlot(Nanos when);
  // After a rate change of the host's clock: every live timer of its
  // current incarnation is cancelled in place and armed again, in the order
  // it was first armed. The queued entries are scanned for them: rate
  // changes are rare (a drift fault, a time daemon's slew), timers are not,
  // so no per-host index is kept in step with every timer armed and fired.
  void RekeyLocalTimers(HostId id);
  Entry& EntryAt(std::uint32_t slot) { return chunks_[slot >> kChunkShift][slot & (kChunkEntries - 1)]; }
  // Runs the entry's deed under its gate: not on a crashed host or another
  // incarnation; held while the host is paused or suspended.
  void Fire(Entry& entry);
  void Defer(Host& host, Deed&& deed);
  void ArmLocalTimer(HostId host, std::uint64_t incarnation, Nanos local_deadline, Deed&& deed);
  // The slot of a timer of the host's current incarnation at local_deadline,
  // its deed to fill; null while the clock stands still short of it (then
  // the deed goes to FreezeTimer).
  Entry* LocalTimerEntry(Host& host, HostId id, Nanos local_deadline);
  void FreezeTimer(Host& host, Nanos local_deadline, Deed&& deed);
  // The timer of Wait(token, local_deadline): resumes the fiber, not signalled.
  void ArmWakeUp(HostId id, WaitToken token, Nanos local_deadline);
  // The timer of one step of WaitStepping (its deed names the wait).
  void ArmTimeoutStep(HostId host, WaitToken token, Nanos local_deadline, const std::function<Nanos()>* step);
  // A deed for a wait that has ended (a wake-up, or a WaitStepping timer):
  // running it would do nothing.
  bool DeadWakeUp(const Deed& deed) const;
  const FiberRecord* FindFiber(FiberId id) const;
  FiberRecord* FindFiber(FiberId id);

  static constexpr std::size_t kEventsQueuedMax = 10'000'000;
  static constexpr std::size_t kDeferredMax = 1'000'000;
  static constexpr std::size_t kHostsMax = 1'000;

  std::uint64_t master_seed_;
  Trace trace_;
  Nanos now_ = 0;
  std::uint64_t next_sequence_ = 0;
  std::uint64_t events_processed_ = 0;
  EventQueue queue_;
  std::vector<std::unique_ptr<Entry[]>> chunks_;
  std::uint32_t slots_used_ = 0;  // slots ever handed out
  // The slot whose deed runs now: popped, so no longer queued.
  std::uint32_t firing_slot_ = kNoSlot;
  static constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};
  std::vector<std::uint32_t> free_slots_;
  std::vector<Host> hosts_;
  HostId host_count_ = 0;  // hosts_.size(), kept: every clock reading asserts against it
  StackPool stacks_;
  // Indexed by fiber id (ids are never reused; slot 0 is unused).
  std::vector<FiberRecord> fibers_;
  static constexpr std::size_t kFibersMax = 10'000'000;
  FiberId next_fiber_ = 1;
  FiberId current_ = 0;
};

// The waits are inline (with Park, Fiber::Suspend) so that a fiber parks
// from its caller's frame: one frame less to return through, mispredicted,
// when it resumes (see Fiber::Resume).
inline bool World::Park(WaitToken token, Nanos local_deadline) {
  assert(current_ == token.fiber);
  FiberRecord& record = fibers_[current_];
  assert(record.generation == token.generation);
  if (record.signal_pending) {
    record.signal_pending = false;
    record.generation += 1;
    return true;
  }
  if (local_deadline != kNeverNanos) ArmWakeUp(record.host, token, local_deadline);
  record.waiting = true;
  Fiber* fiber = record.fiber.get();
  fiber->Suspend();
  // Resumed (a fiber destroyed while parked unwinds instead of returning).
  // fibers_ may have grown meanwhile: index again rather than keep `record`.
  FiberRecord& after = fibers_[token.fiber];
  after.generation += 1;
  return after.signalled;
}

inline bool World::Wait(WaitToken token, Nanos local_deadline) { return Park(token, local_deadline); }

inline void World::SleepUntilLocal(Nanos local_deadline) {
  const WaitToken token = PrepareWait();
  const bool signalled = Park(token, local_deadline);
  assert(!signalled);
  (void)signalled;
}

inline bool World::WaitStepping(WaitToken token, Nanos local_deadline, const std::function<Nanos()>& step) {
  assert(current_ == token.fiber);
  // A signal already pending ends the wait before any timer, as in Wait.
  if (!fibers_[current_].signal_pending) ArmTimeoutStep(current_host(), token, local_deadline, &step);
  return Park(token, kNeverNanos);
}

}  // namespace leasesim::sim
