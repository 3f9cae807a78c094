#include "checker/service_contract_checks.h"

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/units.h"
#include "checker/breach_report.h"
#include "checker/fault_kind.h"
#include "checker/format.h"
#include "checker/history_index.h"
#include "checker/store_writes.h"
#include "checker/violation_kind.h"

namespace leasesim::checker {
namespace {

// One leadership as the callbacks reported it: started, and stopped (or not).
struct Leadership {
  std::int64_t term = 0;
  TimeNs started_ns = 0;
  TimeNs stopped_ns = kNeverNs;
  TimeNs lost_ns = kNeverNs;  // the job's first check that found the lease gone: the leadership is over
  bool went_on = false;       // a later check of the job proved the lease again
};

// What one process incarnation reported and believed.
struct Process {
  int node = 0;
  std::vector<Leadership> leaderships;                // in the order started
  std::vector<const LeadershipBelief*> beliefs;       // by from_ns
  std::map<std::int64_t, TimeNs> last_stop_of_term;   // term -> its latest stop
  bool open = false;                                  // leaderships.back() not stopped yet
};

bool Hits(const FaultRecord& fault, int node) {
  return std::find(fault.nodes.begin(), fault.nodes.end(), node) != fault.nodes.end();
}

std::string Who(const std::string& process, int node) {
  return "node " + std::to_string(node) + " (" + process + ")";
}

// The belief of `term` the process held at `at`, if any.
const LeadershipBelief* HeldAt(const History& history, const Process& p, std::int64_t term, TimeNs at) {
  for (const LeadershipBelief* b : p.beliefs) {
    if (b->term == term && b->from_ns <= at && at <= BeliefEnd(*b, history)) return b;
  }
  return nullptr;
}

// Order of the callbacks of one process: each leadership started once, then
// stopped once, no job step of a term outside its leadership.
class OrderJudge {
 public:
  OrderJudge(const History& history, std::map<std::string, Process>& processes, BreachReport& report)
      : history_(history), processes_(processes), report_(report) {}

  void Started(const CallbackRecord& c, Process& p) {
    if (p.open) {
      const Leadership& still = p.leaderships.back();
      report_.Breach(ViolationKind::kCallbackOrder, c.at_ns, {c.node},
                     Who(c.process, c.node) + " reported started leading term " + std::to_string(c.term) + " at " +
                         FormatTime(c.at_ns) + " while its leadership of term " + std::to_string(still.term) +
                         " (started at " + FormatTime(still.started_ns) + ") was never reported stopped");
    }
    if (HeldAt(history_, p, c.term, c.at_ns) == nullptr) {
      report_.Breach(ViolationKind::kCallbackOrder, c.at_ns, {c.node},
                     Who(c.process, c.node) + " reported started leading term " + std::to_string(c.term) + " at " +
                         FormatTime(c.at_ns) + " although it held no lease in that term then");
    }
    p.leaderships.push_back(Leadership{.term = c.term, .started_ns = c.at_ns});
    p.open = true;
  }

  void Stopped(const CallbackRecord& c, Process& p) {
    if (!p.open || p.leaderships.back().term != c.term) {
      report_.Breach(ViolationKind::kCallbackOrder, c.at_ns, {c.node},
                     Who(c.process, c.node) + " reported stopped leading term " + std::to_string(c.term) + " at " +
                         FormatTime(c.at_ns) + " with no leadership of that term started and not yet stopped");
      return;
    }
    p.leaderships.back().stopped_ns = c.at_ns;
    p.last_stop_of_term[c.term] = c.at_ns;
    p.open = false;
  }

