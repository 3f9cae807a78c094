#pragma once
// The name of the program the user runs ("leasesim", or a harness of their
// own, docs/YOUR_PROTOCOL.md), for the commands leasesim prints for them to
// run again (replay lines, the fuzz session's line). Set once by the
// program's main before any other thread starts; "leasesim" until then.

#include <string>

namespace leasesim::base {

const std::string& ProgramName();
// Takes the last path component of `argv0`; an empty one changes nothing.
void SetProgramName(const std::string& argv0);

}  // namespace leasesim::base
