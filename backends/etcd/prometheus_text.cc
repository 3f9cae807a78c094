#include "backends/etcd/prometheus_text.h"

#include <cassert>
#include <charconv>
#include <cmath>

namespace leasesim::etcd {
namespace {

std::string EscapeHelp(std::string_view help) {
  std::string out;
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out += c; break;
    }
  }
  return out;
}

std::string FormatNumber(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // The shortest text that reads back as the same double; the string grows
  // until it fits (a double needs a few dozen characters at most).
  std::string out(32, '\0');
  std::to_chars_result result = std::to_chars(out.data(), out.data() + out.size(), value);
  while (result.ec != std::errc() && out.size() < 1024) {
    out.resize(out.size() * 2);
    result = std::to_chars(out.data(), out.data() + out.size(), value);
  }
  assert(result.ec == std::errc());
  out.resize(static_cast<std::size_t>(result.ptr - out.data()));
  return out;
}

void PrometheusText::Family(std::string_view name, std::string_view type, std::string_view help) {
  out_ += "# HELP ";
  out_ += name;
  out_ += ' ';
  out_ += EscapeHelp(help);
  out_ += "\n# TYPE ";
  out_ += name;
  out_ += ' ';
  out_ += type;
  out_ += '\n';
}

void PrometheusText::Line(std::string_view name, const Labels& labels, const std::string& value) {
  out_ += name;
  if (!labels.empty()) {
    out_ += '{';
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (i > 0) out_ += ',';
      out_ += labels[i].first;
      out_ += "=\"";
      out_ += EscapeLabelValue(labels[i].second);
      out_ += '"';
    }
    out_ += '}';
  }
  out_ += ' ';
  out_ += value;
  out_ += '\n';
}

void PrometheusText::Sample(std::string_view name, const Labels& labels, std::int64_t value) {
  Line(name, labels, std::to_string(value));
}

void PrometheusText::Sample(std::string_view name, const Labels& labels, double value) {
  Line(name, labels, FormatNumber(value));
}

void PrometheusText::Histogram(std::string_view name, const Labels& labels, const std::vector<double>& bounds,
                               const std::vector<std::int64_t>& counts, double sum) {
  assert(counts.size() == bounds.size() + 1);
  const std::string base(name);
  std::int64_t cumulative = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    cumulative += counts[i];
    Labels with_le = labels;
    with_le.emplace_back("le", i < bounds.size() ? FormatNumber(bounds[i]) : "+Inf");
    Line(base + "_bucket", with_le, std::to_string(cumulative));
  }
  Line(base + "_sum", labels, FormatNumber(sum));
  Line(base + "_count", labels, std::to_string(cumulative));
}

}  // namespace leasesim::etcd
