// Benchmarks of the linearizability search over the shared reference
// histories (../shared/histories), to compare with Porcupine: all 50
// jepsen-etcd histories together, etcd_002 alone, and kv/c50-ok and c50-bad.
// Every file is read and parsed once, before any benchmark runs: a missing
// or empty history is an error (exit 2), never a figure for timing nothing.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <absl/strings/str_format.h>

#include "checker/cas_register_model.h"
#include "checker/edn_import.h"
#include "checker/jepsen_log_import.h"
#include "checker/kv_model.h"

namespace leasesim::checker {
namespace {

constexpr int kEtcdHistories = 50;

std::filesystem::path HistoriesDir() {
  if (const char* dir = std::getenv("LEASESIM_HISTORIES_DIR")) return dir;
  if (const char* root = std::getenv("LEASESIM_SOURCE_DIR")) {
    return std::filesystem::path(root) / ".." / "shared" / "histories";
  }
  return std::filesystem::path(LEASESIM_DEFAULT_SOURCE_DIR) / ".." / "shared" / "histories";
}

// The histories every benchmark reads, loaded by main before any runs.
struct Histories {
  std::vector<std::vector<CasRegisterOp>> etcd;  // etcd_000 .. etcd_049
  std::vector<KvOp> kv_c50_ok;
  std::vector<KvOp> kv_c50_bad;
};
const Histories* loaded = nullptr;

std::optional<std::string> ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return text;
}

// The records of one history file, or nullopt after saying on stderr what is
// wrong with it: missing, unreadable, malformed or without operations.
template <typename Op, typename Import>
std::optional<std::vector<Op>> Load(const std::filesystem::path& path, Import import) {
  const std::optional<std::string> text = ReadAll(path);
  if (!text) {
    std::fprintf(stderr, "checker_bench: cannot read %s\n", path.c_str());
    return std::nullopt;
  }
  ReadResult<Op> read = import(*text);
  if (!read.ok()) {
    std::fprintf(stderr, "checker_bench: %s: %s\n", path.c_str(), read.error->ToString().c_str());
    return std::nullopt;
  }
  if (read.records.empty()) {
    std::fprintf(stderr, "checker_bench: %s holds no operations\n", path.c_str());
    return std::nullopt;
  }
  return std::move(read.records);
}

std::optional<Histories> LoadAll(const std::filesystem::path& dir) {
  Histories histories;
  for (int i = 0; i < kEtcdHistories; ++i) {
    const std::string name = absl::StrFormat("etcd_%03d.log", i);
    auto etcd = Load<CasRegisterOp>(dir / "jepsen-etcd" / name, ImportJepsenLog);
    if (!etcd) return std::nullopt;
    histories.etcd.push_back(std::move(*etcd));
  }
  auto ok = Load<KvOp>(dir / "kv" / "c50-ok.txt", ImportEdnKv);
  auto bad = Load<KvOp>(dir / "kv" / "c50-bad.txt", ImportEdnKv);
  if (!ok || !bad) return std::nullopt;
  histories.kv_c50_ok = std::move(*ok);
  histories.kv_c50_bad = std::move(*bad);
  return histories;
}

void BM_Etcd_All50(benchmark::State& state) {
  for (auto _ : state) {
    int linearizable = 0;
    for (const auto& history : loaded->etcd) {
      linearizable += CheckCasRegister(history).verdict == LinVerdict::kLinearizable ? 1 : 0;
    }
    benchmark::DoNotOptimize(linearizable);
  }
}
BENCHMARK(BM_Etcd_All50)->Unit(benchmark::kMillisecond);

void BM_Etcd_002(benchmark::State& state) {
  const std::vector<CasRegisterOp>& history = loaded->etcd.at(2);
  std::int64_t steps = 0;
  for (auto _ : state) {
    LinResult result = CheckCasRegister(history);
    steps = result.steps;
    benchmark::DoNotOptimize(result);
  }
  state.counters["steps"] = static_cast<double>(steps);
}
BENCHMARK(BM_Etcd_002)->Unit(benchmark::kMillisecond);

void BM_Kv(benchmark::State& state, const std::vector<KvOp> Histories::*history) {
  std::int64_t steps = 0;
  for (auto _ : state) {
    LinResult result = CheckKv(loaded->*history);
    steps = result.steps;
    benchmark::DoNotOptimize(result);
  }
  state.counters["steps"] = static_cast<double>(steps);
}
BENCHMARK_CAPTURE(BM_Kv, c50_ok, &Histories::kv_c50_ok)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Kv, c50_bad, &Histories::kv_c50_bad)->Unit(benchmark::kMillisecond);

int Main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  const std::filesystem::path dir = HistoriesDir();
  const std::optional<Histories> histories = LoadAll(dir);
  if (!histories) {
    std::fprintf(stderr,
                 "checker_bench: the shared histories are missing or broken under %s; set "
                 "LEASESIM_HISTORIES_DIR to the histories folder (or LEASESIM_SOURCE_DIR to a checkout with "
                 "../shared beside it)\n",
                 dir.c_str());
    return 2;
  }
  loaded = &*histories;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace
}  // namespace leasesim::checker

int main(int argc, char** argv) { return leasesim::checker::Main(argc, argv); }
