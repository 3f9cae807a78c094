#pragma once
// Linearizability search (Wing & Gong, with Lowe's memoisation), the same
// algorithm as Porcupine: a doubly linked list of call/return entries ordered
// by time; linearizing an operation lifts its call and return out of the
// list; backtracking unlifts them. A cache of (set of linearized operations,
// model state) prunes configurations already explored.
//
// The search is a template over a model (see `LinModel` below) so the
// model's step inlines into the loop. Everything the loop touches is sized
// before it starts; the only growth inside it is the memo cache (amortised
// doubling) and, for models that intern states, the model's own tables.
// There are no clock reads and no I/O in it, and it never iterates over a
// hashed container, so a given history and budget always give the same
// answer after the same number of steps.
//
// Its reasoning is asserted as it goes, TigerBeetle-style: preconditions,
// postconditions and the invariants of the entry lists, the stack and the
// memo cache, one condition to an assert so a failure names the one that
// broke. They stay on in every build (the top CMakeLists.txt strips NDEBUG;
// the guard below refuses a build that defines it), since a wrong answer
// here is a wrong verdict on someone's store.

#include <algorithm>
#include <bit>
#include <cassert>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "checker/history.h"

#ifdef NDEBUG
#error "the checker's assertions stay on in every build: compile without NDEBUG (see CMakeLists.txt)"
#endif

namespace leasesim::checker {

// What the search concluded about one history (or one partition of it).
enum class LinVerdict {
  kLinearizable,
  kNotLinearizable,
  kUnknown,  // the step budget ran out first
};
inline constexpr base::EnumNames<LinVerdict, 3> kLinVerdictNames{{{LinVerdict::kLinearizable, "linearizable"},
                                                                  {LinVerdict::kNotLinearizable, "not_linearizable"},
                                                                  {LinVerdict::kUnknown, "unknown"}}};

inline const char* LinVerdictName(LinVerdict verdict) { return kLinVerdictNames.CName(verdict); }

// One operation as the search sees it: the model's operation (input and
// output together) plus when it was called and when it returned. An
// operation whose outcome is unknown returns at kNeverNs: it may take effect
// at any point after its call, or never.
template <class Op>
struct LinOp {
  Op op;
  TimeNs call_ns = 0;
  TimeNs return_ns = kNeverNs;
  // Where it came from (an index into the caller's list); reported back in
  // explanations.
  std::int64_t source = 0;
};

// A model, Porcupine-style: an initial state, a step function that says
// whether an operation with its recorded output is legal in a state (and the
// state after it), and equality and hashing of states for the memo cache.
// States must be small and trivially copyable (e.g. an integer, or an id the
// model interns); Step may be non-const so a model can intern states lazily.
template <class M>
concept LinModel = requires(M& model, const M& cmodel, const typename M::State& state,
                            typename M::State& next, const typename M::Op& op) {
  typename M::State;
  typename M::Op;
  requires std::is_trivially_copyable_v<typename M::State>;
  { model.Init() } -> std::convertible_to<typename M::State>;
  { model.Step(state, op, next) } -> std::convertible_to<bool>;
  { M::Equal(state, state) } -> std::convertible_to<bool>;
  { M::Hash(state) } -> std::convertible_to<std::uint64_t>;
  { cmodel.DescribeOp(op) } -> std::convertible_to<std::string>;
  { cmodel.DescribeState(state) } -> std::convertible_to<std::string>;
};

// Optional pruning hint a model may offer. Resets(op): the operation can
// move the state "backwards" (e.g. a put). Unreachable(state, op): without a
// reset, no sequence of steps from `state` makes `op` (with its recorded
// output) legal — e.g. a get of "ab" once the value is "abc" and only appends
// can follow. The search then abandons a configuration whose first pending
// return can no longer be satisfied, instead of trying every order of the
// operations before it. A wrong "true" would hide linearizations, so models
// must only answer true when certain.
template <class M>
concept LinPruneHint = requires(const M& model, const typename M::State& state,
                                const typename M::Op& op) {
  { model.Resets(op) } -> std::convertible_to<bool>;
  { model.Unreachable(state, op) } -> std::convertible_to<bool>;
};

// Optional hint: ReadOnly(op) is true when the operation changes no state
// wherever it is legal (a read, a get, a cas that failed). Such an operation,
// when legal now, can go first: see LinSearch::TryLinearize.
template <class M>
concept LinReadOnlyHint = requires(const M& model, const typename M::Op& op) {
  { model.ReadOnly(op) } -> std::convertible_to<bool>;
};

// The outcome of searching one partition.
struct LinPartitionResult {
  LinVerdict verdict = LinVerdict::kLinearizable;
  std::int64_t steps = 0;
  // When not linearizable: the longest sequence of operations (indices into
  // the partition's ops, in linearization order) the search managed to
  // linearize, and the operation that could not be placed after it: the
  // pending operation that returned first.
  std::vector<std::size_t> longest_prefix;
  std::size_t blocking_op = 0;
};

namespace lin_internal {

// splitmix64: the per-operation keys of the Zobrist hash of the linearized set.
inline std::uint64_t Mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Open-addressing set of (linearized bitset, state) pairs: Lowe's memo cache.
// Bitsets live in one flat word arena, so an entry costs `words` words plus a
// state and no allocation of its own.
template <class M>
class MemoCache {
 public:
  using State = typename M::State;

