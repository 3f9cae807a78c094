#pragma once
// A move-only void() callable that stores small closures inline. The event
// queue holds one per event; std::function would allocate for almost every
// closure the simulator makes (they capture a few ids and another callback).

#include <cassert>
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace leasesim::sim {

class Callback {
 public:
  static constexpr std::size_t kInlineBytes = 112;

  Callback() = default;
  Callback(std::nullptr_t) {}  // NOLINT: converting, like std::function

  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Callback> &&
                                                    std::is_invocable_r_v<void, std::decay_t<F>&>>>
  Callback(F&& f) {  // NOLINT: converting, like std::function
    using Fn = std::decay_t<F>;
    if constexpr (sizeof(Fn) <= kInlineBytes && alignof(Fn) <= alignof(std::max_align_t) &&
                  std::is_nothrow_move_constructible_v<Fn>) {
      new (storage_) Fn(std::forward<F>(f));
      ops_ = &InlineOps<Fn>::kOps;
    } else {
      *reinterpret_cast<Fn**>(storage_) = new Fn(std::forward<F>(f));
      ops_ = &HeapOps<Fn>::kOps;
    }
  }

  Callback(Callback&& other) noexcept { MoveFrom(other); }
  Callback& operator=(Callback&& other) noexcept {
    if (this != &other) {
      Reset();
      MoveFrom(other);
    }
    return *this;
  }
  Callback(const Callback&) = delete;
  Callback& operator=(const Callback&) = delete;
  ~Callback() { Reset(); }

  explicit operator bool() const { return ops_ != nullptr; }
  void operator()() {
    assert(ops_ != nullptr);
    ops_->invoke(storage_);
  }

 private:
  struct Ops {
    void (*invoke)(void*);
    void (*move)(void* from, void* to);  // move-constructs into `to`, destroys `from`
    void (*destroy)(void*);
  };
  template <typename Fn>
  struct InlineOps {
    static void Invoke(void* p) { (*static_cast<Fn*>(p))(); }
    static void Move(void* from, void* to) {
      new (to) Fn(std::move(*static_cast<Fn*>(from)));
      static_cast<Fn*>(from)->~Fn();
    }
    static void Destroy(void* p) { static_cast<Fn*>(p)->~Fn(); }
    static constexpr Ops kOps{&Invoke, &Move, &Destroy};
  };
  template <typename Fn>
  struct HeapOps {
    static void Invoke(void* p) { (**static_cast<Fn**>(p))(); }
    static void Move(void* from, void* to) { *static_cast<Fn**>(to) = *static_cast<Fn**>(from); }
    static void Destroy(void* p) { delete *static_cast<Fn**>(p); }
    static constexpr Ops kOps{&Invoke, &Move, &Destroy};
  };

  void MoveFrom(Callback& other) {
    ops_ = other.ops_;
    if (ops_ != nullptr) ops_->move(other.storage_, storage_);
    other.ops_ = nullptr;
  }
  void Reset() {
    if (ops_ != nullptr) ops_->destroy(storage_);
    ops_ = nullptr;
  }

  alignas(std::max_align_t) unsigned char storage_[kInlineBytes];
  const Ops* ops_ = nullptr;
};

}  // namespace leasesim::sim
