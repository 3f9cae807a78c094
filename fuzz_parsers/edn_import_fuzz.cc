// libFuzzer target: the EDN reader and the EDN history importers
// (checker/edn.h, checker/edn_import.h), then the checks on what they read,
// under a small step budget. A value the reader accepts must print as EDN it
// reads again to the same text.

#include <string>

#include "checker/cas_register_model.h"
#include "checker/edn.h"
#include "checker/edn_import.h"
#include "checker/kv_model.h"
#include "fuzz_parsers/fuzz_input.h"

using leasesim::fuzz_parsers::AsText;
using leasesim::fuzz_parsers::LineCount;
using leasesim::fuzz_parsers::Require;
namespace checker = leasesim::checker;

namespace {

void ReadsBack(std::string_view text) {
  checker::EdnValue value;
  checker::InputError error;
  if (!checker::ParseEdn(text, value, error)) return;
  const std::string printed = value.ToString();
  checker::EdnValue again;
  Require(checker::ParseEdn(printed, again, error), "a value's printed form reads again");
  Require(again.ToString() == printed, "printing is a fixed point");
}

template <class Read>
void ErrorNamesALine(const Read& read, std::string_view text) {
  if (!read.ok()) {
    Require(read.error->line >= 1 && read.error->line <= LineCount(text), "the error names a line of the input");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = AsText(data, size);
  ReadsBack(text);
  checker::LooksLikeEdnHistory(text);
  checker::SniffEdnModel(text);
  checker::LinOptions options;
  options.budget = 20'000;
  const checker::ReadResult<checker::KvOp> kv = checker::ImportEdnKv(text);
  ErrorNamesALine(kv, text);
  if (kv.ok()) checker::CheckKv(kv.records, options);
  const checker::ReadResult<checker::CasRegisterOp> reg = checker::ImportEdnRegister(text);
  ErrorNamesALine(reg, text);
  if (reg.ok()) {
    // `leasesim check` reads EDN as Knossos does; the Porcupine reading is
    // the log fuzzer's, but an EDN history must survive it too.
    checker::CheckCasRegister(reg.records, options, checker::KnossosConvention(0));
    checker::CheckCasRegister(reg.records, options);
  }
  return 0;
}
