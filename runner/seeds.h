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

}  // namespace leasesim::runner
