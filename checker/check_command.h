#pragma once
// What `leasesim check FILE [--format F] [--model M] [--initial-value V]
// [--budget N] [--json]` does once cli/ has parsed its words: judges a
// history file. Exit codes: 0 fine, 1 violation, 2 bad input or usage (a
// corrupt line is named by its number), 4 step budget exhausted.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "checker/lin_result.h"

namespace leasesim::checker {

inline constexpr int kCheckExitOk = 0;
inline constexpr int kCheckExitViolation = 1;
inline constexpr int kCheckExitBadInput = 2;
inline constexpr int kCheckExitUnknown = 4;

// A check as the command line asks for it.
struct CheckRequest {
  std::string file;
  std::string format;  // leasesim, jepsen-log or edn; "" = sniffed from the file
  std::string model;   // lease, cas-register or kv; "" = the format's default
  std::int64_t budget = kDefaultLinBudget;  // linearizability search steps
  // The cas-register's value before any operation, as written on the
  // command line: an integer or "nil"; not given = nil, the default of both
  // Knossos's cas-register model and Porcupine's etcd model.
  std::optional<std::string> initial_value;
  bool json = false;   // one JSON object instead of text
};

// The verdict goes to `out` (text, or one JSON object with json); bad
// values and input errors go to `err`, naming the flag or the line.
int RunCheck(const CheckRequest& request, std::ostream& out, std::ostream& err);

}  // namespace leasesim::checker
