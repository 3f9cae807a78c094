// Benchmarks of the linearizability search over the shared reference
// histories (../shared/histories), to compare with Porcupine: all 50
// jepsen-etcd histories together, etcd_002 alone, and kv/c50-ok and c50-bad.
// Files are read and parsed once, outside the timed loop.

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "checker/cas_register_model.h"
#include "checker/edn_import.h"
#include "checker/jepsen_log_import.h"
#include "checker/kv_model.h"

namespace leasesim::checker {
namespace {

std::filesystem::path HistoriesDir() {
  if (const char* dir = std::getenv("LEASESIM_HISTORIES_DIR")) return dir;
  if (const char* root = std::getenv("LEASESIM_SOURCE_DIR")) {
    return std::filesystem::path(root) / ".." / "shared" / "histories";
  }
  return std::filesystem::path(LEASESIM_DEFAULT_SOURCE_DIR) / ".." / "shared" / "histories";
}

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<CasRegisterOp> LoadEtcd(int index) {
  char name[32];
  std::snprintf(name, sizeof name, "etcd_%03d.log", index);
  ReadResult<CasRegisterOp> read = ImportJepsenLog(ReadAll(HistoriesDir() / "jepsen-etcd" / name));
  if (!read.ok()) {
    std::cerr << name << ": " << read.error->ToString() << "\n";
    std::exit(2);
  }
  return read.records;
}

std::vector<KvOp> LoadKv(const std::string& name) {
  ReadResult<KvOp> read = ImportEdnKv(ReadAll(HistoriesDir() / "kv" / name));
  if (!read.ok()) {
    std::cerr << name << ": " << read.error->ToString() << "\n";
    std::exit(2);
  }
  return read.records;
}

void BM_Etcd_All50(benchmark::State& state) {
  std::vector<std::vector<CasRegisterOp>> histories;
  for (int i = 0; i < 50; ++i) histories.push_back(LoadEtcd(i));
  for (auto _ : state) {
    int linearizable = 0;
    for (const auto& history : histories) {
      linearizable += CheckCasRegister(history).verdict == LinVerdict::kLinearizable ? 1 : 0;
    }
    benchmark::DoNotOptimize(linearizable);
  }
}
BENCHMARK(BM_Etcd_All50)->Unit(benchmark::kMillisecond);

void BM_Etcd_002(benchmark::State& state) {
  const std::vector<CasRegisterOp> history = LoadEtcd(2);
  std::int64_t steps = 0;
  for (auto _ : state) {
    LinResult result = CheckCasRegister(history);
    steps = result.steps;
    benchmark::DoNotOptimize(result);
  }
  state.counters["steps"] = static_cast<double>(steps);
}
BENCHMARK(BM_Etcd_002)->Unit(benchmark::kMillisecond);

void BM_Kv(benchmark::State& state, const char* name) {
  const std::vector<KvOp> history = LoadKv(name);
  std::int64_t steps = 0;
  for (auto _ : state) {
    LinResult result = CheckKv(history);
    steps = result.steps;
    benchmark::DoNotOptimize(result);
  }
  state.counters["steps"] = static_cast<double>(steps);
}
BENCHMARK_CAPTURE(BM_Kv, c50_ok, "c50-ok.txt")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Kv, c50_bad, "c50-bad.txt")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace leasesim::checker

BENCHMARK_MAIN();
