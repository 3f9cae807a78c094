#include "base/strict_json.h"

#include <cmath>
#include <set>
#include <utility>

#include "base/units.h"

namespace leasesim::base {
namespace {

constexpr std::size_t kShownMax = 40;
constexpr std::size_t kDepthMax = 256;  // nesting refused beyond this (bounds the path stack)

// Where the parser is, while it parses: one frame per open object or array,
// so that a repeated key can be reported with its object's path.
class DuplicateKeyFinder {
 public:
  bool OnEvent(Json::parse_event_t event, const Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        if (frames_.size() >= kDepthMax) {
          if (!found_) found_ = InputError{ChildPath(), "nests deeper than " + std::to_string(kDepthMax) + " levels"};
          return false;
        }
        frames_.push_back(Frame{event == Json::parse_event_t::array_start, ChildPath(), 0, {}, {}});
        break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        if (!frames_.empty()) frames_.pop_back();
        break;
      case Json::parse_event_t::key: {
        if (frames_.empty()) break;
        Frame& frame = frames_.back();
        frame.key = parsed.get<std::string>();
        if (!frame.keys.insert(frame.key).second && !found_) {
          found_ = InputError{frame.path, "field \"" + frame.key + "\" appears twice in one object"};
        }
        break;
      }
      case Json::parse_event_t::value:
        if (!frames_.empty() && frames_.back().array) frames_.back().next += 1;
        break;
    }
    return true;
  }

  const std::optional<InputError>& found() const { return found_; }

 private:
  struct Frame {
    bool array;
    std::string path;
    std::size_t next;  // arrays: the index of the next element
    std::set<std::string> keys;
    std::string key;  // objects: the key of the value being read
  };

  // The path of the value that starts now.
  std::string ChildPath() {
    if (frames_.empty()) return "";
    Frame& frame = frames_.back();
    if (frame.array) return IndexPath(frame.path, frame.next++);
    return JoinPath(frame.path, frame.key);
  }

