#include "checker/edn.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cstdint>

#include "checker/text_util.h"

namespace leasesim::checker {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == ',' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

bool IsDelimiter(char c) {
  return IsSpace(c) || c == '{' || c == '}' || c == '[' || c == ']' || c == '(' || c == ')' || c == '"' ||
         c == ';';
}

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Appends code point `cp` as UTF-8 (lone surrogates are written as they
// come: the text is for comparison and messages, not for display).
void AppendUtf8(std::uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Recursive-descent reader from a position in a text.
class EdnReader {
 public:
  EdnReader(std::string_view text, std::size_t pos) : text_(text), pos_(pos) {}

  bool Read(EdnValue& out, int depth);
  bool SkipSpace() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (IsSpace(c)) {
        ++pos_;
      } else if (c == ';') {
        const std::size_t end = text_.find('\n', pos_);
        pos_ = end == std::string_view::npos ? text_.size() : end;
      } else {
        break;
      }
    }
    return pos_ >= text_.size();
  }
  std::size_t pos() const { return pos_; }
  // Where reading failed (a byte offset into the text) and why.
  std::size_t error_offset() const { return error_offset_; }
  const std::string& error_message() const { return error_message_; }

 private:
  static constexpr int kMaxDepth = 64;

  bool Fail(std::size_t at, std::string message) {
    error_offset_ = at;
    error_message_ = std::move(message);
    return false;
  }
  std::string_view Token() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && !IsDelimiter(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  bool ReadDispatch(EdnValue& out, int depth);
  bool ReadAtom(EdnValue& out);
  bool ReadNumber(std::string_view token, std::size_t start, EdnValue& out);
  bool ReadChar(EdnValue& out);
  bool ReadString(EdnValue& out);
  bool ReadEscape(std::string& out);
  bool ReadSeq(EdnValue& out, int depth, char close);
  bool ReadMap(EdnValue& out, int depth);

  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t error_offset_ = 0;
  std::string error_message_;
};

// The error at byte `offset` of `text`, its line and column counted (only
// ever on the failing path, so the scan costs a good read nothing).
InputError EdnErrorAt(std::string_view text, std::size_t offset, std::string rule) {
  assert(offset <= text.size());
  const std::string_view before = text.substr(0, offset);
  const std::size_t last_newline = before.rfind('\n');
  const std::size_t line_start = last_newline == std::string_view::npos ? 0 : last_newline + 1;
  const auto newlines = std::count(before.begin(), before.end(), '\n');
  return InputError{.path = "",
                    .rule = std::move(rule),
                    .line = static_cast<std::int64_t>(newlines) + 1,
                    .column = static_cast<std::int64_t>(offset - line_start) + 1};
}

bool EdnReader::Read(EdnValue& out, int depth) {
  if (depth > kMaxDepth) return Fail(pos_, "nesting too deep");
  if (SkipSpace()) return Fail(pos_, "unexpected end of input");
  out.offset = pos_;
  const char c = text_[pos_];
  if (c == '{') return ReadMap(out, depth);
  if (c == '[' || c == '(') {
    out.type = EdnValue::Type::kVector;
    return ReadSeq(out, depth, c == '[' ? ']' : ')');
  }
  if (c == '"') return ReadString(out);
  if (c == '\\') return ReadChar(out);
  if (c == '#') return ReadDispatch(out, depth);
  if (c == '}' || c == ']' || c == ')') return Fail(pos_, std::string("unexpected '") + c + "'");
  return ReadAtom(out);
}

// #{set}, #_ discard, ##Inf, #tag value.
bool EdnReader::ReadDispatch(EdnValue& out, int depth) {
  const std::size_t start = pos_;
  const char next = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
  if (next == '{') {
    ++pos_;
    out.type = EdnValue::Type::kSet;
    return ReadSeq(out, depth, '}');
  }
  if (next == '_') {
    pos_ += 2;
    EdnValue discarded;
    if (!Read(discarded, depth + 1)) return false;
    return Read(out, depth + 1);
  }
  if (next == '#') {
    pos_ += 2;
    const std::string_view name = Token();
    if (name != "Inf" && name != "-Inf" && name != "NaN") return Fail(start, "unknown symbolic value ##" + std::string(name));
    out.type = EdnValue::Type::kFloat;
    out.text = "##" + std::string(name);
    return true;
  }
  if (next == '<') {
    // An unreadable object as old Clojure printed it (#<Exception ...>):
    // kept as a symbol spanning to its closing '>'.
    int open = 0;
    for (std::size_t i = pos_ + 1; i < text_.size(); ++i) {
      open += text_[i] == '<' ? 1 : text_[i] == '>' ? -1 : 0;
      if (open == 0) {
        out.type = EdnValue::Type::kSymbol;
        out.text = std::string(text_.substr(start, i + 1 - start));
        pos_ = i + 1;
        return true;
      }
    }
    return Fail(start, "missing '>' closing #<");
  }
  if (!IsAlpha(next)) return Fail(start, std::string("unsupported dispatch '#") + (next ? std::string(1, next) : "") + "'");
  ++pos_;
  const std::string tag(Token());
  if (!Read(out, depth + 1)) return false;
  out.tag = tag;
  out.offset = start;
  return true;
}

bool EdnReader::ReadAtom(EdnValue& out) {
  const std::size_t start = pos_;
  const std::string_view token = Token();
  if (token.empty()) return Fail(start, "expected a value");
  if (token[0] == ':') {
    if (token.size() == 1) return Fail(start, "empty keyword");
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
                       ((token[0] == '-' || token[0] == '+') && token.size() > 1 && token[1] >= '0' &&
                        token[1] <= '9');
  if (numeric) return ReadNumber(token, start, out);
  out.type = EdnValue::Type::kSymbol;
  out.text = std::string(token);
  return true;
}

// An integer (kInt when it fits 64 bits), else a float, ratio or big
// number kept as its text.
bool EdnReader::ReadNumber(std::string_view token, std::size_t start, EdnValue& out) {
  std::string_view digits = token[0] == '+' ? token.substr(1) : token;
  if (!digits.empty() && digits.back() == 'N') digits.remove_suffix(1);
  if (ParseInt64(digits, out.integer)) {
    out.type = EdnValue::Type::kInt;
    return true;
  }
  const std::string_view body = digits.substr(digits[0] == '-' ? 1 : 0);
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    // Clojure's hex, as in #object[java.lang.Object 0x1f2a "..."].
    std::uint64_t magnitude = 0;
    const char* end = body.data() + body.size();
    auto [ptr, ec] = std::from_chars(body.data() + 2, end, magnitude, 16);
    if (ec == std::errc() && ptr == end && magnitude <= static_cast<std::uint64_t>(INT64_MAX)) {
      out.type = EdnValue::Type::kInt;
      out.integer = static_cast<std::int64_t>(magnitude) * (digits[0] == '-' ? -1 : 1);
      return true;
    }
  }
  bool digit_seen = false, well_formed = !body.empty();
  for (std::size_t i = 0; i < body.size() && well_formed; ++i) {
    const char c = body[i];
    const bool digit = c >= '0' && c <= '9';
    digit_seen = digit_seen || digit;
    const bool sign_after_e = (c == '-' || c == '+') && i > 0 && (body[i - 1] == 'e' || body[i - 1] == 'E');
    const bool suffix = c == 'M' && i + 1 == body.size();
    well_formed = digit || c == '.' || c == 'e' || c == 'E' || c == '/' || sign_after_e || suffix;
  }
  if (!well_formed || !digit_seen) return Fail(start, "malformed number \"" + std::string(token) + "\"");
  out.type = EdnValue::Type::kFloat;
  out.text = std::string(token);
  return true;
}

// \a, \newline, \space, \tab, \return, \uXXXX.
bool EdnReader::ReadChar(EdnValue& out) {
  const std::size_t start = pos_++;
  if (pos_ >= text_.size()) return Fail(start, "a character literal needs a character");
  out.type = EdnValue::Type::kChar;
  std::string_view name = Token();
  if (name.empty()) name = text_.substr(pos_++, 1);  // \( \" \; and the like
  if (name == "newline") out.text = "\n";
  else if (name == "space") out.text = " ";
  else if (name == "tab") out.text = "\t";
  else if (name == "return") out.text = "\r";
  else if (name == "formfeed") out.text = "\f";
  else if (name == "backspace") out.text = "\b";
  else if (name.size() == 5 && name[0] == 'u' && HexDigit(name[1]) >= 0 && HexDigit(name[2]) >= 0 &&
           HexDigit(name[3]) >= 0 && HexDigit(name[4]) >= 0) {
    AppendUtf8(static_cast<std::uint32_t>(HexDigit(name[1]) << 12 | HexDigit(name[2]) << 8 |
                                          HexDigit(name[3]) << 4 | HexDigit(name[4])),
               out.text);
  } else {
    out.text = std::string(name);  // one character (or a UTF-8 sequence) as written
  }
  return true;
}

bool EdnReader::ReadString(EdnValue& out) {
  const std::size_t start = pos_++;  // opening quote
  out.type = EdnValue::Type::kString;
  while (pos_ < text_.size()) {
    const char c = text_[pos_++];
    if (c == '"') return true;
    if (c != '\\') {
      out.text += c;
    } else if (!ReadEscape(out.text)) {
      return false;
    }
  }
  return Fail(start, "unterminated string");
}

// The escape after a backslash inside a string.
bool EdnReader::ReadEscape(std::string& out) {
  if (pos_ >= text_.size()) return Fail(pos_, "unterminated string");
  const std::size_t at = pos_ - 1;
  const char escaped = text_[pos_++];
  switch (escaped) {
    case 'n': out += '\n'; return true;
    case 't': out += '\t'; return true;
    case 'r': out += '\r'; return true;
    case 'b': out += '\b'; return true;
    case 'f': out += '\f'; return true;
    case '"': out += '"'; return true;
    case '\\': out += '\\'; return true;
    case 'u': {
      std::uint32_t cp = 0;
      for (int i = 0; i < 4; ++i) {
        const int digit = pos_ < text_.size() ? HexDigit(text_[pos_]) : -1;
        if (digit < 0) return Fail(at, "\\u needs four hex digits");
        cp = cp << 4 | static_cast<std::uint32_t>(digit);
        ++pos_;
      }
      AppendUtf8(cp, out);
      return true;
    }
    default:
      return Fail(at, std::string("unsupported escape \\") + escaped);
  }
}

bool EdnReader::ReadSeq(EdnValue& out, int depth, char close) {
  const std::size_t start = pos_++;
  while (true) {
    if (SkipSpace()) return Fail(start, std::string("missing '") + close + "'");
    if (text_[pos_] == close) {
      ++pos_;
      return true;
    }
    EdnValue item;
    if (!Read(item, depth + 1)) return false;
    out.items.push_back(std::move(item));
  }
}

bool EdnReader::ReadMap(EdnValue& out, int depth) {
  const std::size_t start = pos_++;
  out.type = EdnValue::Type::kMap;
  while (true) {
    if (SkipSpace()) return Fail(start, "missing '}'");
    if (text_[pos_] == '}') {
      ++pos_;
      return true;
    }
    EdnEntry entry;
    if (!Read(entry.key, depth + 1)) return false;
    if (!SkipSpace() && text_[pos_] == '}') return Fail(pos_, "map key without a value");
    if (!Read(entry.value, depth + 1)) return false;
    out.entries.push_back(std::move(entry));
  }
}

std::string Quoted(const std::string& text) {
  std::string s = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') s += '\\';
    if (c == '\n') {
      s += "\\n";
      continue;
    }
    s += c;
  }
  return s + "\"";
}

std::string Joined(const std::vector<EdnValue>& items) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? " " : "") + items[i].ToString();
  return s;
}

}  // namespace

