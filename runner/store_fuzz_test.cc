// The replicated store's own search (runner/store_fuzz.h) in CI: a few
// hundred seeds keep every Raft invariant and stay linearizable; the search
// is deterministic; it draws every fault kind; and it catches the two
// deliberate store mistakes (unsafe reads, replies before the fsync), so a
// green run means something. `leasesim store-fuzz --runs N` runs it longer.

#include "runner/store_fuzz.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace leasesim::runner {
namespace {

// Bounded so the test stays well under its ctest timeout (60 s,
// runner/CMakeLists.txt); `leasesim store-fuzz --runs 1000` runs longer.
constexpr std::uint64_t kCiSeeds = 40;

std::string Problems(const StoreFuzzResult& result) {
  std::string text;
  for (const std::string& problem : result.problems) text += "\n  " + problem;
  return text;
}

TEST(StoreFuzz, SeedsKeepEveryRaftInvariantAndStayLinearizable) {
  std::set<std::string> struck;
  std::int64_t applied = 0;
  std::int64_t unknown = 0;
  for (std::uint64_t seed = 1; seed <= kCiSeeds; ++seed) {
    const StoreFuzzResult result = RunStoreFuzz(seed);
    EXPECT_TRUE(result.ok()) << "store-fuzz seed " << seed << " (leasesim store-fuzz --seed " << seed
                             << " --runs 1):" << Problems(result);
    EXPECT_FALSE(result.linearizability_unknown) << "seed " << seed;
    for (const auto& [name, count] : result.counts) {
      if (name.starts_with("fault_") && count > 0) struck.insert(name.substr(6));
      if (name.starts_with("failpoint_") && count > 0) struck.insert(name);
    }
    applied += result.counts.at("entries_applied");
    unknown += result.counts.contains("ops_unknown") ? result.counts.at("ops_unknown") : 0;
  }
  // Every kind of fault struck somewhere, and the store did work under them.
  for (const std::string& kind : StoreFuzzFaultKinds()) EXPECT_TRUE(struck.contains(kind)) << kind;
  EXPECT_GT(applied, static_cast<std::int64_t>(kCiSeeds) * 100);
  // Each failpoint of the raft loop was armed somewhere.
  for (const char* point : {"before_save", "after_save", "after_apply", "before_send", "before_leader_send"}) {
    EXPECT_TRUE(struck.contains(std::string("failpoint_") + point)) << point;
  }
  EXPECT_GT(unknown, 0) << "faults should leave some calls with an unknown outcome";
}

TEST(StoreFuzz, TheSameSeedGivesTheSameRun) {
  const StoreFuzzResult first = RunStoreFuzz(7);
  const StoreFuzzResult again = RunStoreFuzz(7);
  EXPECT_EQ(first.trace_hash, again.trace_hash);
  EXPECT_EQ(first.counts, again.counts);
  EXPECT_NE(first.trace_hash, RunStoreFuzz(8).trace_hash);
}

// Finds the first of `seeds` seeds whose run has a problem containing `what`.
std::uint64_t FirstCatch(const StoreFuzzOptions& options, std::uint64_t seeds, const std::string& what) {
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    const StoreFuzzResult result = RunStoreFuzz(seed, options);
    for (const std::string& problem : result.problems) {
      if (problem.find(what) != std::string::npos) return seed;
    }
  }
  return 0;
}

TEST(StoreFuzz, CatchesUnsafeReads) {
  StoreFuzzOptions options;
  options.read_mode = backends::ReadMode::kUnsafe;
  EXPECT_GT(FirstCatch(options, 20, "not_linearizable"), 0U);
}

TEST(StoreFuzz, CatchesRepliesSentBeforeTheFsync) {
  StoreFuzzOptions options;
  options.reply_before_fsync = true;
  EXPECT_GT(FirstCatch(options, 100, "raft: "), 0U);
}

}  // namespace
}  // namespace leasesim::runner
