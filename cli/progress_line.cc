#include "cli/progress_line.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <ostream>
#include <string>

#include <absl/strings/str_format.h>

namespace leasesim::cli {
namespace {

constexpr auto kInterval = std::chrono::milliseconds(100);  // at most ten lines a second
constexpr std::size_t kColumnsDefault = 80;

std::size_t TerminalColumns() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return kColumnsDefault;
}

// "45 s", "12 min", "3 h 20 min".
std::string Duration(double seconds) {
  const long long whole = static_cast<long long>(seconds + 0.5);
  if (whole < 120) return std::to_string(whole) + " s";
  if (whole < 7200) return std::to_string(whole / 60) + " min";
  return std::to_string(whole / 3600) + " h " + std::to_string(whole / 60 % 60) + " min";
}

// "handover_gap_min_ms" -> "handover gap".
std::string DistanceName(std::string figure) {
  for (const char* suffix : {"_min_ms", "_ms"}) {
    const std::string tail(suffix);
    if (figure.size() > tail.size() && figure.ends_with(tail)) {
      figure.resize(figure.size() - tail.size());
      break;
    }
  }
  std::replace(figure.begin(), figure.end(), '_', ' ');
  return figure;
}

}  // namespace

ProgressLine::ProgressLine(std::ostream& err, bool enabled, std::size_t columns)
    : err_(err),
      enabled_(enabled),
      width_(columns > 0 ? columns : (enabled ? TerminalColumns() : kColumnsDefault)),
      start_(Clock::now()) {}  // determinism-ok: progress display only

bool ProgressLine::Wanted(const std::ostream& err, bool quiet) {
  return !quiet && &err == &std::cerr && isatty(STDERR_FILENO) == 1;
}

std::string ProgressLine::Text(const ProgressCount& count, const std::string& found, double seconds) {
  const double rate = seconds > 0 ? static_cast<double>(count.done) / seconds : 0;
  double left = -1;  // unknown
  if (count.total > 0 && rate > 0) {
    left = static_cast<double>(count.total > count.done ? count.total - count.done : 0) / rate;
  }
  if (count.budget_ms > 0) {
    const double budget_left = std::max(0.0, static_cast<double>(count.budget_ms) / 1000 - seconds);
    left = left < 0 ? budget_left : std::min(left, budget_left);
  }
  std::string text = "[" + std::to_string(count.done);
  if (count.total > 0) text += "/" + std::to_string(count.total);
  text += std::string(" ") + count.unit + ", ";
  if (count.budget_ms > 0) {
    text += Duration(left) + " left";
  } else {
    text += "ETA " + (left < 0 ? std::string("?") : Duration(left));
  }
  text += rate >= 100 ? absl::StrFormat("] %.0f/s", rate) : absl::StrFormat("] %.1f/s", rate);
  if (!found.empty()) text += "; " + found;
  return text;
}

bool ProgressLine::Due(std::uint64_t done, bool last) {
  if (!enabled_) return false;
  const auto now = Clock::now();  // determinism-ok: progress display only
  if (done < last_done_) start_ = now;
  last_done_ = done;
  if (ever_shown_ && !last && now - last_ < kInterval) return false;
  last_ = now;
  return true;
}

void ProgressLine::Write(const ProgressCount& count, const std::string& found) {
  const double seconds = std::chrono::duration<double>(last_ - start_).count();
  std::string text = Text(count, found, seconds);
  if (width_ > 1 && text.size() > width_ - 1) text.resize(width_ - 1);
  err_ << "\r" << text << "\x1b[K" << std::flush;
  ever_shown_ = true;
  shown_ = true;
}

void ProgressLine::Show(const ProgressCount& count, const std::string& found) {
  if (Due(count.done, count.last)) Write(count, found);
}

void ProgressLine::Update(const runner::SweepProgress& progress) {
  const bool last = progress.done >= progress.total;
  if (!Due(progress.done, last)) return;
  Write({.done = progress.done, .total = progress.total, .unit = "runs", .last = last},
        std::to_string(progress.failed) + " failed");
}

void ProgressLine::Update(const fuzz::SearchProgress& progress) {
  const auto done = static_cast<std::uint64_t>(progress.cases);
  if (!Due(done, progress.finished)) return;
  // Most telling first: a narrow terminal cuts the tail.
  std::string found = std::to_string(progress.violating) + " violating, probes " +
                      std::to_string(progress.probes_reached) + "/" + std::to_string(progress.probes_total) +
                      ", near misses " + std::to_string(progress.near_misses);
  if (!progress.closest.empty()) {
    found += ", closest " + std::to_string(progress.closest_ms) + " ms (" + DistanceName(progress.closest) + ")";
  }
  Write({.done = done,
         .total = progress.time_budget_ms > 0 ? 0 : static_cast<std::uint64_t>(progress.runs_max),
         .unit = "cases",
         .budget_ms = progress.time_budget_ms,
         .last = progress.finished},
        found);
}

void ProgressLine::Update(const runner::ExploreProgress& progress) {
  if (!Due(progress.done, progress.finished)) return;
  Write({.done = progress.done, .total = progress.total, .unit = "placements", .last = progress.finished},
        std::to_string(progress.violating) + " violating");
}

void ProgressLine::Clear() {
  if (shown_) err_ << "\r\x1b[K" << std::flush;
  shown_ = false;
}

fuzz::HuntWatcher ZooProgress::Hunting(const std::string& variant) {
  if (!line_.enabled()) return {};
  current_ = variant;
  Show({}, false);
  return [this](const fuzz::HuntProgress& hunt) { Show(hunt, false); };
}

fuzz::ZooRow ZooProgress::Done(fuzz::ZooRow row) {
  ++done_;
  caught_ += row.variant != "correct" && row.caught ? 1 : 0;
  current_.clear();
  if (line_.enabled()) Show({}, done_ >= variants_);
  return row;
}

void ZooProgress::Show(const fuzz::HuntProgress& hunt, bool last) {
  std::string found = std::to_string(caught_) + " caught";
  if (!current_.empty()) {
    found += "; hunting " + current_ + ": ";
    found += hunt.shrinking ? std::string("shrinking")
                            : std::to_string(hunt.runs) + (hunt.runs_max > 0 ? "/" + std::to_string(hunt.runs_max) : "");
  }
  line_.Show({.done = done_, .total = variants_, .unit = "variants", .last = last}, found);
}

}  // namespace leasesim::cli
