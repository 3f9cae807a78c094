#pragma once
// How many CPUs this process may really use, for the default of --jobs: the
// CPUs its affinity mask allows, capped by the CPU quota of its container
// (cgroup v2 cpu.max, or v1 cpu.cfs_quota_us / cpu.cfs_period_us, on its own
// cgroup and every ancestor up to the mount). A container limited to 2 CPUs
// on a 64-core host then runs 2 jobs, not 64 threads throttled to 2.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace leasesim::cli {

// CPUs one cgroup's limit allows; nullopt when unlimited or unreadable.
// cpu.max holds "QUOTA PERIOD" or "max PERIOD"; v1 a quota of -1 is none.
std::optional<double> CpusFromCpuMax(std::string_view cpu_max);
std::optional<double> CpusFromCfs(std::string_view quota_us, std::string_view period_us);

// The tightest quota over the process's cgroups, read under `root` (the
// filesystem root: "/" normally, a directory of sample files in tests) from
// proc/self/mountinfo, proc/self/cgroup and the cgroup files they lead to.
std::optional<double> CgroupCpuLimit(const std::filesystem::path& root);

// The default job count: `cpus` (at least 1) capped by the limit, rounded
// up (1.5 CPUs of quota still run two jobs faster than one), at most jobs_max.
int JobsFor(unsigned cpus, std::optional<double> limit, int jobs_max);

// JobsFor over this process's affinity mask and cgroup limit.
int DefaultJobs(int jobs_max);

}  // namespace leasesim::cli
