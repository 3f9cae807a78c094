#include "sim/fiber.h"

#include <cassert>
#include <cstdlib>
#include <new>
#include <utility>

namespace leasesim::sim {
namespace {

// Boost.Context's StackAllocator concept over a StackPool.
struct PoolAllocator {
  StackPool* pool;
  const void** bottom_out;  // where the fiber notes its stack for ASan
  boost::context::stack_context allocate() {
    boost::context::stack_context stack = pool->Allocate();
    *bottom_out = static_cast<char*>(stack.sp) - stack.size;
    return stack;
  }
  void deallocate(boost::context::stack_context& stack) { pool->Deallocate(stack); }
};

}  // namespace

StackPool::StackPool(std::size_t stack_bytes) : stack_bytes_(stack_bytes) {
  assert(stack_bytes >= 16 * 1024);
  assert(stack_bytes % 16 == 0);
}

StackPool::~StackPool() {
  for (void* block : free_) std::free(block);
}

boost::context::stack_context StackPool::Allocate() {
  void* block = nullptr;
  if (!free_.empty()) {
    block = free_.back();
    free_.pop_back();
  } else {
    block = std::aligned_alloc(64, stack_bytes_);
    if (block == nullptr) throw std::bad_alloc();
  }
  boost::context::stack_context stack;
  stack.size = stack_bytes_;
  stack.sp = static_cast<char*>(block) + stack_bytes_;  // stacks grow down
  return stack;
}

void StackPool::Deallocate(boost::context::stack_context& stack) {
  assert(stack.size == stack_bytes_);
  void* block = static_cast<char*>(stack.sp) - stack.size;
  if (free_.size() < kFreeStacksMax) {
    free_.push_back(block);
  } else {
    std::free(block);
  }
}

Fiber::Fiber(StackPool& pool, std::function<void()> body) : body_(std::move(body)) {
  stack_size_ = pool.stack_bytes();
  self_ = boost::context::fiber(std::allocator_arg, PoolAllocator{&pool, &stack_bottom_},
                                [this](boost::context::fiber&& caller) {
                                  return Entry(std::move(caller));
                                });
}

Fiber::~Fiber() {
  assert(!running_ && "a fiber cannot destroy itself");
  // Destroying a suspended boost fiber unwinds its stack with forced_unwind.
  if (self_) {
    LEASESIM_START_SWITCH(&caller_fake_stack_, stack_bottom_, stack_size_);
    self_ = boost::context::fiber();
    LEASESIM_FINISH_SWITCH(caller_fake_stack_, nullptr, nullptr);
  }
}

boost::context::fiber Fiber::Entry(boost::context::fiber&& caller) {
  LEASESIM_FINISH_SWITCH(nullptr, &caller_bottom_, &caller_size_);
  caller_ = std::move(caller);
  try {
    body_();
  } catch (const boost::context::detail::forced_unwind&) {
    // The stack is being unwound by the destructor: hand control back.
    LEASESIM_START_SWITCH(nullptr, caller_bottom_, caller_size_);
    throw;
  }
  finished_ = true;
  LEASESIM_START_SWITCH(nullptr, caller_bottom_, caller_size_);
  return std::move(caller_);
}

}  // namespace leasesim::sim
