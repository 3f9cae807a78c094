#pragma once
// `leasesim live`: the unchanged core in real node processes against a real
// etcd cluster with real faults; the merged history goes through the same
// checker. Exit codes: 0 passed, 1 a violation was found, 2 bad input or
// usage, 3 the run could not be carried out (etcd would not start, the node
// executable is missing, interrupted). See docs/LIVE.md.

#include <iosfwd>
#include <string>
#include <vector>

namespace leasesim::cli {

int LiveCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace leasesim::cli