  MemoCache(std::size_t words, std::size_t expected) : words_(words) {
    std::size_t capacity = 1024;
    while (capacity < expected * 2) capacity *= 2;
    slots_.assign(capacity, kEmpty);
    arena_.reserve(expected * words_);
    states_.reserve(expected);
    hashes_.reserve(expected);
    assert(std::has_single_bit(slots_.size()));  // probes wrap with a mask
    assert(slots_.size() >= expected * 2);
  }

  // Inserts the pair unless present; returns whether it was inserted.
  bool Insert(const std::uint64_t* bits, const State& state, std::uint64_t hash) {
    // At most half full, so a probe always meets an empty slot and ends.
    assert(states_.size() * 2 <= slots_.size());
    assert(std::has_single_bit(slots_.size()));
    std::size_t mask = slots_.size() - 1;
    std::size_t slot = hash & mask;
    while (slots_[slot] != kEmpty) {
      const std::uint32_t index = slots_[slot];
      if (hashes_[index] == hash && M::Equal(states_[index], state) &&
          std::memcmp(&arena_[index * words_], bits, words_ * sizeof(std::uint64_t)) == 0) {
        return false;
      }
      slot = (slot + 1) & mask;
    }
    assert(states_.size() < kEmpty);  // an entry's index is never the empty mark
    const auto index = static_cast<std::uint32_t>(states_.size());
    slots_[slot] = index;
    arena_.insert(arena_.end(), bits, bits + words_);
    states_.push_back(state);
    hashes_.push_back(hash);
    if (states_.size() * 2 > slots_.size()) Grow();
    assert(hashes_.size() == states_.size());
    assert(arena_.size() == states_.size() * words_);
    return true;
  }

 private:
  static constexpr std::uint32_t kEmpty = std::numeric_limits<std::uint32_t>::max();

  void Grow() {
    std::vector<std::uint32_t> slots(slots_.size() * 2, kEmpty);
    const std::size_t mask = slots.size() - 1;
    for (std::uint32_t index = 0; index < states_.size(); ++index) {
      std::size_t slot = hashes_[index] & mask;
      while (slots[slot] != kEmpty) slot = (slot + 1) & mask;
      slots[slot] = index;
    }
    slots_.swap(slots);
    assert(states_.size() * 2 <= slots_.size());
  }

  std::size_t words_;
  std::vector<std::uint32_t> slots_;
  std::vector<std::uint64_t> arena_;
  std::vector<State> states_;
  std::vector<std::uint64_t> hashes_;
};

}  // namespace lin_internal

// The search over one partition, resumable: Run(n) advances it by at most
// n steps, so a caller can interleave partitions deterministically (a hard
// partition must not hide an easy violation in another one).
//
// Operations with an unknown outcome need not be linearized: the model must
// accept any such operation in any state, so once every operation with a
// known return is placed the rest can follow at the end (or never happen).
// They are kept out of the entry list (their return is at +infinity) in a
// list of their own, tried only after every known operation failed at a
// point, and never tried where they would not change the state (such a
// placement can always be dropped, so it cannot be needed).
template <LinModel M, bool kPrune = true>
class LinSearch {
 public:
  using State = typename M::State;
  using Op = typename M::Op;

