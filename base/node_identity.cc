#include "base/node_identity.h"

#include <charconv>
#include <limits>

namespace leasesim::base {
namespace {

// A positive decimal without sign or leading zero, all of `text`.
std::optional<std::uint64_t> PositiveDecimal(std::string_view text) {
  if (text.empty() || text.front() == '0') return std::nullopt;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::string FormatNodeIdentity(int node, std::uint64_t incarnation) {
  return "n" + std::to_string(node) + "#" + std::to_string(incarnation);
}

std::optional<NodeIdentity> ParseNodeIdentity(std::string_view text) {
  if (text.size() < 4 || text.front() != 'n') return std::nullopt;
  const std::size_t hash = text.find('#');
  if (hash == std::string_view::npos) return std::nullopt;
  const std::optional<std::uint64_t> node = PositiveDecimal(text.substr(1, hash - 1));
  const std::optional<std::uint64_t> incarnation = PositiveDecimal(text.substr(hash + 1));
  if (!node || !incarnation || *node > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
    return std::nullopt;
  }
  return NodeIdentity{static_cast<int>(*node), *incarnation};
}

}  // namespace leasesim::base
