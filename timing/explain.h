#pragma once
// The derivation in words: every derived value with the input that set it
// and the rule that bounds it, every core::ValidateTiming rule with this
// timing's numbers and the slack left, and the scenario `lease` block.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/timing.h"
#include "timing/derive.h"
#include "timing/targets.h"

namespace leasesim::timing {

// One derived value and why it is what it is.
struct ValueReason {
  std::string field;     // the scenario file's name: "renew_deadline_ms"
  std::int64_t value = 0;
  std::string set_by;    // which input set it, with the arithmetic
  std::string bound_by;  // which rule bounds it
};

std::vector<ValueReason> Reasons(const Targets& targets, const Derivation& derivation);

// One line per core::ValidateTiming rule: the rule, its values, the slack.
std::vector<std::string> RuleLines(const core::TimingConfig& timing);

// What `leasesim timing` prints for a derivation, and for a target it refuses.
std::string DerivationText(const Targets& targets, const Derivation& derivation);
std::string UnreachableText(const Targets& targets, const Unreachable& unreachable);

// The scenario file's "lease" block for a timing (docs/SCENARIOS.md).
nlohmann::ordered_json LeaseJson(const core::TimingConfig& timing);

// "12393.7 ms": exact to the microsecond, trailing zeros dropped.
std::string FormatMs(std::int64_t ns);
// "14.97 s" from milliseconds, two decimals, integer arithmetic.
std::string FormatSeconds(std::int64_t ms);

}  // namespace leasesim::timing