  void JobStep(const CallbackRecord& c, Process& p) {
    if (p.open && p.leaderships.back().term == c.term) {
      Leadership& l = p.leaderships.back();
      if (!c.lease_valid) {
        l.lost_ns = std::min(l.lost_ns, c.at_ns);
      } else if (l.lost_ns != kNeverNs && !l.went_on) {
        l.went_on = true;
        report_.Breach(ViolationKind::kCallbackOrder, c.at_ns, {c.node},
                       "the job of term " + std::to_string(c.term) + " on " + Who(c.process, c.node) +
                           " found the lease gone at " + FormatTime(l.lost_ns) + ", yet went on under it at " +
                           FormatTime(c.at_ns) + ": the leadership it saw end was never reported stopped, nor the "
                           "next one started");
      }
      return;
    }
    const auto stop = p.last_stop_of_term.find(c.term);
    if (stop != p.last_stop_of_term.end()) {
      report_.Breach(ViolationKind::kJobAfterStop, c.at_ns, {c.node},
                     "job code of term " + std::to_string(c.term) + " ran on " + Who(c.process, c.node) + " at " +
                         FormatTime(c.at_ns) + ", after that term's leadership was reported stopped at " +
                         FormatTime(stop->second));
      return;
    }
    report_.Breach(ViolationKind::kCallbackOrder, c.at_ns, {c.node},
                   "job code of term " + std::to_string(c.term) + " ran on " + Who(c.process, c.node) + " at " +
                       FormatTime(c.at_ns) + " although no leadership of that term was reported started");
  }

  void Judge() {
    for (const CallbackRecord& c : history_.callbacks) {
      Process& p = processes_[c.process];
      p.node = c.node;
      switch (c.kind) {
        case CallbackKind::kStarted: Started(c, p); break;
        case CallbackKind::kStopped: Stopped(c, p); break;
        case CallbackKind::kJobStep: JobStep(c, p); break;
        case CallbackKind::kNewLeader: break;
      }
    }
  }

 private:
  const History& history_;
  std::map<std::string, Process>& processes_;
  BreachReport& report_;
};

// A crash or a shutdown of the node began in [from, to]: its process may be
// gone before a callback fell due.
bool NodeEndedWithin(const History& history, int node, TimeNs from, TimeNs to) {
  for (const FaultRecord& f : history.faults) {
    if (!IsFaultKind(f.kind, FaultKind::kCrash) && !IsFaultKind(f.kind, FaultKind::kShutdown)) continue;
    if (!Hits(f, node)) continue;
    if (from <= f.start_ns && f.start_ns <= to) return true;
  }
  return false;
}

// The leadership of `term` under way at `at` (started by then, not stopped
// before it); null when none.
const Leadership* UnderWay(const Process& p, std::int64_t term, TimeNs at) {
  for (const Leadership& l : p.leaderships) {
    if (l.term == term && l.started_ns <= at && (l.stopped_ns == kNeverNs || l.stopped_ns >= at)) return &l;
  }
  return nullptr;
}

// A belief of `term` that began in [from, to]: the lease re-confirmed in the
// same term before the job looked, the same leadership going on.
bool ResumedWithin(const Process& p, std::int64_t term, TimeNs from, TimeNs to) {
  for (const LeadershipBelief* b : p.beliefs) {
    if (b->term == term && from <= b->from_ns && b->from_ns <= to) return true;
  }
  return false;
}

// The timing of the callbacks: started within the allowance of a lease
// that lasted that long, stopped within it of the lease's end.
class TimingJudge {
 public:
  TimingJudge(const History& history, BreachReport& report, TimeNs allowance)
      : history_(history), report_(report), allowance_(allowance) {}

  void Judge(const std::string& name, const Process& p) {
    for (const LeadershipBelief* b : p.beliefs) {
      if (b->end_reason == "crash") continue;
      JudgeStop(name, p, *b);
      JudgeStart(name, p, *b);
    }
    for (const Leadership& l : p.leaderships) JudgeStopAfterLoss(name, p, l);
  }

 private:
  // The job saw the lease gone: it must return, and the runner report the
  // stop, within the allowance.
  void JudgeStopAfterLoss(const std::string& name, const Process& p, const Leadership& l) {
    if (l.lost_ns == kNeverNs || l.went_on) return;
    const TimeNs due = l.lost_ns + allowance_;
    if (l.stopped_ns <= due || due >= history_.end_ns || NodeEndedWithin(history_, p.node, l.started_ns, due)) {
      return;
    }
    report_.Breach(ViolationKind::kCallbackLate, due, {p.node},
                   "the job of term " + std::to_string(l.term) + " on " + Who(name, p.node) +
                       " found the lease gone at " + FormatTime(l.lost_ns) + ", but its leadership was " +
                       (l.stopped_ns == kNeverNs ? std::string("never reported stopped")
                                                 : "reported stopped only at " + FormatTime(l.stopped_ns)) +
                       ", more than " + FormatDuration(allowance_) + " later");
  }

