#include "runner/seeds.h"

#include <charconv>

namespace leasesim::runner {
namespace {

bool ParseNumber(std::string_view text, std::uint64_t& out) {
  if (text.empty()) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::variant<std::vector<std::uint64_t>, base::InputError> ParseSeeds(const std::string& text) {
  std::vector<std::uint64_t> seeds;
  std::string_view rest = text;
  if (rest.empty()) return base::InputError{.rule = "seed list is empty"};
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view part = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const std::size_t dash = part.find('-');
    std::uint64_t first = 0;
    std::uint64_t last = 0;
    if (dash == std::string_view::npos) {
      if (!ParseNumber(part, first)) return base::InputError{.rule = "\"" + std::string(part) + "\" is not a seed (a non-negative integer)"};
      last = first;
    } else {
      if (!ParseNumber(part.substr(0, dash), first) || !ParseNumber(part.substr(dash + 1), last)) {
        return base::InputError{.rule = "\"" + std::string(part) + "\" is not a seed range A-B"};
      }
      if (last < first) {
        return base::InputError{.rule = "\"" + std::string(part) + "\": a range must not run backwards"};
      }
    }
    if (last - first >= kSeedsMax || seeds.size() + (last - first + 1) > kSeedsMax) {
      return base::InputError{.rule = "more than " + std::to_string(kSeedsMax) + " seeds"};
    }
    for (std::uint64_t seed = first;; ++seed) {
      seeds.push_back(seed);
      if (seed == last) break;
    }
  }
  return seeds;
}

std::string FormatSeeds(const std::vector<std::uint64_t>& seeds) {
  std::string text;
  for (std::size_t i = 0; i < seeds.size();) {
    std::size_t last = i;  // the end of a run of consecutive seeds
    while (last + 1 < seeds.size() && seeds[last + 1] == seeds[last] + 1) ++last;
    text += (text.empty() ? "" : ",") + std::to_string(seeds[i]);
    if (last > i) text += "-" + std::to_string(seeds[last]);
    i = last + 1;
  }
  return text;
}

}  // namespace leasesim::runner
