// leasesim zoo: hunts every broken protocol variant with its nemesis and
// prints how fast each was caught and how small its shrunk counterexample is.

#include <algorithm>
#include <charconv>
#include <ostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "fuzz/zoo.h"
#include "zoo/variants.h"

namespace leasesim::cli {

int ZooCommand(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  const Args args(argv, {"--seeds", "--variant", "--correct-seeds", "--file"}, {"--no-shrink"});
  if (!args.ok() || !args.positional().empty()) {
    err << (args.ok() ? "" : "leasesim zoo: " + args.error() + "\n")
        << "usage: leasesim zoo [--file scenarios/zoo.json] [--seeds N] [--variant V] [--correct-seeds N] [--no-shrink]\n";
    return kExitBadInput;
  }
  int seeds = fuzz::kZooSeedBudget;
  if (auto text = args.value("--seeds")) {
    const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), seeds);
    if (error != std::errc() || end != text->data() + text->size() || seeds < 1) {
      err << "leasesim zoo: --seeds must be a positive integer\n";
      return kExitBadInput;
    }
  }
  int correct_seeds = 20;
  if (auto text = args.value("--correct-seeds")) {
    const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), correct_seeds);
    if (error != std::errc() || end != text->data() + text->size() || correct_seeds < 0) {
      err << "leasesim zoo: --correct-seeds must be a non-negative integer\n";
      return kExitBadInput;
    }
  }
  const std::optional<std::string> only = args.value("--variant");
  const std::string file = args.value("--file").value_or("scenarios/zoo.json");
  auto loaded = fuzz::LoadZoo(file);
  if (std::holds_alternative<std::string>(loaded)) {
    err << "leasesim zoo: " << std::get<std::string>(loaded) << "\n";
    return kExitBadInput;
  }
  const std::vector<fuzz::ZooEntry>& entries = std::get<std::vector<fuzz::ZooEntry>>(loaded);
  std::vector<fuzz::ZooRow> rows;
  bool escaped = false;
  for (const fuzz::ZooEntry& entry : entries) {
    if (only && *only != entry.variant) continue;
    rows.push_back(fuzz::HuntVariant(entry, seeds, !args.has("--no-shrink")));
    escaped = escaped || !rows.back().caught;
  }
  if (rows.empty() && only) {
    err << "leasesim zoo: " << file << " has no scenario for variant \"" << *only << "\" (known: "
        << zoo::VariantNames() << ")\n";
    return kExitBadInput;
  }
  bool false_alarm = false;
  if (!only && correct_seeds > 0) {
    rows.push_back(fuzz::CheckCorrect(entries, correct_seeds));
    false_alarm = rows.back().false_alarms > 0;
  }
  out << fuzz::FormatZooTable(rows);
  std::vector<std::uint64_t> first;
  for (const fuzz::ZooRow& row : rows) {
    if (row.variant != "correct" && row.caught) first.push_back(row.first_seed);
  }
  if (!first.empty()) {
    std::sort(first.begin(), first.end());
    out << "median seeds to first catch: " << first[first.size() / 2] << "\n";
  }
  for (const fuzz::ZooRow& row : rows) {
    if (row.variant == "correct" || !row.shrunk) continue;
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
