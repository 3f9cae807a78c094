#pragma once
// The world's pending events, in key order (the key holds the event's time
// above its sequence number, so no two keys are equal). Three binary heaps
// by how far ahead an event was when scheduled: soon (messages, service
// times, wake-ups: the busy ones), later (timers), far (a fault script set
// up an hour ahead). Pop takes the smallest of the tops, so the order is
// exactly that of a single heap whichever heap an event went to; the split
// only keeps the busy heaps shallow.

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace leasesim::sim {

// The pending events in the three heaps described above.
class EventQueue {
 public:
  __extension__ using Key = unsigned __int128;

  // Events due within kSoonNs of their scheduling are "soon", within
  // kLaterNs "later". Only speed depends on these.
  static constexpr std::int64_t kSoonNs = 50'000'000;
  static constexpr std::int64_t kLaterNs = 10'000'000'000;

  EventQueue() {
    for (std::vector<Key>& heap : heaps_) heap.push_back(kNone);
  }

  void Push(Key key, std::int64_t ahead_ns) {
    assert(key < kNone);
    std::vector<Key>& heap = heaps_[ahead_ns < kSoonNs ? 0 : ahead_ns < kLaterNs ? 1 : 2];
    heap.push_back(key);
    SiftUp(heap.data(), heap.size() - 1);
    ++size_;
  }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // Pops the smallest key into `key` when it is at most `limit` (compared
  // as keys); false, and nothing popped, when the queue is empty or its
  // smallest key is above the limit.
  bool PopUpTo(Key limit, Key& key) {
    assert(limit < kNone);
    std::vector<Key>* smallest = &heaps_[0];
    if (heaps_[1].front() < smallest->front()) smallest = &heaps_[1];
    if (heaps_[2].front() < smallest->front()) smallest = &heaps_[2];
    if (smallest->front() > limit) return false;
    key = smallest->front();
    // The last key fills the hole at the top (the heap keeps its kNone, so
    // it is never empty after).
    const Key last = smallest->back();
    smallest->pop_back();
    SiftDown(smallest->data(), smallest->size(), last);
    --size_;
    return true;
  }

 private:
  // Binary min-heaps by hand, top-down with a hole: the heaps are a few to
  // a few dozen keys, where std::pop_heap's walk to a leaf and back costs
  // more than it saves. Any correct heap gives the same order (keys are unique).
  static void SiftUp(Key* heap, std::size_t hole) {
    const Key key = heap[hole];
    while (hole > 0) {
      const std::size_t parent = (hole - 1) / 2;
      if (!(key < heap[parent])) break;
      heap[hole] = heap[parent];
      hole = parent;
    }
    heap[hole] = key;
  }
  // Puts `key` into the hole at the top of heap[0, size).
  static void SiftDown(Key* heap, std::size_t size, Key key) {
    assert(size > 0);
    std::size_t hole = 0;
    for (;;) {
      std::size_t child = 2 * hole + 1;
      if (child >= size) break;
      if (child + 1 < size && heap[child + 1] < heap[child]) ++child;
      if (!(heap[child] < key)) break;
      heap[hole] = heap[child];
      hole = child;
    }
    heap[hole] = key;
  }

  // Every heap holds this largest key at its bottom, so its front is always
  // there to compare (an empty heap's front is kNone) and is never popped.
  static constexpr Key kNone = ~Key{0};

  std::vector<Key> heaps_[3];  // soon, later, far: min-heaps under std::greater
  std::size_t size_ = 0;       // keys in all three (each also holds its kNone)
};

}  // namespace leasesim::sim
