#include "cli/progress_line.h"

#include <cstdio>
#include <ostream>
#include <string>

namespace leasesim::cli {

ProgressLine::ProgressLine(std::ostream& err) : err_(err), start_(Clock::now()) {}

void ProgressLine::Update(const runner::SweepProgress& progress) {
  const auto now = Clock::now();  // determinism-ok: progress display only
  if (progress.done < progress.total && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const double rate = seconds > 0 ? static_cast<double>(progress.done) / seconds : 0;
  char line[160];
  const std::size_t left = progress.total > progress.done ? progress.total - progress.done : 0;
  std::snprintf(line, sizeof line, "\r[%zu/%zu] %.1f seeds/s, %zu failed, ETA %s\x1b[K", progress.done,
                progress.total, rate, progress.failed,
                rate > 0 ? (std::to_string(static_cast<long long>(static_cast<double>(left) / rate + 0.5)) + " s").c_str()
                         : "?");
  err_ << line << std::flush;
  shown_ = true;
}

void ProgressLine::Clear() {
  if (shown_) err_ << "\r\x1b[K" << std::flush;
  shown_ = false;
}

}  // namespace leasesim::cli
