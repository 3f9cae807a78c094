#pragma once
// The one command-line parser of every leasesim command, on CLI11: a
// command declares its positionals, options (long name, optional short
// name, value name, help) and switches, and parses its words; `--help` and
// `-h` print the command's help (exit 0); an unknown option, a missing or
// repeated value is a usage error naming it (exit 2). An option is bound
// where it is declared, and only there: to a typed variable (integers with
// their range checked there, so a bad value is a usage error naming the
// flag and the rule), a switch's bool, or the text the user wrote where a
// command checks it itself (seeds, shards, durations). Nothing is read
// back by name, so a flag's name is written once.

#include <concepts>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <cassert>

namespace CLI {
class App;
class Option;
}

namespace leasesim::cli {

// One command's declared flags and, once parsed, the words it was given.
class CommandLine {
 public:
  // `command` as typed after "leasesim" ("run"); `description` leads the help.
  CommandLine(const std::string& command, const std::string& description);
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // Positional words: `name` as shown in the help; `many` takes every
  // remaining word (DIR...); `required` makes at least one mandatory.
  CommandLine& Positional(const std::string& name, const std::string& help, bool required = true, bool many = false);
  // An option that may be given several times (each time one value), bound
  // to `values`: every value, in the order given.
  CommandLine& Repeatable(const std::string& flags, const std::string& value_name, const std::string& help,
                          std::vector<std::string>& values);
  // "--seeds" or "-s,--seeds": an option taking one value, bound to
  // `value`: set when given, left as it is otherwise.
  CommandLine& Option(const std::string& flags, const std::string& value_name, const std::string& help,
                      std::optional<std::string>& value);
  CommandLine& Option(const std::string& flags, const std::string& value_name, const std::string& help,
                      std::string& value);
  // An integer option bound to `value`: set when given, left as it is (the
  // default) otherwise; anything but a whole number in [min, max] is a
  // usage error "FLAG: must be a whole number from MIN to MAX (got ...)".
  template <std::integral T>
  CommandLine& Integer(const std::string& flags, const std::string& value_name, const std::string& help, T& value,
                       std::int64_t min, std::int64_t max) {
    assert(min >= static_cast<std::int64_t>(std::numeric_limits<T>::min()));
    assert(static_cast<std::uint64_t>(max) <= static_cast<std::uint64_t>(std::numeric_limits<T>::max()));
    return BoundInteger(flags, value_name, help, min, max, [&value](std::int64_t v) { value = static_cast<T>(v); });
  }
  // ... nullopt when not given.
  template <std::integral T>
  CommandLine& Integer(const std::string& flags, const std::string& value_name, const std::string& help,
                       std::optional<T>& value, std::int64_t min, std::int64_t max) {
    assert(min >= static_cast<std::int64_t>(std::numeric_limits<T>::min()));
    assert(static_cast<std::uint64_t>(max) <= static_cast<std::uint64_t>(std::numeric_limits<T>::max()));
    return BoundInteger(flags, value_name, help, min, max, [&value](std::int64_t v) { value = static_cast<T>(v); });
  }
  // Every command's -j,--jobs, bound to `jobs`: 1..kJobsMax, by default the
  // CPUs this process may use (its affinity and its container's quota,
  // cli/cpu_quota.h), which it sets `jobs` to now.
  static constexpr int kJobsMax = 256;
  CommandLine& Jobs(int& jobs);
  // A switch without a value, bound to `on`.
  CommandLine& Switch(const std::string& flags, const std::string& help, bool& on);
  // Makes the option declared just before it (Option or Integer) required:
  // a command line without it is the usage error "FLAG: is required (VALUE)"
  // (exit 2), said where the option is declared, not by the command again.
  CommandLine& Required();
  // Text after the options in the help (exit codes, examples).
  CommandLine& Footer(const std::string& text);

  // Parses the words after the command. nullopt: go on; otherwise the exit
  // code, after printing the help to `out` (0) or the error to `err` (2).
  std::optional<int> Parse(const std::vector<std::string>& words, std::ostream& out, std::ostream& err);

  const std::vector<std::string>& positional() const { return positional_; }
  std::string Help() const;

 private:
  static std::string LongName(const std::string& flags);
  CommandLine& BoundInteger(const std::string& flags, const std::string& value_name, const std::string& help,
                            std::int64_t min, std::int64_t max, std::function<void(std::int64_t)> set);

  // Remembers the option just added (its long name and value name) for Required.
  CommandLine& Added(CLI::Option* option, const std::string& flags, const std::string& value_name);

  // A required option: its long name and the name of its value ("NAME").
  struct RequiredOption {
    std::string flag;
    std::string value_name;
  };

  std::unique_ptr<CLI::App> app_;
  std::string command_;
  std::vector<std::string> positional_;
  std::vector<std::string> single_valued_;  // long names of the options that take one value
  CLI::Option* last_ = nullptr;             // the option Required applies to
  RequiredOption last_names_;
  std::vector<RequiredOption> required_;
};

}  // namespace leasesim::cli
