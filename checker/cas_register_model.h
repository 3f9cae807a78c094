#pragma once
// A compare-and-set register (Jepsen's etcd test, Knossos's cas-register
// model): read, write and cas on one register. Values are integers. Operations
// may name a key (Jepsen's independent keys): each key is a register of its
// own, checked apart. Which outcomes constrain what, and the register's
// initial value, follow the convention of the tool a history came from
// (CasRegisterConvention; docs/CHECKER.md, "Whose convention").

#include <cstdint>
#include <optional>
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

// How the tool that wrote a register history means its outcomes. The two
// conventions differ on a failed cas and on a read of nil; both read an
// unknown outcome (:info, or no completion) as "took effect at some moment
// after its invocation, or never".
struct CasRegisterConvention {
  // The register's value before any operation; nullopt = absent (nil).
  std::optional<std::int64_t> initial;
  // Porcupine (its etcd model, which the Jepsen-log format follows): a failed
  // cas means the register did not hold the expected value, so it is checked
  // against the register. Knossos: a :fail is an operation that certainly did
  // not take place, whatever the reason, and is dropped before the search
  // (knossos/history.clj, `complete` marks it :fails? and `without-failures`
  // removes it).
  bool failed_cas_compared = true;
  // Knossos: an ok read of nil says nothing of the register (knossos/model.clj,
  // CASRegister's :read accepts a nil value in any state: "we don't know what
  // the read was"). Porcupine: nil is the absent register.
  bool nil_read_constrains = true;
};

// Porcupine's convention (Jepsen logs; ../shared/histories/jepsen-etcd).
CasRegisterConvention PorcupineConvention();
// Knossos's (EDN histories). Its cas-register model starts at nil unless
// given a value (knossos.model/cas-register); Knossos's own tests run its
// published histories from 0 (test/knossos/core_test.clj, test-examples).
CasRegisterConvention KnossosConvention(std::optional<std::int64_t> initial = std::nullopt);

// Checks a register history, key by key in key order. Operations that
// constrain nothing under the convention are dropped before the search:
// reads with an unknown or failed outcome, failed writes, and per the
// convention failed cas operations and reads of nil.
LinResult CheckCasRegister(std::span<const CasRegisterOp> ops, const LinOptions& options = {},
                           const CasRegisterConvention& convention = PorcupineConvention());

}  // namespace leasesim::checker
