#pragma once
// The node processes of a live run (leasesim-live-node, one per node, each
// start a new incarnation "n<i>#<k>"): starting them with the run's flags,
// signalling, killing and reaping them, and the record of what ran — the
// journal file of every incarnation and every kill — for the merge.

#include <sys/types.h>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "live/history_merge.h"
#include "live/live_faults.h"
#include "live/live_run.h"

namespace leasesim::live {

// What every node process of a run is started with, besides its number.
struct NodeLaunchSpec {
  std::string binary;
  std::vector<std::string> binary_words;  // before the flags ("live-node" when the binary is a harness)
  std::string out_dir;  // journals and logs go to OUT/nodes/n<i>.<k>.{jsonl,log}
  std::string key;      // the lease key
  std::string ledger_prefix;
  std::int64_t epoch_wall_ns = 0;          // the settlement schedule's epoch
  std::vector<std::string> etcd_urls;      // by node number (index 0 unused)
  std::vector<std::string> etcd_flags;     // TLS and auth: --etcd-ca FILE ... (may be empty)
};

// The argv of node `node`, incarnation `incarnation` (exposed for tests).
std::vector<std::string> NodeArgv(const NodeLaunchSpec& spec, const LiveOptions& options, int node,
                                  int incarnation);

// Owns the node processes: kills whatever still runs on destruction.
class NodeFleet {
 public:
  NodeFleet(NodeLaunchSpec spec, const LiveOptions& options, std::ostream& err);
  ~NodeFleet();
  NodeFleet(const NodeFleet&) = delete;
  NodeFleet& operator=(const NodeFleet&) = delete;

  // Starts a new incarnation of `node`; its incarnation number, 0 on failure.
  int Launch(int node);
  int RunningIncarnation(int node) const;  // 0 when not running
  // Signals the running incarnation (when `incarnation` is 0, whichever runs).
  void Signal(int node, int signal, int incarnation = 0);
  void Stop(int node);                       // SIGSTOP
  // SIGUSR1: the node stops itself at its next ledger write; Reap reports it.
  void ArmStop(int node);
  void DisarmStop(int node, int incarnation);  // SIGUSR2, if that incarnation still runs
  void Continue(int node, int incarnation);  // SIGCONT, if that incarnation still runs
  void Kill(int node);                       // SIGKILL, reaped, recorded in kills()
  // The run's end: every node at once (not recorded as kills: alive at the end).
  void KillAll();
  // Reaps without blocking: returns the armed nodes that stopped themselves;
  // nodes that exited on their own are recorded as kills, with a warning.
  std::vector<Incarnation> Reap();
  // The node whose running incarnation is `holder` ("n<i>#<k>"), 0 if none.
  int NodeOfHolder(const std::string& holder) const;

  const std::vector<JournalFile>& journals() const { return journals_; }
  const std::vector<KillRecord>& kills() const { return kills_; }

 private:
  // One node's current process.
  struct Process {
    int incarnation = 0;
    pid_t pid = -1;
    bool stopped = false;  // SIGSTOPped (by us or by itself)
    bool armed = false;    // told to stop itself (SIGUSR1), not yet seen stopped
  };
  Process& at(int node);
  const Process& at(int node) const;
  std::string BasePath(int node, int incarnation) const;

  NodeLaunchSpec spec_;
  const LiveOptions& options_;
  std::ostream& err_;
  std::vector<Process> nodes_;  // by node number (index 0 unused)
  std::vector<JournalFile> journals_;
  std::vector<KillRecord> kills_;
};

}  // namespace leasesim::live
