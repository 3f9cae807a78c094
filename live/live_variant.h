#pragma once
// The protocol variants a live node can run — today the etcd ledger's
// mistakes only (no fence compare, no idempotency-key compare). Parsing is
// this one function so the zoo registry can replace it.

#include <string>

namespace leasesim::live {

// What a variant list switches off in the etcd ledger client.
struct LedgerVariant {
  bool check_fence = true;
  bool check_idempotency = true;
};

// Parses a comma-separated list of exact names: "correct", "no-fencing",
// "no-idempotency" (e.g. "no-fencing,no-idempotency"). Returns an error
// naming the first unknown or empty name, or empty on success.
std::string ParseVariantList(const std::string& list, LedgerVariant& variant);

}  // namespace leasesim::live
