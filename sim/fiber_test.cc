#include "sim/fiber.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace leasesim::sim {
namespace {

TEST(Fiber, InterleavesWithTheScheduler) {
  StackPool pool(64 * 1024);
  std::vector<std::string> log;
  Fiber* self = nullptr;
  Fiber fiber(pool, [&] {
    log.push_back("a");
    self->Suspend();
    log.push_back("b");
  });
  self = &fiber;
  fiber.Resume();
  log.push_back("main");
  fiber.Resume();
  EXPECT_TRUE(fiber.finished());
  EXPECT_EQ(log, (std::vector<std::string>{"a", "main", "b"}));
}

struct Sentinel {
  bool* destroyed;
  ~Sentinel() { *destroyed = true; }
};

TEST(Fiber, DestroyingASuspendedFiberUnwindsItsStack) {
  StackPool pool(64 * 1024);
  bool destroyed = false;
  bool ran_past_suspend = false;
  {
    Fiber* self = nullptr;
    Fiber fiber(pool, [&] {
      Sentinel sentinel{&destroyed};
      self->Suspend();
      ran_past_suspend = true;
    });
    self = &fiber;
    fiber.Resume();
    EXPECT_FALSE(destroyed);
  }
  EXPECT_TRUE(destroyed);
  EXPECT_FALSE(ran_past_suspend);
}

TEST(Fiber, StacksAreReused) {
  StackPool pool(64 * 1024);
  for (int i = 0; i < 10; ++i) {
    Fiber fiber(pool, [] {});
    fiber.Resume();
  }
  EXPECT_EQ(pool.free_count(), 1u);
}

}  // namespace
}  // namespace leasesim::sim
