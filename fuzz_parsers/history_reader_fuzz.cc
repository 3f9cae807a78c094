// libFuzzer target: the leasesim history reader (checker/history_io.h). A
// history it accepts must write back to text it reads again to the same
// history; a rejected one names a line the input has.

#include <string>

#include "checker/history_io.h"
#include "fuzz_parsers/fuzz_input.h"

using leasesim::fuzz_parsers::AsText;
using leasesim::fuzz_parsers::LineCount;
using leasesim::fuzz_parsers::Require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = AsText(data, size);
  const leasesim::checker::HistoryReadResult read = leasesim::checker::ReadHistory(text);
  if (!read.ok()) {
    Require(read.error->line >= 0 && read.error->line <= LineCount(text), "the error names a line of the input");
    Require(!read.error->rule.empty(), "the error says what is wrong");
    return 0;
  }
  const std::string written = leasesim::checker::HistoryToJsonLines(read.history);
  const leasesim::checker::HistoryReadResult again = leasesim::checker::ReadHistory(written);
  Require(again.ok(), "a history written back reads again");
  Require(leasesim::checker::HistoryToJsonLines(again.history) == written, "writing is a fixed point");
  return 0;
}
