#pragma once
// The protocols the `leasesim` binary ships with: leasesim's own (always in
// core::Protocols()), every bug-zoo mistake by its name ("correct" an alias
// of leasesim's), and zoo combinations ("no-fencing,blind-write").

namespace leasesim::harness {

// Adds them to core::Protocols(); a second call adds nothing.
void RegisterBuiltinProtocols();

}  // namespace leasesim::harness
