// leasesim: deterministic simulation and fault injection for lease-based
// leader election. See README.md.

#include <iostream>
#include <string>
#include <vector>

#include "checker/check_command.h"
#include "cli/commands.h"
#include "cli/live_command.h"

namespace {

constexpr const char* kUsage =
    "usage: leasesim COMMAND ...\n"
    "  run FILE [--seeds A-B | --seed N] [--scenario NAME] [--out DIR] [--jobs N]\n"
    "      [--shard K/N] [--variant V] [--check-determinism] [--quiet]\n"
    "      run every scenario of FILE for every seed; exit 1 on any violation\n"
    "  merge DIR... --out DIR [--quiet]\n"
    "      combine the outputs of run --shard K/N into one summary and report\n"
    "  compare BASE_DIR NEW_DIR [--markdown FILE] [--json FILE] [--tolerate FIGURE=+N%]... [--alpha A]\n"
    "          [--allow-scenario-change] [--quiet]\n"
    "      what a change did: seeds newly failing or fixed, figures shifted (paired by seed);\n"
    "      exit 0 nothing got worse, 1 worse, 2 bad input\n"
    "  replay FILE --scenario NAME --seed N [--variant V] [--trace FILE] [--history FILE] [--html FILE]\n"
    "      run one seed again, exactly; print its trace hash and verdict\n"
    "  check FILE [--format leasesim|jepsen-log|edn] [--model lease|cas-register|kv] [--budget N] [--json]\n"
    "      check a recorded history (ours or another tool's): exit 0 fine, 1 violation,\n"
    "      2 bad input, 4 step budget exhausted\n"
    "  fuzz [--runs N] [--seed S] [--variant V] [--property P] [--out DIR] [--baseline-variant V]\n"
    "      RapidCheck over generated scenarios; a failure is shrunk to DIR/counterexample.json;\n"
    "      --baseline-variant V runs every case on V too and reports where the new protocol is worse\n"
    "  explore FILE --scenario NAME --faults K [--menu MENU.json] [--out DIR] [--variant V] [--seed S] [--limit N]\n"
    "      run every placement of up to K faults from a menu, in a fixed order; exit 1 on any violation\n"
    "  timing --failover-target MS --store-p99 MS --pause-budget MS --drift-bound PPM [--store-p999 MS]\n"
    "      [--regions FILE] [--out FILE [--force]] [--verify] [--sweep] [--seeds N] [--jobs N]\n"
    "      derive a lease timing from targets, write it as a scenario file, verify it by simulation\n"
    "  zoo [--seeds N] [--variant V]\n"
    "      hunt every broken protocol variant; print caught, kinds, seeds to first catch, shrunk size\n"
    "  live [--nodes N] [--duration S] [--etcd URLS] [--faults LIST] [--variant V] [--out DIR]\n"
    "      run the core against a real etcd cluster with real faults; check the history\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? leasesim::cli::kExitBadInput : leasesim::cli::kExitOk;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  if (command == "run") return leasesim::cli::RunCommand(args, std::cout, std::cerr);
  if (command == "merge") return leasesim::cli::MergeCommand(args, std::cout, std::cerr);
  if (command == "replay") return leasesim::cli::ReplayCommand(args, std::cout, std::cerr);
  if (command == "live") return leasesim::cli::LiveCommand(args, std::cout, std::cerr);
  if (command == "fuzz") return leasesim::cli::FuzzCommand(args, std::cout, std::cerr);
  if (command == "explore") return leasesim::cli::ExploreCommand(args, std::cout, std::cerr);
  if (command == "timing") return leasesim::cli::TimingCommand(args, std::cout, std::cerr);
  if (command == "compare") return leasesim::cli::CompareCommand(args, std::cout, std::cerr);
  if (command == "zoo") return leasesim::cli::ZooCommand(args, std::cout, std::cerr);
  if (command == "check") return leasesim::checker::RunCheckCommand(args, std::cout, std::cerr);
  std::cerr << "leasesim: unknown command \"" << command << "\"\n" << kUsage;
  return leasesim::cli::kExitBadInput;
}
