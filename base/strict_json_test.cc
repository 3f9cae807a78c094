// The strict JSON reader: duplicate keys, unknown fields, wrong types,
// ranges, units and the paths errors name.

#include "base/strict_json.h"

#include <gtest/gtest.h>

namespace leasesim::base {
namespace {

Json Parsed(std::string_view text) {
  auto parsed = ParseStrictJson(text);
  if (std::holds_alternative<InputError>(parsed)) {
    ADD_FAILURE() << std::get<InputError>(parsed).ToString();
    return Json();
  }
  return std::get<Json>(parsed);
}

InputError ParseError(std::string_view text) {
  auto parsed = ParseStrictJson(text);
  EXPECT_TRUE(std::holds_alternative<InputError>(parsed)) << text;
  return std::holds_alternative<InputError>(parsed) ? std::get<InputError>(parsed) : InputError{};
}

// The error a reading function throws, as "path: rule".
template <class Fn>
std::string ErrorOf(Fn&& fn) {
  try {
    fn();
  } catch (const InputError& error) {
    return error.ToString();
  }
  return "(no error)";
}

TEST(StrictJson, RefusesDuplicateKeysNamingTheObject) {
  EXPECT_EQ(ParseError(R"({"a": 1, "a": 2})").ToString(), "field \"a\" appears twice in one object");
  const InputError nested = ParseError(R"({"scenarios": [{"name": "x"}, {"faults": [{}, {"kind": "a", "kind": "b"}]}]})");
  EXPECT_EQ(nested.path, "scenarios[1].faults[1]");
  EXPECT_EQ(nested.rule, "field \"kind\" appears twice in one object");
  // Arrays of values, then objects: indices still count every element.
  EXPECT_EQ(ParseError(R"({"l": [1, [2, 3], "s", {"k": 1, "k": 1}]})").path, "l[3]");
  EXPECT_EQ(ParseError(R"([{"x": {"y": 1, "y": 1}}])").path, "[0].x");
  // The same key in different objects is fine.
  const Json json = Parsed(R"({"a": {"k": 1}, "b": {"k": 2}, "c": [{"k": 3}, {"k": 4}]})");
  EXPECT_EQ(json["c"][1]["k"], 4);
}

TEST(StrictJson, SyntaxErrorsGiveLineAndColumn) {
  const InputError error = ParseError("{\n  \"a\": 1,\n  \"b\": }\n");
  EXPECT_EQ(error.line, 3);
  EXPECT_EQ(error.column, 8);
  EXPECT_NE(error.rule.find("not valid JSON"), std::string::npos) << error.rule;
  EXPECT_EQ(error.ToString().rfind("3:8: not valid JSON: syntax error", 0), 0u) << error.ToString();
  EXPECT_EQ(error.rule.find("json.exception"), std::string::npos) << error.rule;  // the position is apart
  EXPECT_EQ(ParseError("").line, 1);
  EXPECT_NE(ParseError("{} x").rule.find("not valid JSON"), std::string::npos);
}

TEST(StrictJson, RefusesAbsurdNesting) {
  const std::string deep = std::string(300, '[') + std::string(300, ']');
  EXPECT_NE(ParseError(deep).rule.find("nests deeper than 256"), std::string::npos);
  const std::string fine = std::string(200, '[') + std::string(200, ']');
  EXPECT_TRUE(Parsed(fine).is_array());
}

TEST(ObjectReader, UnknownAndMissingFieldsAreNamed) {
  const Json json = Parsed(R"({"nodes": 3, "nodez": 4, "lease": {"duration_ms": 10}})");
  ObjectReader reader(json, "scenarios[2]");
  EXPECT_EQ(reader.Integer("nodes", 1, 64), 3);
  ObjectReader lease = reader.Object("lease");
  EXPECT_EQ(lease.Millis("duration_ms", 1), Millis(10));
  EXPECT_EQ(ErrorOf([&] { lease.Millis("retry_ms", 1); }), "scenarios[2].lease.retry_ms: is required");
  lease.Finish();
  EXPECT_EQ(ErrorOf([&] { reader.Finish(); }), "scenarios[2].nodez: is not a known field");
  EXPECT_EQ(ErrorOf([&] { reader.Finish("a scenario"); }), "scenarios[2].nodez: is not a known field of a scenario");
  reader.MarkRead("nodez");
  reader.Finish();
  EXPECT_EQ(reader.read(), (std::vector<std::string>{"nodes", "lease", "nodez"}));
}

TEST(ObjectReader, WrongTypesSayWhatWasExpectedAndWhatCame) {
  const Json json = Parsed(R"({"n": "3", "f": 1.5, "s": 7, "b": 1, "a": {}, "o": [1], "big": 18446744073709551615})");
  ObjectReader r(json, "");
  EXPECT_EQ(ErrorOf([&] { r.Integer("n"); }), "n: must be an integer (got \"3\")");
  EXPECT_EQ(ErrorOf([&] { r.Integer("f"); }), "f: must be an integer (got 1.5)");
  EXPECT_EQ(ErrorOf([&] { r.String("s"); }), "s: must be a string (got 7)");
  EXPECT_EQ(ErrorOf([&] { r.Bool("b"); }), "b: must be true or false (got 1)");
  EXPECT_EQ(ErrorOf([&] { r.Array("a"); }), "a: must be an array (got {})");
  EXPECT_EQ(ErrorOf([&] { r.Object("o"); }), "o: must be an object (got [1])");
  EXPECT_EQ(ErrorOf([&] { r.Integer("big"); }), "big: must be a 64-bit integer (got 18446744073709551615)");
  EXPECT_EQ(ErrorOf([&] { ObjectReader(Parsed("[]"), "x"); }), "x: must be an object (got [])");
  const Json long_value = Parsed(R"({"s": [1111111111, 2222222222, 3333333333, 4444444444, 5555555555]})");
  ObjectReader shown(long_value, "");
  EXPECT_EQ(ErrorOf([&] { shown.String("s"); }), "s: must be a string (got [1111111111,2222222222,3333333333,444...)");
}

TEST(ObjectReader, RangesAndUnits) {
  const Json json = Parsed(R"({"zero": 0, "neg": -4, "ms": 250, "p": 0.25, "p2": 1.5, "pi": 1, "big": 18446744073709551615})");
  ObjectReader r(json, "s");
  EXPECT_EQ(ErrorOf([&] { r.Integer("zero", 1, 64); }), "s.zero: must be in [1, 64] (got 0)");
  EXPECT_EQ(ErrorOf([&] { r.Integer("neg", 0); }), "s.neg: must be at least 0 (got -4)");
  EXPECT_EQ(ErrorOf([&] { r.Integer("zero", kInt64Min, -1); }), "s.zero: must be at most -1 (got 0)");
  EXPECT_EQ(ErrorOf([&] { r.Integer("big", 0); }), "s.big: must be at least 0 (got 18446744073709551615)");
  EXPECT_EQ(r.Integer("neg", -4, -4), -4);
  EXPECT_EQ(r.Millis("ms", 1), 250 * kNanosPerMilli);
  EXPECT_EQ(ErrorOf([&] { r.Millis("ms", 1, 100); }), "s.ms: must be in [1, 100] (got 250)");
  EXPECT_EQ(ErrorOf([&] { r.Millis("neg", 0); }), "s.neg: must be in [0, 8640000000] (got -4)");
  EXPECT_EQ(r.Probability("p"), 250'000u);
  EXPECT_EQ(r.Probability("pi"), 1'000'000u);
  EXPECT_EQ(r.Probability("zero"), 0u);
  EXPECT_EQ(ErrorOf([&] { r.Probability("p2"); }), "s.p2: must be a probability in [0, 1] (got 1.5)");
  EXPECT_EQ(ErrorOf([&] { r.Probability("neg"); }), "s.neg: must be a probability in [0, 1] (got -4)");
}

TEST(ObjectReader, OptionalFieldsFallBackButObeyTheirRules) {
  const Json json = Parsed(R"({"given": 5, "flag": true, "name": "x", "bad": "y"})");
  ObjectReader r(json, "");
  EXPECT_EQ(r.IntegerOr("given", 0, 9, 1), 5);
  EXPECT_EQ(r.IntegerOr("absent", 0, 9, 1), 1);
  EXPECT_EQ(r.MillisOr("absent_ms", 0, 77), 77);
  EXPECT_EQ(r.ProbabilityOr("absent_p", 12), 12u);
  EXPECT_TRUE(r.BoolOr("flag", false));
  EXPECT_FALSE(r.BoolOr("absent_flag", false));
  EXPECT_EQ(r.StringOr("name", "d"), "x");
  EXPECT_EQ(r.StringOr("absent_name", "d"), "d");
  EXPECT_EQ(r.Find("absent"), nullptr);
  EXPECT_EQ(ErrorOf([&] { r.IntegerOr("bad", 0, 9, 1); }), "bad: must be an integer (got \"y\")");
  EXPECT_EQ(ErrorOf([&] { r.Finish(); }), "(no error)");  // every present field was read
}

enum class Mode { kFast, kSafe };
inline constexpr EnumNames<Mode, 2> kModeNames{{{Mode::kFast, "fast"}, {Mode::kSafe, "safe"}}};

TEST(ObjectReader, EnumsAndArraysNameTheItem) {
  const Json json = Parsed(R"({"mode": "safe", "other": "slow", "n": 3, "nodes": [1, 2, 9], "list": [1, 2]})");
  ObjectReader r(json, "x");
  EXPECT_EQ(r.Enum("mode", kModeNames), Mode::kSafe);
  EXPECT_EQ(r.EnumOr("absent", kModeNames, Mode::kFast), Mode::kFast);
  EXPECT_EQ(ErrorOf([&] { r.Enum("other", kModeNames); }), "x.other: must be one of fast, safe (got \"slow\")");
  EXPECT_EQ(ErrorOf([&] { r.Enum("n", kModeNames); }), "x.n: must be one of fast, safe (got 3)");
  EXPECT_EQ(ErrorOf([&] { r.IntegerArray("nodes", 1, 3); }), "x.nodes[2]: must be in [1, 3] (got 9)");
  EXPECT_EQ(r.IntegerArray("list", 1, 3), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(ErrorOf([&] { r.Array("list", 1); }), "x.list: holds 2 items, more than 1");
  const Json& items = r.Array("nodes");
  EXPECT_EQ(ErrorOf([&] { StringValue(items[0], IndexPath(JoinPath("x", "nodes"), 0)); }),
            "x.nodes[0]: must be a string (got 1)");
}

}  // namespace
}  // namespace leasesim::base
