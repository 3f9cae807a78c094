// The speed report and the regression guard of the standard hour.
//
// The report: the hour's time as a ratio to the in-run baseline (an event
// through the world's queue plus a raw fiber round trip), measured in the
// same process, interleaved, median of several repetitions. A ratio cancels
// part of a machine's speed and load, not all of it: one binary measured
// 258,000-276,000 baselines idle and 354,000-364,000 with the other core
// busy, so the ratio is reported, never judged.
//
// The guard (--check): the instructions the hour executes, counted by
// callgrind (bench/callgrind_count.h), which a busy machine does not change,
// against the committed reference and its tolerance.
//
//   bench_ratio [--repetitions N] [--seed S] [--out FILE] [--check REFERENCE.json]
//               --repetitions 0 times nothing (the guard's count alone);
//               --seed is the timed hour's (the guard counts the reference's)
//   bench_ratio --profile        one standard hour, untimed (what callgrind runs)
//
// Exit status: 0 fine, 1 the count is outside the reference's tolerance,
// 2 bad usage, a bad reference file or no count to trust (valgrind missing,
// or two runs of this binary counted differently), 77 the reference was
// counted in another build (compiler or build type) and cannot judge this one.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "base/strict_json.h"
#include "bench/callgrind_count.h"
#include "bench/workloads.h"

namespace leasesim::bench {
namespace {

constexpr int kLoopPending = 1'000;
constexpr int kLoopEvents = 200'000;
constexpr std::int64_t kRoundTrips = 2'000'000;

// The build a reference's count holds for: compiler, version, build type
// (bench/CMakeLists.txt). Another compiler or -O level runs other code.
constexpr const char* kBuild = LEASESIM_BENCH_BUILD;

// Exit status when the reference cannot judge this build (ctest: skipped).
constexpr int kNotThisBuild = 77;

struct Options {
  int repetitions = 5;
  std::uint64_t seed = 1;
  std::string out;
  std::string check;
  bool profile = false;
};

// One repetition's figures. Times are the thread's CPU time (a descheduled
// thread is not charged for the wait); wall time is kept for the record.
struct Sample {
  double event_ns = 0;   // baseline: one event through the queue
  double switch_ns = 0;  // baseline: one raw fiber round trip
  double hour_ms = 0;
  double hour_wall_ms = 0;
  std::int64_t events = 0;
  double baseline_ns() const { return event_ns + switch_ns; }
  double hour_ratio() const { return hour_ms * 1e6 / baseline_ns(); }
  double event_ratio() const { return hour_ratio() / static_cast<double>(events); }
};

double CpuNowNs() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e9 + static_cast<double>(now.tv_nsec);
}

double WallNowNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) * 1e9 + static_cast<double>(now.tv_nsec);
}

// The baseline, once: ns per event and ns per round trip.
std::pair<double, double> MeasureBaseline() {
  double start = CpuNowNs();
  RunEventLoop(kLoopPending, kLoopEvents);
  const double event_ns = (CpuNowNs() - start) / kLoopEvents;
  start = CpuNowNs();
  RunRawContextRoundTrips(kRoundTrips);
  const double switch_ns = (CpuNowNs() - start) / static_cast<double>(kRoundTrips);
  return {event_ns, switch_ns};
}

// The baseline before and after the hour, averaged, so a change of load
// during the repetition weighs on both sides of the ratio.
std::optional<Sample> MeasureOnce(const runner::Scenario& scenario, std::uint64_t seed) {
  const auto [event_before, switch_before] = MeasureBaseline();
  const double wall = WallNowNs();
  const double cpu = CpuNowNs();
  const std::int64_t events = RunStandardHour(scenario, seed);
  Sample sample;
  sample.hour_ms = (CpuNowNs() - cpu) / 1e6;
  sample.hour_wall_ms = (WallNowNs() - wall) / 1e6;
  if (events <= 0) return std::nullopt;
  const auto [event_after, switch_after] = MeasureBaseline();
  sample.events = events;
  sample.event_ns = (event_before + event_after) / 2;
  sample.switch_ns = (switch_before + switch_after) / 2;
  return sample;
}

