#include "checker/linearizability.h"

namespace leasesim::checker {

const char* LinVerdictName(LinVerdict verdict) {
  switch (verdict) {
    case LinVerdict::kLinearizable: return "linearizable";
    case LinVerdict::kNotLinearizable: return "not_linearizable";
    case LinVerdict::kUnknown: return "unknown";
  }
  return "unknown";
}

}  // namespace leasesim::checker