  LinSearch(M& model, std::span<const LinOp<Op>> ops)
      : model_(model),
        ops_(ops),
        words_((ops.size() + 63) / 64),
        cache_(words_, std::max<std::size_t>(ops.size() * 4, 1024)) {
    const std::size_t n = ops.size();
    // Node ids (up to 2n) and ranks (up to 2n) stay below kNoOp.
    assert(n < kNoOp / 2);
    for (const LinOp<Op>& op : ops) {
      assert(op.call_ns <= op.return_ns);  // an unknown outcome returns at kNeverNs, after everything
    }
    ThreadEntries(SortedEvents(ops));
    bits_.assign(words_, 0);
    zobrist_.resize(n);
    for (std::size_t i = 0; i < n; ++i) zobrist_[i] = lin_internal::Mix(i * 0x2545F4914F6CDD1DULL + 1);
    stack_.reserve(n);
    result_.longest_prefix.reserve(n);
    state_ = model_.Init();
    cursor_ = next_[0];
    if (finite_left_ == 0) done_ = true;
    AssertListsThreaded();
  }

  bool done() const { return done_; }
  const LinPartitionResult& result() const { return result_; }

  // Advances by at most `max_steps` steps; returns done().
  bool Run(std::int64_t max_steps) {
    assert(max_steps >= 0);
    std::int64_t steps = 0;
    while (!done_ && steps < max_steps) {
      ++steps;
      if (!in_unknown_) {
        const std::uint32_t node = cursor_;
        // The walk meets a pending return before the list ends: every op
        // still in it has its return after its call.
        assert(node != 0);
        assert(node < next_.size());
        if ((node & 1U) == 1U) {  // a call: try to linearize its op now
          if (!TryLinearize((node - 1) / 2)) cursor_ = next_[node];
        } else {  // the first pending return: now try the unknown ops before it
          in_unknown_ = true;
          limit_ = rank_[node];
          first_return_op_ = (node - 1) / 2;
          ucursor_ = unext_[0];
        }
        continue;
      }
      const std::uint32_t unode = ucursor_;
      // The unknown phase runs below the rank of a pending return.
      assert(unode < unext_.size());
      assert(limit_ > 0);
      assert(Known(first_return_op_));
      if (unode != 0 && rank_[1 + 2 * (unode - 1)] < limit_) {
        if (!TryLinearize(unode - 1)) ucursor_ = unext_[unode];
        continue;
      }
      // Every op that could come next failed: the first pending return is
      // what cannot be placed here.
      if (at_longest_) blocking_ = first_return_op_;
      Backtrack();
    }
    result_.steps += steps;
    if (done_) Finish();
    return done_;
  }

 private:
  struct Frame {
    std::uint32_t op;
    std::uint32_t limit;  // for unknown ops: the unknown-phase limit to resume
    bool forced;          // no alternative to this placement (see TryLinearize)
    State state;
  };

  bool Known(std::uint32_t op) const { return ops_[op].return_ns != kNeverNs; }

  struct Event {
    TimeNs time;
    std::uint32_t is_return;
    std::uint32_t op;
  };

