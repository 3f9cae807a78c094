#include "base/input_error.h"

namespace leasesim::base {

std::string InputError::ToString() const {
  std::string text;
  if (line > 0 && column > 0) {
    text = std::to_string(line) + ":" + std::to_string(column) + ": ";
    if (!path.empty()) text += path + ": ";
  } else if (line > 0) {
    text = "line " + std::to_string(line);
    if (!path.empty()) text += ", field \"" + path + "\"";
    text += ": ";
  } else if (!path.empty()) {
    text = path + ": ";
  }
  return text + rule;
}

std::string InputError::In(std::string_view source) const {
  // "FILE:3:14:" stays one token, as compilers print it, for editors to follow.
  return std::string(source) + (line > 0 && column > 0 ? ":" : ": ") + ToString();
}

}  // namespace leasesim::base
