// Enum name tables: names, parsing, the list for messages, and the
// compile-time checks that keep a table complete.

#include "base/enum_names.h"

#include <gtest/gtest.h>

namespace leasesim::base {
namespace {

enum class Colour { kRed, kGreen, kBlue };
inline constexpr EnumNames<Colour, 3> kColourNames{
    {{Colour::kRed, "red"}, {Colour::kGreen, "green"}, {Colour::kBlue, "blue"}}};

TEST(EnumNames, NamesParsesAndLists) {
  static_assert(kColourNames.Name(Colour::kGreen) == "green");
  static_assert(kColourNames.Parse("blue") == Colour::kBlue);
  static_assert(!kColourNames.Parse("Blue").has_value());
  EXPECT_STREQ(kColourNames.CName(Colour::kRed), "red");
  EXPECT_EQ(kColourNames.Parse(""), std::nullopt);
  EXPECT_EQ(kColourNames.Parse("reddish"), std::nullopt);
  EXPECT_EQ(kColourNames.List(), "red, green, blue");
  EXPECT_EQ(kColourNames.List(" | "), "red | green | blue");
  for (const auto& entry : kColourNames) EXPECT_EQ(kColourNames.Parse(entry.name), entry.value);
  EXPECT_EQ(kColourNames.size(), 3u);
}

TEST(EnumNames, TablesThatDoNotMatchTheEnumAreRefused) {
  using Table = EnumNames<Colour, 3>;
  constexpr EnumName<Colour> swapped[] = {{Colour::kGreen, "green"}, {Colour::kRed, "red"}, {Colour::kBlue, "blue"}};
  constexpr EnumName<Colour> twice[] = {{Colour::kRed, "red"}, {Colour::kRed, "red2"}, {Colour::kBlue, "blue"}};
  constexpr EnumName<Colour> same_name[] = {{Colour::kRed, "red"}, {Colour::kGreen, "red"}, {Colour::kBlue, "blue"}};
  constexpr EnumName<Colour> empty_name[] = {{Colour::kRed, "red"}, {Colour::kGreen, ""}, {Colour::kBlue, "blue"}};
  constexpr EnumName<Colour> good[] = {{Colour::kRed, "red"}, {Colour::kGreen, "green"}, {Colour::kBlue, "blue"}};
  static_assert(Table::Problem(swapped) != nullptr);
  static_assert(Table::Problem(twice) != nullptr);
  static_assert(Table::Problem(same_name) != nullptr);
  static_assert(Table::Problem(empty_name) != nullptr);
  static_assert(Table::Problem(good) == nullptr);
  // What the class's static_asserts see: the enum ends after kBlue, so a
  // table of 2 (kBlue missing) or of 4 does not compile.
  static_assert(enum_names_detail::IsNamedEnumerator<Colour::kBlue>());
  static_assert(!enum_names_detail::IsNamedEnumerator<static_cast<Colour>(3)>());
  static_assert(!enum_names_detail::IsNamedEnumerator<static_cast<Colour>(-1)>());
  SUCCEED();
}

struct Holder {
  enum class Nested { kOnly };
};

TEST(EnumNames, WorksForEnumsNestedInClasses) {
  constexpr EnumNames<Holder::Nested, 1> names{{{Holder::Nested::kOnly, "only"}}};
  static_assert(!enum_names_detail::IsNamedEnumerator<static_cast<Holder::Nested>(1)>());
  EXPECT_EQ(names.Name(Holder::Nested::kOnly), "only");
  EXPECT_EQ(names.List(), "only");
}

}  // namespace
}  // namespace leasesim::base
