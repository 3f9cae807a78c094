#pragma once
// Fibers: each simulated task runs on its own stack so protocol code can be
// written in direct style (call the store, get a result) while the whole
// simulation stays on one OS thread. Built on Boost.Context.
//
// A fiber is resumed only from the scheduler and suspends only back to it.
// Destroying a suspended fiber unwinds its stack (its destructors run), which
// is how a crash frees a process's memory; code on a fiber must therefore
// never swallow exceptions with a bare catch (...).

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include <boost/context/fiber.hpp>

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

class Fiber {
 public:
  Fiber(StackPool& pool, std::function<void()> body);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // From the scheduler: runs the fiber until it suspends or finishes.
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

}  // namespace leasesim::sim
