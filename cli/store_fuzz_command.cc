// leasesim store-fuzz: the replicated store under a search of its own
// (runner/store_fuzz.h): N seeds, each a workload of concurrent clients and a
// nemesis against the Raft replicas, judged by linearizability and by Raft's
// invariants. Prints every failing seed with its problems and a summary.

#include <cstdint>
#include <limits>
#include <map>
#include <ostream>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/values.h"
#include "runner/store_fuzz.h"

namespace leasesim::cli {
namespace {

// Reads a flag's integer into `value` when given; false (after saying why)
// when it is not a whole number in [low, high].
bool ReadInt(const CommandLine& args, const char* flag, std::int64_t low, std::int64_t high, std::int64_t& value,
             std::ostream& err) {
  const std::optional<std::string> text = args.value(flag);
  if (!text) return true;
  if (!ParseNumber(*text, value) || value < low || value > high) {
    err << "leasesim store-fuzz: " << flag << " must be a whole number from " << low << " to " << high << ", not \""
        << *text << "\"\n";
    return false;
  }
  return true;
}

struct StoreFuzzArgs {
  std::int64_t runs = 100;
  std::int64_t seed = 1;
  runner::StoreFuzzOptions options;
};

bool ReadArgs(const CommandLine& args, StoreFuzzArgs& out, std::ostream& err) {
  std::int64_t replicas = 0;
  std::int64_t fsync_ms = -1;
  std::int64_t duration_s = out.options.duration / sim::kNanosPerSecond;
  std::int64_t clients = out.options.clients;
  std::int64_t record_clients = out.options.record_clients;
  std::int64_t keys = out.options.keys;
  if (!ReadInt(args, "--runs", 1, 100'000'000, out.runs, err) ||
      !ReadInt(args, "--seed", 0, std::numeric_limits<std::int64_t>::max(), out.seed, err) || !ReadInt(args, "--replicas", 1, 7, replicas, err) ||
      !ReadInt(args, "--fsync-ms", 0, 1000, fsync_ms, err) ||
      !ReadInt(args, "--duration-s", 1, 3600, duration_s, err) || !ReadInt(args, "--clients", 0, 64, clients, err) ||
      !ReadInt(args, "--record-clients", 0, 64, record_clients, err) ||
      !ReadInt(args, "--keys", 1, 100, keys, err)) {
    return false;
  }
  out.options.replicas = static_cast<int>(replicas);
  out.options.fsync = fsync_ms < 0 ? -1 : fsync_ms * sim::kNanosPerMilli;
  out.options.duration = duration_s * sim::kNanosPerSecond;
  if (clients + record_clients == 0) {
    err << "leasesim store-fuzz: --clients and --record-clients must not both be 0 (no traffic to judge)\n";
    return false;
  }
  out.options.clients = static_cast<int>(clients);
  out.options.record_clients = static_cast<int>(record_clients);
  out.options.keys = static_cast<int>(keys);
  if (args.has("--unsafe-reads")) out.options.read_mode = backends::ReadMode::kUnsafe;
  out.options.reply_before_fsync = args.has("--reply-before-fsync");
  return true;
}

void PrintSummary(const StoreFuzzArgs& args, std::int64_t failed, std::int64_t unknown,
                  const std::map<std::string, std::int64_t>& totals, std::ostream& out) {
  out << "store-fuzz: " << args.runs << " runs (seeds " << args.seed << "-" << args.seed + args.runs - 1 << "): "
      << failed << " failed, " << unknown << " with linearizability unknown\n";
  out << "  totals:";
  for (const auto& [name, count] : totals) {
    if (name != "replicas" && name != "fsync_us") out << " " << name << "=" << count;
  }
  out << "\n";
}

}  // namespace

int StoreFuzzCommand(const std::vector<std::string>& words, std::ostream& out, std::ostream& err) {
  CommandLine args("store-fuzz",
                   "The replicated (Raft) store under a search of its own: for each seed, concurrent KV clients "
                   "(ranges, puts, compare-and-sets, transactions, deletes, TTL leases) and lease-record clients "
                   "(reads, creates, compare-and-sets) against 3 or 5 replicas while a nemesis partitions the "
                   "store leader, cuts links one way, clogs them, crashes replicas, cuts their power (the "
                   "un-fsynced tail of the disk is lost), pauses them and drifts their clocks. Each run is judged by "
                   "the linearizability checker and by Raft's invariants (election safety, log matching, leader "
                   "completeness, state machine safety, durability). docs/REPLICATED_STORE.md.");
  args.Option("--runs", "N", "how many seeds (default 100)")
      .Option("--seed", "S", "the first seed (default 1)")
      .Option("--replicas", "R", "replicas per run (default: 3 or 5, drawn per seed)")
      .Option("--fsync-ms", "MS", "one fsync's latency (default: 1-8 ms, drawn per seed; 0: writes durable at once)")
      .Option("--duration-s", "S", "traffic and faults per run, in simulated seconds (default 20)")
      .Option("--clients", "N", "concurrent KV clients (default 6)")
      .Option("--record-clients", "N", "concurrent lease-record clients (default 2)")
      .Option("--keys", "N", "keys the clients share (default 3)")
      .Switch("--unsafe-reads", "the deliberate mistake: reads answered from any replica's state")
      .Switch("--reply-before-fsync", "the deliberate mistake: replicas reply before their writes are synced")
      .Switch("--verbose", "a line for every run, not only the failing ones")
      .Footer("Exit: 0 every run passed, 1 a run broke an invariant or linearizability, 2 bad input.");
  if (const std::optional<int> done = args.Parse(words, out, err)) return *done;
  StoreFuzzArgs parsed;
  if (!ReadArgs(args, parsed, err)) return kExitBadInput;
  std::int64_t failed = 0;
  std::int64_t unknown = 0;
  std::map<std::string, std::int64_t> totals;
  for (std::int64_t i = 0; i < parsed.runs; ++i) {
    const auto seed = static_cast<std::uint64_t>(parsed.seed + i);
    const runner::StoreFuzzResult result = runner::RunStoreFuzz(seed, parsed.options);
    for (const auto& [name, count] : result.counts) totals[name] += count;
    if (result.linearizability_unknown) ++unknown;
    if (!result.ok()) ++failed;
    if (result.ok() && !args.has("--verbose")) continue;
    out << "seed " << seed << ": " << (result.ok() ? "ok" : "FAIL") << " (" << result.counts.at("replicas")
        << " replicas, fsync " << result.counts.at("fsync_us") << " us, "
        << result.counts.at("entries_applied") << " entries applied)\n";
    for (const std::string& problem : result.problems) out << "  " << problem << "\n";
  }
  PrintSummary(parsed, failed, unknown, totals, out);
  return failed > 0 ? kExitViolation : kExitOk;
}

}  // namespace leasesim::cli
