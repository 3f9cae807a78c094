#include "sim/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "base/prng.h"
#include "sim/inline_function.h"

namespace leasesim::sim {
namespace {

TEST(EventQueue, PopsInKeyOrderWhicheverHeapAnEventWentTo) {
  // Random keys pushed with random distances ahead, pops interleaved: the
  // queue must give exactly the order of one sorted list.
  base::Prng prng(11);
  EventQueue queue;
  std::vector<EventQueue::Key> reference;  // kept sorted, descending
  std::vector<EventQueue::Key> popped;
  std::vector<EventQueue::Key> expected;
  std::uint64_t sequence = 0;
  for (int step = 0; step < 20'000; ++step) {
    if (prng.ChancePpm(600'000)) {
      const auto time = static_cast<std::uint64_t>(prng.UniformRange(0, 100'000'000'000));
      const EventQueue::Key key = (EventQueue::Key{time} << 64) | sequence++;
      const std::int64_t ahead = prng.UniformRange(0, 20'000'000'000);
      queue.Push(key, ahead);
      reference.insert(std::upper_bound(reference.begin(), reference.end(), key, std::greater<>{}), key);
    } else if (!reference.empty()) {
      EventQueue::Key key = 0;
      ASSERT_TRUE(queue.PopUpTo(~EventQueue::Key{0} >> 1, key));
      popped.push_back(key);
      expected.push_back(reference.back());
      reference.pop_back();
    }
    ASSERT_EQ(queue.size(), reference.size());
  }
  EXPECT_EQ(popped, expected);
  EXPECT_GT(popped.size(), 5'000u);
}

TEST(EventQueue, PopUpToLeavesLaterEvents) {
  EventQueue queue;
  queue.Push(EventQueue::Key{5} << 64, 0);
  queue.Push(EventQueue::Key{9} << 64, 20'000'000'000);
  EventQueue::Key key = 0;
  EXPECT_TRUE(queue.PopUpTo((EventQueue::Key{5} << 64) | ~std::uint64_t{0}, key));
  EXPECT_EQ(key, EventQueue::Key{5} << 64);
  EXPECT_FALSE(queue.PopUpTo((EventQueue::Key{8} << 64) | ~std::uint64_t{0}, key));
  EXPECT_EQ(queue.size(), 1u);
  EXPECT_FALSE(queue.empty());
}

TEST(InlineFunction, SmallClosuresStayInlineAndLargeOnesWork) {
  int calls = 0;
  auto small = [&calls] { ++calls; };
  static_assert(Callback::kFits<decltype(small)>);
  struct Big {
    char bytes[200];
  };
  Big big{};
  big.bytes[199] = 7;
  auto large = [&calls, big] { calls += big.bytes[199]; };
  static_assert(!Callback::kFits<decltype(large)>);
  Callback a(small);
  Callback b(large);
  Callback moved = std::move(b);
  a();
  moved();
  EXPECT_EQ(calls, 8);
  EXPECT_FALSE(static_cast<bool>(b));  // NOLINT: a moved-from callback is empty
}

TEST(InlineFunction, EachCaptureIsDestroyedExactlyOnce) {
  auto token = std::make_shared<int>(0);
  {
    Callback first([token] { ++*token; });
    EXPECT_EQ(token.use_count(), 2);
    Callback second = std::move(first);
    second();
    EXPECT_EQ(token.use_count(), 2);
    second.Emplace([] {});  // replacing destroys the old closure
    EXPECT_EQ(token.use_count(), 1);
  }
  EXPECT_EQ(*token, 1);
  EXPECT_EQ(token.use_count(), 1);
}

TEST(InlineFunction, PassesArguments) {
  InlineFunction<int(int, const std::vector<int>&), 32> sum = [](int base, const std::vector<int>& more) {
    for (int v : more) base += v;
    return base;
  };
  EXPECT_EQ(sum(1, {2, 3}), 6);
}

}  // namespace
}  // namespace leasesim::sim
