#pragma once
// Raft's own safety properties (Ongaro & Ousterhout, "In Search of an
// Understandable Consensus Algorithm", Figure 3), checked on the replicated
// store while it runs rather than inferred from the clients' history:
//   election safety     at most one leader is elected in a term, and only
//                       the one elected acts as its leader;
//   leader append-only  a leader never overwrites or deletes entries in its
//                       log, it only appends;
//   log matching        two logs holding an entry of the same index and term
//                       agree on every entry up to it;
//   leader completeness a leader's log holds every entry committed before
//                       its term;
//   state machine safety no two replicas apply different entries at an index;
//   read safety         a read served through the read index reflects every
//                       entry committed before it reached the leader (Raft
//                       §6.4, Ongaro's thesis: what makes it linearizable);
// and what commitment and durability add (Raft §5.3: an entry is committed
// once "replicated on a majority of the servers"; §5: persistent state is on
// stable storage before a reply depends on it): when an entry is first
// applied anywhere it is on the synced logs of a majority, and it stays
// there whatever a power loss takes; a leader is elected on votes a majority
// cast in its term and made durable (Figure 2: currentTerm and votedFor are
// "updated on stable storage before responding to RPCs"), and no replica
// durably votes twice in a term; and when an entry commits, no log that
// lacks it can win an election (§5.4.2, why a leader does not commit an
// entry of an older term by counting: the logs of a majority are more
// up-to-date, §5.4.1, than every log without it, so Leader Completeness
// holds for every later term), and the election restriction it rests on
// (§5.4.1: a voter grants only a candidate whose log is at least as
// up-to-date as its own, checked on the logs the voters had when their
// votes became durable).
// The store's replicas report to it as they change; it records each broken
// property as a sentence naming the replicas, the index and the term.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "backends/replicated_store.h"

namespace leasesim::backends {

// The running check of those properties on one replicated store, told each
// election, log change and apply as it happens; keeps what broke.
class RaftInvariants {
 public:
  explicit RaftInvariants(int replicas);

  // `replica` became leader of `term` with this log: the votes of a majority
  // for it in `term` must be durable (told by VoteSynced), its own included.
  void LeaderElected(sim::Nanos now, int replica, std::int64_t term, const ReplicaDisk& disk);
  // `replica`'s disk was synced: the term and vote on it are durable.
  void VoteSynced(sim::Nanos now, int replica, const ReplicaDisk& disk);
  // `replica`'s log changed from entry `from` on (appends, a truncation, a
  // power loss): log matching over the changed part.
  void LogChanged(sim::Nanos now, int replica, const ReplicaDisk& disk, std::int64_t from);
  // `replica` sends appends as the leader of `term` (it must be the one elected).
  void LeaderActs(sim::Nanos now, int replica, std::int64_t term);
  // `replica`, a leader of `term`, is about to drop its entries from `index` on.
  void LeaderTruncates(sim::Nanos now, int replica, std::int64_t term, std::int64_t index);
  // `replica` is about to drop its entry `index`, at or below its commit index.
  void CommittedOverwritten(sim::Nanos now, int replica, std::int64_t index, std::int64_t commit);
  // `replica` applied its entry `index` to its state machine; `disks` is
  // every replica's disk (the first application anywhere checks that a
  // majority holds the entry on stable storage).
  // `term` is the replica's current term: the first application anywhere is
  // the commit, and Leader Completeness binds the leaders of later terms only.
  void Applied(sim::Nanos now, int replica, std::int64_t term, std::int64_t index, const ReplicaLogEntry& entry,
               const std::vector<ReplicaDisk>& disks);
  // `replica`, leader of `term`, serves a read (or a keep-alive) from its
  // state machine applied up to `applied`; `committed_at_arrival` entries
  // had been committed anywhere when the read reached it.
  void ReadServed(sim::Nanos now, int replica, std::int64_t term, std::int64_t applied,
                  std::int64_t committed_at_arrival);
  // Every applied entry is on the synced logs of a majority (checked after a
  // power loss; `disks` is every replica's disk).
  void CheckDurable(sim::Nanos now, const std::vector<ReplicaDisk>& disks);

  // Each broken property once per kind and place, in the order found (at
  // most kViolationsMax).
  const std::vector<std::string>& violations() const { return violations_; }
  std::int64_t applied_entries() const { return static_cast<std::int64_t>(applied_.size()); }
  std::int64_t checks() const { return checks_; }

 private:
  static constexpr std::size_t kViolationsMax = 20;

  // What identifies an entry: its term, what it carries and the request's
  // id (0 for a no-op; a lessor's revoke is minus its lease).
  struct EntryId {
    enum class Kind { kNoop, kKv, kExpiry };
    std::int64_t term = 0;
    Kind kind = Kind::kNoop;
    std::int64_t op = 0;
    bool operator==(const EntryId&) const = default;
  };
  static EntryId IdOf(const ReplicaLogEntry& entry);
  static std::string Describe(const EntryId& id);
  void Report(sim::Nanos now, std::string message);
  // How many of `disks` hold `id` at `index` on their synced logs.
  static int SyncedHolders(const std::vector<ReplicaDisk>& disks, std::size_t index, const EntryId& id);
  // `replica`, elected leader of `term` with `disk`, holds durable votes of a
  // majority, each cast while the voter's log was no more up-to-date than its.
  void CheckElectionQuorum(sim::Nanos now, int replica, std::int64_t term, const ReplicaDisk& disk);
  // The entry `id` just committed at `index`: every log without it (a
  // replica's log as written, or as a power loss would leave it) is less
  // up-to-date than the synced logs of a majority.
  void CheckCommitSafe(sim::Nanos now, int replica, std::size_t index, const EntryId& id,
                       const std::vector<ReplicaDisk>& disks);
  // How many of `disks`, other than `candidate`'s, would refuse their vote to
  // a candidate whose log ends with (last_term, last_index): their synced
  // log is more up-to-date (§5.4.1).
  static int Refusers(const std::vector<ReplicaDisk>& disks, int candidate, std::int64_t last_term,
                      std::int64_t last_index);

  int replicas_;
  std::map<std::int64_t, int> leader_of_term_;
  // (term, voter) -> the candidate the voter's synced disk voted for in that
  // term, and where the voter's synced log ended then.
  struct DurableVote {
    int candidate = 0;
    std::int64_t last_term = 0;
    std::int64_t last_index = 0;
  };
  std::map<std::pair<std::int64_t, int>, DurableVote> durable_vote_;
  std::map<std::int64_t, int> acting_unelected_;  // term -> a replica that led it unelected (reported)
  // By replica (index 0 = replica 1): prefix_hash[i] covers entries 1..i+1.
  std::vector<std::vector<std::uint64_t>> prefix_hash_;
  // (index, term) -> the prefix hash the first log holding it had, and whose.
  std::map<std::pair<std::int64_t, std::int64_t>, std::pair<std::uint64_t, int>> first_prefix_;
  // applied_[i]: the entry applied at index i+1, and by whom first.
  std::vector<std::pair<EntryId, int>> applied_;
  std::vector<std::int64_t> commit_term_;  // commit_term_[i]: the term in which entry i+1 was first applied
  std::vector<std::string> violations_;
  std::int64_t checks_ = 0;
};

}  // namespace leasesim::backends
