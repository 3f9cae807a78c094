#pragma once
// Bad input, said one way in every folder: where the input is wrong (a
// field's path, a flag, a line and column) and the rule it broke, with the
// values involved. Every reader of user input reports it — the strict JSON
// reader (base/strict_json.h) throws it, the history importers return it
// (checker/input_error.h), `timing` checks its flags into it — and the
// command prints it and exits 2; bad input never crashes.
//
// One plain type rather than absl::Status: every bad input has the same
// status code, so a Status's code would carry nothing, and its payloads are
// untyped; the path and line are fields here that tests and `check --json`
// read directly. base/ is installed for outside projects (leasesim::base),
// which then need no Abseil.

#include <cstdint>
#include <string>
#include <string_view>

namespace leasesim::base {

struct InputError {
  // The field's path ("scenarios[2].faults[0].duration_ms"), the flag
  // ("--store-p99"), or empty: the input as a whole.
  std::string path;
  // What is wrong: "must be in [1, 8640000000] (got 0)".
  std::string rule;
  // 1-based; 0 when the error is not about one line (column: one place in it).
  std::int64_t line = 0;
  std::int64_t column = 0;

  // A place in the text as compilers print it, "3:14: not valid JSON: ...";
  // a record's line and field, "line 12, field \"value\": expected an
  // integer"; a path, "scenarios[0].nodes: must be an integer (got \"3\")".
  std::string ToString() const;
  // The same after the input's name: "s.json:3:14: ...", "s.json: scenarios[0]...".
  std::string In(std::string_view source) const;
};

}  // namespace leasesim::base
