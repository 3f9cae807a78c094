#pragma once
// Escaping text for XML and HTML output.

#include <cstdint>
#include <string>
#include <string_view>

namespace leasesim::reports {

// Text safe inside an XML or HTML element or a double-quoted attribute:
// & < > " ' are escaped; characters XML 1.0 forbids (C0 controls other than
// tab, newline and carriage return) and bytes that are not valid UTF-8 become
// U+FFFD; in attributes, tab/newline/carriage return are written as character
// references so they survive attribute-value normalisation.
std::string EscapeXml(std::string_view text, bool attribute = false);

// A string usable as an id or a class name: letters, digits, '-' and '_'
// kept, everything else replaced by '_'.
std::string IdFragment(std::string_view text);

// "12.345 s" from nanoseconds (milliseconds precision, integer arithmetic).
std::string FormatSeconds(std::int64_t ns);

}  // namespace leasesim::reports
