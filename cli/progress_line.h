#pragma once
// The progress of a long command on one rewritten terminal line of stderr:
// "[1234/6000 runs, ETA 12 s] 412/s; 0 failed", "[412 cases, 9 s left]
// 37.2/s; 0 violating, probes 18/24, near misses 2, closest 3 ms (handover
// gap)". Wall-clock time, for people only: the loops report what they
// did through callbacks that change nothing they decide, and this line goes
// to a terminal only (never a pipe, a file or --quiet), so every output
// stays byte-identical with and without one.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>

#include "fuzz/search.h"
#include "fuzz/zoo.h"
#include "runner/explore.h"
#include "runner/sweep.h"

namespace leasesim::cli {

// How far a loop has come, in its own unit.
struct ProgressCount {
  std::uint64_t done = 0;
  std::uint64_t total = 0;        // 0: open-ended (a time budget decides)
  const char* unit = "runs";      // "runs", "cases", "placements", "variants"
  std::int64_t budget_ms = 0;     // > 0: the wall-time budget, its time left shown
  bool last = false;              // the loop's last report: always shown
};

// The rewritten line on a terminal's stderr while a long command runs.
class ProgressLine {
 public:
  // Disabled, every call does nothing. `columns`: the line's room (0: the
  // terminal's width, 80 when it says none).
  ProgressLine(std::ostream& err, bool enabled, std::size_t columns = 0);
  // Whether a command given these streams shows the line: stderr is a
  // terminal and the user did not ask for --quiet.
  static bool Wanted(const std::ostream& err, bool quiet);
  bool enabled() const { return enabled_; }

  // At most ten lines a second; the first report and the last always.
  // `found`: what the loop found so far, in a few words.
  void Show(const ProgressCount& count, const std::string& found);
  void Update(const runner::SweepProgress& progress);     // run, timing
  void Update(const fuzz::SearchProgress& progress);      // fuzz
  void Update(const runner::ExploreProgress& progress);   // explore
  // Erases the line (before other output, and at the end).
  void Clear();

  // The text Show writes for `count` after `seconds` (tests: no clock).
  static std::string Text(const ProgressCount& count, const std::string& found, double seconds);

 private:
  using Clock = std::chrono::steady_clock;  // determinism-ok: progress display only
  // Whether a report is to be shown now (the rate limit); starts a new
  // phase's clock when the count went back (timing --verify, then --sweep).
  bool Due(std::uint64_t done, bool last);
  void Write(const ProgressCount& count, const std::string& found);

  std::ostream& err_;
  bool enabled_;
  std::size_t width_;  // the terminal's columns: a longer line would wrap and not be rewritten
  Clock::time_point start_;
  Clock::time_point last_{};
  std::uint64_t last_done_ = 0;
  bool ever_shown_ = false;
  bool shown_ = false;
};

// `leasesim zoo`'s line: variants hunted of those to hunt, how many caught,
// and the hunt under way: "[3/21 variants, ETA 40 s] 0.4/s; 3 caught;
// hunting lease-outlives: 12/30".
class ZooProgress {
 public:
  // On a terminal's stderr unless `quiet` (ProgressLine::Wanted).
  ZooProgress(std::ostream& err, bool quiet, std::size_t variants)
      : line_(err, ProgressLine::Wanted(err, quiet)), variants_(variants) {}
  // For tests: the line enabled or not, `columns` wide.
  ZooProgress(std::ostream& err, std::size_t variants, bool enabled, std::size_t columns)
      : line_(err, enabled, columns), variants_(variants) {}
  // The watcher to give the hunt of `variant`.
  fuzz::HuntWatcher Hunting(const std::string& variant);
  // A hunt ended with `row`; returns it.
  fuzz::ZooRow Done(fuzz::ZooRow row);
  // Erases the line, before the table.
  void Clear() { line_.Clear(); }

 private:
  void Show(const fuzz::HuntProgress& hunt, bool last);
  ProgressLine line_;
  std::size_t variants_;
  std::size_t done_ = 0;
  std::size_t caught_ = 0;
  std::string current_;
};

}  // namespace leasesim::cli
