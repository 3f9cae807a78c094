// leasesim store-fuzz: the replicated store under a search of its own
// (runner/store_fuzz.h): N seeds, each a workload of concurrent clients and a
// nemesis against the Raft replicas, judged by linearizability and by Raft's
// invariants. Prints every failing seed with its problems and a summary.

#include <cstdint>
#include <limits>
#include <map>
#include <ostream>

#include "base/input_error.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "runner/store_fuzz.h"

namespace leasesim::cli {
namespace {

// What the command line asks for, each option bound where it is declared.
struct StoreFuzzArgs {
  std::int64_t runs = 100;
  std::int64_t seed = 1;
  int replicas = 0;  // 0: 1, 3 or 5, drawn per seed
  std::int64_t fsync_ms = -1;  // -1: drawn per seed
  std::int64_t duration_s = 20;
  int clients = 6;
  int record_clients = 2;
  int keys = 3;
  bool unsafe_reads = false;
  bool reply_before_fsync = false;
  bool verbose = false;
  runner::StoreFuzzOptions options;  // from the above (Apply)
};

void Declare(CommandLine& args, StoreFuzzArgs& a) {
  a.duration_s = a.options.duration / sim::kNanosPerSecond;
  a.clients = a.options.clients;
  a.record_clients = a.options.record_clients;
  a.keys = a.options.keys;
  args.Integer("--runs", "N", "how many seeds (default 100)", a.runs, 1, 100'000'000)
      .Integer("--seed", "S", "the first seed (default 1)", a.seed, 0, std::numeric_limits<std::int64_t>::max())
      .Integer("--replicas", "R", "replicas per run (default: 1, 3 or 5, drawn per seed)", a.replicas, 1, 7)
      .Integer("--fsync-ms", "MS", "one fsync's latency (default: 1-8 ms, drawn per seed; 0: writes durable at once)",
               a.fsync_ms, 0, 1000)
      .Integer("--duration-s", "S", "traffic and faults per run, in simulated seconds (default 20)", a.duration_s, 1,
               3600)
      .Integer("--clients", "N", "concurrent KV clients (default 6)", a.clients, 0, 64)
      .Integer("--record-clients", "N", "concurrent lease-record clients (default 2)", a.record_clients, 0, 64)
      .Integer("--keys", "N", "keys the clients share (default 3)", a.keys, 1, 100)
      .Switch("--unsafe-reads", "the deliberate mistake: reads answered from any replica's state", a.unsafe_reads)
      .Switch("--reply-before-fsync", "the deliberate mistake: replicas reply before their writes are synced",
              a.reply_before_fsync)
      .Switch("--verbose", "a line for every run, not only the failing ones", a.verbose)
      .Footer("Exit: 0 every run passed, 1 a run broke an invariant or linearizability, 2 bad input.");
}

bool Apply(StoreFuzzArgs& a, std::ostream& err) {
  if (a.clients + a.record_clients == 0) {
    err << "leasesim store-fuzz: "
        << base::InputError{"--clients", "must not be 0 when --record-clients is 0 (no traffic to judge)"}.ToString()
        << "\n";
    return false;
  }
  a.options.replicas = a.replicas;
  a.options.fsync = a.fsync_ms < 0 ? -1 : a.fsync_ms * sim::kNanosPerMilli;
  a.options.duration = a.duration_s * sim::kNanosPerSecond;
  a.options.clients = a.clients;
  a.options.record_clients = a.record_clients;
  a.options.keys = a.keys;
  if (a.unsafe_reads) a.options.read_mode = backends::ReadMode::kUnsafe;
  a.options.reply_before_fsync = a.reply_before_fsync;
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
                   "(reads, creates, compare-and-sets) against 1, 3 or 5 replicas while a nemesis partitions the "
                   "store leader, cuts links one way, clogs and slows them, delays and redelivers Raft messages, "
                   "crashes replicas (also at failpoints of their raft loop), cuts their power (the un-fsynced "
                   "tail of the disk is lost), slows their fsyncs, pauses them and drifts their clocks. Each run is judged by "
                   "the linearizability checker and by Raft's invariants (election safety, log matching, leader "
                   "completeness, state machine safety, durability). docs/REPLICATED_STORE.md.");
  StoreFuzzArgs parsed;
  Declare(args, parsed);
  if (const std::optional<int> done = args.Parse(words, out, err)) return *done;
  if (!Apply(parsed, err)) return kExitBadInput;
  std::int64_t failed = 0;
  std::int64_t unknown = 0;
  std::map<std::string, std::int64_t> totals;
  for (std::int64_t i = 0; i < parsed.runs; ++i) {
    const auto seed = static_cast<std::uint64_t>(parsed.seed + i);
    const runner::StoreFuzzResult result = runner::RunStoreFuzz(seed, parsed.options);
    for (const auto& [name, count] : result.counts) totals[name] += count;
    if (result.linearizability_unknown) ++unknown;
    if (!result.ok()) ++failed;
    if (result.ok() && !result.linearizability_unknown && !parsed.verbose) continue;
    out << "seed " << seed << ": " << (result.ok() ? "ok" : "FAIL")
        << (result.linearizability_unknown ? ", linearizability unknown" : "") << " (" << result.counts.at("replicas")
        << " replicas, fsync " << result.counts.at("fsync_us") << " us, "
        << result.counts.at("entries_applied") << " entries applied)\n";
    for (const std::string& problem : result.problems) out << "  " << problem << "\n";
  }
  PrintSummary(parsed, failed, unknown, totals, out);
  return failed > 0 ? kExitViolation : kExitOk;
}

}  // namespace leasesim::cli
