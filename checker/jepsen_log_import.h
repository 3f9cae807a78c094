#pragma once
// Reads Jepsen log lines of a compare-and-set register test
// (`INFO  jepsen.util - <process>\t:<type>\t:<f>\t<value>`, as in
// ../shared/histories/jepsen-etcd) into register operations.

#include <string_view>

#include "checker/cas_register_model.h"
#include "checker/input_error.h"

namespace leasesim::checker {

// Times are line numbers: the log's line order is real-time order. An
// `:info` completion, or none at all, leaves the outcome unknown; a failed
// or timed-out read is kept with outcome kFail/kUnknown (the checker drops
// it). Log lines of other loggers are skipped; a malformed jepsen.util line,
// a completion without an invocation, or a completion that does not match
// its invocation is an error naming the line and field.
ReadResult<CasRegisterOp> ImportJepsenLog(std::string_view text);

}  // namespace leasesim::checker