  std::vector<Frame> frames_;
  std::optional<InputError> found_;
};

std::pair<int, int> LineAndColumn(std::string_view text, std::size_t byte) {
  int line = 1;
  int column = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

// nlohmann's message without its "[json.exception.parse_error.101] parse
// error at line L, column C: " preamble (the position is reported apart).
std::string SyntaxReason(const std::string& what) {
  const std::size_t column = what.find("column ");
  const std::size_t colon = column == std::string::npos ? std::string::npos : what.find(": ", column);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

std::string RangeRule(std::int64_t min, std::int64_t max) {
  if (max == kInt64Max) return "must be at least " + std::to_string(min);
  if (min == kInt64Min) return "must be at most " + std::to_string(max);
  return "must be in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
}

}  // namespace

std::variant<Json, InputError> ParseStrictJson(std::string_view text) {
  DuplicateKeyFinder finder;
  Json::parser_callback_t callback = [&finder](int, Json::parse_event_t event, Json& parsed) {
    return finder.OnEvent(event, parsed);
  };
  Json json;
  try {
    json = Json::parse(text.begin(), text.end(), callback);
  } catch (const Json::parse_error& error) {
    if (finder.found()) return *finder.found();
    const auto [line, column] = LineAndColumn(text, error.byte == 0 ? 0 : error.byte - 1);
    return InputError{"", "not valid JSON: " + SyntaxReason(error.what()), line, column};
  } catch (const Json::exception& error) {  // not expected from parse; never let bad input escape as a throw
    if (finder.found()) return *finder.found();
    return InputError{"", std::string("not valid JSON: ") + error.what()};
  }
  if (finder.found()) return *finder.found();
  return json;
}

std::string JoinPath(std::string_view path, std::string_view key) {
  if (path.empty()) return std::string(key);
  std::string joined(path);
  joined += '.';
  joined += key;
  return joined;
}

std::string IndexPath(std::string_view path, std::size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

std::string Shown(const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > kShownMax) text = text.substr(0, kShownMax - 3) + "...";
  return text;
}

std::string StringValue(const Json& value, const std::string& path) {
  if (!value.is_string()) throw InputError{path, "must be a string (got " + Shown(value) + ")"};
  return value.get<std::string>();
}

bool BoolValue(const Json& value, const std::string& path) {
  if (!value.is_boolean()) throw InputError{path, "must be true or false (got " + Shown(value) + ")"};
  return value.get<bool>();
}

std::int64_t IntegerValue(const Json& value, const std::string& path, std::int64_t min, std::int64_t max) {
  if (!value.is_number_integer()) throw InputError{path, "must be an integer (got " + Shown(value) + ")"};
  const bool too_big = value.is_number_unsigned() &&
                       value.get<std::uint64_t>() > static_cast<std::uint64_t>(kInt64Max);
  if (too_big && min == kInt64Min && max == kInt64Max) {
    throw InputError{path, "must be a 64-bit integer (got " + Shown(value) + ")"};
  }
  if (too_big || value.get<std::int64_t>() < min || value.get<std::int64_t>() > max) {
    throw InputError{path, RangeRule(min, max) + " (got " + Shown(value) + ")"};
  }
  return value.get<std::int64_t>();
}

std::uint32_t ProbabilityValue(const Json& value, const std::string& path) {
  if (!value.is_number()) throw InputError{path, "must be a number in [0, 1] (got " + Shown(value) + ")"};
  const double p = value.get<double>();
  if (!(p >= 0.0 && p <= 1.0)) throw InputError{path, "must be a probability in [0, 1] (got " + Shown(value) + ")"};
  return static_cast<std::uint32_t>(std::llround(p * kPpmOne));
}

const Json& ArrayValue(const Json& value, const std::string& path, std::size_t max_items) {
  if (!value.is_array()) throw InputError{path, "must be an array (got " + Shown(value) + ")"};
  if (value.size() > max_items) {
    throw InputError{path, "holds " + std::to_string(value.size()) + " items, more than " + std::to_string(max_items)};
  }
  return value;
}

ObjectReader::ObjectReader(const Json& json, std::string path) : json_(json), path_(std::move(path)) {
  if (!json_.is_object()) throw InputError{path_, "must be an object (got " + Shown(json_) + ")"};
}

const Json& ObjectReader::Field(std::string_view key) {
  const Json* value = Find(key);
  if (value == nullptr) throw InputError{PathOf(key), "is required"};
  return *value;
}

const Json* ObjectReader::Find(std::string_view key) {
  const auto it = json_.find(std::string(key));
  if (it == json_.end()) return nullptr;
  MarkRead(key);
  return &*it;
}

void ObjectReader::MarkRead(std::string_view key) {
  for (const std::string& done : read_) {
    if (done == key) return;
  }
  read_.emplace_back(key);
}

std::string ObjectReader::String(std::string_view key) { return StringValue(Field(key), PathOf(key)); }

bool ObjectReader::Bool(std::string_view key) { return BoolValue(Field(key), PathOf(key)); }

std::int64_t ObjectReader::Integer(std::string_view key, std::int64_t min, std::int64_t max) {
  return IntegerValue(Field(key), PathOf(key), min, max);
}

Nanos ObjectReader::Millis(std::string_view key, std::int64_t min_ms, std::int64_t max_ms) {
  return Integer(key, min_ms, max_ms) * kNanosPerMilli;
}

std::uint32_t ObjectReader::Probability(std::string_view key) { return ProbabilityValue(Field(key), PathOf(key)); }

const Json& ObjectReader::Array(std::string_view key, std::size_t max_items) {
  return ArrayValue(Field(key), PathOf(key), max_items);
}

std::vector<std::int64_t> ObjectReader::IntegerArray(std::string_view key, std::int64_t min, std::int64_t max,
                                                     std::size_t max_items) {
  const std::string path = PathOf(key);
  const Json& list = ArrayValue(Field(key), path, max_items);
  std::vector<std::int64_t> out;
  out.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) out.push_back(IntegerValue(list[i], IndexPath(path, i), min, max));
  return out;
}

ObjectReader ObjectReader::Object(std::string_view key) { return ObjectReader(Field(key), PathOf(key)); }

std::string ObjectReader::StringOr(std::string_view key, std::string fallback) {
  return Has(key) ? String(key) : std::move(fallback);
}

bool ObjectReader::BoolOr(std::string_view key, bool fallback) { return Has(key) ? Bool(key) : fallback; }

std::int64_t ObjectReader::IntegerOr(std::string_view key, std::int64_t min, std::int64_t max,
                                     std::int64_t fallback) {
  return Has(key) ? Integer(key, min, max) : fallback;
}

Nanos ObjectReader::MillisOr(std::string_view key, std::int64_t min_ms, Nanos fallback_ns, std::int64_t max_ms) {
  return Has(key) ? Millis(key, min_ms, max_ms) : fallback_ns;
}

std::uint32_t ObjectReader::ProbabilityOr(std::string_view key, std::uint32_t fallback_ppm) {
  return Has(key) ? Probability(key) : fallback_ppm;
}

void ObjectReader::Finish(std::string_view what) const {
  for (auto it = json_.begin(); it != json_.end(); ++it) {
    bool known = false;
    for (const std::string& done : read_) known = known || done == it.key();
    if (!known) {
      throw InputError{PathOf(it.key()),
                      what.empty() ? "is not a known field" : "is not a known field of " + std::string(what)};
    }
  }
}

}  // namespace leasesim::base
