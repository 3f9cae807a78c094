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

void Trace::Record(Nanos time, std::int32_t host, TraceKind kind, std::int64_t a, std::int64_t b) {
  // A run that keeps no events (the common case) hashes in registers alone,
  // with no call to save them around.
  if (retain_) [[unlikely]] return RecordAndRetain(time, host, kind, a, b);
  Fold(time, host, kind, a, b);
}

void Trace::RecordAndRetain(Nanos time, std::int32_t host, TraceKind kind, std::int64_t a, std::int64_t b) {
  assert(events_.size() < kRetainedEventsMax);
  events_.push_back(TraceEvent{time, host, kind.name(), a, b});
  Fold(time, host, kind, a, b);
}

inline void Trace::Fold(Nanos time, std::int32_t host, TraceKind kind, std::int64_t a, std::int64_t b) {
  std::uint64_t hash = Mix(hash_, static_cast<std::uint64_t>(time));
  hash = Mix(hash, static_cast<std::uint64_t>(host));
  hash = Mix(hash, kind.hash());
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
}

std::string FormatHash(std::uint64_t hash) {
  char buffer[20];
  std::snprintf(buffer, sizeof buffer, "%016" PRIx64, hash);
  return buffer;
}

}  // namespace leasesim::sim
