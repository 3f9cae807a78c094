#pragma once
// A writer of the Prometheus text exposition format (version 0.0.4): metric
// families with HELP and TYPE, samples with escaped label values, numbers
// formatted without fixed-size buffers (shortest round-trip for doubles),
// histograms as cumulative _bucket{le}, _sum and _count.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace leasesim::etcd {

using Labels = std::vector<std::pair<std::string, std::string>>;

// A label value with backslash, double quote and newline escaped.
std::string EscapeLabelValue(std::string_view value);
// A number as the exposition writes it ("+Inf", "NaN", shortest round-trip).
std::string FormatNumber(double value);

// Builds one exposition text, family by family (text() returns it).
class PrometheusText {
 public:
  // Starts a family; `type` is "counter", "gauge" or "histogram".
  void Family(std::string_view name, std::string_view type, std::string_view help);
  void Sample(std::string_view name, const Labels& labels, std::int64_t value);
  void Sample(std::string_view name, const Labels& labels, double value);
  // A whole histogram family's samples: per-bucket counts (not cumulative)
  // for `bounds` plus one for +Inf, and the sum.
  void Histogram(std::string_view name, const Labels& labels, const std::vector<double>& bounds,
                 const std::vector<std::int64_t>& counts, double sum);

  const std::string& text() const { return out_; }

 private:
  void Line(std::string_view name, const Labels& labels, const std::string& value);
  std::string out_;
};

}  // namespace leasesim::etcd
