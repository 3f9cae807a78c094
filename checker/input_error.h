#pragma once
// What a history reader returns: its records, or the first bad input found,
// a base::InputError (base/input_error.h) naming the line (1-based) and the
// field. Readers return it and never throw or abort on bad input.

#include <optional>
#include <vector>

#include "base/input_error.h"

namespace leasesim::checker {

// The one error type for bad input (base/input_error.h), as checker's
// readers and their callers spell it.
using base::InputError;

// A reader's output: the records, or the first error found.
template <class T>
struct ReadResult {
  std::vector<T> records;
  std::optional<InputError> error;
  bool ok() const { return !error.has_value(); }
};

}  // namespace leasesim::checker
