#include "sim/trace.h"

#include <cassert>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace leasesim::sim {
namespace {

// A build slowed on purpose (cmake -DLEASESIM_SLOWDOWN=N): N rounds of
// hashing per trace record that the bench guard must notice, the hash
// itself unchanged.
#if defined(LEASESIM_SLOWDOWN)
constexpr int kSlowdownRounds = LEASESIM_SLOWDOWN;
#else
constexpr int kSlowdownRounds = 0;
#endif

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

Trace::Trace(bool retain_events) : retain_(retain_events), slow_(retain_events || kSlowdownRounds > 0) {}

void Trace::RecordSlowly(Nanos time, std::int32_t host, TraceKind kind, std::int64_t a, std::int64_t b) {
  if (retain_) {
    assert(events_.size() < kRetainedEventsMax);
    events_.push_back(TraceEvent{time, host, kind.name(), a, b});
  }
  Fold(time, host, kind.hash(), a, b);
  if constexpr (kSlowdownRounds > 0) {
    std::uint64_t waste = hash_;
    for (int i = 0; i < kSlowdownRounds; ++i) waste = Mix(waste, static_cast<std::uint64_t>(i));
    [[maybe_unused]] volatile std::uint64_t sink = waste;
  }
}

std::string FormatHash(std::uint64_t hash) {
  char buffer[20];
  std::snprintf(buffer, sizeof buffer, "%016" PRIx64, hash);
  return buffer;
}

}  // namespace leasesim::sim
