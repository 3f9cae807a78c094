#include "timing/targets.h"

namespace leasesim::timing {

using base::InputError;

std::int64_t Targets::EffectiveP999() const {
  const std::int64_t p999 = store_p999_ms > 0 ? store_p999_ms : store_p99_ms + store_p99_ms / 2;
  return p999 + region_extra_rtt_ms;
}

std::optional<InputError> CheckTargets(const Targets& t) {
  auto got = [](std::int64_t value) { return " (got " + std::to_string(value) + ")"; };
  if (t.failover_target_ms < 1 || t.failover_target_ms > kTargetMsMax) {
    return InputError{"--failover-target", "must be a whole number of milliseconds in [1, " +
                                               std::to_string(kTargetMsMax) + "]" + got(t.failover_target_ms)};
  }
  if (t.store_p99_ms < 1) return InputError{"--store-p99", "must be at least 1 ms" + got(t.store_p99_ms)};
  if (t.EffectiveP99() >= t.failover_target_ms) {
    return InputError{"--store-p99", "must be below --failover-target: a failover needs several store calls (got " +
                                         std::to_string(t.EffectiveP99()) + " ms >= " +
                                         std::to_string(t.failover_target_ms) + " ms)"};
  }
  if (t.store_p999_ms != 0 && t.store_p999_ms <= t.store_p99_ms) {
    return InputError{"--store-p999", "must be above --store-p99 (got " + std::to_string(t.store_p999_ms) +
                                          " ms <= " + std::to_string(t.store_p99_ms) + " ms)"};
  }
  if (t.store_p999_ms > kTargetMsMax) {
    return InputError{"--store-p999", "must be at most " + std::to_string(kTargetMsMax) + " ms" + got(t.store_p999_ms)};
  }
  if (t.pause_budget_ms < 0 || t.pause_budget_ms > kPauseMsMax) {
    return InputError{"--pause-budget", "must be a whole number of milliseconds in [0, " + std::to_string(kPauseMsMax) +
                                            "]" + got(t.pause_budget_ms)};
  }
  if (t.drift_bound_ppm < 0 || t.drift_bound_ppm >= kDriftPpmMax) {
    return InputError{"--drift-bound", "must be in [0, 100000) ppm, the range core::ValidateTiming accepts" +
                                           got(t.drift_bound_ppm)};
  }
  return std::nullopt;
}

}  // namespace leasesim::timing
