#pragma once
// The value forms of Jepsen's register operations, shared by the log and the
// EDN importers: a single register (`:write 3`, `:cas [3 4]`, `:read nil`)
// or independent keys (jepsen.independent tuples: `:write [k 3]`,
// `:cas [k [3 4]]`, `:read [k nil]`), each key a register of its own.

#include <string>

#include "checker/cas_register_model.h"
#include "checker/edn.h"

namespace leasesim::checker {

// Fills op's key, value and expected from an invocation's value, given
// op.kind. False with `error` (the rule broken) when the value has no such
// form.
bool DecodeRegisterInvoke(const EdnValue& value, CasRegisterOp& op, std::string& error);

// Checks a completion's value against its invocation `op` and, for an ok
// read, fills what was read. Indefinite completions (:info) and failures
// may carry an error keyword or string in place of the value (older Jepsen
// wrote `:fail :read :timed-out`); a definite one must echo the invocation.
bool DecodeRegisterCompletion(const EdnValue& value, CasRegisterOp& op, std::string& error);

// The text naming an independent key (an integer or string as written,
// anything else as EDN).
std::string RegisterKeyText(const EdnValue& key);

}  // namespace leasesim::checker
