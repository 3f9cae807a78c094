#pragma once
// A key-value store with get, put and append (Porcupine's kv model): each
// key holds a string, "" until first written. Keys are independent, so the
// history is checked one key at a time.

#include <cstdint>
#include <span>
#include <string>

#include "checker/history.h"
#include "checker/lin_result.h"

namespace leasesim::checker {

// One key-value operation as a client recorded it.
struct KvOp {
  enum class Kind { kGet, kPut, kAppend };
  Kind kind = Kind::kGet;
  int process = 0;
  Outcome outcome = Outcome::kUnknown;
  std::string key;
  std::string value;  // kGet with kOk: the value read; kPut/kAppend: the argument
  TimeNs call_ns = 0;
  TimeNs return_ns = kNeverNs;
  std::int64_t invoke_line = 0;
  std::int64_t return_line = 0;
};

std::string DescribeKvOp(const KvOp& op);

// Checks a key-value history, key by key in key order. Gets without a known
// result and failed puts/appends are dropped.
LinResult CheckKv(std::span<const KvOp> ops, const LinOptions& options = {});

}  // namespace leasesim::checker
