#pragma once
// Checks over the ledger's applied writes: fencing, dual writers and
// exactly-once settlement. Pure functions of the history.

#include "checker/history.h"
#include "checker/verdict.h"

namespace leasesim::checker {

// A write applied with a token below one the ledger had already applied.
void CheckStaleTokenWrites(const History& history, Verdict& verdict);

// Applied writes of two holders interleave (A, B, A in ledger order), or two
// holders applied writes under one token.
void CheckDualWriters(const History& history, Verdict& verdict);

// One settlement window applied more than once.
void CheckDuplicateSettlements(const History& history, Verdict& verdict);

}  // namespace leasesim::checker
