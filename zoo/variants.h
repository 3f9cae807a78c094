#pragma once
// The bug zoo: every known-broken variant of the protocol by name, with the
// rules its nodes run and the flaws of the ledger it writes to. "correct" is
// the first entry. Each variant is registered as a protocol of its own
// (core/protocol.h), so every command runs it by name like any protocol.

#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "base/input_error.h"
#include "core/protocol.h"
#include "core/protocol_rules.h"

namespace leasesim::zoo {

// What the business resource forgets to enforce.
struct LedgerFlaws {
  bool checks_fence = true;  // false: applies writes whatever their token
  friend bool operator==(const LedgerFlaws&, const LedgerFlaws&) = default;
};

struct Variant {
  std::string_view name;
  std::string_view mistake;  // the mistake in one sentence
  const core::ProtocolRules* rules = nullptr;
  LedgerFlaws ledger;
};

// Every variant, "correct" first, the rest in a fixed order.
std::span<const Variant> Variants();

// nullptr when no variant has that name.
const Variant* FindVariant(std::string_view name);

// "correct, no-fencing, ..." for error messages.
std::string VariantNames();

// Variants joined with ',' (e.g. "no-fencing,no-idempotency-key"): the
// ledger flaws of all, and the rules of the one that changes the protocol.
struct Combination {
  const core::ProtocolRules* rules = nullptr;
  LedgerFlaws ledger;
};

// The combination, or the bad-input error whose rule names the unknown or
// conflicting part. Its path is empty: the name is one value, and only the
// caller knows where it was written (--protocol, a scenario's "protocol"),
// so the registry's callers put the rule under that path.
std::variant<Combination, base::InputError> Combine(std::string_view names);

// The protocol a combination runs: leasesim's node with its rules, named `name`.
core::Protocol ProtocolOf(std::string name, const Combination& combination, std::string mistake);

// Registers every variant but "correct" as a protocol of its own name, with
// its mistake; "correct" as an alias of leasesim's protocol (which must be
// registered first); and a combiner for comma-joined names.
void RegisterZooProtocols(core::ProtocolRegistry& registry);

}  // namespace leasesim::zoo
