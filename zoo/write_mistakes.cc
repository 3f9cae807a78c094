#include "zoo/mistakes.h"

namespace leasesim::zoo {
namespace {

// An unconditional write, emulated over the store's compare-and-set: on a
// conflict, write again over whatever version is there now.
core::StoreResult Overwrite(core::StoreClient& store, std::string_view key, const core::VersionedRecord& observed,
                            const core::LeaseRecord& record, core::Nanos timeout) {
  constexpr int kAttemptsMax = 3;
  core::StoreResult result;
  core::VersionedRecord target = observed;
  for (int attempt = 0; attempt < kAttemptsMax; ++attempt) {
    result = target.found ? store.CompareAndSet(key, target.version, record, timeout)
                          : store.Create(key, record, timeout);
    if (result.status != core::StoreStatus::kConflict || !result.current.found) return result;
    target = result.current;  // someone else's record: write over it anyway
  }
  return result;
}

// Acquire and renew overwrite the record instead of compare-and-set.
class Blind final : public core::ProtocolRules {
 public:
  core::StoreResult WriteRecord(core::StoreClient& store, std::string_view key, core::RecordWrite purpose,
                                const core::VersionedRecord& observed, const core::LeaseRecord& record,
                                core::Nanos timeout) const override {
    if (purpose == core::RecordWrite::kRelease) {
      return ProtocolRules::WriteRecord(store, key, purpose, observed, record, timeout);
    }
    return Overwrite(store, key, observed, record, timeout);
  }
};

// A graceful release overwrites whatever record is there, even a successor's.
class UncheckedRelease final : public core::ProtocolRules {
 public:
  core::StoreResult WriteRecord(core::StoreClient& store, std::string_view key, core::RecordWrite purpose,
                                const core::VersionedRecord& observed, const core::LeaseRecord& record,
                                core::Nanos timeout) const override {
    if (purpose != core::RecordWrite::kRelease) {
      return ProtocolRules::WriteRecord(store, key, purpose, observed, record, timeout);
    }
    return Overwrite(store, key, observed, record, timeout);
  }
};

}  // namespace

const core::ProtocolRules& BlindWrite() {
  static const Blind rules;
  return rules;
}

const core::ProtocolRules& ReleaseWithoutVersionCheck() {
  static const UncheckedRelease rules;
  return rules;
}

}  // namespace leasesim::zoo