template <typename Get>
double Median(const std::vector<Sample>& samples, Get get) {
  std::vector<double> values;
  for (const Sample& sample : samples) values.push_back(get(sample));
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double MedianHourRatio(const std::vector<Sample>& samples) {
  return Median(samples, [](const Sample& s) { return s.hour_ratio(); });
}

base::Json MedianJson(const std::vector<Sample>& samples) {
  const double hour_ms = Median(samples, [](const Sample& s) { return s.hour_ms; });
  return {
      {"event_ns", Median(samples, [](const Sample& s) { return s.event_ns; })},
      {"switch_ns", Median(samples, [](const Sample& s) { return s.switch_ns; })},
      {"hour_ms", hour_ms},
      {"realtime_x", 3'600'000.0 / hour_ms},
      {"hour_ratio", MedianHourRatio(samples)},
      {"event_ratio", Median(samples, [](const Sample& s) { return s.event_ratio(); })},
  };
}

// The guard's count of one seed's hour.
struct Counted {
  std::uint64_t seed = 0;
  std::int64_t instructions = 0;
};

std::string ToJson(const std::vector<Sample>& samples, const std::optional<Counted>& counted,
                   const Options& options) {
  base::Json runs = base::Json::array();
  for (const Sample& s : samples) {
    runs.push_back({{"event_ns", s.event_ns}, {"switch_ns", s.switch_ns}, {"hour_ms", s.hour_ms},
                    {"hour_wall_ms", s.hour_wall_ms}, {"events", s.events}, {"hour_ratio", s.hour_ratio()},
                    {"event_ratio", s.event_ratio()}});
  }
  base::Json doc = {{"format", "leasesim-bench"}, {"version", 2},           {"clock", "thread CPU time"},
                    {"seed", options.seed},       {"build", kBuild},        {"repetitions", samples.size()},
                    {"runs", runs}};
  if (!samples.empty()) {
    doc["events_per_hour"] = samples.front().events;
    doc["median"] = MedianJson(samples);
  }
  if (counted) doc["hour_instructions"] = {{"seed", counted->seed}, {"count", counted->instructions}};
  return doc.dump(2) + "\n";
}

void Print(const std::vector<Sample>& samples) {
  const double hour_ms = Median(samples, [](const Sample& s) { return s.hour_ms; });
  std::printf("standard hour: %lld events, %.1f ms CPU (%.0fx real time), median of %zu\n",
              static_cast<long long>(samples.front().events), hour_ms, 3'600'000.0 / hour_ms, samples.size());
  std::printf("baseline: event %.1f ns + fiber round trip %.1f ns\n",
              Median(samples, [](const Sample& s) { return s.event_ns; }),
              Median(samples, [](const Sample& s) { return s.switch_ns; }));
  std::printf("ratio: an event costs %.2fx the baseline; the hour costs %.0f baselines\n",
              Median(samples, [](const Sample& s) { return s.event_ratio(); }), MedianHourRatio(samples));
}

// The committed reference (bench/reference.json); nullopt (and a message)
// when the file is bad.
struct Reference {
  std::string build;
  std::uint64_t seed = 1;  // the standard hour's seed the count is of
  std::int64_t hour_instructions = 0;
  std::int64_t tolerance_percent = 0;
  std::int64_t hour_ratio = 0;  // the time report's point of comparison, not judged
};

Reference ParseReference(const std::string& text) {
  auto parsed = base::ParseStrictJson(text);
  if (auto* error = std::get_if<base::InputError>(&parsed)) throw *error;
  base::ObjectReader doc(std::get<base::Json>(parsed), "");
  if (doc.String("format") != "leasesim-bench-reference") {
    throw base::InputError{"format", "must be \"leasesim-bench-reference\""};
  }
  Reference reference;
  reference.build = doc.String("build");
  reference.seed = static_cast<std::uint64_t>(doc.Integer("seed", 1));
  reference.hour_instructions = doc.Integer("hour_instructions", 1);
  reference.tolerance_percent = doc.Integer("tolerance_percent", 1, 50);
  reference.hour_ratio = doc.Integer("hour_ratio", 1);
  doc.StringOr("measured", "");
  doc.Finish();
  return reference;
}

std::optional<Reference> ReadReference(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "bench_ratio: cannot read the reference %s\n", path.c_str());
    return std::nullopt;
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return ParseReference(text);
  } catch (const base::InputError& error) {
    std::fprintf(stderr, "bench_ratio: %s\n", error.In(path).c_str());
    return std::nullopt;
  }
}

// The time ratio beside the reference machine's: a report, never a verdict.
void ReportTime(const std::vector<Sample>& samples, const Reference& reference) {
  const double ratio = MedianHourRatio(samples);
  const double change = 100.0 * (ratio / static_cast<double>(reference.hour_ratio) - 1.0);
  std::printf("time (a report, not judged): %.0f baselines, %+.0f%% against %lld on the reference machine\n",
              ratio, change, static_cast<long long>(reference.hour_ratio));
}

// The hour's instructions, counted twice: a count that differs between two
// runs of one binary would make the guard judge noise, so it is an error.
std::optional<std::int64_t> CountTwice(std::uint64_t seed) {
  const std::string self = SelfExecutable();
  std::int64_t counts[2] = {0, 0};
  for (std::int64_t& count : counts) {
    InstructionCount counted = CountHourInstructions(self, seed);
    if (auto* why = std::get_if<std::string>(&counted)) {
      std::fprintf(stderr, "bench_ratio: no instruction count: %s\n", why->c_str());
      return std::nullopt;
    }
    count = std::get<std::int64_t>(counted);
  }
  if (counts[0] != counts[1]) {
    std::fprintf(stderr,
                 "bench_ratio: two callgrind runs of this binary counted %lld and %lld instructions; the count "
                 "must not vary (something in the hour depends on the process's environment or addresses)\n",
                 static_cast<long long>(counts[0]), static_cast<long long>(counts[1]));
    return std::nullopt;
  }
  return counts[0];
}

