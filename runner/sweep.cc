#include "runner/sweep.h"

#include <cassert>
#include <cctype>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <map>
#include <thread>

#include "base/hash_text.h"
#include "base/program_name.h"
#include "runner/suite_judge.h"
#include "runner/sweep_divergence.h"
#include "runner/sweep_timeline.h"
#include "sim/trace.h"
#include "runner/protocol_stores.h"

namespace leasesim::runner {
namespace {

// Quotes a shell word only when it needs it.
std::string ShellWord(const std::string& word) {
  bool plain = !word.empty();
  for (char c : word) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '-' || c == '_')) plain = false;
  }
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

// One run of the sweep, as a worker hands it back.
struct Done {
  RunResult result;  // without its history
  std::optional<reports::Timeline> timeline;  // failing runs only
  bool nondeterministic = false;
};

// Runs the scenario again until two retained traces disagree, and explains
// where; `first_hash` and `second` are the two runs that disagreed.
checker::Violation ExplainMismatch(const RunFunction& run, const Scenario& scenario, std::uint64_t seed,
                                   std::uint64_t first_hash, const RunResult& second) {
  checker::Violation violation;
  violation.kind = "nondeterminism";
  std::string message = "two runs of the same scenario and seed gave trace hashes " + base::HashText(first_hash) +
                        " and " + base::HashText(second.trace_hash);
  const RunResult third = run(scenario, seed, {.retain_trace = true, .keep_history = false});
  if (third.trace_hash != second.trace_hash) {
    if (const auto divergence = FirstDivergence(second.trace, third.trace)) {
      message += "; rerun with traces retained, the first divergent " + DescribeDivergence(*divergence);
      violation.at_ns = divergence->time;
    } else {
      message += "; rerun with traces retained gave hash " + base::HashText(third.trace_hash) +
                 " but identical retained traces (the hash covers steps the trace does not keep)";
    }
  } else {
    message += "; two reruns with traces retained agreed (" + base::HashText(third.trace_hash) +
               "), so the difference is between runs with and without trace retention or is intermittent";
  }
  violation.message = std::move(message);
  return violation;
}

Done RunOne(const RunFunction& run, const Scenario& scenario, std::uint64_t seed, const std::string& file,
            const SweepOptions& options) {
  const bool check_determinism = options.check_determinism;
  Done done;
  done.result = run(scenario, seed, {.retain_trace = false, .keep_history = true});
  if (check_determinism) {
    const RunResult again = run(scenario, seed, {.retain_trace = true, .keep_history = false});
    if (again.trace_hash != done.result.trace_hash || again.trace_events != done.result.trace_events) {
      done.nondeterministic = true;
      checker::Violation violation = ExplainMismatch(run, scenario, seed, done.result.trace_hash, again);
      done.result.verdict.violations.push_back(violation);
      done.result.unexpected.push_back(std::move(violation));
    }
  }
  if (!done.result.ok()) done.timeline = BuildTimeline(done.result, file, options.protocol);
  done.result.history = {};
  done.result.trace = {};
  return done;
}

// What the summary says about the sweep as a whole, before any run.
reports::SweepSummary SweepHeader(const ScenarioFile& file, const std::vector<const Scenario*>& scenarios,
                                  const std::string& seeds_text, const SweepOptions& options) {
  reports::SweepSummary summary;
  summary.scenario_file = file.path;
  summary.seeds = seeds_text;
  summary.shard = options.shard;
  summary.protocol = options.protocol;
  summary.file_digest = file.file_digest;
  summary.suite.fault_points = file.require_fault_points;
  summary.suite.probes = file.require_probes;
  for (const Scenario* scenario : scenarios) {
    summary.scenarios.push_back(scenario->name);
    summary.scenario_protocols[scenario->name] = options.protocol.empty() ? scenario->protocol : options.protocol;
    const auto digest = file.scenario_digests.find(scenario->name);
    if (digest != file.scenario_digests.end()) summary.scenario_digests[scenario->name] = digest->second;
  }
  return summary;
}

}  // namespace

std::string ReplayCommand(const std::string& file, const std::string& scenario, std::uint64_t seed,
                          const std::string& protocol) {
  return base::ProgramName() + " replay " + ShellWord(file) + " --scenario " + ShellWord(scenario) + " --seed " +
         std::to_string(seed) + (protocol.empty() ? "" : " --protocol " + ShellWord(protocol));
}

