#include "reports/report_files.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "reports/html_report.h"
#include "reports/junit_xml.h"
#include "reports/summary_json.h"
#include "reports/timeline_json.h"

namespace leasesim::reports {

std::string PrepareOutputDirectory(const std::string& directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) return "--out " + directory + ": cannot create directory: " + error.message();
  const std::filesystem::path summary = std::filesystem::path(directory) / kSummaryFile;
  if (std::filesystem::exists(summary)) {
    std::ifstream in(summary);
    try {
      const nlohmann::json json = nlohmann::json::parse(in);
      if (json.is_object() && json.value("format", "") == "leasesim-summary") return "";
    } catch (const nlohmann::json::exception&) {
    }
    return "--out " + directory + ": " + summary.string() +
           " exists and was not written by leasesim; refusing to overwrite it";
  }
  return "";
}

std::string WriteReports(const std::string& directory, const SweepSummary& sweep,
                         const std::vector<Timeline>& timelines) {
  std::vector<Timeline> drawn(timelines.begin(),
                              timelines.begin() + static_cast<std::ptrdiff_t>(std::min(timelines.size(), kTimelinesMax)));
  const std::filesystem::path dir(directory);
  const std::pair<const char*, std::string> files[] = {
      {kTimelinesFile, TimelinesJson(drawn)},
      {kJunitFile, JunitXml(sweep)},
      {kReportFile, ReportHtml(sweep, drawn)},
      {kSummaryFile, SummaryJson(sweep)},  // last: its presence marks a complete output
  };
  for (const auto& [name, content] : files) {
    if (std::string problem = WriteFileAtomically((dir / name).string(), content); !problem.empty()) return problem;
  }
  return "";
}

bool ReadWholeFile(const std::string& path, std::string& content) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return false;
  content = buffer.str();
  return true;
}

}  // namespace leasesim::reports
