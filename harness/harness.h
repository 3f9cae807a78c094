#pragma once
// The leasesim command as a library (leasesim::harness): a project that has
// lease code of its own registers it as a protocol (core/protocol.h) and
// hands its command line to Main, and so gets the whole command — run,
// replay, fuzz, explore, compare, merge, zoo, timing, check, live — for its
// own code. The `leasesim` binary is exactly this with the built-in
// protocols registered (harness/builtin_protocols.h).
//
//   int main(int argc, char** argv) {
//     leasesim::core::Protocols().Add(MyLeaseProtocol());
//     leasesim::core::Protocols().SetDefault("my-lease");
//     return leasesim::harness::Main(argc, argv);
//   }

namespace leasesim::harness {

// Runs the command argv[1] names with the rest of argv; returns its exit
// code (0 all good, 1 a violation, 2 bad input or usage). `argv[0]` is
// also how `live` starts its node processes: it runs this same program
// as `argv[0] live-node ...`, so each node runs the registered protocols.
int Main(int argc, char** argv);

}  // namespace leasesim::harness