const EdnValue* EdnValue::Get(std::string_view name) const {
  for (const EdnEntry& entry : entries) {
    if (entry.key.type == Type::kKeyword && entry.key.text == name) return &entry.value;
  }
  return nullptr;
}

std::string EdnValue::ToString() const {
  std::string s = tag.empty() ? "" : "#" + tag + " ";
  switch (type) {
    case Type::kNil: return s + "nil";
    case Type::kBool: return s + (boolean ? "true" : "false");
    case Type::kInt: return s + std::to_string(integer);
    case Type::kFloat:
    case Type::kSymbol: return s + text;
    case Type::kString: return s + Quoted(text);
    case Type::kChar: return s + "\\" + text;
    case Type::kKeyword: return s + ":" + text;
    case Type::kVector: return s + "[" + Joined(items) + "]";
    case Type::kSet: return s + "#{" + Joined(items) + "}";
    case Type::kMap: {
      s += "{";
      for (std::size_t i = 0; i < entries.size(); ++i) {
        s += (i ? ", " : "") + entries[i].key.ToString() + " " + entries[i].value.ToString();
      }
      return s + "}";
    }
  }
  return s;
}

bool ReadEdnValue(std::string_view text, std::size_t& pos, EdnValue& out, InputError& error) {
  EdnReader reader(text, pos);
  const bool ok = reader.Read(out, 0);
  if (!ok) error = EdnErrorAt(text, reader.error_offset(), reader.error_message());
  pos = reader.pos();
  return ok;
}

bool SkipEdnSpace(std::string_view text, std::size_t& pos) {
  EdnReader reader(text, pos);
  const bool at_end = reader.SkipSpace();
  pos = reader.pos();
  return at_end;
}

bool ParseEdn(std::string_view text, EdnValue& out, InputError& error) {
  std::size_t pos = 0;
  if (!ReadEdnValue(text, pos, out, error)) return false;
  if (!SkipEdnSpace(text, pos)) {
    error = EdnErrorAt(text, pos, "unexpected text after the value");
    return false;
  }
  return true;
}

}  // namespace leasesim::checker
