// leasesim designs: every registered reference design (designs/), in each
// token mode, and leasesim's own protocol, hunted by the plain generic
// search over the same generated cases; a table of how fast each is caught,
// how often, and its shrunk counterexample.

#include <filesystem>
#include <limits>
#include <mutex>
#include <ostream>
#include <thread>
#include <variant>

#include "base/input_error.h"
#include "base/program_name.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/cpu_quota.h"
#include "cli/progress_line.h"
#include "cli/values.h"
#include "fuzz/designs.h"
#include "fuzz/scenario_json.h"
#include "reports/summary_json.h"

namespace leasesim::cli {
namespace {

struct DesignOptions {
  int runs = 200;
  std::uint64_t seed = 1;
  int jobs = 1;
  bool no_shrink = false;
  bool quiet = false;
  std::string out_dir = "out/designs";
  std::string protocol_list;           // --protocols, as given
  std::vector<std::string> protocols;  // the rows, resolved
};

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!part.empty()) parts.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

// Every row, `jobs` at a time; rows are independent sessions, so the table
// is the same whatever the count.
std::vector<fuzz::DesignRow> HuntAll(const DesignOptions& options, ZooProgress& progress) {
  std::vector<fuzz::DesignRow> rows(options.protocols.size());
  std::mutex progress_mutex;
  std::size_t next = 0;
  auto worker = [&] {
    for (;;) {
      std::size_t index = 0;
      fuzz::HuntWatcher watch;
      {
        const std::lock_guard<std::mutex> lock(progress_mutex);
        if (next == rows.size()) return;
        index = next++;
        const fuzz::HuntWatcher inner = progress.Hunting(options.protocols[index]);
        if (inner) watch = [&progress_mutex, inner](const fuzz::HuntProgress& hunt) {
          const std::lock_guard<std::mutex> guard(progress_mutex);
          inner(hunt);
        };
      }
      rows[index] = fuzz::HuntDesign(options.protocols[index], options.runs, options.seed, !options.no_shrink, watch);
      const std::lock_guard<std::mutex> lock(progress_mutex);
      fuzz::ZooRow done;
      done.variant = rows[index].protocol;
      done.caught = rows[index].first_violation > 0;
      progress.Done(done);
    }
  };
  std::vector<std::thread> threads;  // determinism-ok: rows are independent, each a pure function of its inputs
  const int count = std::min<int>(options.jobs, static_cast<int>(rows.size()));
  for (int i = 1; i < count; ++i) threads.emplace_back(worker);
  worker();
  for (std::thread& thread : threads) thread.join();
  return rows;
}

// Writes each shrunk counterexample to DIR/PROTOCOL.json; their paths ("" none), or an error.
std::vector<std::string> WriteCounterexamples(const std::vector<fuzz::DesignRow>& rows, const std::string& out_dir,
                                              std::string& error) {
  std::vector<std::string> paths;
  for (const fuzz::DesignRow& row : rows) {
    if (!row.shrunk) {
      paths.emplace_back();
      continue;
    }
    runner::Scenario scenario = row.shrink.scenario;
    scenario.description = "leasesim designs: " + row.protocol + "'s first violation, shrunk";
    const std::string path = (std::filesystem::path(out_dir) / (row.protocol + ".json")).string();
    error = reports::WriteFileAtomically(path, fuzz::ScenarioFileText({scenario}));
    if (!error.empty()) return {};
    paths.push_back(path);
  }
  return paths;
}

// The verdict: leasesim's own protocol must be clean; a design's row is a
// measurement, never a failure.
int PrintVerdict(const std::vector<fuzz::DesignRow>& rows, const std::vector<std::string>& files, std::ostream& out) {
  bool own_violated = false;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const fuzz::DesignRow& row = rows[i];
    if (!files[i].empty()) {
      out << "  " << row.protocol << ": case " << row.first_violation << " shrunk in " << row.shrink.runs
          << " runs to " << row.shrink.scenario.faults.size() << " fault(s), " << row.shrink.scenario.nodes
          << " node(s); replay: " << base::ProgramName() << " run " << files[i] << " --seed " << row.run_seed << "\n";
    }
    if (row.protocol == core::kLeasesimProtocol && row.violating > 0) own_violated = true;
  }
  if (own_violated) out << "FAIL: leasesim's own protocol violated a property\n";
  return own_violated ? kExitViolation : kExitOk;
}

}  // namespace

int DesignsCommand(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  CommandLine args("designs", "Hunt every registered reference design (designs/) in each token mode, and leasesim's "
                              "own protocol, with the plain generic search over the same generated cases; print "
                              "cases to the first violation, its kinds, the violation rate and the shrunk "
                              "counterexample of each (DIR/designs.json, DIR/PROTOCOL.json).");
  DesignOptions options;
  args.Integer("--runs", "N", "Generated cases per row (default 200)", options.runs, 1, 1'000'000)
      .Integer("-s,--seed", "S", "The session seed, the same for every row (default 1)", options.seed, 0,
               std::numeric_limits<std::int64_t>::max())
      .Option("-o,--out", "DIR", "Where designs.json and the counterexamples go (default out/designs)",
              options.out_dir)
      .Jobs(options.jobs)
      .Option("--protocols", "LIST", "Only these rows (comma-separated protocol names)", options.protocol_list)
      .Switch("--no-shrink", "Do not shrink the first violations", options.no_shrink)
      .Switch("-q,--quiet", "No progress line on a terminal", options.quiet)
      .Footer("Exit: 0 leasesim's own protocol clean, 1 it violated a property, 2 bad input or usage.");
  if (const std::optional<int> code = args.Parse(argv, out, err)) return *code;
  auto protocols = fuzz::DesignProtocols(SplitCommas(options.protocol_list));
  if (const auto* error = std::get_if<base::InputError>(&protocols)) {
    err << "leasesim designs: " << error->ToString() << "\n";
    return kExitBadInput;
  }
  options.protocols = std::get<std::vector<std::string>>(std::move(protocols));
  out << "leasesim designs: " << options.protocols.size() << " row(s), " << options.runs << " case(s) each, seed "
      << options.seed << "\n";
  out.flush();
  ZooProgress progress(err, options.quiet, options.protocols.size());
  const std::vector<fuzz::DesignRow> rows = HuntAll(options, progress);
  progress.Clear();
  std::error_code made;
  std::filesystem::create_directories(options.out_dir, made);
  std::string error;  // writing the files
  const std::vector<std::string> files = WriteCounterexamples(rows, options.out_dir, error);
  const std::string json_path = (std::filesystem::path(options.out_dir) / "designs.json").string();
  if (error.empty()) {
    error = reports::WriteFileAtomically(
        json_path, fuzz::DesignTableJson(rows, files, options.seed, options.runs, base::ProgramName()));
  }
  if (!error.empty()) {
    err << "leasesim designs: " << error << "\n";
    return kExitBadInput;
  }
  out << fuzz::FormatDesignTable(rows, files);
  out << "wrote " << json_path << "\n";
  return PrintVerdict(rows, files, out);
}

}  // namespace leasesim::cli
