// SPDX-License-Identifier: LGPL-2.1-or-later
// usable_cores: the cores of the process's affinity mask, cut to its cgroup's CPU limit, which
// cgroup_cpu_limit reads from cgroup file systems laid out here in a directory of their own.
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <unistd.h>

#ifdef __linux__
#include <sched.h>
#endif

#include "row_pool.h"
#include "usable_cores.h"

namespace {

namespace fs = std::filesystem;
using histeq::cgroup_cpu_limit;

// A cgroup file system's root in a fresh temporary directory, removed with the fixture.
class CgroupTree : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto *test = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() /
            (std::string("histeq-cgroup-") + test->name() + "-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // Writes `text` into `file` under the root, making its directories.
  void write(const std::string &file, const std::string &text) {
    const fs::path path = root_ / file;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  std::string root() const { return root_.string(); }

 private:
  fs::path root_;
};

TEST_F(CgroupTree, V2QuotaOverPeriodRoundedUp) {
  write("app/cpu.max", "250000 100000\n");
  EXPECT_EQ(cgroup_cpu_limit(root(), "0::/app\n"), 3u);
  write("app/cpu.max", "200000 100000\n");
  EXPECT_EQ(cgroup_cpu_limit(root(), "0::/app\n"), 2u);
  write("app/cpu.max", "50000 100000\n");
  EXPECT_EQ(cgroup_cpu_limit(root(), "0::/app\n"), 1u);
}

TEST_F(CgroupTree, V2NoQuotaIsNoLimit) {
  write("app/cpu.max", "max 100000\n");
  EXPECT_EQ(cgroup_cpu_limit(root(), "0::/app\n"), 0u);
  EXPECT_EQ(cgroup_cpu_limit(root(), "0::/\n"), 0u);
  EXPECT_EQ(cgroup_cpu_limit(root(), ""), 0u);
}

TEST_F(CgroupTree, V2TheTightestOfTheCgroupAndItsAncestors) {
  write("system.slice/cpu.max", "400000 100000\n");
  write("system.slice/camera.service/cpu.max", "max 100000\n");
  EXPECT_EQ(cgroup_cpu_limit(root(), "0::/system.slice/camera.service\n"), 4u);
  write("system.slice/camera.service/cpu.max", "150000 100000\n");
  EXPECT_EQ(cgroup_cpu_limit(root(), "0::/system.slice/camera.service\n"), 2u);
}

// In a container the path names the cgroup as the host sees it, and the container's own cgroup
// is the one mounted at the root.
TEST_F(CgroupTree, V2ContainerCgroupMountedAtTheRoot) {
  write("cpu.max", "300000 100000\n");
  EXPECT_EQ(cgroup_cpu_limit(root(), "0::/docker/0123abcd\n"), 3u);
}

TEST_F(CgroupTree, V1CpuControllerBesideTheUnifiedHierarchy) {
  const std::string lines = "4:memory:/user.slice\n3:cpu,cpuacct:/user.slice\n0::/user.slice\n";
  write("cpu/user.slice/cpu.cfs_quota_us", "-1\n");
  write("cpu/user.slice/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(cgroup_cpu_limit(root(), lines), 0u);
  write("cpu/user.slice/cpu.cfs_quota_us", "350000\n");
  EXPECT_EQ(cgroup_cpu_limit(root(), lines), 4u);
  // The unified hierarchy's files do not count where v1 has the cpu controller.
  write("user.slice/cpu.max", "100000 100000\n");
  EXPECT_EQ(cgroup_cpu_limit(root(), lines), 4u);
}

// A cgroup namespace shows a cgroup outside its root as "/../name": nothing under the mount is it.
TEST_F(CgroupTree, PathsOutsideTheNamespaceAreNoLimit) {
  write("cpu.max", "300000 100000\n");
  write("app/cpu.max", "max 100000\n");
  write("a/cpu.max", "max 100000\n");
  write("sibling/cpu.max", "100000 100000\n");
  // Read as paths, these would reach the sibling's limit (1) and the root's (3).
  EXPECT_EQ(cgroup_cpu_limit(root() + "/app", "0::/../sibling\n"), 0u);
  EXPECT_EQ(cgroup_cpu_limit(root(), "0::/a/..\n"), 0u);
}

TEST_F(CgroupTree, V1AncestorsAndColonsInThePath) {
  write("cpu/batch/cpu.cfs_quota_us", "200000\n");
  write("cpu/batch/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(cgroup_cpu_limit(root(), "5:cpuacct,cpu:/batch/job:7\n"), 2u);
  EXPECT_EQ(cgroup_cpu_limit(root(), "5:cpuacct,cpu:/batch/\n"), 2u);
}

TEST_F(CgroupTree, UnreadableOrMalformedFilesAreNoLimit) {
  write("app/cpu.max", "lots\n");
  EXPECT_EQ(cgroup_cpu_limit(root(), "0::/app\n"), 0u);
  write("app/cpu.max", "100000 0\n");
  EXPECT_EQ(cgroup_cpu_limit(root(), "0::/app\n"), 0u);
  EXPECT_EQ(cgroup_cpu_limit(root(), "garbage\n0::relative\n"), 0u);
}

TEST(UsableCores, AtLeastOneAndNoMoreThanTheMachineHas) {
  const unsigned cores = histeq::usable_cores();
  EXPECT_GE(cores, 1u);
  if (std::thread::hardware_concurrency() != 0) {
    EXPECT_LE(cores, std::thread::hardware_concurrency());
  }
}

#ifdef __linux__
// A thread the affinity mask keeps on one core gets a pool of the caller alone for "one per
// core"; its workers would inherit the mask and take turns on that core.
TEST(UsableCores, FollowTheAffinityMask) {
  cpu_set_t before;
  ASSERT_EQ(sched_getaffinity(0, sizeof(before), &before), 0);
  int first = 0;
  while (!CPU_ISSET(first, &before)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  const unsigned cores = histeq::usable_cores();
  const unsigned pool_size = histeq::RowPool(0).size();
  ASSERT_EQ(sched_setaffinity(0, sizeof(before), &before), 0);
  EXPECT_EQ(cores, 1u);
  EXPECT_EQ(pool_size, 1u);
  EXPECT_LE(histeq::usable_cores(), unsigned(CPU_COUNT(&before)));
}
#endif

}  // namespace
