#pragma once
// Seed ranges as users write them: "7", "1-2000", or "1-10,42,100-120".

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace leasesim::runner {

inline constexpr std::size_t kSeedsMax = 10'000'000;

// The seeds in the order written; an error message naming the broken rule otherwise.
std::variant<std::vector<std::uint64_t>, std::string> ParseSeeds(const std::string& text);

// The seeds as ParseSeeds reads them back, consecutive ones as ranges:
// {1, 2, 3, 7} -> "1-3,7".
std::string FormatSeeds(const std::vector<std::uint64_t>& seeds);

}  // namespace leasesim::runner
