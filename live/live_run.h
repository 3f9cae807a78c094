#pragma once
// A live run: the unchanged core in N real node processes against a real
// etcd cluster, real faults injected by the orchestrator, one merged
// history judged by the same checker as a simulated run, and the same
// summary.json. See docs/LIVE.md. The run's phases are in live_run.cc;
// the fault kinds and --faults parsing in live_faults.h.

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "checker/verdict.h"
#include "live/live_faults.h"

namespace leasesim::live {

// What `leasesim live` was asked to do (its flags).
struct LiveOptions {
  int nodes = 3;
  std::int64_t duration_ms = 30'000;
  std::string etcd_urls;           // empty: start our own 3-member cluster
  // The own cluster with TLS (clients and peers), client-certificate auth
  // and etcd auth, certificates and passwords made for the run.
  bool etcd_secure = false;
  // With --etcd: how to reach it (docs/LIVE.md).
  std::string etcd_ca, etcd_cert, etcd_key, etcd_server_name;
  std::string etcd_user, etcd_password_file;
  std::vector<LiveFault> faults;
  std::string protocol;             // a registered protocol's name (core/protocol.h); empty: the default
  std::string out_dir = "out-live";
  std::string node_binary;          // empty: this program itself, as `PROGRAM live-node ...`
  std::string etcd_binary = "/usr/bin/etcd";
  std::string command_line;         // for the report: how to reproduce
  // Protocol timing (milliseconds) and the settlement schedule.
  std::int64_t lease_ms = 4'000;
  std::int64_t renew_interval_ms = 1'000;
  std::int64_t renew_deadline_ms = 3'000;
  std::int64_t retry_ms = 500;
  std::int64_t request_timeout_ms = 600;
  std::int64_t drift_ppm = 1'000;
  std::int64_t margin_ms = 500;
  std::int64_t pause_budget_ms = 300;
  std::int64_t period_ms = 1'000;
  std::int64_t poll_ms = 100;
  int batch_items = 3;
};

// How a run ended: the exit code, and when it got that far, the verdict and figures.
struct LiveResult {
  int exit_code = 0;  // 0 passed, 1 violation, 2 bad input, 3 the run could not be carried out
  checker::Verdict verdict;
  std::map<std::string, std::int64_t> figures;
};

// Exit codes beyond the cli's 0/1/2.
inline constexpr int kExitCouldNotRun = 3;

LiveResult RunLive(const LiveOptions& options, std::ostream& out, std::ostream& err);

// Checks the protocol's name against the registry; returns an error message or empty.
std::string ValidateProtocol(const std::string& protocol);

}  // namespace leasesim::live
