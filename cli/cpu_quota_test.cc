#include "cli/cpu_quota.h"
#include "base/test_temp_path.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace leasesim::cli {
namespace {

namespace fs = std::filesystem;

// A fake filesystem root holding proc/self/{mountinfo,cgroup} and cgroup files.
class FakeRoot {
 public:
  explicit FakeRoot(const std::string& name) : root_(base::TestTempPath("leasesim_cpu_quota_" + name)) {
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  ~FakeRoot() { fs::remove_all(root_); }
  void Write(const std::string& relative, const std::string& content) const {
    const fs::path path = root_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << content;
  }
  const fs::path& path() const { return root_; }

 private:
  fs::path root_;
};

constexpr const char* kV2Mount = "30 25 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n";
constexpr const char* kV1Mounts =
    "35 30 0:30 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
    "36 30 0:31 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n";

TEST(CpuQuota, ParsesCgroupFiles) {
  EXPECT_EQ(CpusFromCpuMax("200000 100000\n"), 2.0);
  EXPECT_EQ(CpusFromCpuMax("150000 100000"), 1.5);
  EXPECT_EQ(CpusFromCpuMax("max 100000\n"), std::nullopt);
  EXPECT_EQ(CpusFromCpuMax("garbage"), std::nullopt);
  EXPECT_EQ(CpusFromCfs("50000\n", "100000\n"), 0.5);
  EXPECT_EQ(CpusFromCfs("-1\n", "100000\n"), std::nullopt);
}

TEST(CpuQuota, ARoundedUpQuotaCapsTheHostsCpus) {
  EXPECT_EQ(JobsFor(64, 2.0, 256), 2);
  EXPECT_EQ(JobsFor(64, 1.5, 256), 2);
  EXPECT_EQ(JobsFor(64, 0.5, 256), 1);
  EXPECT_EQ(JobsFor(4, 16.0, 256), 4);      // a quota above the CPUs changes nothing
  EXPECT_EQ(JobsFor(8, std::nullopt, 256), 8);
  EXPECT_EQ(JobsFor(0, std::nullopt, 256), 1);  // an unknown count still runs
  EXPECT_EQ(JobsFor(512, std::nullopt, 256), 256);
}

TEST(CpuQuota, CgroupV2QuotaOfTheProcessesCgroup) {
  FakeRoot root("v2");
  root.Write("proc/self/mountinfo", kV2Mount);
  root.Write("proc/self/cgroup", "0::/ci/job7\n");
  root.Write("sys/fs/cgroup/ci/job7/cpu.max", "300000 100000\n");
  root.Write("sys/fs/cgroup/ci/cpu.max", "max 100000\n");
  EXPECT_EQ(CgroupCpuLimit(root.path()), 3.0);
}

TEST(CpuQuota, CgroupV2AnAncestorsTighterQuotaWins) {
  FakeRoot root("v2_ancestor");
  root.Write("proc/self/mountinfo", kV2Mount);
  root.Write("proc/self/cgroup", "0::/ci/job7\n");
  root.Write("sys/fs/cgroup/ci/job7/cpu.max", "max 100000\n");
  root.Write("sys/fs/cgroup/ci/cpu.max", "200000 100000\n");
  EXPECT_EQ(CgroupCpuLimit(root.path()), 2.0);
}

TEST(CpuQuota, CgroupV2InsideItsOwnNamespace) {
  // A container with its own cgroup namespace sees its cgroup as "/".
  FakeRoot root("v2_ns");
  root.Write("proc/self/mountinfo", kV2Mount);
  root.Write("proc/self/cgroup", "0::/\n");
  root.Write("sys/fs/cgroup/cpu.max", "100000 100000\n");
  EXPECT_EQ(CgroupCpuLimit(root.path()), 1.0);
}

TEST(CpuQuota, CgroupV1CfsQuota) {
  FakeRoot root("v1");
  root.Write("proc/self/mountinfo", kV1Mounts);
  root.Write("proc/self/cgroup", "4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n");
  root.Write("sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "250000\n");
  root.Write("sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(CgroupCpuLimit(root.path()), 2.5);
  EXPECT_EQ(JobsFor(32, CgroupCpuLimit(root.path()), 256), 3);
}

TEST(CpuQuota, CgroupV1WithoutAQuotaIsUnlimited) {
  FakeRoot root("v1_none");
  root.Write("proc/self/mountinfo", kV1Mounts);
  root.Write("proc/self/cgroup", "3:cpu,cpuacct:/\n");
  root.Write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
  root.Write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(CgroupCpuLimit(root.path()), std::nullopt);
}

TEST(CpuQuota, NoCgroupFilesMeansNoLimit) {
  FakeRoot root("none");
  EXPECT_EQ(CgroupCpuLimit(root.path()), std::nullopt);
  EXPECT_GE(DefaultJobs(256), 1);
}

}  // namespace
}  // namespace leasesim::cli
