#pragma once
// The one command-line parser of every leasesim command, on CLI11: a
// command declares its positionals, options (long name, optional short
// name, value name, help) and switches, and parses its words; `--help` and
// `-h` print the command's help (exit 0); an unknown option, a missing or
// repeated value is a usage error naming it (exit 2). Values come back as
// the text the user wrote, so each command keeps its own precise checks.

#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
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
  // "--seeds" or "-s,--seeds": an option taking one value.
  CommandLine& Option(const std::string& flags, const std::string& value_name, const std::string& help);
  // An option that may be given several times (each time one value).
  CommandLine& Repeatable(const std::string& flags, const std::string& value_name, const std::string& help);
  // A switch without a value.
  CommandLine& Switch(const std::string& flags, const std::string& help);
  // Text after the options in the help (exit codes, examples).
  CommandLine& Footer(const std::string& text);

  // Parses the words after the command. nullopt: go on; otherwise the exit
  // code, after printing the help to `out` (0) or the error to `err` (2).
  std::optional<int> Parse(const std::vector<std::string>& words, std::ostream& out, std::ostream& err);

  const std::vector<std::string>& positional() const { return positional_; }
  // The value of a long flag ("--seed") when given.
  std::optional<std::string> value(const std::string& flag) const;
  // Every value of a repeatable flag, in the order given.
  std::vector<std::string> values(const std::string& flag) const;
  bool has(const std::string& flag) const;
  std::string Help() const;

 private:
  static std::string LongName(const std::string& flags);

  std::unique_ptr<CLI::App> app_;
  std::string command_;
  std::vector<std::string> positional_;
  // Bound to the parser; node-based maps keep the bound addresses stable.
  std::map<std::string, std::string> single_;
  std::map<std::string, std::vector<std::string>> repeated_;
  std::map<std::string, bool> switches_;
};

}  // namespace leasesim::cli
