#pragma once
// The world's pending events, in key order (the key holds the event's time
// above its sequence number, so no two keys are equal). Two binary heaps:
// one for events due soon after they were scheduled (messages, service
// times, wake-ups: the busy ones), one for the rest (timers, a fault script
// set up hours ahead). Pop takes the smaller of the two tops, so the order
// is exactly that of a single heap whichever heap an event went to; the
// split only keeps the busy heap shallow.

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace leasesim::sim {

class EventQueue {
 public:
  __extension__ using Key = unsigned __int128;

  void Push(Key key, bool soon) {
    std::vector<Key>& heap = soon ? soon_ : later_;
    heap.push_back(key);
    std::push_heap(heap.begin(), heap.end(), std::greater<Key>{});
  }
  bool empty() const { return soon_.empty() && later_.empty(); }
  std::size_t size() const { return soon_.size() + later_.size(); }
  // The smallest key; the queue must not be empty.
  Key Top() const { return Smaller().front(); }
  Key Pop() {
    std::vector<Key>& heap = Smaller();
    std::pop_heap(heap.begin(), heap.end(), std::greater<Key>{});
    const Key key = heap.back();
    heap.pop_back();
    return key;
  }

 private:
  const std::vector<Key>& Smaller() const {
    assert(!empty());
    if (later_.empty()) return soon_;
    if (soon_.empty()) return later_;
    return soon_.front() < later_.front() ? soon_ : later_;
  }
  std::vector<Key>& Smaller() { return const_cast<std::vector<Key>&>(std::as_const(*this).Smaller()); }

  std::vector<Key> soon_;   // min-heaps under std::greater
  std::vector<Key> later_;
};

}  // namespace leasesim::sim