  void JudgeStop(const std::string& name, const Process& p, const LeadershipBelief& b) {
    const TimeNs end = BeliefEnd(b, history_);
    const Leadership* l = UnderWay(p, b.term, end);
    if (l == nullptr) return;
    const TimeNs due = end + allowance_;
    if (l->stopped_ns != kNeverNs && l->stopped_ns <= due) return;
    if (ResumedWithin(p, b.term, end, std::min(due, l->stopped_ns))) return;
    if (due >= history_.end_ns || NodeEndedWithin(history_, b.node, l->started_ns, due)) return;
    report_.Breach(ViolationKind::kCallbackLate, due, {b.node},
                   Who(name, b.node) + "'s lease in term " + std::to_string(b.term) + " ended at " +
                       FormatTime(end) + ", but its leadership (started at " + FormatTime(l->started_ns) +
                       ") was " +
                       (l->stopped_ns == kNeverNs ? std::string("never reported stopped")
                                                  : "reported stopped only at " + FormatTime(l->stopped_ns)) +
                       ", more than " + FormatDuration(allowance_) + " later");
  }

  void JudgeStart(const std::string& name, const Process& p, const LeadershipBelief& b) {
    // The runner starts a leadership once the one before it stopped.
    TimeNs from = b.from_ns;
    for (const Leadership& l : p.leaderships) {
      if (l.started_ns > b.from_ns || l.term == b.term) continue;
      if (l.stopped_ns == kNeverNs) return;  // reported as a late stop
      if (l.stopped_ns > from) from = l.stopped_ns;
    }
    const TimeNs due = from + allowance_;
    if (BeliefEnd(b, history_) <= due || due >= history_.end_ns) return;
    for (const Leadership& l : p.leaderships) {
      if (l.term != b.term) continue;
      if (l.started_ns <= due && (l.stopped_ns == kNeverNs || l.stopped_ns >= b.from_ns)) return;
    }
    if (NodeEndedWithin(history_, b.node, b.from_ns, due)) return;
    report_.Breach(ViolationKind::kCallbackLate, due, {b.node},
                   Who(name, b.node) + " held the lease in term " + std::to_string(b.term) + " from " +
                       FormatTime(b.from_ns) + " to " + FormatTime(BeliefEnd(b, history_)) +
                       ", but no leadership of that term was reported started within " + FormatDuration(allowance_));
  }

