#pragma once
// Reads Jepsen histories written as EDN maps, one per line
// (`{:process 0, :type :invoke, :f :get, :key "k", :value nil}`), as in
// ../shared/histories/kv. `:f` get/put/append gives key-value operations;
// read/write/cas gives register operations.

#include <string_view>

#include "checker/cas_register_model.h"
#include "checker/input_error.h"
#include "checker/kv_model.h"

namespace leasesim::checker {

// Times are line numbers. Lines whose :process is not an integer (the
// nemesis) are skipped; blank lines and `;` comments too.
ReadResult<KvOp> ImportEdnKv(std::string_view text);
ReadResult<CasRegisterOp> ImportEdnRegister(std::string_view text);

// Which model an EDN history's first operation implies: "kv", "cas-register",
// or "" when there is no operation to tell.
std::string SniffEdnModel(std::string_view text);

}  // namespace leasesim::checker
