#pragma once
// The KV store's operations in the history file (a "kv_op" record per
// operation; docs/HISTORY_FORMAT.md): written and read here, called by
// checker/history_io.cc for that record type.

#include "base/strict_json.h"
#include "checker/history.h"

namespace leasesim::checker {

base::Json KvOpJson(const KvStoreOp& op);
// Throws base::InputError naming the field, as history_io's readers do.
KvStoreOp ReadKvOp(base::ObjectReader& r);

}  // namespace leasesim::checker