reports::RunSummary Summarize(const RunResult& result, const std::string& file, const std::string& protocol) {
  reports::RunSummary summary;
  summary.scenario = result.scenario;
  summary.seed = result.seed;
  summary.ok = result.ok();
  summary.trace_hash = result.trace_hash;
  for (const checker::Violation& violation : result.verdict.violations) {
    bool is_expected = true;
    for (const checker::Violation& u : result.unexpected) {
      if (u.kind == violation.kind && u.message == violation.message) is_expected = false;
    }
    summary.violations.push_back(reports::ViolationSummary{violation.kind, violation.message,
                                                           violation.at_ns, is_expected});
  }
  summary.notes = result.verdict.notes;
  summary.figures = result.figures;
  summary.replay_command = ReplayCommand(file, result.scenario, result.seed, protocol);
  return summary;
}

namespace {

// One run a sweep owes: a scenario at a seed.
struct SweepJob {
  const Scenario* scenario;
  std::uint64_t seed;
};

// --protocol: every scenario runs `protocol` (copies kept in `copies`, in
// file order); with none given, the scenarios as they are.
std::vector<const Scenario*> WithProtocol(const std::vector<const Scenario*>& scenarios, const std::string& protocol,
                                          std::vector<Scenario>& copies) {
  if (protocol.empty()) return scenarios;
  copies.reserve(scenarios.size());
  std::vector<const Scenario*> chosen;
  chosen.reserve(scenarios.size());
  for (const Scenario* scenario : scenarios) {
    copies.push_back(*scenario);
    SetScenarioProtocol(copies.back(), protocol);
    chosen.push_back(&copies.back());  // no reallocation: reserved above
  }
  return chosen;
}

// The runs of `shard`, in sweep order (every seed of a scenario before the next scenario).
std::vector<SweepJob> ShardJobs(const std::vector<const Scenario*>& scenarios, const std::vector<std::uint64_t>& seeds,
                                const reports::Shard& shard) {
  std::vector<SweepJob> jobs;
  std::size_t index = 0;
  for (const Scenario* scenario : scenarios) {
    for (std::uint64_t seed : seeds) {
      if (InShard(index++, shard)) jobs.push_back({scenario, seed});
    }
  }
  return jobs;
}

// What the sweep's workers and its emitting thread share, under `mutex`.
struct SharedRuns {
  std::mutex mutex;
  std::condition_variable changed;
  std::size_t next_job = 0;
  std::size_t next_emit = 0;
  std::size_t completed = 0;
  std::size_t completed_failed = 0;
  std::deque<std::optional<Done>> ready;  // ready[i] is job next_emit + i
  std::exception_ptr failure;
  bool stopping = false;  // --fail-fast: no new runs start
};

// One worker: takes runs in sweep order, never more than `window` ahead of
// the next one to emit, until none is left or the sweep stops.
void WorkOnRuns(SharedRuns& shared, const std::vector<SweepJob>& jobs, std::size_t window,
                const std::function<Done(const SweepJob&)>& run_one) {
  for (;;) {
    std::size_t mine = 0;
    {
      std::unique_lock lock(shared.mutex);
      shared.changed.wait(lock, [&] {
        return shared.next_job >= jobs.size() || shared.next_job < shared.next_emit + window || shared.failure ||
               shared.stopping;
      });
      if (shared.next_job >= jobs.size() || shared.failure || shared.stopping) return;
      mine = shared.next_job++;
    }
    std::optional<Done> done;
    try {
      done = run_one(jobs[mine]);
    } catch (...) {
      std::lock_guard lock(shared.mutex);
      if (!shared.failure) shared.failure = std::current_exception();
      shared.changed.notify_all();
      return;
    }
    std::lock_guard lock(shared.mutex);
    ++shared.completed;
    shared.completed_failed += done->result.ok() ? 0 : 1;
    const std::size_t slot = mine - shared.next_emit;
    if (shared.ready.size() <= slot) shared.ready.resize(slot + 1);
    shared.ready[slot] = std::move(done);
    shared.changed.notify_all();
  }
}

// Runs `jobs` on `workers` threads (at least two) and hands each finished run
// to `emit` in sweep order, with `progress` counted as runs finish; once
// `emit` says false no new run starts. Finished runs wait until every earlier
// one has been emitted; the window a worker may run ahead bounds what waits.
// A run that throws stops the sweep and the exception is rethrown here.
void RunOnWorkers(const std::vector<SweepJob>& jobs, std::size_t workers,
                  const std::function<Done(const SweepJob&)>& run_one, SweepProgress& progress,
                  const std::function<void(const SweepProgress&)>& on_progress,
                  const std::function<bool(Done&)>& emit) {
  assert(workers >= 2);
  const std::size_t window = 16 * workers;
  SharedRuns shared;
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (std::size_t w = 0; w < workers; ++w) {
    threads.emplace_back([&] { WorkOnRuns(shared, jobs, window, run_one); });
  }
  {
    std::unique_lock lock(shared.mutex);
    while (shared.next_emit < jobs.size()) {
      shared.changed.wait(lock, [&] { return shared.failure || shared.completed != progress.done; });
      if (shared.failure) break;
      progress.done = shared.completed;
      progress.failed = shared.completed_failed;
      std::vector<Done> batch;
      while (!shared.ready.empty() && shared.ready.front().has_value()) {
        batch.push_back(std::move(*shared.ready.front()));
        shared.ready.pop_front();
        ++shared.next_emit;
      }
      shared.changed.notify_all();  // the window moved
      lock.unlock();
      if (on_progress) on_progress(progress);
      bool go_on = true;
      for (Done& done : batch) go_on = go_on && emit(done);
      lock.lock();
      if (!go_on) {
        shared.stopping = true;
        shared.changed.notify_all();
        break;
      }
    }
  }
  for (std::thread& thread : threads) thread.join();
  if (shared.failure) std::rethrow_exception(shared.failure);
}

}  // namespace

