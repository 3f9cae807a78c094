#pragma once
// The world's pending events, in key order (the key holds the event's time
// above its sequence number, so no two keys are equal). Three binary heaps
// by how far ahead an event was when scheduled: soon (messages, service
// times, wake-ups: the busy ones), later (timers), far (a fault script set
// up an hour ahead). Pop takes the smallest of the tops, so the order is
// exactly that of a single heap whichever heap an event went to; the split
// only keeps the busy heaps shallow.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace leasesim::sim {

class EventQueue {
 public:
  __extension__ using Key = unsigned __int128;

  // Events due within kSoonNs of their scheduling are "soon", within
  // kLaterNs "later". Only speed depends on these.
  static constexpr std::int64_t kSoonNs = 50'000'000;
  static constexpr std::int64_t kLaterNs = 10'000'000'000;

  void Push(Key key, std::int64_t ahead_ns) {
    std::vector<Key>& heap = heaps_[ahead_ns < kSoonNs ? 0 : ahead_ns < kLaterNs ? 1 : 2];
    heap.push_back(key);
    std::push_heap(heap.begin(), heap.end(), std::greater<Key>{});
  }
  bool empty() const { return heaps_[0].empty() && heaps_[1].empty() && heaps_[2].empty(); }
  std::size_t size() const { return heaps_[0].size() + heaps_[1].size() + heaps_[2].size(); }
  // Pops the smallest key into `key` when it is at most `limit` (compared
  // as keys); false, and nothing popped, when the queue is empty or its
  // smallest key is above the limit.
  bool PopUpTo(Key limit, Key& key) {
    std::vector<Key>* smallest = nullptr;
    for (std::vector<Key>& heap : heaps_) {
      if (!heap.empty() && (smallest == nullptr || heap.front() < smallest->front())) smallest = &heap;
    }
    if (smallest == nullptr || smallest->front() > limit) return false;
    std::pop_heap(smallest->begin(), smallest->end(), std::greater<Key>{});
    key = smallest->back();
    smallest->pop_back();
    return true;
  }

 private:
  std::vector<Key> heaps_[3];  // soon, later, far: min-heaps under std::greater
};

}  // namespace leasesim::sim
