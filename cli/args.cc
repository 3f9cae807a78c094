#include "cli/args.h"

namespace leasesim::cli {

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& value_flags,
           const std::set<std::string>& switch_flags) {
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& word = argv[i];
    if (word.rfind("--", 0) != 0) {
      positional_.push_back(word);
      continue;
    }
    std::string flag = word;
    std::optional<std::string> inline_value;
    const std::size_t equals = word.find('=');
    if (equals != std::string::npos) {
      flag = word.substr(0, equals);
      inline_value = word.substr(equals + 1);
    }
    if (value_flags.contains(flag)) {
      if (values_.contains(flag)) {
        error_ = flag + " is given twice";
        return;
      }
      if (inline_value) {
        values_[flag] = *inline_value;
      } else if (i + 1 < argv.size()) {
        values_[flag] = argv[++i];
      } else {
        error_ = flag + " needs a value";
        return;
      }
    } else if (switch_flags.contains(flag) && !inline_value) {
      switches_.insert(flag);
    } else {
      error_ = "unknown option " + word;
      return;
    }
  }
}

std::optional<std::string> Args::value(const std::string& flag) const {
  auto it = values_.find(flag);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

}  // namespace leasesim::cli
