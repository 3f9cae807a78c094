#include "sim/trace.h"

#include <gtest/gtest.h>

namespace leasesim::sim {
namespace {

// A literal's kind is hashed at compile time, a pointer's at run time: the
// two must agree, or a run's hash would depend on how its kinds were named.
TEST(Trace, KindHashDependsOnTheNameAlone) {
  constexpr TraceKind literal("store_apply");
  static_assert(literal.hash() != 0);
  const char* const name = "store_apply";
  const TraceKind pointer(name);
  EXPECT_EQ(literal.hash(), pointer.hash());
  EXPECT_NE(TraceKind("store_apply").hash(), TraceKind("store_reply").hash());
  // FNV-1a of "boot".
  static_assert(TraceKind("boot").hash() == 0xcd2fdc9bc6b02255ULL);
}

// Pinned: the hash identifies a run across builds, so a change to how an
// event is folded in is a change to every recorded run's identity.
TEST(Trace, HashOfAFixedSequenceIsPinned) {
  Trace trace(false);
  trace.Record(5, 0, "boot", 1);
  trace.Record(7, -1, "fault", 3, -4);
  const char* const send = "send";
  trace.Record(9, 2, send, 1, 12);
  EXPECT_EQ(trace.hash(), 0xa227ceefed90e50fULL);
  EXPECT_EQ(trace.count(), 3u);
  EXPECT_TRUE(trace.events().empty());
}

TEST(Trace, RetainedEventsHashAsUnretainedOnes) {
  Trace kept(true);
  Trace not_kept(false);
  for (Trace* trace : {&kept, &not_kept}) {
    trace->Record(5, 0, "boot", 1);
    trace->Record(7, -1, "fault", 3, -4);
  }
  EXPECT_EQ(kept.hash(), not_kept.hash());
  ASSERT_EQ(kept.events().size(), 2u);
  EXPECT_EQ(kept.events()[1], (TraceEvent{7, -1, "fault", 3, -4}));
}

TEST(Trace, AnEventIsOneJsonLineWithEveryFieldAsAnInteger) {
  // `replay --trace` writes these lines; their bytes are the format.
  EXPECT_EQ((TraceEvent{7, -1, "fault", 3, -4}).ToJson(), R"({"t_ns":7,"host":-1,"kind":"fault","a":3,"b":-4})");
  EXPECT_EQ((TraceEvent{9'223'372'036'854'775'807, 2, "boot", -9'223'372'036'854'775'807 - 1, 0}).ToJson(),
            R"({"t_ns":9223372036854775807,"host":2,"kind":"boot","a":-9223372036854775808,"b":0})");
}

}  // namespace
}  // namespace leasesim::sim
