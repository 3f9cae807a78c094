// leasesim timing: derive a lease timing from targets, write it as a
// scenario file, and with --verify / --sweep check it by simulation
// (timing/, docs/TIMING.md). This file only reads the command line and
// prints; the work is timing/'s.

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <variant>

#include "base/input_error.h"
#include "base/units.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/protocol_option.h"
#include "cli/progress_line.h"
#include "cli/values.h"
#include "runner/scenario_parser.h"
#include "timing/derive.h"
#include "timing/explain.h"
#include "timing/regions.h"
#include "timing/sweep.h"
#include "timing/verify.h"
#include "timing/worlds.h"

namespace leasesim::cli {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kSeedsDefault = 100;
constexpr std::uint64_t kSeedsMax = 100'000;

// The targets' flags, declared and read from this one table: which field
// each sets, whether it is required, and what it stands for (said when it
// is missing or malformed). Their ranges are timing::CheckTargets' rules.
struct TargetFlag {
  const char* flag;
  const char* value_name;
  const char* help;
  std::int64_t timing::Targets::*field;
  bool required;
  const char* meaning;
};
constexpr std::array<TargetFlag, 5> kTargetFlags = {{
    {"--failover-target", "MS", "A dead leader must be replaced within this (required)",
     &timing::Targets::failover_target_ms, true, "ms: a dead leader must be replaced within this"},
    {"--store-p99", "MS", "The 99th percentile of a store call's round trip (required)", &timing::Targets::store_p99_ms,
     true, "ms: the 99th percentile of a store call's round trip"},
    {"--store-p999", "MS", "The 99.9th percentile of a store call's round trip", &timing::Targets::store_p999_ms,
     false, "ms: the 99.9th percentile of a store call's round trip"},
    {"--pause-budget", "MS", "The longest stop-the-world pause you promise; 0 for none (required)",
     &timing::Targets::pause_budget_ms, true, "ms: the longest stop-the-world pause you promise; 0 for none"},
    {"--drift-bound", "PPM", "The largest clock-rate error of any node (required)", &timing::Targets::drift_bound_ppm,
     true, "ppm: the largest clock-rate error of any node"},
}};

// The command line, read: the targets and what to do with the timing.
// Each option is bound here where it is declared (Declare).
struct TimingRequest {
  timing::Targets targets;
  std::array<std::optional<std::string>, kTargetFlags.size()> target_texts;  // as given, by kTargetFlags
  std::optional<std::string> regions;
  std::optional<std::string> out;
  bool force = false, verify = false, sweep = false, quiet = false;
  std::optional<std::uint64_t> seeds_given;
  int jobs = 1;
  std::string protocol;  // --protocol: what the verify and sweep worlds run
  std::optional<std::string> protocol_given;
  std::uint64_t seeds() const { return seeds_given.value_or(kSeedsDefault); }
};

void Declare(CommandLine& args, TimingRequest& r) {
  for (std::size_t i = 0; i < kTargetFlags.size(); ++i) {
    args.Option(kTargetFlags[i].flag, kTargetFlags[i].value_name, kTargetFlags[i].help, r.target_texts[i]);
  }
  args.Option("--regions", "FILE", "Store placements across regions to derive for", r.regions)
      .Option("-o,--out", "FILE", "Write the verify worlds as a scenario file", r.out)
      .Switch("--force", "With --out: overwrite FILE", r.force)
      .Switch("--verify", "Run the worlds and judge the timing", r.verify)
      .Switch("--sweep", "Table failover p99 and spurious demotions over lease durations", r.sweep)
      .Integer("-s,--seeds", "N", "With --verify or --sweep: seeds 1..N (default 100)", r.seeds_given, 1,
               static_cast<std::int64_t>(kSeedsMax))
      .Jobs(r.jobs)
      .Switch("-q,--quiet", "No progress line on a terminal", r.quiet)
      .Footer("Exit: 0 the timing holds, 1 it does not (or a target cannot be met), 2 bad input or usage.");
  DeclareProtocol(args, "With --verify or --sweep: the protocol the worlds run", r.protocol_given);
}

// The targets' texts into the request, and the flags' combinations; the
// first problem as "FLAG: rule".
std::optional<base::InputError> ReadTimingArgs(const CommandLine& args, TimingRequest& r) {
  if (!args.positional().empty()) {
    return base::InputError{.rule = "unexpected argument \"" + args.positional().front() + "\""};
  }
  for (std::size_t i = 0; i < kTargetFlags.size(); ++i) {
    const TargetFlag& target = kTargetFlags[i];
    const std::optional<std::string>& text = r.target_texts[i];
    const std::string meaning = std::string(" (") + target.meaning + ")";
    if (!text) {
      if (target.required) return base::InputError{target.flag, "is required" + meaning};
      continue;
    }
    if (!ParseNumber(*text, r.targets.*target.field)) {
      return base::InputError{target.flag, "must be a whole number (got \"" + *text + "\")" + meaning};
    }
  }
  if (r.seeds_given && !r.verify && !r.sweep) return base::InputError{"--seeds", "only with --verify or --sweep"};
  if (r.force && !r.out) return base::InputError{"--force", "only with --out FILE"};
  return std::nullopt;
}

// "out/t.json" -> "out/t.sweep.svg": the plot beside the scenario file.
std::string SvgPathFor(const std::string& out) {
  fs::path path(out);
  return (path.parent_path() / (path.stem().string() + ".sweep.svg")).string();
}

std::optional<base::InputError> RefuseOverwrite(const TimingRequest& r) {
  if (!r.out || r.force) return std::nullopt;
  for (const std::string& path : {*r.out, SvgPathFor(*r.out)}) {
    if (path != *r.out && !r.sweep) continue;
    if (fs::exists(path)) return base::InputError{"--out", path + " exists; not overwriting it (give --force to replace it)"};
  }
  return std::nullopt;
}

bool WriteText(const std::string& path, const std::string& text, std::ostream& err) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  if (file.flush()) return true;
  err << "leasesim timing: cannot write " << path << "\n";
  return false;
}