  const History& history_;
  BreachReport& report_;
  TimeNs allowance_;
};

// The writes a new-leader report is judged against: with apply instants,
// those that took effect, in applied order (HistoryIndex::writes()); without
// (a live run: the store's order is not in the history), every write that
// did not fail, in history order.
std::vector<const StoreOp*> RecordCandidates(const HistoryIndex& index) {
  if (index.knows_apply_instants()) return {index.writes().begin(), index.writes().end()};
  std::vector<const StoreOp*> writes;
  for (const StoreOp& op : index.history().store_ops) {
    if (op.kind != StoreOpKind::kRead && op.outcome != Outcome::kFail) writes.push_back(&op);
  }
  return writes;
}

// Whether a record naming `holder` was the store's at some instant of
// [from, to]: applied by `to`, and the next write to its key applied no
// earlier than `from`. Without apply instants (a live run): whether
// `holder` had sent a write that did not fail by `to`.
bool NamedByRecordWithin(const HistoryIndex& index, const std::vector<const StoreOp*>& writes,
                         const std::vector<std::size_t>& records_of_holder, TimeNs from, TimeNs to) {
  for (const std::size_t i : records_of_holder) {
    const StoreOp& w = *writes[i];
    if (!index.knows_apply_instants()) {
      if (w.invoke_ns <= to) return true;
      continue;
    }
    if (w.applied_ns > to) continue;
    TimeNs replaced = kNeverNs;
    for (std::size_t j = i + 1; j < writes.size(); ++j) {
      if (writes[j]->key == w.key) {
        replaced = writes[j]->applied_ns;
        break;
      }
    }
    if (replaced >= from) return true;
  }
  return false;
}

// Positions in `writes` of the records of each holder a new-leader report
// named (one pass over the writes, however many reports).
std::map<std::string, std::vector<std::size_t>> RecordsOfNamed(const HistoryIndex& index,
                                                               const std::vector<const StoreOp*>& writes) {
  std::map<std::string, std::vector<std::size_t>> records;
  for (const CallbackRecord& c : index.history().callbacks) {
    if (c.kind == CallbackKind::kNewLeader && !c.leader.empty()) records[c.leader];
  }
  for (std::size_t i = 0; i < writes.size() && !records.empty(); ++i) {
    if (auto it = records.find(writes[i]->value.holder); it != records.end()) it->second.push_back(i);
  }
  return records;
}

void JudgeNewLeaders(const HistoryIndex& index, BreachReport& report, TimeNs allowance) {
  const std::vector<const StoreOp*> writes = RecordCandidates(index);
  const std::map<std::string, std::vector<std::size_t>> records = RecordsOfNamed(index, writes);
  for (const CallbackRecord& c : index.history().callbacks) {
    if (c.kind != CallbackKind::kNewLeader || c.leader.empty()) continue;
    if (NamedByRecordWithin(index, writes, records.at(c.leader), c.at_ns - allowance, c.at_ns)) continue;
    report.Breach(ViolationKind::kNewLeaderNotHolder, c.at_ns, {c.node},
                  Who(c.process, c.node) + " was told at " + FormatTime(c.at_ns) + " that the new leader is " +
                      c.leader + ", but no lease record " +
                      (index.knows_apply_instants() ? "the store held in the " + FormatDuration(allowance) + " before"
                                                    : "written by then") +
                      " named it");
  }
}

}  // namespace

void CheckLeaderCallbacks(const History& history, Verdict& verdict) {
  CheckLeaderCallbacks(HistoryIndex(history), verdict);
}

void CheckLeaderCallbacks(const HistoryIndex& index, Verdict& verdict) {
  const History& history = index.history();
  if (history.callbacks.empty()) return;
  std::map<std::string, Process> processes;
  for (const LeadershipBelief& b : history.beliefs) {
    Process& p = processes[b.holder];
    p.node = b.node;
    p.beliefs.push_back(&b);
  }
  for (auto& [name, p] : processes) {
    std::stable_sort(p.beliefs.begin(), p.beliefs.end(),
                     [](const LeadershipBelief* a, const LeadershipBelief* b) { return a->from_ns < b->from_ns; });
  }
  BreachReport report(history, verdict, "leader callbacks' contract");
  OrderJudge(history, processes, report).Judge();
  if (history.assumptions.callback_bound_ns <= 0) return;
  // A pause within the budget may hold the runner up; its clock may run
  // slow by the drift bound: span / (1 - bound), not span * (1 + bound)
  // (the generic search found a stop reported 356.5 ms after a lease's end
  // on a clock 10% slow, where 324 ms * 1.1 allowed 356.4).
  const TimeNs span = history.assumptions.callback_bound_ns + history.assumptions.pause_budget_ns;
  const TimeNs allowance = base::TrueSpanAtSlowest(span, history.assumptions.drift_bound_ppm);
  TimingJudge timing(history, report, allowance);
  for (const auto& [name, p] : processes) timing.Judge(name, p);
  // A holder seen in a store answer, reported at a later poll, perhaps only
  // once the job of a lost leadership has returned.
  JudgeNewLeaders(index, report, 2 * allowance);
}


namespace {

// How far a leader answer may trail the end of a lease: the protocol's own
// steps take time (a renewal's store call is timed from a deadline read a
// few microseconds before it starts, and the demotion follows its timeout).
constexpr TimeNs kGaugeLagNs = base::kNanosPerMilli;

// The names a leader answer goes by: 1 says "this process leads".
bool IsLeaderAnswer(std::string_view name) { return name == "is_leader" || name == "healthz_leading"; }
// Values that only grow within a process: the term gauge and counters.
bool NeverGoesBack(std::string_view name) {
  return name == "term" || (name.size() > 6 && name.substr(name.size() - 6) == "_total");
}

// A pause or a suspend of `node` under way at `at`: nothing of it answers
// then; the latest end of those under way, or kNeverNs. (One pause may end
// at the very instant the next strikes, at the fault point the process
// reached on resuming: it never ran in between.)
// `suspended` says whether that latest end is a suspend's.
TimeNs PauseCovering(const History& history, int node, TimeNs at, bool& suspended) {
  TimeNs resumed = kNeverNs;
  suspended = false;
  for (const FaultRecord& f : history.faults) {
    if (!IsFaultKind(f.kind, FaultKind::kPause) && !IsFaultKind(f.kind, FaultKind::kSuspend)) continue;
    if (!Hits(f, node)) continue;
    if (f.start_ns > at || at > f.end_ns) continue;
    if (resumed != kNeverNs && f.end_ns <= resumed) continue;
    resumed = f.end_ns;
    suspended = IsFaultKind(f.kind, FaultKind::kSuspend);
  }
  return resumed;
}

// The first crash of `node` at or after `at` (the process is gone), or kNeverNs.
TimeNs CrashFrom(const History& history, int node, TimeNs at) {
  TimeNs first = kNeverNs;
  for (const FaultRecord& f : history.faults) {
    if (!IsFaultKind(f.kind, FaultKind::kCrash) || f.start_ns < at) continue;
    if (!Hits(f, node)) continue;
    first = std::min(first, f.start_ns);
  }
  return first;
}

// The longest lease `node` works with: the stated one, or a longer one its
// own lease records name (a scenario's lease.by_node gives a node its own
// timing, and its timers span that).
TimeNs LeaseSpanOf(const History& history, int node) {
  TimeNs span = history.assumptions.lease_duration_ns;
  for (const StoreOp& op : history.store_ops) {
    if (op.node == node && op.kind != StoreOpKind::kRead) span = std::max(span, op.value.duration_ns);
  }
  return span;
}

// How long `node` was suspended in its lease span before `end`: a timer
// set on its monotonic clock (which stands still meanwhile) to fire at
// `end` fires that much later. (Found with the stated lease alone: a node
// of lease.by_node, its lease twice the stated one, demoted 22 ms late
// after a suspend 2.1 s before its deadline; generic search, seed 2.)
TimeNs SuspendedBefore(const History& history, int node, TimeNs end) {
  const TimeNs since = end - LeaseSpanOf(history, node);
  TimeNs suspended = 0;
  for (const FaultRecord& f : history.faults) {
    if (!IsFaultKind(f.kind, FaultKind::kSuspend)) continue;
    if (!Hits(f, node)) continue;
    suspended += std::max<TimeNs>(0, std::min(f.end_ns, end) - std::max(f.start_ns, since));
  }
  return suspended;
}

// How late a monotonic timer runs for `suspended` of true time spent
// suspended: the clock lost that much, and makes it up at its own rate,
// which may be slow by the drift bound (found by the generic search: a
// node 1.9% slow woke 79.5 ms late after a 78 ms suspend).
TimeNs SuspendLag(const History& history, TimeNs suspended) {
  return base::TrueSpanAtSlowest(suspended, history.assumptions.drift_bound_ppm);
}

// The first instant of [from, to) at which `process` held no lease and its
// host was not paused; kNeverNs when there is none. Where a lease ended,
// the answer may lag by the time the host was suspended before (the Env's
// timers run on the monotonic clock: a protocol cannot wake on time).
TimeNs FirstInstantNotLeading(const History& history, const std::vector<const LeadershipBelief*>& beliefs,
                              int node, TimeNs from, TimeNs to) {
  TimeNs at = from;
  bool lease_ended_here = false;
  while (at < to) {
    TimeNs covered = at;
    for (const LeadershipBelief* b : beliefs) {
      const TimeNs end = BeliefEnd(*b, history);
      if (b->from_ns <= at && at <= end) covered = std::max(covered, end);
    }
    if (covered > at) {
      at = covered;
      lease_ended_here = true;
      continue;
    }
    bool suspended = false;
    const TimeNs resumed = PauseCovering(history, node, at, suspended);
    if (resumed != kNeverNs && resumed > at) {
      // After a pause the process's timers are due at once; after a suspend
      // (its monotonic clock stood still) a lease's end may still lag, and
      // so it may after a pause when a suspend in the lease before had
      // already put the timer off (the generic search, 100k session of
      // seed 1, case 3182: a 262 ms suspend, then a hiccup over the lease's
      // end, and the demotion 58 ms after the hiccup).
      lease_ended_here = lease_ended_here && (suspended || SuspendedBefore(history, node, resumed) > 0);
      at = resumed;
      continue;
    }
    if (!lease_ended_here) return at;
    // Trailing the lease's end by no more than allowed: judged from there
    // on, and a breach then dates from the lease's end.
    const TimeNs lagged = at + kGaugeLagNs + SuspendLag(history, SuspendedBefore(history, node, at));
    if (lagged >= to) return kNeverNs;
    const TimeNs later = FirstInstantNotLeading(history, beliefs, node, lagged, to);
    return later == lagged ? at : later;
  }
  return kNeverNs;
}

// Judges a run's metric samples against the leadership beliefs: counters never
// go back, and a node reports itself leader only while it believes it leads.
class MetricsJudge {
 public:
  MetricsJudge(const History& history, BreachReport& report) : history_(history), report_(report) {
    for (const LeadershipBelief& b : history.beliefs) beliefs_[b.holder].push_back(&b);
  }

