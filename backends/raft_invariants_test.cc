// Each of Raft's invariants, as backends/raft_invariants.h checks them, fires
// on the history that breaks it and stays quiet on the one that keeps it;
// and the replica's disk keeps exactly what its fsyncs made durable.

#include "backends/raft_invariants.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace leasesim::backends {
namespace {

// An entry of `term` carrying the KV request `op` (a txn).
ReplicaLogEntry Entry(std::int64_t term, std::int64_t op) {
  ReplicaLogEntry entry;
  entry.term = term;
  auto request = std::make_shared<KvRequest>();
  request->op = op;
  entry.kv = std::move(request);
  return entry;
}

ReplicaDisk DiskOf(const std::vector<ReplicaLogEntry>& log) {
  ReplicaDisk disk;
  for (const ReplicaLogEntry& entry : log) disk.Append(entry);
  disk.Sync();
  return disk;
}

bool Reported(const RaftInvariants& invariants, const std::string& what) {
  for (const std::string& violation : invariants.violations()) {
    if (violation.find(what) != std::string::npos) return true;
  }
  return false;
}

TEST(RaftInvariants, SameIndexAndTermWithDifferentPrefixesBreaksLogMatching) {
  RaftInvariants invariants(3);
  invariants.LogChanged(0, 1, DiskOf({Entry(1, 10), Entry(1, 11), Entry(2, 12)}), 1);
  invariants.LogChanged(0, 2, DiskOf({Entry(1, 10), Entry(1, 11)}), 1);  // a prefix: fine
  EXPECT_TRUE(invariants.violations().empty());
  invariants.LogChanged(0, 3, DiskOf({Entry(1, 10), Entry(1, 99), Entry(2, 12)}), 1);
  EXPECT_TRUE(Reported(invariants, "log matching: r3 and r1 both hold an entry at index 2 of term 1"));
}

// Every replica's disk holding `log`, synced: entries applied from it are
// on a majority.
std::vector<ReplicaDisk> AllHold(const std::vector<ReplicaLogEntry>& log) {
  return std::vector<ReplicaDisk>(3, DiskOf(log));
}

// `voter`'s disk holds, synced, its vote for `candidate` in `term`.
void VoteDurably(RaftInvariants& invariants, int voter, std::int64_t term, int candidate) {
  ReplicaDisk disk;
  disk.SetTerm(term, candidate);
  disk.Sync();
  invariants.VoteSynced(0, voter, disk);
}

// `candidate` (of 3 replicas) elected in `term` with the durable vote of the next replica.
void Elect(RaftInvariants& invariants, int candidate, std::int64_t term, const ReplicaDisk& log) {
  VoteDurably(invariants, candidate % 3 + 1, term, candidate);
  invariants.LeaderElected(0, candidate, term, log);
}

TEST(RaftInvariants, TwoLeadersOfOneTermBreakElectionSafety) {
  RaftInvariants invariants(3);
  const ReplicaDisk disk;
  Elect(invariants, 1, 4, disk);
  Elect(invariants, 1, 4, disk);  // the same replica again: fine
  Elect(invariants, 2, 5, disk);
  EXPECT_TRUE(invariants.violations().empty());
  Elect(invariants, 3, 5, disk);
  EXPECT_TRUE(Reported(invariants, "election safety: r3 and r2 were both elected leader of term 5"));
}

// A leader counted a vote its voter cast in an earlier term (a late reply),
// or one not yet on the voter's disk: elected without a majority's votes.
TEST(RaftInvariants, ALeaderWithoutAMajorityOfDurableVotesInItsTermBreaksTheElectionQuorum) {
  RaftInvariants invariants(5);
  VoteDurably(invariants, 2, 6, 1);
  VoteDurably(invariants, 3, 7, 1);
  VoteDurably(invariants, 4, 7, 1);
  invariants.LeaderElected(0, 1, 7, ReplicaDisk{});
  EXPECT_TRUE(invariants.violations().empty());
  VoteDurably(invariants, 3, 8, 1);
  VoteDurably(invariants, 4, 8, 5);
  invariants.LeaderElected(0, 1, 8, ReplicaDisk{});
  EXPECT_TRUE(Reported(invariants, "election quorum: r1 became leader of term 8 with 2 of 5 replicas' votes"));
}

// r2 voted for r1 while its own log held an entry of term 3 that r1's lacks.
TEST(RaftInvariants, ALeaderLessUpToDateThanAVoterWasBreaksTheElectionRestriction) {
  RaftInvariants invariants(3);
  ReplicaDisk voter = DiskOf({Entry(1, 10), Entry(3, 11)});
  voter.SetTerm(4, 1);
  voter.Sync();
  invariants.VoteSynced(0, 2, voter);
  invariants.LeaderElected(0, 1, 4, DiskOf({Entry(1, 10), Entry(3, 11), Entry(3, 12)}));
  EXPECT_TRUE(invariants.violations().empty());
  voter.SetTerm(5, 1);
  voter.Sync();
  invariants.VoteSynced(0, 2, voter);
  invariants.LeaderElected(0, 1, 5, DiskOf({Entry(1, 10), Entry(2, 20)}));
  EXPECT_TRUE(Reported(invariants, "election restriction: r1 became leader of term 5 with a log ending at index 2 of "
                                   "term 2, less up-to-date than r2's when it voted for it (index 2 of term 3)"));
}

TEST(RaftInvariants, TwoDurableVotesOfOneReplicaInATermBreakVoteSafety) {
  RaftInvariants invariants(3);
  VoteDurably(invariants, 2, 4, 1);
  VoteDurably(invariants, 2, 4, 1);  // synced again: the same vote
  VoteDurably(invariants, 2, 5, 3);  // a vote of the next term
  EXPECT_TRUE(invariants.violations().empty());
  VoteDurably(invariants, 2, 4, 3);
  EXPECT_TRUE(Reported(invariants, "vote safety: r2 durably voted for r1 and then for r3 in term 4"));
}

TEST(RaftInvariants, AReplicaActingAsLeaderOfATermItWasNotElectedInBreaksElectionSafety) {
  RaftInvariants invariants(3);
  Elect(invariants, 1, 4, ReplicaDisk{});
  invariants.LeaderActs(0, 1, 4);
  EXPECT_TRUE(invariants.violations().empty());
  // r1 took term 5 from a message and went on sending appends in it.
  invariants.LeaderActs(0, 1, 5);
  EXPECT_TRUE(Reported(invariants, "election safety: r1 acts as leader of term 5 (it sends appends) but nobody"));
}

TEST(RaftInvariants, ALeaderDroppingEntriesBreaksLeaderAppendOnly) {
  RaftInvariants invariants(3);
  invariants.LeaderTruncates(0, 2, 7, 12);
  EXPECT_TRUE(Reported(invariants, "leader append-only: r2, leader of term 7, drops its entries from 12 on"));
}

TEST(RaftInvariants, AnEntryAppliedBeforeAMajorityHoldsItBreaksCommitment) {
  RaftInvariants invariants(3);
  std::vector<ReplicaDisk> disks{DiskOf({Entry(1, 10)}), DiskOf({Entry(1, 10)}), DiskOf({})};
  invariants.Applied(0, 1, 1, 1, Entry(1, 10), disks);
  EXPECT_TRUE(invariants.violations().empty());
  // Written on two disks but synced on one: not yet on a majority's stable storage.
  disks[1].Append(Entry(1, 11));
  disks[0].Append(Entry(1, 11));
  disks[0].Sync();
  invariants.Applied(0, 1, 1, 2, Entry(1, 11), disks);
  EXPECT_TRUE(Reported(invariants, "commitment: r1 applied kv op 11 (term 1) at index 2, the first replica to, "
                                   "while it was on the synced logs of 1 of 3 replicas"));
}

TEST(RaftInvariants, ALeaderWithoutACommittedEntryBreaksLeaderCompleteness) {
  RaftInvariants invariants(3);
  const std::vector<ReplicaDisk> disks = AllHold({Entry(1, 10), Entry(1, 11)});
  invariants.Applied(0, 1, 1, 1, Entry(1, 10), disks);
  invariants.Applied(0, 1, 1, 2, Entry(1, 11), disks);
  Elect(invariants, 2, 2, DiskOf({Entry(1, 10), Entry(1, 11)}));
  EXPECT_TRUE(invariants.violations().empty());
  Elect(invariants, 3, 3, DiskOf({Entry(1, 10)}));
  EXPECT_TRUE(Reported(invariants, "leader completeness: r3 leads term 3 without the committed entry 2"));
}

// A candidate of term 7 whose votes arrive late (it was paused) is elected
// after entry 2 of term 6 was committed in term 8: Leader Completeness binds
// the leaders of terms above 8 only.
TEST(RaftInvariants, ALeaderOfAnEarlierTermElectedLateNeedNotHoldALaterCommit) {
  RaftInvariants invariants(3);
  const std::vector<ReplicaDisk> disks = AllHold({Entry(6, 10), Entry(6, 11)});
  invariants.Applied(0, 1, 6, 1, Entry(6, 10), disks);
  invariants.Applied(0, 1, 8, 2, Entry(6, 11), disks);
  Elect(invariants, 3, 7, DiskOf({Entry(6, 10)}));
  EXPECT_TRUE(invariants.violations().empty());
  Elect(invariants, 3, 9, DiskOf({Entry(6, 10)}));
  EXPECT_TRUE(Reported(invariants, "leader completeness: r3 leads term 9 without the committed entry 2"));
}

// Raft's Figure 8: r1, leader of term 4, has its entry 2 of term 2 on r1 and
// r2, its no-op of term 4 on r1 alone; r3 holds an entry 2 of term 3. Entry
// 2 is on a majority, yet r3 can still win r2's vote (its last term is the
// higher) and overwrite it: committing it then breaks commit safety. Once r2
// holds the no-op of term 4 too, the commit is safe.
TEST(RaftInvariants, ACommitALogWithoutItCanStillOverwriteBreaksCommitSafety) {
  const std::vector<ReplicaLogEntry> figure8{Entry(1, 10), Entry(2, 11), Entry(4, 12)};
  std::vector<ReplicaDisk> disks{DiskOf(figure8), DiskOf({Entry(1, 10), Entry(2, 11)}),
                                 DiskOf({Entry(1, 10), Entry(3, 30)})};
  RaftInvariants early(3);
  early.Applied(0, 1, 4, 1, Entry(1, 10), disks);
  EXPECT_TRUE(early.violations().empty());
  early.Applied(0, 1, 4, 2, Entry(2, 11), disks);
  EXPECT_TRUE(Reported(early, "commit safety: r1 committed kv op 11 (term 2) at index 2, but r3's log lacks it and "
                              "ends at index 2 of term 3, and only 1 of the other replicas' synced logs"));
  disks[1] = DiskOf(figure8);
  RaftInvariants safe(3);
  safe.Applied(0, 1, 4, 1, Entry(1, 10), disks);
  safe.Applied(0, 1, 4, 2, Entry(2, 11), disks);
  safe.Applied(0, 1, 4, 3, Entry(4, 12), disks);
  EXPECT_TRUE(safe.violations().empty()) << safe.violations().front();
}

// A deposed leader answering from its old state, or a new one answering
// before it learned what its predecessors committed.
TEST(RaftInvariants, AReadMissingAnEntryCommittedBeforeItArrivedBreaksReadSafety) {
  RaftInvariants invariants(3);
  invariants.ReadServed(0, 1, 4, 12, 12);
  invariants.ReadServed(0, 1, 4, 13, 12);  // applied more since: fine
  EXPECT_TRUE(invariants.violations().empty());
  invariants.ReadServed(0, 2, 3, 10, 12);
  EXPECT_TRUE(Reported(invariants, "read safety: r2, leader of term 3, served a read from its state applied up to "
                                   "index 10, but 12 entries were committed before the read reached it"));
}

TEST(RaftInvariants, TwoEntriesAppliedAtOneIndexBreakStateMachineSafety) {
  RaftInvariants invariants(3);
  const std::vector<ReplicaDisk> disks = AllHold({Entry(1, 10)});
  invariants.Applied(0, 1, 1, 1, Entry(1, 10), disks);
  invariants.Applied(0, 2, 1, 1, Entry(1, 10), disks);
  EXPECT_TRUE(invariants.violations().empty());
  invariants.Applied(0, 3, 2, 1, Entry(2, 20), disks);
  EXPECT_TRUE(
      Reported(invariants, "state machine safety: r3 applied kv op 20 (term 2) at index 1 where r1 applied kv op 10"));
}

TEST(RaftInvariants, ACommittedEntryOnAMinorityOfSyncedLogsBreaksDurability) {
  RaftInvariants invariants(3);
  std::vector<ReplicaDisk> disks{DiskOf({Entry(1, 10)}), DiskOf({Entry(1, 10)}), DiskOf({})};
  invariants.Applied(0, 1, 1, 1, Entry(1, 10), disks);
  invariants.CheckDurable(0, disks);
  EXPECT_TRUE(invariants.violations().empty());
  disks[1] = DiskOf({});
  invariants.CheckDurable(0, disks);
  EXPECT_TRUE(
      Reported(invariants, "durability: the committed entry 1 (kv op 10 (term 1)) is on the synced logs of 1 of 3"));
}

TEST(ReplicaDisk, APowerLossKeepsWhatTheLastSyncMadeDurable) {
  ReplicaDisk disk;
  disk.SetTerm(2, 1);
  disk.Append(Entry(2, 1));
  disk.Append(Entry(2, 2));
  EXPECT_TRUE(disk.dirty());
  disk.Sync();
  EXPECT_FALSE(disk.dirty());
  disk.SetTerm(3, 0);
  disk.TruncateAfter(1);
  disk.Append(Entry(3, 7));
  EXPECT_TRUE(disk.dirty());
  disk.LoseUnsynced();
  // The truncation and the new entry were never synced: the old log is back.
  EXPECT_EQ(disk.term, 2);
  EXPECT_EQ(disk.voted_for, 1);
  ASSERT_EQ(disk.log.size(), 2U);
  EXPECT_EQ(disk.log[1].kv->op, 2);
  EXPECT_FALSE(disk.dirty());
  // Synced after a truncation: the synced log follows it.
  disk.TruncateAfter(1);
  disk.Append(Entry(3, 7));
  disk.Sync();
  disk.LoseUnsynced();
  ASSERT_EQ(disk.log.size(), 2U);
  EXPECT_EQ(disk.log[1].kv->op, 7);
}

}  // namespace
}  // namespace leasesim::backends