int Fail(std::ostream& err, const std::string& message) {
  err << "leasesim timing: " << message << "\n(leasesim timing --help lists the options)\n";
  return kExitBadInput;
}

// Verify and sweep, once the timing is derived and its worlds read back.
int Simulate(const TimingRequest& r, const timing::Derivation& derivation, const timing::RegionsPlan* regions,
             const runner::ScenarioFile& file, const timing::WorldSet& worlds, std::ostream& out, std::ostream& err) {
  const std::string seeds_text = "1-" + std::to_string(r.seeds());
  timing::RunPlan plan{{}, seeds_text, r.jobs, r.protocol};
  ProgressLine progress(err, ProgressLine::Wanted(err, r.quiet));
  plan.on_progress = [&](const runner::SweepProgress& now) { progress.Update(now); };
  for (std::uint64_t seed = 1; seed <= r.seeds(); ++seed) plan.seeds.push_back(seed);
  int code = kExitOk;
  if (r.verify) {
    const timing::CallThresholds thresholds{r.targets.EffectiveP99(), r.targets.EffectiveP999(),
                                            derivation.timing.request_timeout / base::kNanosPerMilli};
    const std::vector<timing::WorldStats> stats = timing::RunWorlds(file, worlds, thresholds, plan);
    progress.Clear();
    out << timing::VerifyText(stats, r.targets, derivation.failover_bound_ms, thresholds, seeds_text);
    if (!timing::Judge(stats, r.targets, derivation.failover_bound_ms).passed()) {
      code = kExitViolation;
      if (!r.out) out << "(the replay commands name " << file.path << ": give --out " << file.path << " to write it)\n";
    }
  }
  if (r.sweep) {
    const std::vector<timing::SweepRow> rows = timing::RunTimingSweep(r.targets, derivation, regions, plan);
    progress.Clear();
    out << timing::SweepTable(rows, r.targets, seeds_text);
    if (r.out) {
      if (!WriteText(SvgPathFor(*r.out), timing::SweepSvg(rows, r.targets), err)) return kExitBadInput;
      out << "wrote the sweep's plot to " << SvgPathFor(*r.out) << "\n";
    } else {
      out << "(give --out FILE to write the plot beside it)\n";
    }
  }
  return code;
}

}  // namespace

int TimingCommand(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  CommandLine args("timing", "Derive a lease timing from targets (failover, store latency, pause budget, drift), "
                             "write it as a scenario file, and with --verify / --sweep check it by simulation "
                             "(docs/TIMING.md).");
  TimingRequest r;
  Declare(args, r);
  if (const std::optional<int> code = args.Parse(argv, out, err)) return *code;
  if (auto error = ReadTimingArgs(args, r)) return Fail(err, error->ToString());
  const ProtocolChoice protocol = ReadProtocol(r.protocol_given);
  if (protocol.error) return Fail(err, protocol.error->ToString());
  r.protocol = protocol.name.value_or("");
  std::optional<timing::RegionsPlan> regions;
  if (r.regions) {
    auto loaded = timing::LoadRegions(*r.regions);
    if (auto* error = std::get_if<base::InputError>(&loaded)) return Fail(err, base::InputError{"--regions", error->In(*r.regions)}.ToString());
    regions = std::get<timing::RegionsPlan>(loaded);
    r.targets.region_extra_rtt_ms = regions->extra_rtt_ms;
    r.targets.region_extra_what = regions->farthest;
  }
  if (auto error = timing::CheckTargets(r.targets)) return Fail(err, error->ToString());
  if (auto error = RefuseOverwrite(r)) return Fail(err, error->ToString());
  const auto derived = timing::Derive(r.targets);
  if (auto* unreachable = std::get_if<timing::Unreachable>(&derived)) {
    err << "leasesim timing: " << timing::UnreachableText(r.targets, *unreachable);
    return kExitBadInput;
  }
  const timing::Derivation& derivation = std::get<timing::Derivation>(derived);
  out << timing::DerivationText(r.targets, derivation);
  out << "lease block: \"lease\": " << timing::LeaseJson(derivation.timing).dump() << "\n";
  const timing::RegionsPlan* placement = regions ? &*regions : nullptr;
  const timing::WorldSet worlds = timing::VerifyWorlds(r.targets, derivation.timing, placement);
  const std::string text = worlds.file.dump(2) + "\n";
  const std::string worlds_name = r.out.value_or("timing-worlds.json");
  auto parsed = runner::ParseScenarioText(worlds_name, text);
  if (auto* error = std::get_if<base::InputError>(&parsed)) {
    return Fail(err, "internal: generated worlds: " + error->In(worlds_name));
  }
  if (r.out) {
    if (!WriteText(*r.out, text, err)) return kExitBadInput;
    out << "wrote " << *r.out << " (" << worlds.worlds.size() << " scenarios with this lease block); run it with: "
        << "leasesim run " << *r.out << " --seeds 1-100\n";
  }
  if (!r.verify && !r.sweep) return kExitOk;
  return Simulate(r, derivation, placement, std::get<runner::ScenarioFile>(parsed), worlds, out, err);
}

}  // namespace leasesim::cli
