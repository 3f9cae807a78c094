#include "checker/edn.h"

#include "checker/text_util.h"

namespace leasesim::checker {
namespace {

// Recursive-descent reader over one line; depth is bounded so hostile input
// cannot exhaust the stack.
class EdnReader {
 public:
  explicit EdnReader(std::string_view text) : text_(text) {}

  bool ReadAll(EdnValue& out, std::string& error) {
    if (!Read(out, 0)) {
      error = error_;
      return false;
    }
    SkipSpace();
    if (pos_ != text_.size()) {
      error = Fail("unexpected text after the value");
      return false;
    }
    return true;
  }

 private:
  static constexpr int kMaxDepth = 64;

  std::string Fail(const std::string& message) {
    error_ = "column " + std::to_string(pos_ + 1) + ": " + message;
    return error_;
  }

  void SkipSpace() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == ',' || c == '\r' || c == '\n') {
        ++pos_;
      } else if (c == ';') {
        pos_ = text_.size();
      } else {
        break;
      }
    }
  }

  static bool IsDelimiter(char c) {
    return c == ' ' || c == '\t' || c == ',' || c == '\r' || c == '\n' || c == '{' || c == '}' ||
           c == '[' || c == ']' || c == '(' || c == ')' || c == '"' || c == ';';
  }

  std::string_view Token() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && !IsDelimiter(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  bool Read(EdnValue& out, int depth) {
    if (depth > kMaxDepth) {
      Fail("nesting too deep");
      return false;
    }
    SkipSpace();
    if (pos_ >= text_.size()) {
      Fail("unexpected end of line");
      return false;
    }
    const char c = text_[pos_];
    if (c == '{') return ReadMap(out, depth);
    if (c == '[' || c == '(') return ReadSeq(out, depth, c == '[' ? ']' : ')');
    if (c == '"') return ReadString(out);
    if (c == '}' || c == ']' || c == ')') {
      Fail(std::string("unexpected '") + c + "'");
      return false;
    }
    if (c == '#') {
      Fail("tagged or dispatch values are not supported");
      return false;
    }
    const std::size_t start = pos_;
    std::string_view token = Token();
    if (token.empty()) {
      Fail("expected a value");
      return false;
    }
    if (token[0] == ':') {
      if (token.size() == 1) {
        pos_ = start;
        Fail("empty keyword");
        return false;
      }
      out.type = EdnValue::Type::kKeyword;
      out.text = std::string(token.substr(1));
      return true;
    }
    if (token == "nil") {
      out.type = EdnValue::Type::kNil;
      return true;
    }
    if (token == "true" || token == "false") {
      out.type = EdnValue::Type::kBool;
      out.boolean = token == "true";
      return true;
    }
    const bool numeric = (token[0] >= '0' && token[0] <= '9') ||
                         ((token[0] == '-' || token[0] == '+') && token.size() > 1 &&
                          token[1] >= '0' && token[1] <= '9');
    if (numeric) {
      std::string_view digits = token[0] == '+' ? token.substr(1) : token;
      if (!digits.empty() && digits.back() == 'N') digits.remove_suffix(1);
      if (ParseInt64(digits, out.integer)) {
        out.type = EdnValue::Type::kInt;
        return true;
      }
      if (token.find_first_of(".eE") != std::string_view::npos) {
        out.type = EdnValue::Type::kFloat;
        out.text = std::string(token);
        return true;
      }
      pos_ = start;
      Fail("malformed number \"" + std::string(token) + "\"");
      return false;
    }
    out.type = EdnValue::Type::kSymbol;
    out.text = std::string(token);
    return true;
  }

  bool ReadString(EdnValue& out) {
    ++pos_;  // opening quote
    out.type = EdnValue::Type::kString;
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (c == '"') return true;
      if (c != '\\') {
        out.text += c;
        continue;
      }
      if (pos_ >= text_.size()) break;
      const char escaped = text_[pos_++];
      switch (escaped) {
        case 'n': out.text += '\n'; break;
        case 't': out.text += '\t'; break;
        case 'r': out.text += '\r'; break;
        case '"': out.text += '"'; break;
        case '\\': out.text += '\\'; break;
        default:
          Fail(std::string("unsupported escape \\") + escaped);
          return false;
      }
    }
    Fail("unterminated string");
    return false;
  }

  bool ReadSeq(EdnValue& out, int depth, char close) {
    ++pos_;
    out.type = EdnValue::Type::kVector;
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size()) {
        Fail(std::string("missing '") + close + "'");
        return false;
      }
      if (text_[pos_] == close) {
        ++pos_;
        return true;
      }
      EdnValue item;
      if (!Read(item, depth + 1)) return false;
      out.items.push_back(std::move(item));
    }
  }

  bool ReadMap(EdnValue& out, int depth) {
    ++pos_;
    out.type = EdnValue::Type::kMap;
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size()) {
        Fail("missing '}'");
        return false;
      }
      if (text_[pos_] == '}') {
        ++pos_;
        return true;
      }
      EdnValue key, value;
      if (!Read(key, depth + 1)) return false;
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == '}') {
        Fail("map key without a value");
        return false;
      }
      if (!Read(value, depth + 1)) return false;
      out.entries.emplace_back(std::move(key), std::move(value));
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::string error_;
};

}  // namespace

const EdnValue* EdnValue::Get(std::string_view name) const {
  for (const auto& [key, value] : entries) {
    if (key.type == Type::kKeyword && key.text == name) return &value;
  }
  return nullptr;
}

std::string EdnValue::ToString() const {
  switch (type) {
    case Type::kNil: return "nil";
    case Type::kBool: return boolean ? "true" : "false";
    case Type::kInt: return std::to_string(integer);
    case Type::kFloat: return text;
    case Type::kString: return "\"" + text + "\"";
    case Type::kKeyword: return ":" + text;
    case Type::kSymbol: return text;
    case Type::kVector: {
      std::string s = "[";
      for (std::size_t i = 0; i < items.size(); ++i) s += (i ? " " : "") + items[i].ToString();
      return s + "]";
    }
    case Type::kMap: {
      std::string s = "{";
      for (std::size_t i = 0; i < entries.size(); ++i) {
        s += (i ? ", " : "") + entries[i].first.ToString() + " " + entries[i].second.ToString();
      }
      return s + "}";
    }
  }
  return "";
}

bool ParseEdn(std::string_view text, EdnValue& out, std::string& error) {
  EdnReader reader(text);
  return reader.ReadAll(out, error);
}

}  // namespace leasesim::checker
