#include "sim/trace.h"

#include <cassert>
#include <cstring>

#include <absl/strings/str_format.h>

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
  // Off the hashing path: only `replay --trace` and a divergence message
  // write events out.
  return absl::StrFormat(R"({"t_ns":%d,"host":%d,"kind":"%s","a":%d,"b":%d})", time, host, kind, a, b);
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

}  // namespace leasesim::sim
