#pragma once
// Checks over the ledger's applied writes: fencing, dual writers and
// exactly-once settlement. Pure functions of the history.

#include "checker/history.h"
#include "checker/verdict.h"

namespace leasesim::checker {

// A write applied with a token below one the ledger had already applied.
void CheckStaleTokenWrites(const History& history, Verdict& verdict);

// The fence's contract on every answer, not only on what it applied: a
// write whose token is below one the ledger applied before it arrived is
// answered as a duplicate (told that its window stood) instead of being
// rejected. A fenced resource rejects a stale token whatever the write
// (both ledgers check the fence before the idempotency key), so that a
// deposed writer learns at its first write that it is deposed. Writes that
// arrived at the same instant as the newer token's are not judged: their
// order at the ledger is not in the history.
void CheckStaleTokensAccepted(const History& history, Verdict& verdict);

// Applied writes of two holders interleave (A, B, A in ledger order), or two
// holders applied writes under one token.
void CheckDualWriters(const History& history, Verdict& verdict);

// One settlement window applied more than once.
void CheckDuplicateSettlements(const History& history, Verdict& verdict);

}  // namespace leasesim::checker