// The verdict: 0 within the tolerance either way, 1 outside it. A count far
// below the reference fails too, so a faster hour moves the reference down
// with it and the next slowdown is measured from there.
int Judge(std::int64_t count, const Reference& reference, const std::string& path) {
  const double ref = static_cast<double>(reference.hour_instructions);
  const double change = 100.0 * (static_cast<double>(count) / ref - 1.0);
  const double tolerance = static_cast<double>(reference.tolerance_percent);
  std::printf("instructions: the standard hour (seed %llu) executes %lld, %+.2f%% against the reference %lld (%s, "
              "+-%lld%%)\n",
              static_cast<unsigned long long>(reference.seed), static_cast<long long>(count), change,
              static_cast<long long>(reference.hour_instructions), path.c_str(),
              static_cast<long long>(reference.tolerance_percent));
  if (change > tolerance) {
    std::printf("REGRESSION: the standard hour executes %+.2f%% instructions, more than the +%lld%% allowed\n",
                change, static_cast<long long>(reference.tolerance_percent));
    return 1;
  }
  if (change < -tolerance) {
    std::printf("FASTER than the reference allows (%+.2f%%): set hour_instructions in %s to %lld "
                "(docs/PERFORMANCE.md, \"Updating the reference\")\n",
                change, path.c_str(), static_cast<long long>(count));
    return 1;
  }
  std::printf("ok\n");
  return 0;
}

std::optional<Options> ParseOptions(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--profile") {
      options.profile = true;
    } else if (arg == "--repetitions" && has_value) {
      options.repetitions = std::atoi(argv[++i]);
      if (options.repetitions < 0 || options.repetitions > 100) {
        std::fprintf(stderr, "bench_ratio: --repetitions must be in [0, 100]\n");
        return std::nullopt;
      }
    } else if (arg == "--seed" && has_value) {
      options.seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--out" && has_value) {
      options.out = argv[++i];
    } else if (arg == "--check" && has_value) {
      options.check = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: bench_ratio [--repetitions N] [--seed S] [--out FILE] [--check REFERENCE.json] | "
                   "--profile\n");
      return std::nullopt;
    }
  }
  return options;
}

// The timed repetitions; nullopt when the hour found a violation.
std::optional<std::vector<Sample>> MeasureTimes(const Options& options) {
  const runner::Scenario scenario = StandardScenario();
  std::vector<Sample> samples;
  for (int i = 0; i < options.repetitions; ++i) {
    const std::optional<Sample> sample = MeasureOnce(scenario, options.seed);
    if (!sample) {
      std::fprintf(stderr, "bench_ratio: the standard hour found a violation (seed %llu)\n",
                   static_cast<unsigned long long>(options.seed));
      return std::nullopt;
    }
    samples.push_back(*sample);
  }
  if (!samples.empty()) Print(samples);
  return samples;
}

bool WriteJson(const Options& options, const std::vector<Sample>& samples, const std::optional<Counted>& counted) {
  std::ofstream out(options.out);
  out << ToJson(samples, counted, options);
  if (!out) {
    std::fprintf(stderr, "bench_ratio: cannot write %s\n", options.out.c_str());
    return false;
  }
  std::printf("wrote %s\n", options.out.c_str());
  return true;
}

int Main(int argc, char** argv) {
  const std::optional<Options> options = ParseOptions(argc, argv);
  if (!options) return 2;
  if (options->profile) return RunStandardHour(StandardScenario(), options->seed) > 0 ? 0 : 1;
  std::optional<Reference> reference;
  if (!options->check.empty()) {
    reference = ReadReference(options->check);
    if (!reference) return 2;
    if (reference->build != kBuild) {
      std::printf("skipped, not judged: %s counts the build \"%s\"; this binary is \"%s\" (docs/PERFORMANCE.md)\n",
                  options->check.c_str(), reference->build.c_str(), kBuild);
      return kNotThisBuild;
    }
  }
  const std::optional<std::vector<Sample>> samples = MeasureTimes(*options);
  if (!samples) return 1;
  if (reference && !samples->empty()) ReportTime(*samples, *reference);
  std::optional<Counted> counted;
  if (reference) {
    const std::optional<std::int64_t> count = CountTwice(reference->seed);
    if (!count) return 2;
    counted = Counted{reference->seed, *count};
  }
  if (!options->out.empty() && !WriteJson(*options, *samples, counted)) return 2;
  return counted ? Judge(counted->instructions, *reference, options->check) : 0;
}

}  // namespace
}  // namespace leasesim::bench

int main(int argc, char** argv) { return leasesim::bench::Main(argc, argv); }
