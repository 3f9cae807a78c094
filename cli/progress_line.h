#pragma once
// The progress of a sweep on one rewritten terminal line:
// "[1234/6000] 412.0 seeds/s, 0 failed, ETA 12 s". Wall-clock time, for
// people only: nothing the runs or the reports see.

#include <chrono>
#include <iosfwd>

#include "runner/sweep.h"

namespace leasesim::cli {

// The rewritten line on a terminal's stderr while a sweep runs.
class ProgressLine {
 public:
  explicit ProgressLine(std::ostream& err);
  void Update(const runner::SweepProgress& progress);
  void Clear();

 private:
  using Clock = std::chrono::steady_clock;  // determinism-ok: progress display only
  std::ostream& err_;
  Clock::time_point start_;
  Clock::time_point last_{};
  bool shown_ = false;
};

}  // namespace leasesim::cli
