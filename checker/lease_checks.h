#pragma once
// Checks over leadership beliefs and business-write attempts: one holder per
// term, no two leaders at one true instant, no side effect outside a lease.

#include "checker/history.h"
#include "checker/history_index.h"
#include "checker/verdict.h"

namespace leasesim::checker {

// One term claimed by two holders: in the leadership beliefs, or in the
// lease records successfully written to the store (each source on its own,
// so differing spellings across sources cannot raise a false alarm).
void CheckTermReuse(const History& history, Verdict& verdict);
void CheckTermReuse(const HistoryIndex& index, Verdict& verdict);

// Two holders believe they lead at one true instant. A violation when every
// fault that began by then stayed within the stated assumptions; otherwise
// expected, and reported as a note ("expected-and-fenced", or that fencing
// did not hold, when a fencing violation was found). At most a few overlaps
// are spelled out; the rest are counted.
void CheckLeaseOverlap(const History& history, Verdict& verdict);

// A business write attempted while its writer did not hold a valid lease: it
// said so itself (lease_valid_at_send == false), or no belief of its holder
// and term covers the send time. Beliefs are only consulted when the history
// records some for that holder.
void CheckWriteOutsideLease(const History& history, Verdict& verdict);

}  // namespace leasesim::checker
