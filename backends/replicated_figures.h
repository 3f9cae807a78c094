#pragma once
// The replicated store's figures: store elections and the time each took,
// what clients saw (calls answered and failed, latency, unavailability,
// redirects, resends) and, in the unsafe read mode, stale reads. The store
// and its clients report events here; AddTo writes the figures out as
// integers (ms where the name says so).

#include <cstdint>
#include <map>
#include <string>

#include "base/units.h"

namespace leasesim::backends {

class ReplicatedStoreFigures {
 public:
  using Nanos = base::Nanos;

  // A replica won an election in `term` at true time `now`.
  void LeaderElected(Nanos now, std::int64_t term);
  // A majority acknowledged a leader's heartbeat round sent at `round_sent_at`.
  void LeaderConfirmed(Nanos round_sent_at);
  void Redirect() { redirects_ += 1; }
  void Resend() { resends_ += 1; }
  void StaleRead() { stale_reads_ += 1; }
  // A client call invoked at `invoked` ended at `now`: answered (ok or
  // conflict) or failed. `outage_since` is that client's: the start of its
  // current run of failed calls, -1 when none.
  void CallEnded(Nanos invoked, Nanos now, bool answered, Nanos& outage_since);

  void AddTo(std::map<std::string, std::int64_t>& figures, bool unsafe_reads) const;
  std::int64_t elections() const { return elections_; }

 private:
  std::int64_t elections_ = 0;
  std::int64_t highest_elected_term_ = 0;
  Nanos first_leader_at_ = -1;
  Nanos last_confirmed_ = -1;  // latest send time of a heartbeat round a majority acknowledged
  Nanos election_gap_max_ = 0;
  Nanos election_gap_sum_ = 0;
  std::int64_t election_gaps_ = 0;
  std::int64_t calls_ok_ = 0;
  std::int64_t calls_failed_ = 0;
  std::int64_t redirects_ = 0;
  std::int64_t resends_ = 0;
  Nanos call_ok_ns_sum_ = 0;
  Nanos call_ok_ns_max_ = 0;
  Nanos outage_max_ = 0;
  Nanos outage_sum_ = 0;
  std::int64_t stale_reads_ = 0;  // unsafe reads answered by a replica behind the newest commit
};

}  // namespace leasesim::backends
