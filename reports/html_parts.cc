#include "reports/html_parts.h"

#include <algorithm>

#include "reports/markup.h"

namespace leasesim::reports::html {

std::string Attr(const std::string& text) { return EscapeXml(text, /*attribute=*/true); }
std::string Text(const std::string& text) { return EscapeXml(text); }

std::string NodeList(const std::vector<int>& nodes) {
  std::string text;
  for (int node : nodes) text += (text.empty() ? "n" : ", n") + std::to_string(node);
  return text;
}

std::string RunId(const std::string& scenario, std::uint64_t seed) {
  return "run-" + IdFragment(scenario) + "-" + std::to_string(seed);
}

std::vector<const TimelineViolation*> TimeOrdered(const std::vector<TimelineViolation>& violations) {
  std::vector<const TimelineViolation*> ordered;
  for (const TimelineViolation& v : violations) ordered.push_back(&v);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const TimelineViolation* a, const TimelineViolation* b) { return a->at_ns < b->at_ns; });
  return ordered;
}

}  // namespace leasesim::reports::html
