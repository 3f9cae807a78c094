// libFuzzer target: the Jepsen log importer (checker/jepsen_log_import.h),
// then the register check on what it read, under a small step budget.

#include "checker/cas_register_model.h"
#include "checker/jepsen_log_import.h"
#include "fuzz_parsers/fuzz_input.h"

using leasesim::fuzz_parsers::AsText;
using leasesim::fuzz_parsers::LineCount;
using leasesim::fuzz_parsers::Require;
namespace checker = leasesim::checker;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = AsText(data, size);
  checker::LooksLikeJepsenLog(text);
  const checker::ReadResult<checker::CasRegisterOp> read = checker::ImportJepsenLog(text);
  if (!read.ok()) {
    Require(read.error->line >= 1 && read.error->line <= LineCount(text), "the error names a line of the input");
    return 0;
  }
  for (const checker::CasRegisterOp& op : read.records) {
    Require(op.return_ns == checker::kNeverNs || op.return_ns > op.call_ns, "an operation completes after it began");
    Require(op.invoke_line >= 1 && op.invoke_line <= LineCount(text), "operations name their lines");
  }
  checker::LinOptions options;
  options.budget = 20'000;
  checker::CheckCasRegister(read.records, options);
  return 0;
}
