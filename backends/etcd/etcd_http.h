#pragma once
// HTTP POSTs to etcd's JSON gateway over libcurl, with several endpoints and
// failover. Every call has a deadline (curl's total and connect timeouts).
// A call is retried on the next endpoint only while its request certainly
// had no effect (connection refused, "no leader", ...); once it may have
// been applied the caller learns "unknown" and the next call starts at the
// next endpoint. Thread-safe: concurrent calls use separate connections.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/etcd/etcd_json.h"
#include "base/units.h"
#include "core/lease_record.h"

namespace leasesim::etcd {

struct EndpointOptions {
  // Base URLs, e.g. "http://127.0.0.1:2379". At least one.
  std::vector<std::string> endpoints;
  // Upper bound of a TCP connect attempt (also bounded by the call's timeout).
  core::Nanos connect_timeout = base::Millis(200);
};

// Splits "http://a:1,http://b:2" into its URLs (empty parts dropped).
std::vector<std::string> SplitEndpoints(const std::string& list);

struct HttpResult {
  Verdict verdict = Verdict::kUnknown;
  std::string body;          // kResult: the 200 answer
  std::string endpoint;      // the endpoint that gave the final answer
  std::string error;         // otherwise: what went wrong, for logs
  long http_status = 0;      // 0 when no HTTP answer arrived
  int grpc_code = -1;        // an error answer's gRPC status code; -1 when it had none
};

class EtcdHttp {
 public:
  explicit EtcdHttp(EndpointOptions options);
  ~EtcdHttp();
  EtcdHttp(const EtcdHttp&) = delete;
  EtcdHttp& operator=(const EtcdHttp&) = delete;

  // POSTs `body` to `path` (e.g. "/v3/kv/txn"), failing over while the
  // request certainly had no effect, within `timeout` in total.
  HttpResult Post(const std::string& path, const std::string& body, core::Nanos timeout);

  // One attempt at one endpoint (no failover); used by tests and tools.
  HttpResult PostTo(std::size_t endpoint, const std::string& path, const std::string& body,
                    core::Nanos timeout);

  std::size_t endpoint_count() const { return options_.endpoints.size(); }
  const std::string& endpoint(std::size_t i) const { return options_.endpoints[i]; }

 private:
  struct Handle;
  std::unique_ptr<Handle> Acquire(std::size_t endpoint);
  void Release(std::size_t endpoint, std::unique_ptr<Handle> handle);

  EndpointOptions options_;
  std::atomic<std::size_t> preferred_{0};
  std::mutex mu_;
  std::vector<std::vector<std::unique_ptr<Handle>>> idle_;  // per endpoint: reusable connections
};

}  // namespace leasesim::etcd
