#include "backends/etcd/etcd_access.h"

#include "backends/etcd/etcd_json.h"

namespace leasesim::etcd {
namespace {

// A txn that never applies but needs write permission on `key`.
std::string WriteProbe(const std::string& key) {
  return TxnBody({Compare{.target = Compare::Target::kCreate, .result = Compare::Result::kLess, .key = key,
                          .number = 0}},
                 {Op{.kind = Op::Kind::kPut, .key = key, .value = "probe"}}, {});
}

// Range of every key under `prefix`, limited to one.
std::string PrefixProbe(const std::string& prefix) {
  std::string body = PrefixRangeBody(prefix);
  body.insert(body.size() - 1, ",\"limit\":\"1\"");
  return body;
}

}  // namespace

std::string DescribeFailure(const EtcdHttp& http, const HttpResult& result, const std::string& access,
                            const std::string& what) {
  const std::string& user = http.options().auth.user;
  switch (result.cause) {
    case FailureCause::kPermissionDenied:
      return (user.empty() ? std::string("etcd (no user configured)") : "etcd user \"" + user + "\"") +
             " lacks permission to " + access + " " + what + ": grant its role readwrite on it (" + result.error +
             ")";
    case FailureCause::kUnreachable:
      return "etcd unreachable at " + result.endpoint + " (" + result.error + ")";
    default:
      return result.error.empty() ? "etcd call on " + what + " failed" : result.error;
  }
}

std::vector<AccessProblem> CheckAccess(EtcdHttp& http, const AccessNeeds& needs, core::Nanos timeout) {
  std::vector<AccessProblem> problems;
  const std::string lease = "the lease key \"" + needs.lease_key + "\"";
  const std::string ledger = "the ledger prefix \"" + needs.ledger_prefix + "\"";
  const struct {
    const char* path;
    std::string body;
    const std::string& what;
    const char* access;
  } probes[] = {{"/v3/kv/range", RangeBody(needs.lease_key), lease, "read"},
                {"/v3/kv/txn", WriteProbe(needs.lease_key), lease, "write"},
                {"/v3/kv/range", PrefixProbe(needs.ledger_prefix), ledger, "read"},
                {"/v3/kv/txn", WriteProbe(needs.ledger_prefix + "fence"), ledger, "write"}};
  for (const auto& probe : probes) {
    const HttpResult result = http.Post(probe.path, probe.body, timeout);
    if (result.verdict == Verdict::kResult) continue;
    problems.push_back(AccessProblem{result.cause, DescribeFailure(http, result, probe.access, probe.what)});
    if (result.cause == FailureCause::kPermissionDenied) continue;  // the other probes say what else is missing
    break;  // unreachable, TLS, credentials: every other probe would fail alike
  }
  return problems;
}

}  // namespace leasesim::etcd
