#pragma once
// Reads the operations of a Jepsen compare-and-set register test from its
// log (jepsen.log, the console output) or its history.txt into register
// operations. Jepsen's jepsen.util logger writes one line per operation,
// `<process> <type> <f> <value> [<error>]`, its fields separated by tabs or,
// re-aligned, by runs of spaces, inside one of these line shapes:
//   INFO  jepsen.util - 0	:invoke	:read	nil                       (log4j, Jepsen 0.0.x/0.1.x)
//   INFO [2018-02-02 15:09:36,447] jepsen worker 0 - jepsen.util 0	:invoke	:read	nil   (console)
//   2021-06-14 18:43:22,415{GMT}	INFO	[jepsen worker 0] jepsen.util: 0	:invoke	:read	nil   (jepsen.log)
//   0	:invoke	:read	nil                                            (history.txt)
// Values are EDN: `3`, `nil`, `[3 4]`, and independent-key tuples `[k v]`
// (checker/register_values.h). An error after the value (`:timed-out`,
// `indeterminate: ...`) is ignored.

#include <string_view>

#include "checker/cas_register_model.h"
#include "checker/input_error.h"

namespace leasesim::checker {

// Times are line numbers: the log's line order is real-time order. An
// `:info` completion, or none at all, leaves the outcome unknown; a failed
// or timed-out read is kept with outcome kFail/kUnknown (the checker drops
// it). The nemesis's lines (process :nemesis), other loggers' lines and
// their continuation lines (stack traces, multi-line messages) are skipped;
// a malformed operation line, an unrecognised line right after an operation
// line, a completion without an invocation, or a completion that does not
// match its invocation is an error naming the line and field.
ReadResult<CasRegisterOp> ImportJepsenLog(std::string_view text);

// Whether the first non-blank line has one of the shapes above.
bool LooksLikeJepsenLog(std::string_view text);

}  // namespace leasesim::checker
