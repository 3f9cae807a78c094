#pragma once
// The lease as the store grants it, checked on each side on its own. A
// record written to the store grants its holder the lease from the instant
// the store applied it for the duration it names. Mutual exclusion rests on
// two promises about that interval: a holder stops believing it leads by
// the time it ends, and a candidate does not start before it ends (unless
// the record was released). A protocol that breaks one promise overlaps
// only when the other side happens to be at its worst (its clock at the
// drift bound, its poll right after the write), so checking each promise
// alone finds a broken rule in runs where no overlap happened yet.

#include "checker/history.h"
#include "checker/history_index.h"
#include "checker/verdict.h"

namespace leasesim::checker {

// lease_outlived: a belief that lasts past the end of the lease granted by
// its holder's last record (same holder and term) the store applied by
// then; a claim of validity (History::claims) that, on a clock as slow
// as the drift bound allows, would; or a ledger write sent after it (its
// token the term). early_takeover: a belief begun by taking over another holder's
// record before that record's lease ended. Judged only where the history
// knows when the store applied each write (StoreOp::applied_ns, which the
// simulator records); a breach after a fault beyond the stated assumptions
// began is expected and reported as a note.
void CheckLeaseContract(const History& history, Verdict& verdict);
void CheckLeaseContract(const HistoryIndex& index, Verdict& verdict);

// How close a run came to breaking each promise: the least time by which a
// belief or a claim (as CheckLeaseContract projects it) ended before its
// lease did, and by which a takeover of another holder's record came after
// that record's lease ended, and by which a ledger write was sent before
// its lease ended (how close a write's send came to its deadline);
// negative for a breach, kNeverNs when nothing was judged. The search's
// gradient toward the two violations above.
struct LeaseContractMargins {
  TimeNs holder_ns = kNeverNs;
  TimeNs candidate_ns = kNeverNs;
  TimeNs write_ns = kNeverNs;
};
LeaseContractMargins ContractMargins(const History& history);
LeaseContractMargins ContractMargins(const HistoryIndex& index);

}  // namespace leasesim::checker
