#pragma once
// The answer of a linearizability check over a whole history (all its
// partitions), and the options it runs under.

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "checker/linearizability.h"

namespace leasesim::checker {

// Default step budget: generous for any history a run records (the hardest
// shared history needs well under a million steps) yet bounded, so a
// pathological history ends in `unknown` rather than hanging CI.
inline constexpr std::int64_t kDefaultLinBudget = 200'000'000;

struct LinOptions {
  // Search steps allowed across all partitions, in partition order (sorted by
  // key), so exhaustion happens at the same place on every run.
  std::int64_t budget = kDefaultLinBudget;
};

struct LinResult {
  LinVerdict verdict = LinVerdict::kLinearizable;
  std::int64_t steps = 0;
  std::size_t operations = 0;  // operations searched (after dropping no-ops)
  std::size_t partitions = 0;
  // For kNotLinearizable / kUnknown: the partition (key) concerned.
  std::string partition;
  // For kNotLinearizable: the longest linearizable prefix of that partition
  // and the operation that cannot be placed, as indices into the caller's
  // input list, plus the explanation in words.
  std::vector<std::size_t> longest_prefix;
  std::size_t blocking_op = 0;
  std::string explanation;
};

// One independent part of a history (e.g. one key) and the model for it.
template <LinModel M>
struct LinPartition {
  std::string key;
  M model;
  std::vector<LinOp<typename M::Op>> ops;
};

// A history's operations split by their `key`, one partition a key in key
// order (so the search, and where a budget runs out, never depends on a
// hash): of the ops `keep` admits, each made the partition's LinOp by
// `to_lin(model, op, index)` (index: its place in `ops`, the LinOp's source).
template <LinModel M, class Source, class Keep, class ToLin>
std::vector<LinPartition<M>> PartitionsByKey(std::span<const Source> ops, Keep keep, ToLin to_lin) {
  std::map<std::string, std::vector<std::size_t>> by_key;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (keep(ops[i])) by_key[ops[i].key].push_back(i);
  }
  std::vector<LinPartition<M>> partitions(by_key.size());
  std::size_t index = 0;
  for (const auto& [key, indices] : by_key) {
    LinPartition<M>& partition = partitions[index++];
    partition.key = key;
    partition.ops.reserve(indices.size());
    for (std::size_t i : indices) partition.ops.push_back(to_lin(partition.model, ops[i], i));
    assert(!partition.ops.empty());  // a key is there only for an op kept
  }
  assert(index == partitions.size());
  return partitions;
}

// Steps allowed for re-searching a failed partition to explain it.
inline constexpr std::int64_t kExplanationSteps = 2'000'000;

// Fills `result` with a failed partition's violation: the longest
// linearizable prefix and the operation that cannot be placed after it, as
// indices into the caller's list, and the explanation in words.
template <LinModel M>
void ReportViolation(LinPartition<M>& partition, LinPartitionResult part, LinResult& result) {
  assert(part.verdict == LinVerdict::kNotLinearizable);
  const std::span<const LinOp<typename M::Op>> ops(partition.ops);
  if constexpr (LinPruneHint<M>) {
    // Pruning finds the violation sooner but abandons prefixes early; for
    // the explanation, search this partition again without it (bounded) to
    // show the longest linearizable prefix.
    LinSearch<M, false> plain(partition.model, ops);
    plain.Run(kExplanationSteps);
    result.steps += plain.result().steps;
    if (plain.done() && plain.result().verdict == LinVerdict::kNotLinearizable) part = plain.result();
  }
  result.verdict = LinVerdict::kNotLinearizable;
  result.partition = partition.key;
  result.explanation = ExplainFailure(partition.model, ops, part);
  for (std::size_t op : part.longest_prefix) {
    result.longest_prefix.push_back(static_cast<std::size_t>(partition.ops[op].source));
  }
  result.blocking_op = static_cast<std::size_t>(partition.ops[part.blocking_op].source);
  assert(result.longest_prefix.size() < partition.ops.size());  // the blocking op is not in it
}

// Searches all partitions, interleaved in rounds: each round gives every
// unfinished partition, in order, a quantum of steps that doubles from round
// to round. So a hard but linearizable partition cannot hide an easy
// violation in another, the total work stays within about twice that of the
// partitions that had to be finished, and the answer — including where an
// exhausted budget stops — depends only on the history and the budget.
template <LinModel M>
LinResult SearchPartitions(std::vector<LinPartition<M>>& partitions, const LinOptions& options) {
  assert(options.budget >= 0);
  LinResult result;
  result.partitions = partitions.size();
  std::vector<std::unique_ptr<LinSearch<M>>> searches;
  searches.reserve(partitions.size());
  for (LinPartition<M>& partition : partitions) {
    result.operations += partition.ops.size();
    searches.push_back(std::make_unique<LinSearch<M>>(
        partition.model, std::span<const LinOp<typename M::Op>>(partition.ops)));
  }
  std::int64_t budget = options.budget;
  std::int64_t quantum = 4096;
  bool unfinished = true;
  while (unfinished) {
    unfinished = false;
    for (std::size_t i = 0; i < partitions.size(); ++i) {
      LinSearch<M>& search = *searches[i];
      if (search.done()) continue;
      const std::int64_t before = search.result().steps;
      search.Run(std::min(quantum, budget));
      budget -= search.result().steps - before;
      assert(budget >= 0);  // a search takes no more steps than it is given
      if (search.done() && search.result().verdict == LinVerdict::kNotLinearizable) {
        ReportViolation(partitions[i], search.result(), result);
        unfinished = false;
        break;
      }
      if (!search.done()) {
        unfinished = true;
        if (budget <= 0) {
          result.verdict = LinVerdict::kUnknown;
          result.partition = partitions[i].key;
          result.explanation = "The step budget (" + std::to_string(options.budget) +
                               " steps) ran out while searching partition \"" + partitions[i].key + "\".";
          unfinished = false;
          break;
        }
      }
    }
    quantum = quantum > (std::int64_t{1} << 40) ? quantum : quantum * 2;
  }
  for (const auto& search : searches) result.steps += search->result().steps;
  // A verdict other than "linearizable" always says where and why.
  assert(result.verdict == LinVerdict::kLinearizable || !result.explanation.empty());
  return result;
}

}  // namespace leasesim::checker
