#pragma once
// Fibers: each simulated task runs on its own stack so protocol code can be
// written in direct style (call the store, get a result) while the whole
// simulation stays on one OS thread. Built on Boost.Context.
//
// A fiber is resumed only from the scheduler and suspends only back to it.
// Destroying a suspended fiber unwinds its stack (its destructors run), which
// is how a crash frees a process's memory; code on a fiber must therefore
// never swallow exceptions with a bare catch (...).

#include <cassert>
#include <cstddef>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include <boost/context/fiber.hpp>

#if defined(LEASESIM_ASAN)
#include <sanitizer/common_interface_defs.h>
#define LEASESIM_START_SWITCH(save, bottom, size) __sanitizer_start_switch_fiber(save, bottom, size)
#define LEASESIM_FINISH_SWITCH(save, bottom, size) __sanitizer_finish_switch_fiber(save, bottom, size)
#else
#define LEASESIM_START_SWITCH(save, bottom, size) ((void)(save), (void)(bottom), (void)(size))
#define LEASESIM_FINISH_SWITCH(save, bottom, size) ((void)(save), (void)(bottom), (void)(size))
#endif

namespace leasesim::sim {

// A pool of fixed-size stacks so that crashing and restarting processes does
// not map and unmap memory on every incarnation.
class StackPool {
 public:
  explicit StackPool(std::size_t stack_bytes);
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  boost::context::stack_context Allocate();
  void Deallocate(boost::context::stack_context& stack);
  std::size_t stack_bytes() const { return stack_bytes_; }
  std::size_t free_count() const { return free_.size(); }

 private:
  static constexpr std::size_t kFreeStacksMax = 256;
  std::size_t stack_bytes_;
  std::vector<void*> free_;
};

// One task's stack and the switches into and out of it.
class Fiber {
 public:
  Fiber(StackPool& pool, std::function<void()> body);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // From the scheduler: runs the fiber until it suspends or finishes.
  // Resume and Suspend are inline so the stack switch happens in their
  // caller's frame: after a switch every return through a frame left on the
  // other stack is mispredicted (the CPU's return-address stack holds the
  // stack just left), about 7 ns each on this machine kind, so each frame
  // less between a switch and the code that goes on counts.
  void Resume();
  // From inside the fiber: returns control to the scheduler.
  void Suspend();
  bool finished() const { return finished_; }
  bool running() const { return running_; }

 private:
  boost::context::fiber Entry(boost::context::fiber&& caller);

  std::function<void()> body_;
  boost::context::fiber self_;
  boost::context::fiber caller_;
  bool finished_ = false;
  bool running_ = false;
  // AddressSanitizer bookkeeping for stack switches (unused without ASan).
  const void* stack_bottom_ = nullptr;
  std::size_t stack_size_ = 0;
  const void* caller_bottom_ = nullptr;
  std::size_t caller_size_ = 0;
  void* caller_fake_stack_ = nullptr;
  void* fiber_fake_stack_ = nullptr;
};

inline void Fiber::Resume() {
  assert(!running_);
  assert(!finished_);
  running_ = true;
  LEASESIM_START_SWITCH(&caller_fake_stack_, stack_bottom_, stack_size_);
  self_ = std::move(self_).resume();
  LEASESIM_FINISH_SWITCH(caller_fake_stack_, nullptr, nullptr);
  running_ = false;
}

inline void Fiber::Suspend() {
  assert(running_);
  LEASESIM_START_SWITCH(&fiber_fake_stack_, caller_bottom_, caller_size_);
  try {
    caller_ = std::move(caller_).resume();
  } catch (const boost::context::detail::forced_unwind&) {
    // Back on this stack to be unwound (the fiber is being destroyed).
    LEASESIM_FINISH_SWITCH(fiber_fake_stack_, &caller_bottom_, &caller_size_);
    throw;
  }
  LEASESIM_FINISH_SWITCH(fiber_fake_stack_, &caller_bottom_, &caller_size_);
}

}  // namespace leasesim::sim
