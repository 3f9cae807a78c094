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
  }
}

int RaftInvariants::SyncedHolders(const std::vector<ReplicaDisk>& disks, std::size_t index, const EntryId& id) {
  int holders = 0;
  for (const ReplicaDisk& disk : disks) {
    if (index < disk.synced_log().size() && IdOf(disk.synced_log()[index]) == id) ++holders;
  }
  return holders;
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
