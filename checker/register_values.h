#pragma once
// The value forms of Jepsen's register operations, shared by the log and the
// EDN importers: a single register (`:write 3`, `:cas [3 4]`, `:read nil`)
// or independent keys (jepsen.independent tuples: `:write [k 3]`,
// `:cas [k [3 4]]`, `:read [k nil]`), each key a register of its own.

#include <string>

#include "checker/cas_register_model.h"
#include "checker/edn.h"

namespace leasesim::checker {

// What a read's invocation may carry. Jepsen invokes a read with nil (or
// [key nil]), and Porcupine's log parser takes only that; Knossos replaces an
// invocation's value with its :ok completion's (knossos/history.clj,
// `complete`), and never needs that of a read that did not complete ok, so it
// ignores whatever a read was invoked with.
enum class ReadInvocation {
  kNilOnly,  // nil or [key nil]
  kIgnored,  // any value; [key anything] names the key
};

// Fills op's key, value and expected from an invocation's value, given
// op.kind. False with `error` (the rule broken) when the value has no such
// form.
bool DecodeRegisterInvoke(const EdnValue& value, CasRegisterOp& op, std::string& error,
                          ReadInvocation read = ReadInvocation::kNilOnly);

// Checks a completion's value against its invocation `op` and, for an ok
// read, fills what was read. Indefinite completions (:info) and failures
// may carry an error keyword or string in place of the value (older Jepsen
// wrote `:fail :read :timed-out`); a definite one must echo the invocation.
bool DecodeRegisterCompletion(const EdnValue& value, CasRegisterOp& op, std::string& error);

// The text naming an independent key (an integer or string as written,
// anything else as EDN).
std::string RegisterKeyText(const EdnValue& key);

}  // namespace leasesim::checker
