#pragma once
// A small, strict XML reader for tests: well-formedness (one root, matched
// tags, quoted unique attributes, only the five predefined entities and
// numeric character references, no raw '<' or '&' in text) and a tree to
// check structure against. Not a general XML parser: no DTDs, no CDATA.

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace leasesim::reports::testing {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::vector<std::unique_ptr<XmlElement>> children;
  std::string text;  // concatenated character data directly inside
  std::vector<const XmlElement*> Children(const std::string& child_name) const {
    std::vector<const XmlElement*> found;
    for (const auto& child : children) {
      if (child->name == child_name) found.push_back(child.get());
    }
    return found;
  }
};

// Parses one document into XmlElement trees, or throws.
class XmlReader {
 public:
  // Throws std::runtime_error naming the offset on any well-formedness error.
  static std::unique_ptr<XmlElement> Parse(const std::string& text, bool allow_declaration = true) {
    XmlReader reader(text);
    reader.SkipSpace();
    if (allow_declaration && reader.text_.compare(reader.pos_, 5, "<?xml") == 0) {
      const std::size_t end = reader.text_.find("?>", reader.pos_);
      if (end == std::string::npos) reader.Fail("unterminated declaration");
      reader.pos_ = end + 2;
    }
    reader.SkipMisc();
    auto root = reader.Element();
    reader.SkipMisc();
    if (reader.pos_ != reader.text_.size()) reader.Fail("content after the root element");
    return root;
  }

 private:
  explicit XmlReader(const std::string& text) : text_(text) {}

  [[noreturn]] void Fail(const std::string& what) const {
    throw std::runtime_error("XML error at offset " + std::to_string(pos_) + ": " + what);
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  void SkipSpace() {
    while (!AtEnd() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  void SkipMisc() {
    for (;;) {
      SkipSpace();
      if (text_.compare(pos_, 4, "<!--") == 0) {
        const std::size_t end = text_.find("-->", pos_);
        if (end == std::string::npos) Fail("unterminated comment");
        pos_ = end + 3;
      } else {
        return;
      }
    }
  }
  static bool NameChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == ':' || c == '.';
  }
  std::string Name() {
    const std::size_t start = pos_;
    while (!AtEnd() && NameChar(text_[pos_])) ++pos_;
    if (start == pos_) Fail("expected a name");
    return text_.substr(start, pos_ - start);
  }
  std::string Decode(const std::string& raw) {
    std::string out;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '<') Fail("raw '<' in text or attribute");
      if (raw[i] != '&') {
        out += raw[i];
        continue;
      }
      const std::size_t semi = raw.find(';', i);
      if (semi == std::string::npos) Fail("unterminated entity");
      const std::string entity = raw.substr(i + 1, semi - i - 1);
      if (entity == "amp") out += '&';
      else if (entity == "lt") out += '<';
      else if (entity == "gt") out += '>';
      else if (entity == "quot") out += '"';
      else if (entity == "apos") out += '\'';
      else if (entity.size() > 1 && entity[0] == '#') {
        const long code = entity[1] == 'x' ? std::stol(entity.substr(2), nullptr, 16) : std::stol(entity.substr(1));
        if (code != 9 && code != 10 && code != 13 && code < 0x20) Fail("character reference to a forbidden char");
        if (code < 0x80) out += static_cast<char>(code); else out += "?";
      } else {
        Fail("unknown entity &" + entity + ";");
      }
      i = semi;
    }
    return out;
  }
  std::unique_ptr<XmlElement> Element() {
    if (AtEnd() || text_[pos_] != '<') Fail("expected '<'");
    ++pos_;
    auto element = std::make_unique<XmlElement>();
    element->name = Name();
    for (;;) {
      SkipSpace();
      if (AtEnd()) Fail("unterminated start tag");
      if (text_.compare(pos_, 2, "/>") == 0) {
        pos_ += 2;
        return element;
      }
      if (text_[pos_] == '>') {
        ++pos_;
        break;
      }
      const std::string attribute = Name();
      SkipSpace();
      if (AtEnd() || text_[pos_] != '=') Fail("expected '=' after attribute " + attribute);
      ++pos_;
      SkipSpace();
      if (AtEnd() || (text_[pos_] != '"' && text_[pos_] != '\'')) Fail("unquoted attribute " + attribute);
      const char quote = text_[pos_++];
      const std::size_t end = text_.find(quote, pos_);
      if (end == std::string::npos) Fail("unterminated attribute " + attribute);
      if (element->attributes.contains(attribute)) Fail("attribute given twice: " + attribute);
      element->attributes[attribute] = Decode(text_.substr(pos_, end - pos_));
      pos_ = end + 1;
    }
    for (;;) {
      const std::size_t next = text_.find('<', pos_);
      if (next == std::string::npos) Fail("unterminated element " + element->name);
      element->text += Decode(text_.substr(pos_, next - pos_));
      pos_ = next;
      if (text_.compare(pos_, 4, "<!--") == 0) {
        SkipMisc();
        continue;
      }
      if (text_.compare(pos_, 2, "</") == 0) {
        pos_ += 2;
        const std::string closing = Name();
        if (closing != element->name) Fail("</" + closing + "> closes <" + element->name + ">");
        SkipSpace();
        if (AtEnd() || text_[pos_] != '>') Fail("expected '>'");
        ++pos_;
        return element;
      }
      element->children.push_back(Element());
    }
  }

  const std::string& text_;
  std::size_t pos_ = 0;
};

}  // namespace leasesim::reports::testing
