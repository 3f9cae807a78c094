#pragma once
// A preflight check of everything a node needs from etcd before it starts:
// the endpoints answer (TLS included), the credentials authenticate, and the
// user's roles let it read and write the lease key and the ledger prefix.
// Writes are probed with a txn whose compare can never hold (create
// revision < 0): etcd checks the permissions of both branches before it
// evaluates the compare, so the probe is refused exactly when a real write
// would be, and changes nothing when it is allowed. Every problem comes back
// as one sentence naming its cause and what to fix.

#include <string>
#include <vector>

#include "backends/etcd/etcd_http.h"

namespace leasesim::etcd {

struct AccessNeeds {
  std::string lease_key;      // read and written by the elector
  std::string ledger_prefix;  // read (ranges) and written under by the ledger
};

struct AccessProblem {
  FailureCause cause = FailureCause::kNone;
  std::string message;
  // TLS, credentials or permissions: retrying will not help; the
  // configuration (or etcd's) must change.
  bool misconfigured() const {
    return cause == FailureCause::kTls || cause == FailureCause::kWrongCredentials ||
           cause == FailureCause::kTokenRejected || cause == FailureCause::kPermissionDenied;
  }
};

// Empty when all is well.
std::vector<AccessProblem> CheckAccess(EtcdHttp& http, const AccessNeeds& needs, core::Nanos timeout);

// A sentence for a call that needed to `access` ("read", "write", "use")
// `what` (e.g. "the lease key \"k\"") and failed with `result` (also for the
// store and ledger clients' error reports).
std::string DescribeFailure(const EtcdHttp& http, const HttpResult& result, const std::string& access,
                            const std::string& what);

}  // namespace leasesim::etcd
