#pragma once
// A run's timeline for the reports, from its recorded history.

#include <string>

#include "reports/timeline.h"
#include "runner/run.h"

namespace leasesim::runner {

// `result` must have been run with keep_history. `file` is the scenario file
// path as the user wrote it (for the replay command).
//
// The store lane comes from the history's create/CAS operations in the
// store's own processing order (applied_seq), keeping those that took effect
// (outcome ok; for a lost reply, decided by replaying the create/CAS rule on
// the record's version): each holder starts when its client learned the
// write succeeded (for a lost reply, when it was sent) and lasts until the
// next effective write; renewals by the same holder and term merge into one
// span.
reports::Timeline BuildTimeline(const RunResult& result, const std::string& file, const std::string& protocol = "");

// `leasesim replay ... --html PATH`: writes the run's timeline as one
// self-contained page (reports::TimelineHtml), atomically. `result` must have
// been run with keep_history. Returns an error message, or empty on success.
std::string WriteTimelineHtml(const std::string& path, const RunResult& result, const std::string& file,
                              const std::string& protocol = "");

}  // namespace leasesim::runner
