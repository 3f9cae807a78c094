#include "sim/time_sync.h"

#include <cassert>
#include <cstdlib>

namespace leasesim::sim {

TimeSync::TimeSync(World& world, HostId host, Nanos reference_wall_at_zero, TimeSyncConfig config)
    : world_(world), host_(host), reference_wall_at_zero_(reference_wall_at_zero), config_(config) {
  assert(config_.poll >= 0);
  assert(config_.step_threshold >= 0);
}

void TimeSync::Start() {
  if (config_.poll == 0) return;
  world_.At(world_.now() + config_.poll, [this] { Poll(); });
}

void TimeSync::Poll() {
  world_.At(world_.now() + config_.poll, [this] { Poll(); });
  if (!world_.running(host_)) return;  // the daemon runs on the host: not while it is stopped
  const Nanos offset = world_.WallNow(host_) - (reference_wall_at_zero_ + world_.now());
  if (offset == 0) return;
  if (std::llabs(offset) > config_.step_threshold) {
    world_.StepWall(host_, -offset);
    ++steps_;
    world_.trace().Record(world_.now(), host_, "ntp_step", -offset / kNanosPerMicro);
    return;
  }
  if (!config_.slew_small_offsets) return;
  world_.Slew(host_, -offset, TimeSyncConfig::kSlewPpm);
  ++slews_;
}

}  // namespace leasesim::sim
