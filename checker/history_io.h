#pragma once
// The history file, format v1: JSON lines (docs/HISTORY_FORMAT.md). A header
// line with the run's figures, then one record per line, each with a "type"
// ("store_op", "belief", "claim", "ledger_write", "fault", "kv_op"). Runs write it; `leasesim
// check` and any other tool read it.

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "checker/history.h"
#include "checker/input_error.h"

namespace leasesim::checker {

inline constexpr std::string_view kHistoryFormatName = "leasesim-history";

// Writes `history` as format v1 (header first, then store ops, beliefs,
// claims, ledger writes, faults, callbacks, metrics and KV store ops, each
// in the order held).
void WriteHistory(const History& history, std::ostream& out);
std::string HistoryToJsonLines(const History& history);

// Reading either gives a history or the first error, naming its line and
// field (base/strict_json.h reads each line). Never throws, never aborts.
// Unknown fields are ignored (so a later minor addition does not break older
// readers); a missing required field, a wrong type, an out-of-range number, a
// key repeated in one object or a newer format version is an error.
struct HistoryReadResult {
  History history;
  std::optional<InputError> error;
  bool ok() const { return !error.has_value(); }
};
HistoryReadResult ReadHistory(std::string_view text);

// Whether `text` starts like a leasesim history (for format sniffing).
bool LooksLikeLeasesimHistory(std::string_view text);

}  // namespace leasesim::checker
