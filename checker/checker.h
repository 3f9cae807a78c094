#pragma once
// The checker's entry point: every check over a history, in a fixed order.

#include "checker/history.h"
#include "checker/verdict.h"

namespace leasesim::checker {

Verdict CheckHistory(const History& history);

}  // namespace leasesim::checker
