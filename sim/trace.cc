#include "sim/trace.h"

#include <cassert>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace leasesim::sim {
namespace {

inline std::uint64_t Mix(std::uint64_t hash, std::uint64_t value) {
  hash ^= value + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2);
  hash *= 0xff51afd7ed558ccdULL;
  return hash ^ (hash >> 32);
}

inline std::uint64_t HashKind(const char* kind) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char* c = kind; *c != '\0'; ++c) {
    hash ^= static_cast<unsigned char>(*c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

}  // namespace

bool operator==(const TraceEvent& x, const TraceEvent& y) {
  return x.time == y.time && x.host == y.host && std::strcmp(x.kind, y.kind) == 0 &&
         x.a == y.a && x.b == y.b;
}

std::string TraceEvent::ToJson() const {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer,
                "{\"t_ns\":%" PRId64 ",\"host\":%d,\"kind\":\"%s\",\"a\":%" PRId64 ",\"b\":%" PRId64 "}",
                time, host, kind, a, b);
  return buffer;
}

std::uint64_t Trace::KindHash(const char* kind) {
  static_assert((kKindSlots & (kKindSlots - 1)) == 0);
  // Fibonacci hashing of the address: the top bits of the product.
  std::size_t slot = static_cast<std::size_t>((reinterpret_cast<std::uintptr_t>(kind) * 0x9e3779b97f4a7c15ULL) >> 56);
  static_assert(kKindSlots == std::size_t{1} << 8);
  for (std::size_t probe = 0; probe < kKindProbesMax; ++probe) {
    if (kind_keys_[slot] == kind) return kind_hashes_[slot];
    if (kind_keys_[slot] == nullptr) {
      const std::uint64_t hash = HashKind(kind);
      if (kinds_kept_ < kKindSlots / 2) {
        kind_keys_[slot] = kind;
        kind_hashes_[slot] = hash;
        ++kinds_kept_;
      }
      return hash;
    }
    slot = (slot + 1) & (kKindSlots - 1);
  }
  return HashKind(kind);
}

void Trace::Record(Nanos time, std::int32_t host, const char* kind, std::int64_t a,
                   std::int64_t b) {
  std::uint64_t hash = Mix(hash_, static_cast<std::uint64_t>(time));
  hash = Mix(hash, static_cast<std::uint64_t>(host));
  hash = Mix(hash, KindHash(kind));
  hash = Mix(hash, static_cast<std::uint64_t>(a));
  hash_ = Mix(hash, static_cast<std::uint64_t>(b));
#if defined(LEASESIM_SLOWDOWN)
  // A deliberately slowed build (cmake -DLEASESIM_SLOWDOWN=N): work the
  // bench guard must notice, leaving the hash alone.
  std::uint64_t waste = hash_;
  for (int i = 0; i < LEASESIM_SLOWDOWN; ++i) waste = Mix(waste, static_cast<std::uint64_t>(i));
  volatile std::uint64_t sink = waste;
  (void)sink;
#endif
  ++count_;
  if (retain_) {
    assert(events_.size() < kRetainedEventsMax);
    events_.push_back(TraceEvent{time, host, kind, a, b});
  }
}

std::string FormatHash(std::uint64_t hash) {
  char buffer[20];
  std::snprintf(buffer, sizeof buffer, "%016" PRIx64, hash);
  return buffer;
}

}  // namespace leasesim::sim
