#pragma once
// Reads Jepsen histories written as EDN (history.edn): operation maps one
// per line (`{:process 0, :type :invoke, :f :get, :key "k", :value nil}`, as
// in ../shared/histories/kv), or printed over several lines, or all inside
// one vector; maps may be records (`#jepsen.history.Op{...}`) and carry
// :time, :index, :error and other keys. `:f` get/put/append gives key-value
// operations; read/write/cas gives register operations (single register or
// independent [key value] tuples, checker/register_values.h).

#include <string>
#include <string_view>

#include "checker/cas_register_model.h"
#include "checker/input_error.h"
#include "checker/kv_model.h"

namespace leasesim::checker {

// Times are positions in the history (the file's order is real-time order);
// explanations name line numbers. Operations of a keyword process (the
// :nemesis), with any value, are skipped, as are `;` comments and an :info
// from a process with nothing pending (Knossos skips it too). A process may
// invoke again after an :info; the crashed operation stays pending. Outcomes
// are kept as written: what a :fail or a nil read means is the check's
// convention (CheckCasRegister with KnossosConvention, as `leasesim check`
// judges EDN). A register read's invocation value is ignored, as Knossos
// ignores it. :index, when
// present, must be a non-negative integer that grows from op to op; :time a
// non-negative integer. Key-value values may be strings, keywords, symbols
// or integers (and get/put any EDN value, compared by its EDN text).
ReadResult<KvOp> ImportEdnKv(std::string_view text);
ReadResult<CasRegisterOp> ImportEdnRegister(std::string_view text);

// Which model an EDN history's first client operation implies: "kv",
// "cas-register", or "" when there is no operation to tell.
std::string SniffEdnModel(std::string_view text);

// Whether the text opens like an EDN history: a map, a tagged record, or a
// vector of them.
bool LooksLikeEdnHistory(std::string_view text);

}  // namespace leasesim::checker
