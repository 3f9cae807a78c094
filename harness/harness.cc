#include "harness/harness.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "base/program_name.h"
#include "base/version.h"
#include "cli/commands.h"
#include "cli/live_command.h"
#include "live/live_node.h"

namespace {

using CommandFunction = int (*)(const std::vector<std::string>&, std::ostream&, std::ostream&);

// Every command: its name, one line for `leasesim --help`, its function
// (which parses its own words with cli/command_line.h).
struct Command {
  const char* name;
  const char* summary;
  CommandFunction run;
};

constexpr Command kCommands[] = {
    {"run", "Run every scenario of a file for every seed; write summary.json, junit.xml, report.html",
     leasesim::cli::RunCommand},
    {"merge", "Combine the outputs of run --shard K/N into one sweep's files; judge the suite",
     leasesim::cli::MergeCommand},
    {"compare", "What a change did: seeds newly failing or fixed, figures shifted (paired by seed)",
     leasesim::cli::CompareCommand},
    {"replay", "Run one seed again, exactly; print its trace hash and verdict", leasesim::cli::ReplayCommand},
    {"check", "Judge a recorded history (ours, a Jepsen log or EDN)", leasesim::cli::CheckCommand},
    {"fuzz", "The generic search over generated worlds and fault scripts", leasesim::cli::FuzzCommand},
    {"explore", "Every placement of up to K faults from a menu", leasesim::cli::ExploreCommand},
    {"zoo", "Hunt every known-broken protocol variant", leasesim::cli::ZooCommand},
    {"designs", "The reference designs (client-go, etcd, ...) and leasesim side by side under the generic search",
     leasesim::cli::DesignsCommand},
    {"store-fuzz", "The replicated (Raft) store alone: clients and a nemesis, judged by linearizability and Raft's invariants",
     leasesim::cli::StoreFuzzCommand},
    {"timing", "Derive a lease timing from targets and verify it by simulation", leasesim::cli::TimingCommand},
    {"live", "Run the core against a real etcd cluster with real faults", leasesim::cli::LiveCommand},
};

// The top-level help, formatted by the same parser the commands use.
std::string TopLevelHelp() {
  CLI::App app("Deterministic simulation and fault injection for lease-based leader election.", "leasesim");
  app.get_formatter()->label("Usage", "usage");
  app.get_formatter()->label("SUBCOMMAND", "COMMAND");
  app.set_help_flag("-h,--help", "Print this help and exit");
  app.set_version_flag("--version", std::string(leasesim::base::Version()));
  for (const Command& command : kCommands) app.add_subcommand(command.name, command.summary)->group("Commands");
  app.footer(
      "leasesim COMMAND --help describes each command.\n"
      "Exit: 0 all good, 1 a violation was found, 2 bad input or usage (check: 4 step budget exhausted).");
  return app.help();
}

}  // namespace

namespace leasesim::harness {

int Main(int argc, char** argv) {
  // `live` starts each node as this program's "live-node" (not listed:
  // people never type it).
  if (argc >= 1) base::SetProgramName(argv[0]);
  if (argc >= 2 && std::string(argv[1]) == live::kLiveNodeCommand) return live::RunLiveNode(argc - 1, argv + 1);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << TopLevelHelp();
    return leasesim::cli::kExitBadInput;
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << TopLevelHelp();
    return leasesim::cli::kExitOk;
  }
  if (args[0] == "--version" || args[0] == "version") {
    std::cout << "leasesim " << leasesim::base::Version() << "\n";
    return leasesim::cli::kExitOk;
  }
  const std::string name = args[0];
  args.erase(args.begin());
  for (const Command& command : kCommands) {
    if (name == command.name) return command.run(args, std::cout, std::cerr);
  }
  std::cerr << "leasesim: unknown command \"" << name << "\" (leasesim --help lists the commands)\n";
  return leasesim::cli::kExitBadInput;
}

}  // namespace leasesim::harness
