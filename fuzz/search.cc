#include "fuzz/search.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <set>

#include "base/figures.h"
#include "base/prng.h"
#include "base/units.h"
#include "core/fault_points.h"
#include "core/probes.h"
#include "fuzz/near_miss_records.h"
#include "runner/case_generator.h"
#include "runner/fault_generator.h"

namespace leasesim::fuzz {
namespace {

constexpr std::size_t kCorpusMax = 512;
constexpr std::size_t kChoicesMax = 4096;

// A case: the answers to the generator's questions, in the order asked,
// and the simulator's seed. Questions past the end are answered from a
// PRNG and appended, so a fresh case is an empty sequence.
struct Case {
  std::vector<std::uint32_t> choices;
  std::uint64_t seed = 1;
  std::uint64_t extend_seed = 1;  // answers past the end of `choices`
  // Where each part of the case (FaultDraw::BeginSection) began in
  // `choices`, as its last generation asked them.
  std::vector<std::size_t> sections;
};

// Answers the generator's questions from a case's recorded choices, drawing
// and recording new ones past their end.
class SequenceDraw final : public runner::FaultDraw {
 public:
  explicit SequenceDraw(Case& c) : case_(c), extend_(c.extend_seed) { case_.sections.clear(); }
  std::uint64_t Below(std::uint64_t bound) override {
    assert(bound > 0);
    if (next_ >= case_.choices.size()) {
      if (case_.choices.size() >= kChoicesMax) return 0;
      case_.choices.push_back(static_cast<std::uint32_t>(extend_.Next()));
    }
    return case_.choices[next_++] % bound;
  }
  void BeginSection() override {
    if (case_.sections.size() < kChoicesMax) case_.sections.push_back(next_);
  }

 private:
  Case& case_;
  base::Prng extend_;
  std::size_t next_ = 0;
};

// Figures that count everything and so say nothing about which path ran.
bool Uninformative(const std::string& figure) {
  return figure == "sim_events" || figure == "store_ops" || figure == "settlements_applied" ||
         figure == "leaderless_ms" || figure == "recovery_ms";
}

// The features a run reached: every probe and fault point reached, and the
// pairs of them; every other figure by the order of magnitude (log2) of its
// value, as AFL buckets hit counts — so near misses such as two leaders at
// once (overlap_ms), fenced or duplicate writes, or unusual demotions count
// as new without the search knowing what any of them mean.
std::vector<std::string> Features(const runner::RunResult& result) {
  std::vector<std::string> singles;
  std::vector<std::string> features;
  for (const auto& [name, count] : result.figures) {
    if (count <= 0) continue;
    if (name.starts_with(base::kProbeFigurePrefix) || name.starts_with(base::kFaultPointFigurePrefix)) {
      singles.push_back(name);
      continue;
    }
    if (Uninformative(name)) continue;
    int bucket = 0;
    for (std::int64_t v = count; v > 1 && bucket < 62; v >>= 1) ++bucket;
    features.push_back(name + "#" + std::to_string(bucket));
  }
  features.insert(features.end(), singles.begin(), singles.end());
  for (std::size_t i = 0; i < singles.size(); ++i) {
    for (std::size_t j = i + 1; j < singles.size(); ++j) features.push_back(singles[i] + "+" + singles[j]);
  }
  return features;
}

Case Fresh(std::uint64_t session_seed, int index) {
  Case fresh;
  fresh.seed = base::DeriveSeed(session_seed, "case/" + std::to_string(index)) % 1'000'000 + 1;
  fresh.extend_seed = base::DeriveSeed(session_seed, "choices/" + std::to_string(index));
  return fresh;
}

struct Kept {
  Case c;
  std::vector<std::size_t> features;  // ids (Session::feature_ids_)
  bool near_miss = false;             // two leaders at once, a write after the lease, or a stale write at the ledger
  bool close_call = false;            // a near miss, or a distance to a violation within 2% of the lease
};

// Whether a figure that measures a close call (0: none happened) came
// within 2% of the lease.
bool WithinFiftiethOfLease(const runner::Scenario& scenario, const runner::RunResult& result,
                           const std::string& figure) {
  const auto it = result.figures.find(figure);
  if (it == result.figures.end() || it->second <= 0) return false;
  return it->second * base::kNanosPerMilli * 50 < scenario.timing.lease_duration;
}

// Whether a run came close to two leaders at once, to a stale write that
// wins or to a broken lease contract: it had two leaders (a near miss), or
// one of the distances to a violation (DistancesToViolation()) came within
// 2% of the lease. Chance (which message takes its tail, where a poll
// falls) then decides whether the same world and faults cross the line.
bool CloseCall(const runner::Scenario& scenario, const runner::RunResult& result, bool near_miss) {
  if (near_miss) return true;
  for (std::string_view distance : DistancesToViolation()) {
    if (WithinFiftiethOfLease(scenario, result, std::string(distance))) return true;
  }
  return false;
}

// One search: the corpus of kept cases, the features seen, and the loop that
// generates, runs, learns and stops.
class Session {
 public:
  explicit Session(const SearchOptions& options)
      : options_(options), prng_(base::DeriveSeed(options.seed, "fuzz-session")) {}

