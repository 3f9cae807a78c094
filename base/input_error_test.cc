// The one bad-input error: how each kind of place it names is written, alone
// and after the input's name.

#include <gtest/gtest.h>

#include "base/input_error.h"

namespace leasesim::base {
namespace {

TEST(InputError, NamesThePlaceThenTheRule) {
  EXPECT_EQ((InputError{.path = "scenarios[0].nodes", .rule = "must be an integer (got \"3\")"}).ToString(),
            "scenarios[0].nodes: must be an integer (got \"3\")");
  EXPECT_EQ((InputError{.path = "--store-p99", .rule = "must be at least 1 ms (got 0)"}).ToString(),
            "--store-p99: must be at least 1 ms (got 0)");
  EXPECT_EQ((InputError{.path = "value", .rule = "expected an integer", .line = 12}).ToString(),
            "line 12, field \"value\": expected an integer");
  EXPECT_EQ((InputError{.rule = "empty history: no header line"}).ToString(), "empty history: no header line");
  EXPECT_EQ((InputError{.rule = "expected 4 fields", .line = 3}).ToString(), "line 3: expected 4 fields");
  // A place in the text, as compilers print it.
  EXPECT_EQ((InputError{.rule = "not valid JSON: syntax error", .line = 3, .column = 14}).ToString(),
            "3:14: not valid JSON: syntax error");
}

TEST(InputError, AfterTheInputsName) {
  EXPECT_EQ((InputError{.path = "scenarios[0].nodes", .rule = "is required"}).In("s.json"),
            "s.json: scenarios[0].nodes: is required");
  EXPECT_EQ((InputError{.rule = "not valid JSON: syntax error", .line = 3, .column = 14}).In("s.json"),
            "s.json:3:14: not valid JSON: syntax error");
  EXPECT_EQ((InputError{.path = "term", .rule = "must be an integer", .line = 2}).In("h.jsonl"),
            "h.jsonl: line 2, field \"term\": must be an integer");
  EXPECT_EQ((InputError{.rule = "cannot be read"}).In("x.json"), "x.json: cannot be read");
}

}  // namespace
}  // namespace leasesim::base
