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
namespace {

// Reads a JSON document only as far as its top-level "format" string, so a
// summary of a million runs is recognised without being loaded.
class FormatReader final : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::string format;

  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_integer(number_integer_t) override { return Value(); }
  bool number_unsigned(number_unsigned_t) override { return Value(); }
  bool number_float(number_float_t, const string_t&) override { return Value(); }
  bool string(string_t& value) override {
    if (depth_ == 1 && in_format_) {
      format = value;
      return false;  // found: stop reading
    }
    return Value();
  }
  bool binary(binary_t&) override { return Value(); }
  bool start_object(std::size_t) override { return Open(); }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(); }
  bool end_array() override { return Close(); }
  bool key(string_t& key) override {
    in_format_ = depth_ == 1 && key == "format";
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  bool Value() {
    in_format_ = false;
    return true;
  }
  bool Open() {
    in_format_ = false;
    ++depth_;
    return true;
  }
  bool Close() {
    --depth_;
    return true;
  }
  int depth_ = 0;
  bool in_format_ = false;
};

}  // namespace

std::string PrepareOutputDirectory(const std::string& directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) return "--out " + directory + ": cannot create directory: " + error.message();
  const std::filesystem::path summary = std::filesystem::path(directory) / kSummaryFile;
  if (std::filesystem::exists(summary)) {
    std::ifstream in(summary, std::ios::binary);
    FormatReader reader;
    nlohmann::json::sax_parse(in, &reader);
    if (reader.format == "leasesim-summary") return "";
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
