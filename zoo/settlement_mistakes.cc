#include "zoo/mistakes.h"

namespace leasesim::zoo {
namespace {

// The lease is proven once, when a batch starts, and the batch runs to its
// write on that proof, however long preparing it takes.
class CheckOnce final : public core::ProtocolRules {
 public:
  bool ChecksLease(core::LeaseCheck check, int item) const override {
    return check == core::LeaseCheck::kBeforeItem && item == 0;
  }
};

// Batches carry no idempotency key: a retried or repeated window applies twice.
class NoKey final : public core::ProtocolRules {
 public:
  std::string IdempotencyKey(std::int64_t window) const override {
    (void)window;
    return {};
  }
};

}  // namespace

const core::ProtocolRules& BatchContinuesAfterFailedRenewal() {
  static const CheckOnce rules;
  return rules;
}

const core::ProtocolRules& NoIdempotencyKey() {
  static const NoKey rules;
  return rules;
}

}  // namespace leasesim::zoo