  void Judge() {
    const std::vector<MetricSample>& samples = history_.metrics;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const MetricSample& s = samples[i];
      if (NeverGoesBack(s.name)) JudgeGrowth(s);
      if (IsLeaderAnswer(s.name) && s.value != 0) JudgeLeaderAnswer(s, NextOf(i));
    }
  }

 private:
  // When the sample's value was replaced: by the next sample of the same
  // metric of the same process, the process's crash, or the run's end.
  TimeNs NextOf(std::size_t i) const {
    const std::vector<MetricSample>& samples = history_.metrics;
    const MetricSample& s = samples[i];
    TimeNs end = std::min(history_.end_ns, CrashFrom(history_, s.node, s.at_ns));
    for (std::size_t j = i + 1; j < samples.size(); ++j) {
      if (samples[j].process == s.process && samples[j].name == s.name) return std::min(end, samples[j].at_ns);
    }
    return end;
  }

  void JudgeGrowth(const MetricSample& s) {
    auto [it, first] = last_.try_emplace(s.process + "/" + s.name, s.value);
    if (first) return;
    const std::int64_t before = it->second;
    it->second = s.value;
    if (s.value >= before) return;
    report_.Breach(ViolationKind::kMetricRegressed, s.at_ns, {s.node},
                   "the " + s.name + " " + (s.name == "term" ? "gauge" : "counter") + " of " + Who(s.process, s.node) +
                       " went back from " + std::to_string(before) + " to " + std::to_string(s.value) + " at " +
                       FormatTime(s.at_ns));
  }