SweepOutcome RunSweep(const ScenarioFile& file, const std::vector<const Scenario*>& scenarios,
                      const std::vector<std::uint64_t>& seeds, const std::string& seeds_text,
                      const SweepOptions& options, const std::function<void(const RunResult&)>& on_run,
                      const std::function<void(const SweepProgress&)>& on_progress) {
  SweepOutcome outcome;
  outcome.summary = SweepHeader(file, scenarios, seeds_text, options);
  // Runs handed to options.on_summary are not kept: the suite is judged on
  // the largest value each figure took.
  std::map<std::string, std::int64_t> maxima;
  std::vector<Scenario> overridden;  // outlives the jobs that point into it
  const std::vector<SweepJob> jobs =
      ShardJobs(WithProtocol(scenarios, options.protocol, overridden), seeds, options.shard);
  const RunFunction run = options.run ? options.run : RunFunction(&RunScenario);
  auto run_one = [&](const SweepJob& job) { return RunOne(run, *job.scenario, job.seed, file.path, options); };
  SweepProgress progress{.total = jobs.size()};

  // Takes finished runs in sweep order; false once --fail-fast stops.
  auto emit = [&](Done& done) {
    if (!outcome.summary.stopped.empty()) return false;
    if (on_run) on_run(done.result);
    if (done.nondeterministic) ++outcome.nondeterministic;
    if (done.timeline && outcome.timelines.size() < options.timelines_max) {
      outcome.timelines.push_back(std::move(*done.timeline));
    }
    reports::RunSummary summary = Summarize(done.result, file.path, options.protocol);
    if (options.on_summary) {
      for (const auto& [name, value] : summary.figures) {
        auto [it, fresh] = maxima.emplace(name, value);
        if (!fresh) it->second = std::max(it->second, value);
      }
      options.on_summary(summary);
    } else {
      outcome.summary.runs.push_back(std::move(summary));
    }
    if (options.fail_fast && !done.result.ok()) {
      outcome.summary.stopped = "fail-fast: stopped at the first failing run, " + done.result.scenario + " seed " +
                                std::to_string(done.result.seed);
    }
    return outcome.summary.stopped.empty();
  };

  const std::size_t workers = std::min<std::size_t>(static_cast<std::size_t>(std::max(options.jobs, 1)), jobs.size());
  if (workers <= 1) {
    for (const SweepJob& job : jobs) {
      Done done = run_one(job);
      ++progress.done;
      progress.failed += done.result.ok() ? 0 : 1;
      if (on_progress) on_progress(progress);
      if (!emit(done)) break;
    }
  } else {
    RunOnWorkers(jobs, workers, run_one, progress, on_progress, emit);
  }
  // Only the whole sweep judges the suite-level requirements; a shard
  // records them for `leasesim merge`.
  if (options.shard.whole() && outcome.summary.stopped.empty()) {
    if (options.on_summary) {
      JudgeSuite(outcome.summary, {&maxima});
    } else {
      JudgeSuite(outcome.summary);
    }
  }
  return outcome;
}

reports::SweepSummary RunSweep(const ScenarioFile& file, const std::vector<const Scenario*>& scenarios,
                               const std::vector<std::uint64_t>& seeds, const std::string& seeds_text,
                               const std::function<void(const RunResult&)>& on_run) {
  return RunSweep(file, scenarios, seeds, seeds_text, SweepOptions{}, on_run).summary;
}

}  // namespace leasesim::runner
