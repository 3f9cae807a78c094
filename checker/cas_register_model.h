#pragma once
// A compare-and-set register (Jepsen's etcd test): read, write and cas on one
// register that starts absent (nil). Values are integers. Operations may name
// a key (Jepsen's independent keys): each key is a register of its own,
// checked apart.

#include <cstdint>
#include <span>
#include <string>

#include "checker/history.h"
#include "checker/lin_result.h"

namespace leasesim::checker {

// One register operation as a client recorded it.
struct CasRegisterOp {
  enum class Kind { kRead, kWrite, kCas };
  Kind kind = Kind::kRead;
  int process = 0;
  std::string key;  // "" = the single register
  Outcome outcome = Outcome::kUnknown;
  // kRead with kOk: the value read; absent when the register held nil.
  bool read_found = false;
  std::int64_t read_value = 0;
  std::int64_t value = 0;     // kWrite: the value written; kCas: the new value
  std::int64_t expected = 0;  // kCas: the value compared against
  TimeNs call_ns = 0;
  TimeNs return_ns = kNeverNs;  // kNeverNs when the outcome is unknown
  // Source positions for explanations (line numbers of the invoke and the
  // completion in an imported file; 0 when unknown).
  std::int64_t invoke_line = 0;
  std::int64_t return_line = 0;
};

std::string DescribeCasRegisterOp(const CasRegisterOp& op);

// Checks a register history, key by key in key order. Reads with an unknown outcome and operations
// that definitely failed without a comparison (failed reads and writes) are
// dropped: they constrain nothing.
LinResult CheckCasRegister(std::span<const CasRegisterOp> ops, const LinOptions& options = {});

}  // namespace leasesim::checker