  SearchOutcome Run();

 private:
  Case NextCase(int index);
  Case Mutate(const Kept& parent);
  const Kept& PickParent();
  bool Learn(const Case& c, const runner::Scenario& scenario, const runner::RunResult& result);
  void Watch(const runner::RunResult* result, bool near_miss, bool finished);
  bool OutOfTime() const;

  const SearchOptions& options_;
  base::Prng prng_;
  std::vector<Kept> corpus_;
  // Features are named once, then counted by id: parent picks weigh every
  // kept case's features on every mutation.
  std::map<std::string, std::size_t> feature_ids_;
  std::vector<std::uint64_t> seen_;  // by feature id: cases reaching it
  NearMissRecords records_;
  SearchOutcome outcome_;
  SearchProgress progress_;  // for on_progress only: read by nothing here
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();  // determinism-ok: budget only
};

bool Session::OutOfTime() const {
  if (options_.time_budget_ms <= 0) return false;
  const auto spent = std::chrono::steady_clock::now() - start_;  // determinism-ok: decides how many cases, not which
  return std::chrono::duration_cast<std::chrono::milliseconds>(spent).count() >= options_.time_budget_ms;
}

Case Session::NextCase(int index) {
  const bool mutate = options_.steer && !corpus_.empty() && prng_.UniformBelow(100) < 60;
  if (mutate) {
    ++outcome_.mutated;
    return Mutate(PickParent());
  }
  return Fresh(options_.seed, index);
}

// Whether a kept case went beyond the assumptions and still reached a near
// miss of split brain: two leaders at once, or a write after the lease.
bool NearMissBeyond(const Kept& kept) {
  if (kept.c.choices.size() <= runner::kModeChoice || kept.c.choices[runner::kModeChoice] % 100 >= 50) return false;
  return kept.near_miss;
}

Case Session::Mutate(const Kept& parent) {
  Case child = parent.c;
  child.extend_seed = prng_.Next();
  if (NearMissBeyond(parent) && prng_.UniformBelow(2) == 0) {
    // The same case within the assumptions: does the near miss survive?
    child.choices[runner::kModeChoice] = 50 + child.choices[runner::kModeChoice] % 50;
    return child;
  }
  // Close calls get another run of chance more often than the rest.
  const std::uint64_t how = prng_.UniformBelow(8);
  if (how == 0 || (parent.close_call && how <= 3) || child.choices.empty()) {
    child.seed = prng_.UniformRange(1, 1'000'000);  // the same world and faults, another run of chance
    return child;
  }
  if (how <= 2) {
    // Keep a prefix (the world and the first faults), draw the rest afresh.
    child.choices.resize(prng_.UniformBelow(child.choices.size()));
    return child;
  }
  if (how <= 4 && !child.sections.empty()) {
    // Redraw one part of the case whole (a node's clock, the network, one
    // fault), the rest kept: one thing about the world changes at a time.
    const std::size_t section = prng_.UniformBelow(child.sections.size());
    const std::size_t begin = child.sections[section];
    const std::size_t end = section + 1 < child.sections.size() ? child.sections[section + 1] : child.choices.size();
    for (std::size_t i = begin; i < end && i < child.choices.size(); ++i) {
      child.choices[i] = static_cast<std::uint32_t>(prng_.Next());
    }
    return child;
  }
  const std::uint64_t changes = 1 + prng_.UniformBelow(4);
  for (std::uint64_t i = 0; i < changes; ++i) {
    child.choices[prng_.UniformBelow(child.choices.size())] = static_cast<std::uint32_t>(prng_.Next());
  }
  return child;
}

const Kept& Session::PickParent() {
  // Weighted by the rarity of what each kept case reached: a case that is
  // the only one reaching a probe weighs a million, a common one little.
  std::vector<std::uint64_t> weights;
  std::uint64_t total = 0;
  for (const Kept& kept : corpus_) {
    std::uint64_t weight = 1;
    for (std::size_t feature : kept.features) weight += 1'000'000 / seen_[feature];
    weight += 1'000'000 * static_cast<std::uint64_t>(records_.HeldBy(weights.size()));
    weights.push_back(weight);
    total += weight;
  }
  std::uint64_t pick = prng_.UniformBelow(total);
  for (std::size_t i = 0; i < corpus_.size(); ++i) {
    if (pick < weights[i]) return corpus_[i];
    pick -= weights[i];
  }
  return corpus_.back();
}

// Learns from a case's run; whether it was a near miss (two leaders at
// once, a write after the lease, a stale write reaching the ledger).
bool Session::Learn(const Case& c, const runner::Scenario& scenario, const runner::RunResult& result) {
  Kept kept{c, {}, false, false};
  bool fresh = false;
  for (const std::string& feature : Features(result)) {
    const auto [it, added] = feature_ids_.emplace(feature, seen_.size());
    if (added) seen_.push_back(0);
    fresh = (seen_[it->second]++ == 0) || fresh;
    kept.features.push_back(it->second);
    kept.near_miss = kept.near_miss || feature.starts_with("overlap_ms#") || feature.starts_with("writes_after_lease#") ||
                     feature.starts_with("stale_arrivals#");
  }
  for (const auto& [name, count] : result.figures) {
    const bool probe = name.starts_with(base::kProbeFigurePrefix);
    if (count <= 0 || (!probe && !name.starts_with(base::kFaultPointFigurePrefix))) continue;
    if (++outcome_.reached[name] == 1 && probe) ++progress_.probes_reached;
  }
  kept.close_call = CloseCall(scenario, result, kept.near_miss);
  const bool near_miss = kept.near_miss;
  if (corpus_.size() >= kCorpusMax) return near_miss;
  const bool closer = records_.Offer(result.figures, corpus_.size());
  if (fresh || closer) corpus_.push_back(std::move(kept));
  return near_miss;
}

// Tells the watcher, if any, where the session stands; `result` is the
// case just run (null before the first).
void Session::Watch(const runner::RunResult* result, bool near_miss, bool finished) {
  if (!options_.on_progress) return;
  progress_.cases = outcome_.runs;
  progress_.finished = finished;
  if (result != nullptr) {
    progress_.near_misses += near_miss ? 1 : 0;
    progress_.violating += result->ok() ? 0 : 1;
    for (std::string_view distance : DistancesToViolation()) {
      const auto it = result->figures.find(std::string(distance));
      if (it == result->figures.end() || it->second <= 0) continue;
      if (!progress_.closest.empty() && it->second >= progress_.closest_ms) continue;
      progress_.closest = distance;
      progress_.closest_ms = it->second;
    }
  }
  options_.on_progress(progress_);
}

SearchOutcome Session::Run() {
  assert(options_.fails);
  progress_ = {.runs_max = options_.runs, .time_budget_ms = options_.time_budget_ms,
               .probes_total = static_cast<int>(core::kProbeNames.size())};
  Watch(nullptr, false, false);
  for (int index = 1; index <= options_.runs && !OutOfTime(); ++index) {
    Case c = NextCase(index);
    SequenceDraw draw(c);
    runner::Scenario scenario = runner::GenerateCase(draw, options_.protocol);
    scenario.name = "generated";
    const runner::RunResult result = runner::RunScenario(scenario, c.seed);
    outcome_.runs = index;
    const bool near_miss = Learn(c, scenario, result);
    const bool fails = options_.fails(scenario, c.seed, result);
    Watch(&result, near_miss, false);
    if (!fails) continue;
    outcome_.failed = true;
    outcome_.failing_run = index;
    outcome_.failing = std::move(scenario);
    outcome_.run_seed = c.seed;
    outcome_.result = result;
    break;
  }
  for (std::string_view probe : core::kProbeNames) {
    if (!outcome_.reached.contains(std::string(base::kProbeFigurePrefix) + std::string(probe))) {
      outcome_.probes_never.emplace_back(probe);
    }
  }
  outcome_.corpus = static_cast<int>(corpus_.size());
  Watch(nullptr, false, true);
  return outcome_;
}

}  // namespace

SearchOutcome Search(const SearchOptions& options) { return Session(options).Run(); }

runner::Scenario FreshCase(std::uint64_t session_seed, int index, const std::string& protocol,
                           std::uint64_t& run_seed) {
  Case c = Fresh(session_seed, index);
  SequenceDraw draw(c);
  run_seed = c.seed;
  return runner::GenerateCase(draw, protocol);
}

}  // namespace leasesim::fuzz
