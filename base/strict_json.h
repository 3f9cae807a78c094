#pragma once
// The strict JSON reader every input file goes through (scenario files,
// histories, ...): text is parsed with duplicate keys refused, and objects
// are read field by field through an ObjectReader that knows which fields
// it read, so a field left over is "is not a known field" instead of being
// silently ignored. Every problem is a base::InputError (base/input_error.h)
// naming the field's path ("scenarios[2].faults[0].duration_ms") and the
// rule it broke, with the values involved ("must be in [1, 8640000000] (got 0)").
//
// Readers throw InputError; the caller catches it at the edge of its input
// (a file, a line) and reports it — bad input never crashes.
//
//   base::ObjectReader lease(scenario.Field("lease"), scenario.PathOf("lease"));
//   timing.lease_duration = lease.Millis("duration_ms", 1);      // required
//   timing.pause_budget = lease.MillisOr("pause_budget_ms", 0, 0); // optional
//   lease.Finish();                                                // leftovers

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/enum_names.h"
#include "base/input_error.h"
#include "base/units.h"

namespace leasesim::base {

using Json = nlohmann::json;

// Parses one JSON document. Refused, as an InputError: text that is not JSON
// (line and column of the problem), and an object that repeats a key (the
// path of the object; the rule names the key), since the parser would keep
// the last value and silently drop what the user wrote first.
std::variant<Json, InputError> ParseStrictJson(std::string_view text);

// "a.b" / "b" (at the top) and "a[3]": how paths are spelled.
std::string JoinPath(std::string_view path, std::string_view key);
std::string IndexPath(std::string_view path, std::size_t index);

// A short rendering of a value for "(got ...)": at most ~40 characters.
std::string Shown(const Json& value);

// Upper bound for fields in milliseconds: 100 days.
inline constexpr std::int64_t kMillisMax = 100LL * 24 * 3600 * 1000;
inline constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

// Values on their own (array items, or a field fetched with Field()); `path`
// names the value in errors. Each throws InputError when the rule is broken.
std::string StringValue(const Json& value, const std::string& path);
bool BoolValue(const Json& value, const std::string& path);
// An integer in [min, max] (a decimal like 3.0 is not an integer).
std::int64_t IntegerValue(const Json& value, const std::string& path, std::int64_t min = kInt64Min,
                          std::int64_t max = kInt64Max);
// A probability written as a decimal in [0, 1], kept in parts per million.
std::uint32_t ProbabilityValue(const Json& value, const std::string& path);
const Json& ArrayValue(const Json& value, const std::string& path, std::size_t max_items = 1'000'000);
// One of a table's names.
template <class E, std::size_t N>
E EnumValue(const Json& value, const std::string& path, const EnumNames<E, N>& names) {
  if (value.is_string()) {
    if (const std::optional<E> parsed = names.Parse(value.get_ref<const std::string&>())) return *parsed;
  }
  throw InputError{path, "must be one of " + names.List() + " (got " + Shown(value) + ")"};
}

// Reads one JSON object strictly: typed getters for required fields
// (absent: "is required") and for optional ones (absent: the fallback),
// each marking its field read; Finish() then refuses every field not read.
class ObjectReader {
 public:
  // `path` names the object in errors ("" for the document itself); throws
  // when `json` is not an object.
  ObjectReader(const Json& json, std::string path);

  const std::string& path() const { return path_; }
  const Json& json() const { return json_; }
  bool Has(std::string_view key) const { return json_.contains(std::string(key)); }
  std::string PathOf(std::string_view key) const { return JoinPath(path_, key); }

  // Required fields.
  const Json& Field(std::string_view key);
  std::string String(std::string_view key);
  bool Bool(std::string_view key);
  std::int64_t Integer(std::string_view key, std::int64_t min = kInt64Min, std::int64_t max = kInt64Max);
  // A field in milliseconds, in [min_ms, max_ms], returned in nanoseconds.
  Nanos Millis(std::string_view key, std::int64_t min_ms, std::int64_t max_ms = kMillisMax);
  std::uint32_t Probability(std::string_view key);
  const Json& Array(std::string_view key, std::size_t max_items = 1'000'000);
  // A list of integers, each in [min, max]; an item's error names it ("nodes[2]").
  std::vector<std::int64_t> IntegerArray(std::string_view key, std::int64_t min = kInt64Min,
                                         std::int64_t max = kInt64Max, std::size_t max_items = 1'000'000);
  // A nested object, read by a reader of its own (its path: PathOf(key)).
  ObjectReader Object(std::string_view key);
  template <class E, std::size_t N>
  E Enum(std::string_view key, const EnumNames<E, N>& names) {
    return EnumValue(Field(key), PathOf(key), names);
  }

  // Optional fields: the fallback when absent (a present field must still
  // obey the rule).
  const Json* Find(std::string_view key);  // nullptr when absent; marks it read
  std::string StringOr(std::string_view key, std::string fallback);
  bool BoolOr(std::string_view key, bool fallback);
  std::int64_t IntegerOr(std::string_view key, std::int64_t min, std::int64_t max, std::int64_t fallback);
  Nanos MillisOr(std::string_view key, std::int64_t min_ms, Nanos fallback_ns, std::int64_t max_ms = kMillisMax);
  std::uint32_t ProbabilityOr(std::string_view key, std::uint32_t fallback_ppm);
  template <class E, std::size_t N>
  E EnumOr(std::string_view key, const EnumNames<E, N>& names, E fallback) {
    return Has(key) ? Enum(key, names) : fallback;
  }

  // Marks a field read that another reader of the same object consumed.
  void MarkRead(std::string_view key);
  // The fields read so far, in the order first read.
  const std::vector<std::string>& read() const { return read_; }

  // Refuses the first field not read: "<path>: is not a known field", or
  // "... is not a known field of <what>" when `what` is given.
  void Finish(std::string_view what = {}) const;

 private:
  const Json& json_;
  std::string path_;
  std::vector<std::string> read_;
};

}  // namespace leasesim::base
