#pragma once
// The guard's measure: the instructions one standard hour executes, counted
// by valgrind's callgrind, which depends on the code and its inputs and not
// on the machine's load. Only the function that runs the hour is counted
// (--toggle-collect), so start-up, parsing the scenario and tearing down the
// process are not.

#include <cstdint>
#include <string>
#include <variant>

namespace leasesim::bench {

// The count, or why there is none (valgrind missing, the run failed, its
// output unreadable).
using InstructionCount = std::variant<std::int64_t, std::string>;

// Runs `binary --profile --seed SEED` under callgrind and returns the
// instructions executed inside bench::RunStandardHour. The run is made the
// same every time: from the binary's own folder as "./NAME" (so the build
// folder's path is not on the client's stack), with an empty environment,
// and valgrind lays the process out at fixed addresses (no ASLR).
InstructionCount CountHourInstructions(const std::string& binary, std::uint64_t seed);

// The path of the running executable (/proc/self/exe), or "" when unknown.
std::string SelfExecutable();

}  // namespace leasesim::bench
