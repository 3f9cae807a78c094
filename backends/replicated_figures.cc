#include "backends/replicated_figures.h"

#include <algorithm>

namespace leasesim::backends {

void ReplicatedStoreFigures::LeaderElected(Nanos now, std::int64_t term) {
  elections_ += 1;
  highest_elected_term_ = std::max(highest_elected_term_, term);
  if (first_leader_at_ < 0) {
    first_leader_at_ = now;
    return;
  }
  // A failover: leaderless from the last confirmed round to this election.
  if (last_confirmed_ < 0) return;
  const Nanos gap = now - last_confirmed_;
  election_gap_max_ = std::max(election_gap_max_, gap);
  election_gap_sum_ += gap;
  election_gaps_ += 1;
}

void ReplicatedStoreFigures::LeaderConfirmed(Nanos round_sent_at) {
  last_confirmed_ = std::max(last_confirmed_, round_sent_at);
}

void ReplicatedStoreFigures::CallEnded(Nanos invoked, Nanos now, bool answered, Nanos& outage_since) {
  if (!answered) {
    calls_failed_ += 1;
    if (outage_since < 0) outage_since = invoked;
    return;
  }
  calls_ok_ += 1;
  const Nanos took = now - invoked;
  call_ok_ns_sum_ += took;
  call_ok_ns_max_ = std::max(call_ok_ns_max_, took);
  if (outage_since >= 0) {
    const Nanos outage = now - outage_since;
    outage_max_ = std::max(outage_max_, outage);
    outage_sum_ += outage;
    outage_since = -1;
  }
}

void ReplicatedStoreFigures::AddTo(std::map<std::string, std::int64_t>& figures, bool unsafe_reads) const {
  constexpr Nanos ms = base::kNanosPerMilli;
  figures["store_leaders_elected"] = elections_;
  figures["store_highest_term"] = highest_elected_term_;
  figures["store_first_leader_ms"] = first_leader_at_ < 0 ? -1 : first_leader_at_ / ms;
  figures["store_failovers"] = election_gaps_;
  figures["store_election_ms_max"] = election_gap_max_ / ms;
  figures["store_election_ms_mean"] = election_gaps_ == 0 ? 0 : election_gap_sum_ / election_gaps_ / ms;
  figures["store_calls_answered"] = calls_ok_;
  figures["store_calls_failed"] = calls_failed_;
  figures["store_call_ms_mean"] = calls_ok_ == 0 ? 0 : call_ok_ns_sum_ / calls_ok_ / ms;
  figures["store_call_ms_max"] = call_ok_ns_max_ / ms;
  figures["store_client_unavailable_ms_max"] = outage_max_ / ms;
  figures["store_client_unavailable_ms_sum"] = outage_sum_ / ms;
  figures["store_client_redirects"] = redirects_;
  figures["store_client_resends"] = resends_;
  if (unsafe_reads) figures["store_stale_reads"] = stale_reads_;
}

}  // namespace leasesim::backends
