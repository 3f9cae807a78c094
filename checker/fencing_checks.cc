#include "checker/fencing_checks.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "checker/format.h"

namespace leasesim::checker {
namespace {

// The writes the ledger answered with `result` or `also`, in the order it
// took them (arrival, then id).
std::vector<const LedgerWrite*> InLedgerOrder(const History& history, LedgerResult result, LedgerResult also) {
  std::vector<const LedgerWrite*> taken;
  for (const LedgerWrite& write : history.ledger_writes) {
    if (write.result == result || write.result == also) taken.push_back(&write);
  }
  const auto before = [](const LedgerWrite* a, const LedgerWrite* b) {
    if (a->arrived_ns != b->arrived_ns) return a->arrived_ns < b->arrived_ns;
    return a->id < b->id;
  };
  // Writes are mostly recorded in the order they arrive: sorted only if not.
  if (!std::is_sorted(taken.begin(), taken.end(), before)) std::stable_sort(taken.begin(), taken.end(), before);
  return taken;
}

// Applied writes in the order the ledger applied them.
std::vector<const LedgerWrite*> AppliedInLedgerOrder(const History& history) {
  return InLedgerOrder(history, LedgerResult::kApplied, LedgerResult::kApplied);
}

std::string Describe(const LedgerWrite& write) {
  return "node " + std::to_string(write.node) + " (" + write.holder + ", token " +
         std::to_string(write.token) + ", window " + std::to_string(write.window) +
         ", sent " + FormatTime(write.sent_ns) + ", applied " + FormatTime(write.arrived_ns) + ")";
}

}  // namespace

void CheckStaleTokenWrites(const History& history, Verdict& verdict) {
  const LedgerWrite* highest = nullptr;
  for (const LedgerWrite* write : AppliedInLedgerOrder(history)) {
    if (highest != nullptr && write->token < highest->token) {
      verdict.violations.push_back(Violation{
          .kind = KindName(ViolationKind::kStaleTokenWrite),
          .message = "The ledger applied a write from " + Describe(*write) +
                     " after it had already applied token " + std::to_string(highest->token) +
                     " from " + Describe(*highest) + ".",
          .at_ns = write->arrived_ns,
          .nodes = {write->node, highest->node},
      });
    }
    if (highest == nullptr || write->token > highest->token) highest = write;
  }
}

void CheckStaleTokensAccepted(const History& history, Verdict& verdict) {
  const std::vector<const LedgerWrite*> arrived =
      InLedgerOrder(history, LedgerResult::kApplied, LedgerResult::kDuplicate);
  const LedgerWrite* highest = nullptr;         // applied, arrived before the current instant
  const LedgerWrite* highest_at_now = nullptr;  // including the current instant
  for (std::size_t i = 0; i < arrived.size(); ++i) {
    const LedgerWrite* write = arrived[i];
    if (i > 0 && write->arrived_ns != arrived[i - 1]->arrived_ns) highest = highest_at_now;
    if (write->result == LedgerResult::kDuplicate && highest != nullptr && write->token < highest->token) {
      verdict.violations.push_back(Violation{
          .kind = KindName(ViolationKind::kStaleTokenAccepted),
          .message = "The ledger answered a write from " + Describe(*write) +
                     " as a duplicate, although it had already applied token " + std::to_string(highest->token) +
                     " from " + Describe(*highest) +
                     ": a stale token must be rejected, so that its writer learns it is deposed.",
          .at_ns = write->arrived_ns,
          .nodes = {write->node, highest->node},
      });
    }
    if (write->result == LedgerResult::kApplied && (highest_at_now == nullptr || write->token > highest_at_now->token)) {
      highest_at_now = write;
    }
  }
}

void CheckDualWriters(const History& history, Verdict& verdict) {
  // One holder per token among applied writes.
  std::map<std::int64_t, const LedgerWrite*> first_by_token;
  // Once a holder's leadership (holder, token) has been succeeded by another,
  // it must never write again; the same holder returning under a newer token
  // is a new leadership, not an interleaving.
  // Keyed (token, holder): names are compared only within a token, and not copied.
  std::map<std::pair<std::int64_t, std::string_view>, const LedgerWrite*> superseded_by;
  const LedgerWrite* previous = nullptr;
  for (const LedgerWrite* write : AppliedInLedgerOrder(history)) {
    auto [it, inserted] = first_by_token.try_emplace(write->token, write);
    if (!inserted && it->second->holder != write->holder) {
      verdict.violations.push_back(Violation{
          .kind = KindName(ViolationKind::kDualWriter),
          .message = "Two holders applied writes under one token: " + Describe(*it->second) +
                     " and " + Describe(*write) + ".",
          .at_ns = write->arrived_ns,
          .nodes = {it->second->node, write->node},
      });
    }
    auto superseded = superseded_by.find({write->token, write->holder});
    if (superseded != superseded_by.end()) {
      verdict.violations.push_back(Violation{
          .kind = KindName(ViolationKind::kDualWriter),
          .message = "Writes of two holders interleave: " + Describe(*write) +
                     " was applied after its successor " + Describe(*superseded->second) + ".",
          .at_ns = write->arrived_ns,
          .nodes = {superseded->second->node, write->node},
      });
      superseded_by.erase(superseded);  // report each interleaving once
    }
    if (previous != nullptr && (previous->holder != write->holder || previous->token != write->token)) {
      superseded_by.try_emplace({previous->token, previous->holder}, write);
    }
    previous = write;
  }
}

void CheckDuplicateSettlements(const History& history, Verdict& verdict) {
  const std::vector<const LedgerWrite*> applied = AppliedInLedgerOrder(history);
  // (window, position in ledger order), sorted: each window's applications
  // side by side, its first one first.
  std::vector<std::pair<std::int64_t, std::size_t>> by_window(applied.size());
  for (std::size_t i = 0; i < applied.size(); ++i) by_window[i] = {applied[i]->window, i};
  if (!std::is_sorted(by_window.begin(), by_window.end())) std::sort(by_window.begin(), by_window.end());
  std::vector<const LedgerWrite*> first_of(applied.size(), nullptr);  // by position: its window's first, if not itself
  for (std::size_t k = 1; k < by_window.size(); ++k) {
    if (by_window[k].first != by_window[k - 1].first) continue;
    const LedgerWrite* first = first_of[by_window[k - 1].second];
    first_of[by_window[k].second] = first != nullptr ? first : applied[by_window[k - 1].second];
  }
  for (std::size_t i = 0; i < applied.size(); ++i) {
    const LedgerWrite* write = applied[i];
    const LedgerWrite* first = first_of[i];
    if (first == nullptr) continue;
    verdict.violations.push_back(Violation{
        .kind = KindName(ViolationKind::kDuplicateSettlement),
        .message = "Settlement window " + std::to_string(write->window) + " was applied twice: first by " +
                   Describe(*first) + ", again by " + Describe(*write) + ".",
        .at_ns = write->arrived_ns,
        .nodes = {first->node, write->node},
    });
  }
}

}  // namespace leasesim::checker
