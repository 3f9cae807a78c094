#include "compare/figures.h"

#include <algorithm>
#include <charconv>
#include <string_view>

namespace leasesim::compare {
FigureInfo DescribeFigure(const std::string& name) {
  const base::FigureDefinition* definition = base::FindFigure(name);
  if (definition == nullptr) return {};
  return {definition->direction, definition->minus_one_is_never, true};
}

const char* DirectionName(Direction direction) { return base::kFigureDirectionNames.CName(direction); }

bool Tolerance::Matches(const std::string& figure) const { return base::FigureNameMatches(pattern, figure); }

std::string Tolerance::ToString() const {
  if (!relative) return "+" + std::to_string(absolute);
  std::string text = "+" + std::to_string(milli_percent / 1000);
  if (const std::int64_t fraction = milli_percent % 1000; fraction != 0) {
    std::string digits = std::to_string(1000 + fraction).substr(1);
    while (digits.back() == '0') digits.pop_back();
    text += "." + digits;
  }
  return text + "%";
}

std::optional<Tolerance> ParseTolerance(const std::string& text, base::InputError& error) {
  const base::InputError rule{"--tolerate", "\"" + text +
                                                "\" must be FIGURE=+N% (up to 3 decimals, at most 1000%) or FIGURE=+N "
                                                "(the figure's unit), FIGURE a name or a family with one * (demotions_*)"};
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    error = rule;
    return std::nullopt;
  }
  Tolerance tolerance;
  tolerance.pattern = text.substr(0, equals);
  if (std::count(tolerance.pattern.begin(), tolerance.pattern.end(), '*') > 1) {
    error = rule;
    return std::nullopt;
  }
  std::string_view amount = std::string_view(text).substr(equals + 1);
  if (amount.starts_with('+')) amount.remove_prefix(1);
  tolerance.relative = amount.ends_with('%');
  if (tolerance.relative) amount.remove_suffix(1);
  const std::size_t dot = amount.find('.');
  const std::string_view whole = amount.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? std::string_view() : amount.substr(dot + 1);
  std::int64_t units = 0;
  const auto [end, problem] = std::from_chars(whole.data(), whole.data() + whole.size(), units);
  bool ok = !whole.empty() && problem == std::errc() && end == whole.data() + whole.size() && units >= 0;
  ok = ok && (tolerance.relative ? fraction.size() <= 3 && units <= 1000 : dot == std::string_view::npos);
  std::int64_t thousandths = 0;
  for (std::size_t i = 0; ok && i < 3; ++i) {
    const char digit = i < fraction.size() ? fraction[i] : '0';
    ok = digit >= '0' && digit <= '9';
    thousandths = thousandths * 10 + (digit - '0');
  }
  if (!ok || (dot != std::string_view::npos && fraction.empty())) {
    error = rule;
    return std::nullopt;
  }
  if (tolerance.relative) {
    tolerance.milli_percent = units * 1000 + thousandths;
  } else {
    tolerance.absolute = units;
  }
  return tolerance;
}

Tolerance ToleranceFor(const std::string& figure, const std::vector<Tolerance>& given) {
  const Tolerance* exact = nullptr;
  const Tolerance* prefix = nullptr;
  for (const Tolerance& tolerance : given) {
    if (!tolerance.Matches(figure)) continue;
    (tolerance.pattern.find('*') != std::string::npos ? prefix : exact) = &tolerance;
  }
  if (exact != nullptr) return *exact;
  if (prefix != nullptr) return *prefix;
  return Tolerance{.pattern = figure, .relative = true, .milli_percent = kDefaultToleranceMilliPercent};
}

}  // namespace leasesim::compare
