#include "base/program_name.h"

namespace leasesim::base {
namespace {

std::string& Name() {
  static std::string name = "leasesim";
  return name;
}

}  // namespace

const std::string& ProgramName() { return Name(); }

void SetProgramName(const std::string& argv0) {
  const std::string base = argv0.substr(argv0.find_last_of('/') + 1);
  if (!base.empty()) Name() = base;
}

}  // namespace leasesim::base
