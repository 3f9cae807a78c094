#pragma once
// The scenario parser's strict reader of one JSON object: typed, ranged
// field access that remembers which fields were read, so that a field left
// over is reported as unknown rather than silently ignored. Every error is
// a Failure naming the field's path and the rule it broke; the parser turns
// it into a ParseError (exit 2).

#include <cstdint>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/time.h"

namespace leasesim::runner {

// The longest time a scenario may give, in milliseconds (100 days).
inline constexpr std::int64_t kDurationMsMax = 100LL * 24 * 3600 * 1000;

struct Failure {
  std::string path;
  std::string rule;
};

class ObjectReader {
 public:
  using Json = nlohmann::json;

  ObjectReader(const Json& json, std::string path);

  bool Has(const std::string& key) const { return json_.contains(key); }
  std::string PathOf(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  const Json& Field(const std::string& key);
  std::string String(const std::string& key);
  bool Boolean(const std::string& key);
  std::int64_t Integer(const std::string& key, std::int64_t min, std::int64_t max);
  std::int64_t IntegerOr(const std::string& key, std::int64_t min, std::int64_t max, std::int64_t fallback) {
    return Has(key) ? Integer(key, min, max) : fallback;
  }
  // Whole milliseconds in [min_ms, kDurationMsMax], as nanoseconds.
  sim::Nanos Millis(const std::string& key, std::int64_t min_ms) {
    return Integer(key, min_ms, kDurationMsMax) * sim::kNanosPerMilli;
  }
  // A probability written as a decimal in [0, 1], kept as parts per million.
  std::uint32_t Probability(const std::string& key);
  const Json& Array(const std::string& key);

  // Throws for the first field that was never read.
  void Finish() const;

 private:
  const Json& json_;
  std::string path_;
  std::set<std::string> read_;
};

}  // namespace leasesim::runner