  void JudgeLeaderAnswer(const MetricSample& s, TimeNs until) {
    static const std::vector<const LeadershipBelief*> kNone;
    const auto found = beliefs_.find(s.process);
    const auto& beliefs = found == beliefs_.end() ? kNone : found->second;
    const TimeNs at = FirstInstantNotLeading(history_, beliefs, s.node, s.at_ns, until);
    if (at == kNeverNs) return;
    const std::string what = "the " + s.name + " answer of " + Who(s.process, s.node) + " said it leads from " +
                             FormatTime(s.at_ns) + " to " + FormatTime(until) + ", but from " + FormatTime(at) +
                             " on it held no valid lease (its host not paused): " + FormatDuration(until - at) +
                             " of a leader that was none";
    report_.Breach(ViolationKind::kLeaderGaugeStale, at, {s.node}, what);
  }

  const History& history_;
  BreachReport& report_;
  std::map<std::string, std::vector<const LeadershipBelief*>> beliefs_;
  std::map<std::string, std::int64_t> last_;  // process/name -> last value
};

}  // namespace

void CheckServiceMetrics(const History& history, Verdict& verdict) {
  if (history.metrics.empty()) return;
  BreachReport report(history, verdict, "service metrics' contract");
  MetricsJudge(history, report).Judge();
}

}  // namespace leasesim::checker
