#include "backends/raft_invariants.h"

#include <cassert>

#include "base/prng.h"

namespace leasesim::backends {
namespace {

std::string At(sim::Nanos now) { return "at " + std::to_string(now / sim::kNanosPerMilli) + " ms: "; }

std::string R(int replica) { return "r" + std::to_string(replica); }

}  // namespace

RaftInvariants::RaftInvariants(int replicas)
    : replicas_(replicas), prefix_hash_(static_cast<std::size_t>(replicas)) {
  assert(replicas >= 1);
}

RaftInvariants::EntryId RaftInvariants::IdOf(const ReplicaLogEntry& entry) {
  if (entry.noop) return EntryId{entry.term, EntryId::Kind::kNoop, 0};
  return EntryId{entry.term, entry.expiry ? EntryId::Kind::kExpiry : EntryId::Kind::kKv, entry.kv->op};
}

std::string RaftInvariants::Describe(const EntryId& id) {
  const std::string term = " (term " + std::to_string(id.term) + ")";
  switch (id.kind) {
    case EntryId::Kind::kNoop: return "the no-op of term " + std::to_string(id.term);
    case EntryId::Kind::kKv: return "kv op " + std::to_string(id.op) + term;
    case EntryId::Kind::kExpiry: return "the expiry of lease " + std::to_string(-id.op) + term;
  }
  return "?";
}

void RaftInvariants::Report(sim::Nanos now, std::string message) {
  if (violations_.size() < kViolationsMax) violations_.push_back(At(now) + std::move(message));
}

void RaftInvariants::LeaderElected(sim::Nanos now, int replica, std::int64_t term, const ReplicaDisk& disk) {
  ++checks_;
  const auto [it, fresh] = leader_of_term_.emplace(term, replica);
  if (!fresh && it->second != replica) {
    Report(now, "election safety: " + R(replica) + " and " + R(it->second) + " were both elected leader of term " +
                    std::to_string(term));
  }
  CheckElectionQuorum(now, replica, term, disk);
  // Leader completeness: every entry applied anywhere is committed, so it
  // must be in this leader's log at its index.
  for (std::size_t i = 0; i < applied_.size(); ++i) {
    const EntryId& committed = applied_[i].first;
    // Raft §5.4: an entry committed in term C is in the logs of the leaders
    // of every term above C. A leader of C or below, elected late (its votes
    // delayed, or itself paused as a candidate), need not hold it.
    if (commit_term_[i] >= term) continue;
    const bool held = i < disk.log.size() && IdOf(disk.log[i]) == committed;
    if (!held) {
      Report(now, "leader completeness: " + R(replica) + " leads term " + std::to_string(term) +
                      " without the committed entry " + std::to_string(i + 1) + " (" + Describe(committed) +
                      ", applied by " + R(applied_[i].second) + ")" +
                      (i < disk.log.size() ? "; it holds " + Describe(IdOf(disk.log[i])) : "; its log ends at " +
                                                                                              std::to_string(disk.log.size())));
      return;
    }
  }
}

// Raft §5.2: a candidate wins "if it receives votes from a majority of the
// servers in the full cluster for the same term", and each vote is on stable
// storage before it is granted (Figure 2). A vote counted from a reply of an
// earlier term, or sent before its fsync, may be one a majority never cast or
// can take back in a power loss: then two leaders of one term are a schedule
// away. The candidate's own vote counts as cast: it acts on it only through
// messages that leave after its fsync.
// Raft §5.4.1's election restriction on top: a vote goes only to a log at
// least as up-to-date as the voter's, so the leader's log at its election is
// no less up-to-date than any of its voters' when they voted.
void RaftInvariants::CheckElectionQuorum(sim::Nanos now, int replica, std::int64_t term, const ReplicaDisk& disk) {
  const auto last_index = static_cast<std::int64_t>(disk.log.size());
  const std::int64_t last_term = disk.log.empty() ? 0 : disk.log.back().term;
  int votes = 1;
  bool restriction_reported = false;
  for (int voter = 1; voter <= replicas_; ++voter) {
    if (voter == replica) continue;
    const auto vote = durable_vote_.find({term, voter});
    if (vote == durable_vote_.end() || vote->second.candidate != replica) continue;
    ++votes;
    const DurableVote& cast = vote->second;
    const bool behind = cast.last_term > last_term || (cast.last_term == last_term && cast.last_index > last_index);
    if (!behind || restriction_reported) continue;
    restriction_reported = true;
    Report(now, "election restriction: " + R(replica) + " became leader of term " + std::to_string(term) +
                    " with a log ending at index " + std::to_string(last_index) + " of term " +
                    std::to_string(last_term) + ", less up-to-date than " + R(voter) + "'s when it voted for it (index " +
                    std::to_string(cast.last_index) + " of term " + std::to_string(cast.last_term) + ")");
  }
  const int majority = replicas_ / 2 + 1;
  if (votes >= majority) return;
  Report(now, "election quorum: " + R(replica) + " became leader of term " + std::to_string(term) + " with " +
                  std::to_string(votes) + " of " + std::to_string(replicas_) +
                  " replicas' votes in that term on stable storage (its own included); a majority needs " +
                  std::to_string(majority));
}

void RaftInvariants::VoteSynced(sim::Nanos now, int replica, const ReplicaDisk& disk) {
  ++checks_;
  const int candidate = disk.synced_voted_for();
  if (candidate == 0) return;
  const std::vector<ReplicaLogEntry>& log = disk.synced_log();
  const DurableVote vote{candidate, log.empty() ? 0 : log.back().term, static_cast<std::int64_t>(log.size())};
  const auto [it, fresh] = durable_vote_.emplace(std::make_pair(disk.synced_term(), replica), vote);
  if (fresh || it->second.candidate == candidate) return;
  Report(now, "vote safety: " + R(replica) + " durably voted for " + R(it->second.candidate) + " and then for " +
                  R(candidate) + " in term " + std::to_string(disk.synced_term()));
  it->second = vote;  // reported once per change
}

void RaftInvariants::LogChanged(sim::Nanos now, int replica, const ReplicaDisk& disk, std::int64_t from) {
  ++checks_;
  assert(from >= 1);
  std::vector<std::uint64_t>& hashes = prefix_hash_.at(static_cast<std::size_t>(replica - 1));
  const std::size_t start = std::min(hashes.size(), static_cast<std::size_t>(from - 1));
  hashes.resize(start);
  std::uint64_t hash = start == 0 ? 0 : hashes.back();
  for (std::size_t i = start; i < disk.log.size(); ++i) {
    const EntryId id = IdOf(disk.log[i]);
    std::uint64_t state = hash ^ (static_cast<std::uint64_t>(id.term) * 0x9E3779B97F4A7C15ULL) ^
                          (static_cast<std::uint64_t>(id.op) << 1) ^ (static_cast<std::uint64_t>(id.kind) << 60);
    hash = base::SplitMix64(state);
    hashes.push_back(hash);
    const auto index = static_cast<std::int64_t>(i + 1);
    const auto [it, fresh] = first_prefix_.emplace(std::make_pair(index, id.term), std::make_pair(hash, replica));
    if (!fresh && it->second.first != hash) {
      Report(now, "log matching: " + R(replica) + " and " + R(it->second.second) + " both hold an entry at index " +
                      std::to_string(index) + " of term " + std::to_string(id.term) +
                      " but their logs differ at or before it");
      return;
    }
  }
}

void RaftInvariants::LeaderActs(sim::Nanos now, int replica, std::int64_t term) {
  ++checks_;
  const auto elected = leader_of_term_.find(term);
  if (elected != leader_of_term_.end() && elected->second == replica) return;
  const auto [it, fresh] = acting_unelected_.emplace(term, replica);
  if (!fresh) return;  // reported once per term
  Report(now, "election safety: " + R(replica) + " acts as leader of term " + std::to_string(term) +
                  " (it sends appends) but " +
                  (elected == leader_of_term_.end() ? std::string("nobody") : R(elected->second)) +
                  " was elected in that term");
}

void RaftInvariants::LeaderTruncates(sim::Nanos now, int replica, std::int64_t term, std::int64_t index) {
  Report(now, "leader append-only: " + R(replica) + ", leader of term " + std::to_string(term) +
                  ", drops its entries from " + std::to_string(index) + " on");
}

void RaftInvariants::CommittedOverwritten(sim::Nanos now, int replica, std::int64_t index, std::int64_t commit) {
  Report(now, "committed entry overwritten: " + R(replica) + " drops its entry " + std::to_string(index) +
                  " for a conflicting one though it knows entries up to " + std::to_string(commit) + " committed");
}

void RaftInvariants::Applied(sim::Nanos now, int replica, std::int64_t term, std::int64_t index,
                             const ReplicaLogEntry& entry, const std::vector<ReplicaDisk>& disks) {
  ++checks_;
  assert(index >= 1);
  const EntryId id = IdOf(entry);
  const auto slot = static_cast<std::size_t>(index - 1);
  if (slot < applied_.size()) {
    if (!(applied_[slot].first == id)) {
      Report(now, "state machine safety: " + R(replica) + " applied " + Describe(id) + " at index " +
                      std::to_string(index) + " where " + R(applied_[slot].second) + " applied " +
                      Describe(applied_[slot].first));
    }
    return;
  }
  // A replica applies its entries in order from 1, so the one before it was
  // recorded (by this or another replica) already.
  assert(slot == applied_.size());
  applied_.emplace_back(id, replica);
  commit_term_.push_back(term);
  const int holders = SyncedHolders(disks, slot, id);
  const int majority = replicas_ / 2 + 1;
  if (holders < majority) {
    Report(now, "commitment: " + R(replica) + " applied " + Describe(id) + " at index " + std::to_string(index) +
                    ", the first replica to, while it was on the synced logs of " + std::to_string(holders) +
                    " of " + std::to_string(replicas_) + " replicas; a majority needs " + std::to_string(majority));
    return;
  }
  CheckCommitSafe(now, replica, slot, id, disks);
}

// Raft §5.4.2 (Figure 8): an entry on a majority is not yet safe. Committed
// the way Raft commits — an entry of the leader's term on a majority, and
// everything before it — it is held by a majority whose synced logs end in
// that term or later, and every log without it is less up-to-date than
// theirs: no candidate lacking it can gather a majority, in this term or any
// later one (what Leader Completeness needs, checked when it is decided
// rather than when a later leader happens to be elected without it).
void RaftInvariants::CheckCommitSafe(sim::Nanos now, int replica, std::size_t index, const EntryId& id,
                                     const std::vector<ReplicaDisk>& disks) {
  const int majority = replicas_ / 2 + 1;
  for (std::size_t r = 0; r < disks.size(); ++r) {
    const int other = static_cast<int>(r) + 1;
    for (const std::vector<ReplicaLogEntry>* log : {&disks[r].log, &disks[r].synced_log()}) {
      if (index < log->size() && IdOf((*log)[index]) == id) continue;
      const auto last_index = static_cast<std::int64_t>(log->size());
      const std::int64_t last_term = log->empty() ? 0 : log->back().term;
      const int refusers = Refusers(disks, other, last_term, last_index);
      if (refusers >= majority) continue;
      Report(now, "commit safety: " + R(replica) + " committed " + Describe(id) + " at index " +
                      std::to_string(index + 1) + ", but " + R(other) + "'s " +
                      (log == &disks[r].log ? "log" : "synced log") + " lacks it and ends at index " +
                      std::to_string(last_index) + " of term " + std::to_string(last_term) + ", and only " +
                      std::to_string(refusers) + " of the other replicas' synced logs are more up-to-date: " +
                      R(other) + " can still be elected and overwrite it (a majority must refuse it: " +
                      std::to_string(majority) + ")");
      return;
    }
  }
}

int RaftInvariants::Refusers(const std::vector<ReplicaDisk>& disks, int candidate, std::int64_t last_term,
                             std::int64_t last_index) {
  int refusers = 0;
  for (std::size_t v = 0; v < disks.size(); ++v) {
    if (static_cast<int>(v) + 1 == candidate) continue;
    const std::vector<ReplicaLogEntry>& log = disks[v].synced_log();
    const std::int64_t term = log.empty() ? 0 : log.back().term;
    const auto size = static_cast<std::int64_t>(log.size());
    if (term > last_term || (term == last_term && size > last_index)) ++refusers;
  }
  return refusers;
}

int RaftInvariants::SyncedHolders(const std::vector<ReplicaDisk>& disks, std::size_t index, const EntryId& id) {
  int holders = 0;
  for (const ReplicaDisk& disk : disks) {
    if (index < disk.synced_log().size() && IdOf(disk.synced_log()[index]) == id) ++holders;
  }
  return holders;
}

// Raft thesis §6.4: the leader answers a read once it has confirmed, by a
// round sent after the read arrived, that it still leads, and has applied
// up to its commit index of that moment (after committing an entry of its
// term). Then every entry committed anywhere before the read arrived is in
// the state it reads: a newer leader's commits would have failed the
// confirmation, an older leader's are below this leader's first entry.
void RaftInvariants::ReadServed(sim::Nanos now, int replica, std::int64_t term, std::int64_t applied,
                                std::int64_t committed_at_arrival) {
  ++checks_;
  if (applied >= committed_at_arrival) return;
  Report(now, "read safety: " + R(replica) + ", leader of term " + std::to_string(term) +
                  ", served a read from its state applied up to index " + std::to_string(applied) + ", but " +
                  std::to_string(committed_at_arrival) + " entries were committed before the read reached it");
}

void RaftInvariants::CheckDurable(sim::Nanos now, const std::vector<ReplicaDisk>& disks) {
  ++checks_;
  const int majority = replicas_ / 2 + 1;
  for (std::size_t i = 0; i < applied_.size(); ++i) {
    const int holders = SyncedHolders(disks, i, applied_[i].first);
    if (holders < majority) {
      Report(now, "durability: the committed entry " + std::to_string(i + 1) + " (" + Describe(applied_[i].first) +
                      ") is on the synced logs of " + std::to_string(holders) + " of " +
                      std::to_string(replicas_) + " replicas after a power loss; a majority needs " +
                      std::to_string(majority));
      return;
    }
  }
}

}  // namespace leasesim::backends
