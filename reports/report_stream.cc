#include "reports/report_stream.h"

#include <cassert>
#include <cstdio>
#include <filesystem>

#include "reports/html_report.h"
#include "reports/junit_xml.h"
#include "reports/report_files.h"
#include "reports/summary_json.h"
#include "reports/timeline_json.h"

namespace leasesim::reports {
namespace {

constexpr std::size_t kCopyChunk = 1 << 16;

// Copies [begin, end) of `from` to `to`.
bool CopyRange(std::fstream& from, std::streamoff begin, std::streamoff end, std::ostream& to) {
  from.clear();
  from.seekg(begin);
  std::string buffer(kCopyChunk, '\0');
  for (std::streamoff left = end - begin; left > 0;) {
    const std::streamsize n = static_cast<std::streamsize>(std::min<std::streamoff>(left, kCopyChunk));
    from.read(buffer.data(), n);
    if (from.gcount() != n) return false;
    to.write(buffer.data(), n);
    left -= n;
  }
  return static_cast<bool>(to);
}

// Writes a file through `path`.tmp and a rename; `write` fills the stream.
template <typename Write>
std::string WriteThrough(const std::string& path, Write write) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return "cannot write " + temporary;
    if (std::string problem = write(out); !problem.empty()) return problem;
    out.flush();
    if (!out) return "cannot write " + temporary;
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) return "cannot rename " + temporary + " to " + path;
  return "";
}

}  // namespace

ReportStream::ReportStream(std::string directory, std::string scenario_file, std::vector<std::string> scenarios)
    : directory_(std::move(directory)),
      scenario_file_(std::move(scenario_file)),
      totals_(std::move(scenarios)),
      case_ranges_(totals_.scenarios().size(), {0, 0}) {
  const auto mode = std::ios::in | std::ios::out | std::ios::trunc | std::ios::binary;
  entries_.open(SpoolPath("runs"), mode);
  cases_.open(SpoolPath("testcases"), mode);
  if (!entries_ || !cases_) error_ = "cannot write the spool files in " + directory_;
}

ReportStream::~ReportStream() {
  entries_.close();
  cases_.close();
  std::error_code ignored;
  std::filesystem::remove(SpoolPath("runs"), ignored);
  std::filesystem::remove(SpoolPath("testcases"), ignored);
}

std::string ReportStream::SpoolPath(const char* name) const {
  return (std::filesystem::path(directory_) / (std::string(".") + name + ".spool")).string();
}

void ReportStream::Add(const RunSummary& run) {
  const std::size_t failing_before = static_cast<std::size_t>(totals_.failed());
  totals_.Add(run);
  if (!error_.empty()) return;
  entries_ << (any_entry_ ? ",\n" : "\n") << SummaryRunEntry(run);
  any_entry_ = true;
  const std::size_t index = totals_.IndexOf(run.scenario);
  if (index < case_ranges_.size()) {
    auto& [begin, end] = case_ranges_[index];
    const std::streamoff at = cases_.tellp();
    // Sweep order is scenario order: a scenario's testcases are contiguous.
    assert(begin == end || end == at);
    if (begin == end) begin = at;
    cases_ << JunitTestcase(scenario_file_, run, failing_before);
    end = cases_.tellp();
  }
  if (!entries_ || !cases_) error_ = "cannot write the spool files in " + directory_;
}

std::string ReportStream::WriteJunit(const SweepSummary& header, const std::string& path) {
  return WriteThrough(path, [&](std::ostream& out) -> std::string {
    out << JunitOpen(header, totals_);
    for (std::size_t s = 0; s < case_ranges_.size(); ++s) {
      out << JunitSuiteOpen(header, totals_, s);
      if (!CopyRange(cases_, case_ranges_[s].first, case_ranges_[s].second, out)) return "cannot copy the testcases";
      out << kJunitSuiteClose;
    }
    out << JunitClose(header, totals_);
    return "";
  });
}

std::string ReportStream::WriteSummary(const SweepSummary& header, const std::string& path) {
  return WriteThrough(path, [&](std::ostream& out) -> std::string {
    const SummaryFrame frame = SummaryJsonFrame(header, totals_);
    out << frame.head;
    if (any_entry_) {
      entries_.flush();
      if (!CopyRange(entries_, 0, entries_.tellp(), out)) return "cannot copy the run entries";
      out << "\n  ";
    }
    out << frame.tail;
    return "";
  });
}

std::string ReportStream::Finish(const SweepSummary& header, const std::vector<Timeline>& timelines) {
  if (!error_.empty()) return error_;
  entries_.flush();
  cases_.flush();
  const std::vector<Timeline> drawn(
      timelines.begin(), timelines.begin() + static_cast<std::ptrdiff_t>(std::min(timelines.size(), kTimelinesMax)));
  const std::filesystem::path dir(directory_);
  if (std::string problem = WriteFileAtomically((dir / kTimelinesFile).string(), TimelinesJson(drawn)); !problem.empty()) {
    return problem;
  }
  if (std::string problem = WriteJunit(header, (dir / kJunitFile).string()); !problem.empty()) return problem;
  if (std::string problem = WriteFileAtomically((dir / kReportFile).string(), ReportHtml(header, totals_, drawn));
      !problem.empty()) {
    return problem;
  }
  return WriteSummary(header, (dir / kSummaryFile).string());  // last: its presence marks a complete output
}

}  // namespace leasesim::reports
