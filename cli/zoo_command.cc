// leasesim zoo: hunts every broken protocol variant with its nemesis and
// prints how fast each was caught and how small its shrunk counterexample is.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <ostream>

#include "base/input_error.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/progress_line.h"
#include "cli/protocol_option.h"
#include "core/protocol.h"
#include "fuzz/zoo.h"

namespace leasesim::cli {

namespace {

// The registered protocols with a known mistake, in the order registered.
std::vector<const core::Protocol*> BrokenProtocols() {
  std::vector<const core::Protocol*> broken;
  for (const core::Protocol* protocol : core::Protocols().All()) {
    if (!protocol->mistake.empty()) broken.push_back(protocol);
  }
  return broken;
}

// Their names, for messages.
std::string BrokenNames() {
  std::string names;
  for (const core::Protocol* protocol : BrokenProtocols()) names += (names.empty() ? "" : ", ") + protocol->name;
  return names;
}

// What the command line asks for, each option bound where it is declared.
struct ZooRequest {
  std::string file = "scenarios/zoo.json";
  std::optional<std::string> only;  // --protocol
  int seeds = fuzz::kZooSeedBudget;
  int correct_seeds = 20;
  bool no_shrink = false;
  bool generic = false;
  int runs = 200;  // --generic's
  std::uint64_t seed = 1;
  int correct_runs = 200;
  bool quiet = false;
};

constexpr std::int64_t kCountMax = std::numeric_limits<int>::max();

void Declare(CommandLine& args, ZooRequest& r) {
  args.Option("--file", "FILE", "The aimed hunts (default scenarios/zoo.json)", r.file)
      .Integer("--seeds", "N", "Seeds per aimed hunt", r.seeds, 1, kCountMax)
      .Integer("--correct-seeds", "N", "Seeds of the correct protocol that must raise nothing (default 20)",
               r.correct_seeds, 0, kCountMax)
      .Switch("--no-shrink", "Do not shrink the first catch", r.no_shrink)
      .Switch("--generic", "Hunt with the generic search (fuzz) alone", r.generic)
      .Integer("--runs", "N", "With --generic: cases per variant (default 200)", r.runs, 1, kCountMax)
      .Integer("-s,--seed", "S", "With --generic: the session seed (default 1)", r.seed, 0,
               std::numeric_limits<std::int64_t>::max())
      .Integer("--correct-runs", "N", "With --generic: cases of the correct protocol (default 200)", r.correct_runs,
               0, kCountMax)
      .Switch("-q,--quiet", "No progress line on a terminal", r.quiet)
      .Footer("Exit: 0 every variant caught and no false alarm, 1 otherwise, 2 bad input or usage.");
  DeclareProtocol(args, "Hunt this known-broken protocol only", r.only);
}

// --protocol, when given, must be registered (ReadProtocol) and have a
// known mistake to hunt.
std::optional<base::InputError> CheckOnly(const ZooRequest& r) {
  if (!r.only) return std::nullopt;
  if (const ProtocolChoice choice = ReadProtocol(r.only); choice.error) return choice.error;
  for (const core::Protocol* protocol : BrokenProtocols()) {
    if (protocol->name == *r.only) return std::nullopt;
  }
  return base::InputError{"--protocol", "\"" + *r.only + "\" has no known mistake to hunt (known-broken: " +
                                            BrokenNames() + ")"};
}

// `leasesim zoo --generic`: every variant hunted by the generic search
// alone, beside the aimed hunt's seeds.
int GenericZoo(const ZooRequest& r, const std::vector<fuzz::ZooEntry>& entries, std::ostream& out,
               std::ostream& err) {
  const int runs = r.runs;
  const std::uint64_t seed = r.seed;
  const int correct_runs = r.correct_runs;
  const std::optional<std::string>& only = r.only;
  std::vector<fuzz::ZooRow> generic;
  std::vector<fuzz::ZooRow> aimed;
  std::vector<std::uint64_t> cases;
  bool escaped = false;
  // Every registered protocol with a known mistake, in the order registered.
  const std::vector<const core::Protocol*> broken = BrokenProtocols();
  const std::size_t hunts = only ? 1 : broken.size() + (correct_runs > 0 ? 1 : 0);
  ZooProgress progress(err, r.quiet, hunts);
  for (const core::Protocol* protocol : broken) {
    const std::string& name = protocol->name;
    if (only && *only != name) continue;
    const fuzz::HuntWatcher watch = progress.Hunting(name);
    generic.push_back(fuzz::HuntGeneric(name, runs, seed, false, watch));
    escaped = escaped || !generic.back().caught;
    if (generic.back().caught) cases.push_back(generic.back().first_seed);
    for (const fuzz::ZooEntry& entry : entries) {
      if (entry.variant == name) aimed.push_back(fuzz::HuntVariant(entry, fuzz::kZooSeedBudget, false, watch));
    }
    progress.Done(generic.back());
  }
  if (!only && correct_runs > 0) {
    generic.push_back(progress.Done(fuzz::CheckCorrectGeneric(correct_runs, seed, progress.Hunting(fuzz::kCorrectRow))));
  }
  progress.Clear();
  out << fuzz::FormatGenericTable(generic, aimed);
  if (!cases.empty()) {
    std::sort(cases.begin(), cases.end());
    out << "generic search, session seed " << seed << ": " << cases.size() << " of " << (generic.size() - (only || correct_runs == 0 ? 0 : 1))
        << " caught within " << runs << " cases, median " << cases[cases.size() / 2] << " cases to the first catch\n";
  }
  const bool false_alarm = !generic.empty() && generic.back().correct && generic.back().false_alarms > 0;
  if (escaped) out << "FAIL: a variant escaped the generic search's " << runs << " cases\n";
  if (false_alarm) out << "FAIL: the correct protocol raised a violation: " << generic.back().false_alarm << "\n";
  return escaped || false_alarm ? kExitViolation : kExitOk;
}

}  // namespace

int ZooCommand(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  CommandLine args("zoo", "Hunt every known-broken protocol variant (zoo/) with its aimed scenario from FILE, or "
                          "with the generic search alone (--generic); print whether each was caught, how fast, and "
                          "how small its shrunk counterexample is.");
  ZooRequest r;
  Declare(args, r);
  if (const std::optional<int> code = args.Parse(argv, out, err)) return *code;
  const int seeds = r.seeds;
  const int correct_seeds = r.correct_seeds;
  const std::optional<std::string>& only = r.only;
  const std::string& file = r.file;
  if (const std::optional<base::InputError> error = CheckOnly(r)) {
    err << "leasesim zoo: " << error->ToString() << "\n";
    return kExitBadInput;
  }
  auto loaded = fuzz::LoadZoo(file);
  if (const auto* error = std::get_if<base::InputError>(&loaded)) {
    err << "leasesim zoo: " << error->In(file) << "\n";
    return kExitBadInput;
  }
  const std::vector<fuzz::ZooEntry>& entries = std::get<std::vector<fuzz::ZooEntry>>(loaded);
  if (r.generic) return GenericZoo(r, entries, out, err);
  std::vector<fuzz::ZooRow> rows;
  bool escaped = false;
  ZooProgress progress(err, r.quiet, only ? 1 : entries.size() + (correct_seeds > 0 ? 1 : 0));
  for (const fuzz::ZooEntry& entry : entries) {
    if (only && *only != entry.variant) continue;
    rows.push_back(
        progress.Done(fuzz::HuntVariant(entry, seeds, !r.no_shrink, progress.Hunting(entry.variant))));
    escaped = escaped || !rows.back().caught;
  }
  if (rows.empty() && only) {
    err << "leasesim zoo: " << base::InputError{"--protocol", file + " has no scenario hunting \"" + *only + "\""}.ToString()
        << "\n";
    return kExitBadInput;
  }
  bool false_alarm = false;
  if (!only && correct_seeds > 0) {
    rows.push_back(progress.Done(fuzz::CheckCorrect(entries, correct_seeds, progress.Hunting(fuzz::kCorrectRow))));
    false_alarm = rows.back().false_alarms > 0;
  }
  progress.Clear();
  out << fuzz::FormatZooTable(rows);
  std::vector<std::uint64_t> first;
  for (const fuzz::ZooRow& row : rows) {
    if (!row.correct && row.caught) first.push_back(row.first_seed);
  }
  if (!first.empty()) {
    std::sort(first.begin(), first.end());
    out << "median seeds to first catch: " << first[first.size() / 2] << "\n";
  }
  for (const fuzz::ZooRow& row : rows) {
    if (row.correct || !row.shrunk) continue;
    out << "  " << row.variant << ": seed " << row.first_seed << ", shrunk in " << row.shrink.runs << " runs; "
        << (row.shrink.result.unexpected.empty() ? std::string("-")
                                                 : row.shrink.result.unexpected.front().kind + ": " +
                                                       row.shrink.result.unexpected.front().message)
        << "\n";
  }
  if (escaped) out << "FAIL: a variant escaped its seed budget\n";
  if (false_alarm) out << "FAIL: the correct protocol raised a violation\n";
  return escaped || false_alarm ? kExitViolation : kExitOk;
}

}  // namespace leasesim::cli
