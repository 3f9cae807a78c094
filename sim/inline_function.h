#pragma once
// Move-only callables that store small closures inline. The event queue
// holds one per event and every message carries one; std::function would
// allocate for almost every closure the simulator makes (they capture a few
// ids and pointers). A closure too large for the buffer goes to the heap.

#include <cassert>
#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace leasesim::sim {

template <typename Signature, std::size_t Bytes>
class InlineFunction;

// A move-only callable with `Bytes` of inline storage.
template <typename R, typename... Args, std::size_t Bytes>
class InlineFunction<R(Args...), Bytes> {
 public:
  static constexpr std::size_t kInlineBytes = Bytes;

  InlineFunction() = default;
  InlineFunction(std::nullptr_t) {}  // NOLINT: converting, like std::function

  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, InlineFunction> &&
                                                    std::is_invocable_r_v<R, std::decay_t<F>&, Args...>>>
  InlineFunction(F&& f) {  // NOLINT: converting, like std::function
    Construct(std::forward<F>(f));
  }

  InlineFunction(InlineFunction&& other) noexcept { MoveFrom(other); }
  InlineFunction& operator=(InlineFunction&& other) noexcept {
    if (this != &other) {
      Reset();
      MoveFrom(other);
    }
    return *this;
  }
  InlineFunction(const InlineFunction&) = delete;
  InlineFunction& operator=(const InlineFunction&) = delete;
  ~InlineFunction() { Reset(); }

  // Whether a closure of type Fn is stored inline (no allocation).
  template <typename Fn>
  static constexpr bool kFits = sizeof(Fn) <= Bytes && alignof(Fn) <= alignof(std::max_align_t) &&
                                std::is_nothrow_move_constructible_v<Fn>;

  // Replaces the callable with f, built in place (no temporary to move).
  template <typename F>
  void Emplace(F&& f) {
    if constexpr (std::is_same_v<std::decay_t<F>, InlineFunction>) {
      *this = std::move(f);
    } else {
      Reset();
      Construct(std::forward<F>(f));
    }
  }

  explicit operator bool() const { return ops_ != nullptr; }
  // Destroys the callable: empty after.
  void Reset() {
    if (ops_ != nullptr && ops_->destroy != nullptr) ops_->destroy(storage_);
    ops_ = nullptr;
  }
  R operator()(Args... args) {
    assert(ops_ != nullptr);
    return ops_->invoke(storage_, std::forward<Args>(args)...);
  }

 private:
  // Closures of ids and pointers (most of them) move by copying bytes and
  // need no destructor: move and destroy are null for them.
  template <typename Fn>
  static constexpr bool kPlainBytes = std::is_trivially_copyable_v<Fn> && std::is_trivially_destructible_v<Fn>;

  struct Ops {
    R (*invoke)(void*, Args&&...);
    void (*move)(void* from, void* to);  // move-constructs into `to`, destroys `from`; null: copy bytes
    void (*destroy)(void*);              // null: nothing to do
  };
  template <typename Fn>
  struct InlineOps {
    static R Invoke(void* p, Args&&... args) { return (*static_cast<Fn*>(p))(std::forward<Args>(args)...); }
    static void Move(void* from, void* to) {
      new (to) Fn(std::move(*static_cast<Fn*>(from)));
      static_cast<Fn*>(from)->~Fn();
    }
    static void Destroy(void* p) { static_cast<Fn*>(p)->~Fn(); }
    static constexpr Ops kOps{&Invoke, kPlainBytes<Fn> ? nullptr : &Move, kPlainBytes<Fn> ? nullptr : &Destroy};
  };
  template <typename Fn>
  struct HeapOps {
    static R Invoke(void* p, Args&&... args) { return (**static_cast<Fn**>(p))(std::forward<Args>(args)...); }
    static void Destroy(void* p) { delete *static_cast<Fn**>(p); }
    static constexpr Ops kOps{&Invoke, nullptr, &Destroy};  // the pointer moves as bytes
  };

  template <typename F>
  void Construct(F&& f) {
    using Fn = std::decay_t<F>;
    if constexpr (kFits<Fn>) {
      new (storage_) Fn(std::forward<F>(f));
      ops_ = &InlineOps<Fn>::kOps;
    } else {
      *reinterpret_cast<Fn**>(storage_) = new Fn(std::forward<F>(f));
      ops_ = &HeapOps<Fn>::kOps;
    }
  }

  void MoveFrom(InlineFunction& other) {
    ops_ = other.ops_;
    if (ops_ != nullptr) {
      if (ops_->move != nullptr) {
        ops_->move(other.storage_, storage_);
      } else {
        std::memcpy(storage_, other.storage_, Bytes);
      }
    }
    other.ops_ = nullptr;
  }
  alignas(std::max_align_t) unsigned char storage_[Bytes];
  const Ops* ops_ = nullptr;
};

// What the event queue runs.
using Callback = InlineFunction<void(), 112>;

}  // namespace leasesim::sim