  // Every call, and the return of every known op, ordered by time; at equal
  // times calls come first, so operations that touch at an instant are
  // treated as concurrent (never a false alarm).
  static std::vector<Event> SortedEvents(std::span<const LinOp<Op>> ops) {
    std::vector<Event> events;
    events.reserve(2 * ops.size());
    for (std::uint32_t i = 0; i < ops.size(); ++i) {
      events.push_back({ops[i].call_ns, 0, i});
      if (ops[i].return_ns != kNeverNs) events.push_back({ops[i].return_ns, 1, i});
    }
    std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
      if (a.time != b.time) return a.time < b.time;
      if (a.is_return != b.is_return) return a.is_return < b.is_return;
      return a.op < b.op;
    });
    return events;
  }

  // Threads the entries in event order. Node ids: 0 is the head sentinel
  // (and the list's end); the call of op i is 1+2i and its return 2+2i.
  // Unknown ops live in the second list, node 1+i, head 0, in call order.
  void ThreadEntries(const std::vector<Event>& events) {
    const std::size_t n = ops_.size();
    next_.assign(2 * n + 1, 0);
    prev_.assign(2 * n + 1, 0);
    rank_.assign(2 * n + 1, 0);
    unext_.assign(n + 1, 0);
    uprev_.assign(n + 1, 0);
    std::uint32_t last = 0, ulast = 0;
    std::uint32_t rank = 0;
    for (const Event& event : events) {
      ++rank;
      if (!Known(event.op)) {
        const std::uint32_t node = 1 + event.op;
        unext_[ulast] = node;
        uprev_[node] = ulast;
        ulast = node;
        rank_[1 + 2 * event.op] = rank;
        continue;
      }
      const std::uint32_t node = 1 + 2 * event.op + event.is_return;
      if (event.is_return == 1) ++finite_left_;
      rank_[node] = rank;
      next_[last] = node;
      prev_[node] = last;
      last = node;
    }
    next_[last] = 0;
    unext_[ulast] = 0;
  }

  // The constructor's postcondition: both lists run in rank order with
  // their back links matching, every known op's call before its return, and
  // they hold every op exactly once (the known ones twice).
  void AssertListsThreaded() const {
    std::size_t entries = 0;
    for (std::uint32_t node = next_[0]; node != 0; node = next_[node]) {
      assert(next_[prev_[node]] == node);
      assert(next_[node] == 0 || rank_[node] < rank_[next_[node]]);
      ++entries;
    }
    assert(entries == 2 * finite_left_);
    std::size_t unknown = 0;
    for (std::uint32_t unode = unext_[0]; unode != 0; unode = unext_[unode]) {
      assert(unext_[uprev_[unode]] == unode);
      assert(!Known(unode - 1));
      ++unknown;
    }
    assert(finite_left_ + unknown == ops_.size());
    for (std::uint32_t op = 0; op < ops_.size(); ++op) {
      if (Known(op)) assert(rank_[1 + 2 * op] < rank_[2 + 2 * op]);
    }
  }

  // Tries to place `op` next. Returns false to let the caller try the next
  // candidate. May instead backtrack itself (returning true): see below.
  bool TryLinearize(std::uint32_t op) {
    assert(op < ops_.size());
    assert((bits_[op / 64] & (std::uint64_t{1} << (op % 64))) == 0);  // not placed yet
    State next_state;
    if (!model_.Step(state_, ops_[op].op, next_state)) return false;
    const bool known = Known(op);
    const bool keeps_state = M::Equal(next_state, state_);
    // An unknown op that changes nothing here is pointless here: it can be
    // left out, as it never needs to happen.
    if (!known && keeps_state) return false;
    bool read_only = false;
    if constexpr (LinReadOnlyHint<M>) read_only = known && model_.ReadOnly(ops_[op].op);
    if (read_only) assert(keeps_state);  // the hint's promise, which the shortcut below relies on
    const std::uint64_t word_bit = std::uint64_t{1} << (op % 64);
    bits_[op / 64] |= word_bit;
    const std::uint64_t bits_hash = bits_hash_ ^ zobrist_[op];
    const std::uint64_t hash = lin_internal::Mix(bits_hash ^ M::Hash(next_state));
    const bool inserted = cache_.Insert(bits_.data(), next_state, hash);
    if (!inserted) {
      bits_[op / 64] &= ~word_bit;
      if (!read_only) return false;
      // A pending read-only operation that is legal now can always go first:
      // any linearization from here stays valid with it moved to the front
      // (it changes no state anywhere, and nothing still pending returned
      // before it was called). So if placing it first is known to fail, this
      // whole configuration fails. (Keeping the state *here* is not enough:
      // a write of the current value matters later.)
      Backtrack();
      return true;
    }
    stack_.push_back({op, limit_, read_only, state_});
    assert(stack_.size() <= ops_.size());
    state_ = next_state;
    bits_hash_ = bits_hash;
    if (known) {
      assert(finite_left_ > 0);
      Lift(1 + 2 * op);
      if (--finite_left_ == 0) done_ = true;
    } else {
      const std::uint32_t unode = 1 + op;
      unext_[uprev_[unode]] = unext_[unode];
      uprev_[unext_[unode]] = uprev_[unode];
    }
    at_longest_ = stack_.size() > result_.longest_prefix.size();
    if (at_longest_) {
      result_.longest_prefix.clear();
      for (const Frame& frame : stack_) result_.longest_prefix.push_back(frame.op);
      blocking_ = kNoOp;
    }
    in_unknown_ = false;
    cursor_ = next_[0];
    if constexpr (kPrune && LinPruneHint<M>) {
      if (!done_) {
        if (const std::uint32_t hopeless = Hopeless(); hopeless != kNoOp) {
          if (at_longest_) blocking_ = hopeless;
          Backtrack();
        }
      }
    }
    return true;
  }

  // Whether some pending operation can no longer be satisfied: walking the
  // entries in time order up to the first pending reset (known or unknown),
  // every return met belongs to an operation that must be placed before any
  // reset could be; if the model says its result is unreachable from the
  // current state, this configuration is hopeless. The walk is capped so a
  // configuration costs O(1) extra at worst.
  std::uint32_t Hopeless() const
    requires LinPruneHint<M>
  {
    constexpr int kMaxReturnsChecked = 16;
    int checked = 0;
    std::uint32_t unode = unext_[0];
    for (std::uint32_t node = next_[0]; node != 0; node = next_[node]) {
      while (unode != 0 && rank_[1 + 2 * (unode - 1)] < rank_[node]) {
        if (model_.Resets(ops_[unode - 1].op)) return kNoOp;
        unode = unext_[unode];
      }
      const typename M::Op& op = ops_[(node - 1) / 2].op;
      if ((node & 1U) == 1U) {
        if (model_.Resets(op)) return kNoOp;
        continue;
      }
      if (model_.Unreachable(state_, op)) {
        assert(Known((node - 1) / 2));  // a return in the list is a known op's
        return (node - 1) / 2;
      }
      if (++checked == kMaxReturnsChecked) return kNoOp;
    }
    return kNoOp;
  }

  // Undoes the last placement and resumes after it; a placement that was
  // forced (see TryLinearize) has no alternatives, so it takes its parent
  // configuration down with it.
  void Backtrack() {
    at_longest_ = false;
    while (true) {
      if (stack_.empty()) {
        // Back at the start: nothing placed, so the hash of the placed set
        // is the empty set's.
        assert(bits_hash_ == 0);
        result_.verdict = LinVerdict::kNotLinearizable;
        done_ = true;
        return;
      }
      const Frame frame = stack_.back();
      stack_.pop_back();
      assert((bits_[frame.op / 64] & (std::uint64_t{1} << (frame.op % 64))) != 0);  // it was placed
      state_ = frame.state;
      bits_[frame.op / 64] &= ~(std::uint64_t{1} << (frame.op % 64));
      bits_hash_ ^= zobrist_[frame.op];
      if (Known(frame.op)) {
        const std::uint32_t call_node = 1 + 2 * frame.op;
        Unlift(call_node);
        ++finite_left_;
        in_unknown_ = false;
        cursor_ = next_[call_node];
      } else {
        const std::uint32_t unode = 1 + frame.op;
        unext_[uprev_[unode]] = unode;
        uprev_[unext_[unode]] = unode;
        in_unknown_ = true;
        limit_ = frame.limit;
        ucursor_ = unext_[unode];
      }
      if (!frame.forced) return;
    }
  }

  void Lift(std::uint32_t call_node) {
    const std::uint32_t ret = call_node + 1;
    assert((call_node & 1U) == 1U);
    assert(next_[prev_[call_node]] == call_node);  // both ends in the list
    assert(next_[prev_[ret]] == ret);
    next_[prev_[call_node]] = next_[call_node];
    prev_[next_[call_node]] = prev_[call_node];
    next_[prev_[ret]] = next_[ret];
    prev_[next_[ret]] = prev_[ret];
  }
  void Unlift(std::uint32_t call_node) {
    const std::uint32_t ret = call_node + 1;
    next_[prev_[ret]] = ret;
    prev_[next_[ret]] = ret;
    next_[prev_[call_node]] = call_node;
    prev_[next_[call_node]] = call_node;
    assert(rank_[prev_[call_node]] < rank_[call_node]);  // back where it was: in rank order
    assert(next_[ret] == 0 || rank_[ret] < rank_[next_[ret]]);
  }

  void Finish() {
    assert(done_);
    if (result_.verdict != LinVerdict::kNotLinearizable) {
      assert(finite_left_ == 0);  // every known op placed
      result_.longest_prefix.clear();
      result_.longest_prefix.shrink_to_fit();
      return;
    }
    assert(stack_.empty());  // every placement was undone
    // The operation that cannot be placed after the longest prefix: the one
    // the search got stuck on there, else (the prefix was abandoned for a
    // remembered reason) of the known operations not in it, the one that
    // returned first.
    if (blocking_ == kNoOp) blocking_ = EarliestUnplacedReturn();
    result_.blocking_op = blocking_;
    // It is a known op the prefix does not hold (all of them placed would
    // have been a linearization).
    assert(result_.blocking_op < ops_.size());
    assert(Known(blocking_));
    assert(std::find(result_.longest_prefix.begin(), result_.longest_prefix.end(), result_.blocking_op) ==
           result_.longest_prefix.end());
  }

  std::uint32_t EarliestUnplacedReturn() const {
    std::uint32_t earliest_op = kNoOp;
    std::vector<bool> placed(ops_.size(), false);
    for (std::size_t op : result_.longest_prefix) placed[op] = true;
    TimeNs earliest = kNeverNs;
    for (std::uint32_t i = 0; i < ops_.size(); ++i) {
      if (!placed[i] && ops_[i].return_ns != kNeverNs &&
          (earliest == kNeverNs || ops_[i].return_ns < earliest)) {
        earliest = ops_[i].return_ns;
        earliest_op = i;
      }
    }
    return earliest_op;
  }

  static constexpr std::uint32_t kNoOp = 0xFFFFFFFFU;

  M& model_;
  std::span<const LinOp<Op>> ops_;
  std::size_t words_;
  lin_internal::MemoCache<M> cache_;
  std::vector<std::uint32_t> next_, prev_, rank_;
  std::vector<std::uint32_t> unext_, uprev_;
  std::vector<std::uint64_t> bits_;
  std::vector<std::uint64_t> zobrist_;
  std::vector<Frame> stack_;
  State state_{};
  std::uint64_t bits_hash_ = 0;
  std::size_t finite_left_ = 0;
  std::uint32_t cursor_ = 0;
  std::uint32_t ucursor_ = 0;
  std::uint32_t limit_ = 0;
  bool in_unknown_ = false;
  bool done_ = false;
  bool at_longest_ = false;          // the configuration is the longest prefix so far
  std::uint32_t blocking_ = kNoOp;   // what could not be placed after it
  std::uint32_t first_return_op_ = 0;
  LinPartitionResult result_;
};

