#pragma once
// Seed ranges as users write them: "7", "1-2000", or "1-10,42,100-120".

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "base/input_error.h"

namespace leasesim::runner {

inline constexpr std::size_t kSeedsMax = 10'000'000;

// The seeds in the order written; otherwise the bad-input error whose rule
// names the part that breaks it (its path empty: the caller knows where the
// text was written, --seeds, --seed or a summary's "seeds").
std::variant<std::vector<std::uint64_t>, base::InputError> ParseSeeds(const std::string& text);

// The seeds as ParseSeeds reads them back, consecutive ones as ranges:
// {1, 2, 3, 7} -> "1-3,7".
std::string FormatSeeds(const std::vector<std::uint64_t>& seeds);

}  // namespace leasesim::runner
