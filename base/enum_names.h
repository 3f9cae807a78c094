#pragma once
// A name table for a scoped enum whose enumerators are 0..N-1, written once
// next to the enum: Name(e), Parse(text) and the list "a, b, c" for error
// messages. The table is checked when it is compiled: entry i must be
// enumerator i (every one present, in order, none twice), names must be
// distinct and non-empty, and the enum must have no enumerator N — one added
// to the enum but not to its table fails the build (a static_assert).
//
//   enum class Outcome { kOk, kFail, kUnknown };
//   inline constexpr base::EnumNames<Outcome, 3> kOutcomeNames{{
//       {Outcome::kOk, "ok"}, {Outcome::kFail, "fail"}, {Outcome::kUnknown, "unknown"}}};
//
//   kOutcomeNames.Name(Outcome::kFail)   -> "fail"
//   kOutcomeNames.Parse("ok")            -> Outcome::kOk (std::nullopt if unknown)
//   kOutcomeNames.List()                 -> "ok, fail, unknown"

#include <cassert>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace leasesim::base {

template <class E>
struct EnumName {
  E value;
  const char* name;  // a string literal
};

namespace enum_names_detail {

// Whether V is a named enumerator of its enum. Compilers spell a named one
// "E::kName" in a function's signature and any other value "(E)3" (GCC and
// Clang alike): the one portable-enough way to see an enum's extent.
template <auto V>
constexpr bool IsNamedEnumerator() {
  const std::string_view signature = __PRETTY_FUNCTION__;
  const std::size_t at = signature.find("V = ");
  return at != std::string_view::npos && at + 4 < signature.size() && signature[at + 4] != '(';
}

// Called only when a table is wrong: a call to a non-constexpr function in
// the consteval constructor stops the build, and the name says why.
inline void EnumNameTableIsInvalid_SeeProblemOf() {}

}  // namespace enum_names_detail

// The name table of one enum, with its compile-time checks.
template <class E, std::size_t N>
class EnumNames {
  static_assert(std::is_enum_v<E> && !std::is_convertible_v<E, int>, "EnumNames is for scoped enums (enum class)");
  static_assert(N > 0, "an empty name table");
  static_assert(enum_names_detail::IsNamedEnumerator<static_cast<E>(N - 1)>(),
                "the name table has more entries than the enum has enumerators");
  static_assert(!enum_names_detail::IsNamedEnumerator<static_cast<E>(N)>(),
                "the enum has more enumerators than its name table: add the new ones to the table");

 public:
  using Entry = EnumName<E>;

  consteval EnumNames(const Entry (&entries)[N]) {  // NOLINT: implicit on purpose, for brace tables
    if (Problem(entries) != nullptr) enum_names_detail::EnumNameTableIsInvalid_SeeProblemOf();
    for (std::size_t i = 0; i < N; ++i) entries_[i] = entries[i];
  }

  // What is wrong with a table, or nullptr: entry i must be enumerator i,
  // names non-empty and distinct. (The constructor refuses such a table;
  // this is for tests.)
  static constexpr const char* Problem(const Entry (&entries)[N]) {
    for (std::size_t i = 0; i < N; ++i) {
      if (static_cast<std::size_t>(entries[i].value) != i) return "entry i is not enumerator i (missing, out of order or twice)";
      if (entries[i].name == nullptr || entries[i].name[0] == '\0') return "an empty name";
      for (std::size_t j = 0; j < i; ++j) {
        if (std::string_view(entries[j].name) == std::string_view(entries[i].name)) return "a name used twice";
      }
    }
    return nullptr;
  }

  static constexpr std::size_t size() { return N; }

  constexpr std::string_view Name(E value) const { return CName(value); }

  // The name as a NUL-terminated string (for `"text" + std::string(...)` and C APIs).
  constexpr const char* CName(E value) const {
    const auto index = static_cast<std::size_t>(value);
    assert(index < N);
    return entries_[index].name;
  }

  constexpr std::optional<E> Parse(std::string_view text) const {
    for (const Entry& entry : entries_) {
      if (text == entry.name) return entry.value;
    }
    return std::nullopt;
  }

  // "a, b, c": every name in enumerator order, for error messages.
  std::string List(std::string_view separator = ", ") const {
    std::string list;
    for (std::size_t i = 0; i < N; ++i) {
      if (i > 0) list += separator;
      list += entries_[i].name;
    }
    return list;
  }

  constexpr const Entry* begin() const { return entries_; }
  constexpr const Entry* end() const { return entries_ + N; }

 private:
  Entry entries_[N]{};
};

}  // namespace leasesim::base
