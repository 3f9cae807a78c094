#pragma once
// The live fault table: every fault kind a live run can inject is defined
// once here — its name in --faults, what its TARGET numbers, whether it
// takes a value or a duration, its record in the history, whether it stays
// within the protocol's assumptions, how it strikes and how it heals. The
// parser and the injector (live/fault_injector.h) both iterate this table;
// the mechanisms it strikes through (signals to node processes, an etcd
// member killed, the proxy) sit behind FaultMechanisms. The shape follows
// the simulator's fault catalogue (docs/LIVE.md, "Faults"), and each live
// kind says which kind of the one fault vocabulary it is
// (checker/fault_kind.h): a kill is a crash, a cut an isolate_from_store.
// That word is what the history records, and --faults takes it too.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/input_error.h"
#include "base/units.h"
#include "checker/fault_kind.h"

namespace leasesim::live {

using base::kNanosPerMilli;

// How a live run injects a fault: the mechanisms, several of which may be
// one kind of the shared vocabulary (LiveFaultSpec::is).
enum class LiveFaultKind {
  kPause,          // SIGSTOP the node, SIGCONT after the duration
  kPauseMidBatch,  // the node stops itself just before its next ledger write, held for the duration
  kKill,           // SIGKILL the node; restarted (new incarnation) after the duration, if one is given
  kEtcdStop,       // kill an etcd member (the raft leader or a given one); restarted after the duration
  kCut,            // cut the node's connections to etcd (through a proxy) for the duration
  kDelay,          // hold each chunk of the node's etcd traffic, both ways (through a proxy), VALUE ms (~ jitter)
  kDelayUp,        // the same, the node's requests only (toward etcd)
  kDelayDown,      // the same, etcd's answers only (toward the node)
  kStall,          // the node's etcd connections stay open but pass nothing, for the duration
};

// One direction's hold per chunk: base plus a uniform draw in [0, jitter].
struct LinkLatency {
  std::int64_t base_ms = 0;
  std::int64_t jitter_ms = 0;
  friend bool operator==(const LinkLatency&, const LinkLatency&) = default;
};

// One fault as written in --faults: KIND[=VALUE][:TARGET]@AT[+DURATION].
struct LiveFault {
  LiveFaultKind kind = LiveFaultKind::kPause;
  bool leader = false;  // target resolved when the fault fires (lease holder / etcd leader)
  int target = 0;       // node number (1-based) or etcd member (1-based)
  std::int64_t at_ms = 0;
  std::int64_t duration_ms = 0;
  std::int64_t value_ms = 0;  // the =VALUE of kinds that take one (delay: the hold per chunk)
  std::int64_t jitter_ms = 0; // =VALUE~JITTER (delays): up to this much more, drawn per chunk
  std::string text;           // as written
};

// A node incarnation: node number (1-based) and its start count (1-based).
struct Incarnation {
  int node = 0;
  int incarnation = 0;
  friend bool operator==(const Incarnation&, const Incarnation&) = default;
};

// The machinery a fault strikes through. The run implements it over real
// processes, etcd and the proxy (live/run_mechanisms.h); tests fake it.
class FaultMechanisms {
 public:
  virtual ~FaultMechanisms() = default;
  // Targets, resolved when a fault fires.
  virtual int LeaseHolderNode() = 0;             // the node whose running incarnation holds the lease; 0: none
  virtual int EtcdLeaderMember() = 0;            // 1-based; 0 when unknown
  virtual int RunningIncarnation(int node) = 0;  // 0 when the node is not running
  virtual bool EtcdMemberRunning(int member) = 0;
  // Node processes.
  virtual void StopNode(int node) = 0;                       // SIGSTOP
  virtual void ContinueNode(int node, int incarnation) = 0;  // SIGCONT, if that incarnation still runs
  virtual void ArmStop(int node) = 0;  // SIGUSR1: the node stops itself at its next ledger write
  virtual void DisarmStop(int node, int incarnation) = 0;    // SIGUSR2, if that incarnation still runs
  virtual void KillNode(int node) = 0;                       // SIGKILL, reaped and recorded as a kill
  virtual int RestartNode(int node) = 0;                     // the new incarnation; 0 on failure
  // Nodes that stopped themselves (an armed stop struck) since the last call.
  virtual std::vector<Incarnation> SelfStoppedNodes() = 0;
  // etcd members (1-based).
  virtual void KillEtcdMember(int member) = 0;
  virtual std::string RestartEtcdMember(int member) = 0;  // an error, empty on success
  // The proxy in front of etcd.
  virtual bool BehindProxy(int node) = 0;
  virtual void CutNode(int node, bool cut) = 0;
  // Hold the node's traffic toward etcd and back ({0, 0}: none).
  virtual void SlowNode(int node, LinkLatency to_etcd, LinkLatency from_etcd) = 0;
  virtual void StallNode(int node, bool stalled) = 0;
};

// What a fault's TARGET numbers.
enum class TargetKind { kNode, kEtcdMember };

// kOptional: without +DURATION the fault never heals (a kill without restart).
enum class DurationRule { kRequired, kOptional };

enum class StrikeOutcome {
  kStruck,   // in effect now; heals after the duration
  kArmed,    // strikes later, when the node reaches a fault point (it stops itself)
  kSkipped,  // could not strike (the description says why)
};

// The resolved target of one strike.
struct StruckTarget {
  int number = 0;       // node or etcd member, 1-based
  int incarnation = 0;  // node targets: the incarnation struck
  std::string who;      // "n2#1 (the lease holder)", "etcd member m3 (the etcd leader)"
};

// What a heal did: a line for the console and, when `recorded` is set, an
// instantaneous fault of that kind for the history (a restart).
struct HealNote {
  std::string line;
  std::optional<checker::FaultKind> recorded;
};

// One row of the table.
struct LiveFaultSpec {
  LiveFaultKind kind = LiveFaultKind::kPause;
  const char* name = "";          // as written in --faults
  // The kind it is in the one fault vocabulary: its word in the history and,
  // for the first row that is that kind, in --faults too ("crash:2@5+3").
  checker::FaultKind is = checker::FaultKind::kPause;
  const char* summary = "";       // what it does, one line (usage text)
  TargetKind target = TargetKind::kNode;
  DurationRule duration = DurationRule::kRequired;
  const char* value = nullptr;    // non-null: the kind takes =VALUE, and this says what it is
  std::int64_t value_max = 0;     // the largest VALUE accepted (and JITTER)
  bool jitter = false;            // =VALUE~JITTER accepted
  bool behind_proxy = false;      // the targeted nodes' etcd traffic must go through the proxy
  bool measures_failover = false;  // a strike on the lease holder starts a failover measurement
  bool instantaneous = false;     // the history records it as an instant (start == end)
  bool (*within_assumptions)(const LiveFault& fault, std::int64_t pause_budget_ms) = nullptr;
  // Strikes; sets `description` (or, when skipped, the reason).
  StrikeOutcome (*strike)(FaultMechanisms& m, const LiveFault& fault, const StruckTarget& target,
                          std::string& description) = nullptr;
  HealNote (*heal)(FaultMechanisms& m, const LiveFault& fault, const StruckTarget& target) = nullptr;
};

// Every live fault kind, in the order of LiveFaultKind.
std::span<const LiveFaultSpec> LiveFaultTable();
const LiveFaultSpec& SpecOf(LiveFaultKind kind);
const char* FaultKindName(LiveFaultKind kind);
// "pause, pause-mid-batch, ..." (for messages).
std::string FaultKindNames();
// The row a --faults KIND names: a row's name, or a word of the one
// vocabulary naming the first row that is that kind; null when neither.
const LiveFaultSpec* FindLiveFault(const std::string& kind);

// The most faults one run takes (each keeps at most two actions pending).
inline constexpr std::size_t kMaxLiveFaults = 1000;

// Parses "KIND[=VALUE][:TARGET]@AT[+DURATION],..." (seconds, decimals
// allowed), e.g. "pause:leader@6+8,kill:leader@16+3,etcd-stop:leader@24+4,
// cut:2@30+4,delay=200:leader@36+4,delay-up=300~100:leader@40+4,stall:2@45+3".
// Sorted by time. On bad input, the one bad-input error: its path the flag
// ("--faults"), its rule naming the item and what it breaks
// ("fault \"pause@3\": needs +DURATION (seconds)"); nothing on success.
std::optional<base::InputError> ParseFaults(const std::string& text, int nodes, std::vector<LiveFault>& faults);

// "1.50 s".
std::string Seconds(std::int64_t ns);

}  // namespace leasesim::live
