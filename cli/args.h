#pragma once
// A small, strict command-line reader: every flag is known, every flag that
// takes a value has one, and anything else is a usage error (exit 2).

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace leasesim::cli {

class Args {
 public:
  // value_flags take a value ("--seed 5" or "--seed=5"); switch_flags do not.
  Args(const std::vector<std::string>& argv, const std::set<std::string>& value_flags,
       const std::set<std::string>& switch_flags);

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  const std::vector<std::string>& positional() const { return positional_; }
  std::optional<std::string> value(const std::string& flag) const;
  bool has(const std::string& flag) const { return switches_.contains(flag); }

 private:
  std::string error_;
  std::vector<std::string> positional_;
  std::map<std::string, std::string> values_;
  std::set<std::string> switches_;
};

}  // namespace leasesim::cli
