#include "cli/cpu_quota.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>
#include <vector>

#include "cli/values.h"

namespace leasesim::cli {
namespace {

namespace fs = std::filesystem;

constexpr int kAncestorsMax = 64;  // a bound on walking up a cgroup path

std::optional<long long> Integer(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  long long value = 0;
  if (!ParseNumber(std::string(text), value)) return std::nullopt;
  return value;
}

std::optional<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<std::string> Split(const std::string& line, char by) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream stream(line);
  while (std::getline(stream, part, by)) parts.push_back(part);
  return parts;
}

// A cgroup filesystem mounted in this process's view.
struct Mount {
  std::string root;   // the hierarchy's directory shown at the mount point
  std::string point;  // where it is mounted
  bool v2 = false;
  bool cpu = false;   // v1: the hierarchy has the cpu controller
};

std::vector<Mount> CgroupMounts(const std::string& mountinfo) {
  std::vector<Mount> mounts;
  std::istringstream lines(mountinfo);
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    const std::vector<std::string> before = Split(line.substr(0, dash), ' ');
    const std::vector<std::string> after = Split(line.substr(dash + 3), ' ');
    if (before.size() < 5 || after.size() < 3) continue;
    Mount mount{.root = before[3], .point = before[4]};
    if (after[0] == "cgroup2") {
      mount.v2 = true;
    } else if (after[0] == "cgroup") {
      for (const std::string& option : Split(after[2], ',')) mount.cpu = mount.cpu || option == "cpu";
      if (!mount.cpu) continue;
    } else {
      continue;
    }
    mounts.push_back(mount);
  }
  return mounts;
}

// The process's cgroup path in the v2 hierarchy ("0::/path") or in the v1
// hierarchy holding the cpu controller ("4:cpu,cpuacct:/path").
std::optional<std::string> CgroupPath(const std::string& proc_cgroup, bool v2) {
  std::istringstream lines(proc_cgroup);
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t first = line.find(':');
    const std::size_t second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (v2 && line.substr(0, first) == "0" && controllers.empty()) return path;
    if (!v2) {
      for (const std::string& controller : Split(controllers, ',')) {
        if (controller == "cpu") return path;
      }
    }
  }
  return std::nullopt;
}

std::optional<double> LimitAt(const fs::path& dir, bool v2) {
  if (v2) {
    const std::optional<std::string> cpu_max = ReadFile(dir / "cpu.max");
    return cpu_max ? CpusFromCpuMax(*cpu_max) : std::nullopt;
  }
  const std::optional<std::string> quota = ReadFile(dir / "cpu.cfs_quota_us");
  const std::optional<std::string> period = ReadFile(dir / "cpu.cfs_period_us");
  return quota && period ? CpusFromCfs(*quota, *period) : std::nullopt;
}

// The tightest limit from the process's own cgroup up to the mount point.
std::optional<double> LimitUnder(const fs::path& root, const Mount& mount, const std::string& path) {
  // The part of `path` below the mount's root is what lies under the mount point.
  std::string relative = path;
  if (mount.root != "/" && relative.rfind(mount.root, 0) == 0) relative = relative.substr(mount.root.size());
  fs::path dir = root / fs::path(mount.point).relative_path() / fs::path(relative).relative_path();
  const fs::path top = root / fs::path(mount.point).relative_path();
  std::optional<double> tightest;
  for (int step = 0; step < kAncestorsMax; ++step) {
    const std::optional<double> limit = LimitAt(dir, mount.v2);
    if (limit && (!tightest || *limit < *tightest)) tightest = limit;
    if (dir.lexically_normal() == top.lexically_normal() || !dir.has_parent_path() || dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  return tightest;
}

}  // namespace

std::optional<double> CpusFromCpuMax(std::string_view cpu_max) {
  const std::size_t space = cpu_max.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view quota = cpu_max.substr(0, space);
  if (quota == "max") return std::nullopt;
  const std::optional<long long> q = Integer(quota);
  const std::optional<long long> period = Integer(cpu_max.substr(space + 1));
  if (!q || !period || *q <= 0 || *period <= 0) return std::nullopt;
  return static_cast<double>(*q) / static_cast<double>(*period);
}

std::optional<double> CpusFromCfs(std::string_view quota_us, std::string_view period_us) {
  const std::optional<long long> quota = Integer(quota_us);
  const std::optional<long long> period = Integer(period_us);
  if (!quota || !period || *quota <= 0 || *period <= 0) return std::nullopt;  // -1: no quota
  return static_cast<double>(*quota) / static_cast<double>(*period);
}

std::optional<double> CgroupCpuLimit(const fs::path& root) {
  const std::optional<std::string> mountinfo = ReadFile(root / "proc/self/mountinfo");
  const std::optional<std::string> proc_cgroup = ReadFile(root / "proc/self/cgroup");
  if (!mountinfo || !proc_cgroup) return std::nullopt;
  std::optional<double> tightest;
  for (const Mount& mount : CgroupMounts(*mountinfo)) {
    const std::optional<std::string> path = CgroupPath(*proc_cgroup, mount.v2);
    if (!path) continue;
    const std::optional<double> limit = LimitUnder(root, mount, *path);
    if (limit && (!tightest || *limit < *tightest)) tightest = limit;
  }
  return tightest;
}

int JobsFor(unsigned cpus, std::optional<double> limit, int jobs_max) {
  int jobs = static_cast<int>(std::min<unsigned>(std::max(cpus, 1u), static_cast<unsigned>(jobs_max)));
  if (limit) jobs = std::min(jobs, std::max(1, static_cast<int>(std::ceil(*limit - 1e-9))));
  return jobs;
}

int DefaultJobs(int jobs_max) {
  unsigned cpus = std::thread::hardware_concurrency();
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) cpus = static_cast<unsigned>(CPU_COUNT(&allowed));
  return JobsFor(cpus, CgroupCpuLimit("/"), jobs_max);
}

}  // namespace leasesim::cli
