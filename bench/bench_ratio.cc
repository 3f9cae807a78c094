// The regression guard: the standard hour's cost as a ratio to the in-run
// baseline (an event through the world's queue plus a raw fiber round
// trip), measured in the same process, interleaved, median of several
// repetitions. Ratios, not times: the machines this runs on are shared and
// noisy, and a ratio cancels most of a machine's speed and load.
//
//   bench_ratio [--repetitions N] [--seed S] [--out FILE] [--check REFERENCE.json]
//   bench_ratio --profile        one standard hour, untimed (for callgrind)
//
// Exit status: 0 fine, 1 the median ratio is worse than the reference
// allows, 2 bad usage or a bad reference file.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "base/strict_json.h"
#include "bench/workloads.h"

namespace leasesim::bench {
namespace {

constexpr int kLoopPending = 1'000;
constexpr int kLoopEvents = 200'000;
constexpr std::int64_t kRoundTrips = 2'000'000;

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

std::string ToJson(const std::vector<Sample>& samples, const Options& options) {
  base::Json runs = base::Json::array();
  for (const Sample& s : samples) {
    runs.push_back({{"event_ns", s.event_ns}, {"switch_ns", s.switch_ns}, {"hour_ms", s.hour_ms},
                    {"hour_wall_ms", s.hour_wall_ms}, {"events", s.events}, {"hour_ratio", s.hour_ratio()},
                    {"event_ratio", s.event_ratio()}});
  }
  const double hour_ms = Median(samples, [](const Sample& s) { return s.hour_ms; });
  base::Json median = {
      {"event_ns", Median(samples, [](const Sample& s) { return s.event_ns; })},
      {"switch_ns", Median(samples, [](const Sample& s) { return s.switch_ns; })},
      {"hour_ms", hour_ms},
      {"realtime_x", 3'600'000.0 / hour_ms},
      {"hour_ratio", Median(samples, [](const Sample& s) { return s.hour_ratio(); })},
      {"event_ratio", Median(samples, [](const Sample& s) { return s.event_ratio(); })},
  };
  base::Json doc = {{"format", "leasesim-bench"},  {"version", 1},
                    {"clock", "thread CPU time"},  {"seed", options.seed},
                    {"events_per_hour", samples.front().events},
                    {"repetitions", samples.size()}, {"median", median},
                    {"runs", runs}};
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
              Median(samples, [](const Sample& s) { return s.event_ratio(); }),
              Median(samples, [](const Sample& s) { return s.hour_ratio(); }));
}

// The reference's allowance; nullopt (and a message) when the file is bad.
struct Reference {
  std::int64_t hour_ratio = 0;
  std::int64_t tolerance_percent = 0;
};

std::optional<Reference> ReadReference(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "bench_ratio: cannot read the reference %s\n", path.c_str());
    return std::nullopt;
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    auto parsed = base::ParseStrictJson(text);
    if (auto* error = std::get_if<base::JsonError>(&parsed)) throw *error;
    base::ObjectReader doc(std::get<base::Json>(parsed), "");
    if (doc.String("format") != "leasesim-bench-reference") {
      throw base::JsonError{"format", "must be \"leasesim-bench-reference\""};
    }
    Reference reference;
    reference.hour_ratio = doc.Integer("hour_ratio", 1);
    reference.tolerance_percent = doc.Integer("tolerance_percent", 0, 1000);
    doc.StringOr("measured", "");
    doc.Finish();
    return reference;
  } catch (const base::JsonError& error) {
    std::fprintf(stderr, "bench_ratio: %s: %s\n", path.c_str(), error.ToString().c_str());
    return std::nullopt;
  }
}

int Check(const std::vector<Sample>& samples, const std::string& path) {
  const std::optional<Reference> reference = ReadReference(path);
  if (!reference) return 2;
  const double ratio = Median(samples, [](const Sample& s) { return s.hour_ratio(); });
  const double allowed = static_cast<double>(reference->hour_ratio) * (100.0 + static_cast<double>(reference->tolerance_percent)) / 100.0;
  const double change = 100.0 * (ratio / static_cast<double>(reference->hour_ratio) - 1.0);
  if (ratio > allowed) {
    std::printf("REGRESSION: the standard hour costs %.0f baselines, %+.0f%% against the reference %lld "
                "(%s allows up to %.0f, +%lld%%)\n",
                ratio, change, static_cast<long long>(reference->hour_ratio), path.c_str(), allowed,
                static_cast<long long>(reference->tolerance_percent));
    return 1;
  }
  std::printf("ok: %.0f baselines, %+.0f%% against the reference %lld (allowed +%lld%%)\n", ratio, change,
              static_cast<long long>(reference->hour_ratio), static_cast<long long>(reference->tolerance_percent));
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
      if (options.repetitions < 1 || options.repetitions > 100) {
        std::fprintf(stderr, "bench_ratio: --repetitions must be in [1, 100]\n");
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

int Main(int argc, char** argv) {
  const std::optional<Options> options = ParseOptions(argc, argv);
  if (!options) return 2;
  const runner::Scenario scenario = StandardScenario();
  if (options->profile) return RunStandardHour(scenario, options->seed) > 0 ? 0 : 1;
  std::vector<Sample> samples;
  for (int i = 0; i < options->repetitions; ++i) {
    const std::optional<Sample> sample = MeasureOnce(scenario, options->seed);
    if (!sample) {
      std::fprintf(stderr, "bench_ratio: the standard hour found a violation (seed %llu)\n",
                   static_cast<unsigned long long>(options->seed));
      return 1;
    }
    samples.push_back(*sample);
  }
  Print(samples);
  if (!options->out.empty()) {
    std::ofstream out(options->out);
    out << ToJson(samples, *options);
    if (!out) {
      std::fprintf(stderr, "bench_ratio: cannot write %s\n", options->out.c_str());
      return 2;
    }
    std::printf("wrote %s\n", options->out.c_str());
  }
  return options->check.empty() ? 0 : Check(samples, options->check);
}

}  // namespace
}  // namespace leasesim::bench

int main(int argc, char** argv) { return leasesim::bench::Main(argc, argv); }