// Searches one partition to the end or until `budget` (steps) runs out;
// decreases `budget` by the steps taken.
template <LinModel M>
LinPartitionResult SearchLinearization(M& model, std::span<const LinOp<typename M::Op>> ops,
                                       std::int64_t& budget) {
  assert(budget >= 0);
  LinSearch<M> search(model, ops);
  const bool finished = search.Run(budget);
  LinPartitionResult result = search.result();
  assert(result.steps <= budget);  // Run keeps to what it was given
  budget -= result.steps;
  if (!finished) result.verdict = LinVerdict::kUnknown;
  return result;
}

// Replays `prefix` from the model's initial state and renders the
// explanation of a failed partition in words: how much was linearizable, the
// state it left, and the operation that cannot be placed.
template <LinModel M>
std::string ExplainFailure(M& model, std::span<const LinOp<typename M::Op>> ops,
                           const LinPartitionResult& result) {
  assert(result.verdict == LinVerdict::kNotLinearizable);
  assert(result.blocking_op < ops.size());
  typename M::State state = model.Init();
  typename M::State next = state;
  for (std::size_t op : result.longest_prefix) {
    // The prefix is a linearization the search found, step by legal step.
    const bool legal = model.Step(state, ops[op].op, next);
    assert(legal);
    state = next;
  }
  std::string text = "The longest linearizable prefix places " +
                     std::to_string(result.longest_prefix.size()) + " of " +
                     std::to_string(ops.size()) + " operations";
  if (!result.longest_prefix.empty()) {
    text += " (last: " + model.DescribeOp(ops[result.longest_prefix.back()].op) + ")";
  }
  text += " and leaves the state " + model.DescribeState(state) + "; then " +
          model.DescribeOp(ops[result.blocking_op].op) +
          " cannot be placed in any order consistent with real time.";
  return text;
}

}  // namespace leasesim::checker
