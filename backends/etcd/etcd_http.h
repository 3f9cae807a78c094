#pragma once
// HTTP POSTs to etcd's JSON gateway over libcurl, with several endpoints and
// failover. Every call has a deadline (curl's total and connect timeouts).
// A call is retried on the next endpoint only while its request certainly
// had no effect (connection refused, a TLS handshake that failed, an error
// code etcd gives only for rejected requests); once it may have been applied
// the caller learns "unknown" and the next call starts at the next endpoint.
// Thread-safe: concurrent calls use separate connections.
//
// TLS: https:// endpoints verify the server's certificate against a CA file
// (or the system's), and its name (the URL's host, or `server_name`);
// a client certificate and key authenticate us to an etcd started with
// --client-cert-auth. etcd auth: with a user, the first call authenticates
// (/v3/auth/authenticate) and every call carries the token; a token etcd
// rejects (expired: simple tokens live --auth-token-ttl seconds unused;
// revoked) is replaced once and the call retried — nothing was applied.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "backends/etcd/etcd_json.h"
#include "base/units.h"
#include "core/lease_record.h"

namespace leasesim::etcd {

struct TlsOptions {
  std::string ca_file;      // PEM CA bundle the server certificate must chain to; empty: the system's
  std::string cert_file;    // PEM client certificate (mTLS); with key_file, or neither
  std::string key_file;     // PEM key of cert_file
  std::string server_name;  // the name the server certificate must carry; empty: each URL's host
};

struct AuthOptions {
  std::string user;      // empty: no etcd auth
  std::string password;
};

struct EndpointOptions {
  // Base URLs, e.g. "http://127.0.0.1:2379" or "https://etcd1:2379". At least one.
  std::vector<std::string> endpoints;
  // Upper bound of a TCP connect attempt (also bounded by the call's timeout).
  core::Nanos connect_timeout = base::Millis(200);
  TlsOptions tls;
  AuthOptions auth;
  // Told, at most once per 10 s per text, what stops calls from working
  // (TLS, credentials, permissions), for the operator's log. May be empty.
  std::function<void(const std::string&)> on_error;
};

// Every broken rule of `options`, each naming its field ("tls.ca_file: ...").
std::vector<std::string> ValidateEndpointOptions(const EndpointOptions& options);

// Why a call failed, beyond its verdict (for error texts and tests).
enum class FailureCause {
  kNone,
  kUnreachable,       // no connection (refused, unresolvable, connect timeout)
  kTls,               // the TLS handshake failed (certificate, name, CA, client certificate)
  kTimedOut,          // sent, no complete answer in time
  kBroken,            // the connection failed after sending
  kWrongCredentials,  // etcd auth: the user name or password was refused
  kTokenRejected,     // etcd auth: the token was refused even after re-authenticating
  kPermissionDenied,  // etcd auth: the user's roles do not cover a key of the request
  kEtcdError,         // another error answer of etcd (its gRPC code and message are in `error`)
  kHttpError,         // an HTTP error without a gRPC code (not etcd's own answer)
  kUnreadable,        // a 200 whose body could not be read
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
  FailureCause cause = FailureCause::kNone;
};

// Told each complete message of a streamed answer (an HTTP 200 body the
// gateway writes one JSON object a line, as it does for etcd's streaming
// RPCs: Watch, LeaseKeepAlive); returns true once it has what it waited
// for, which ends the call (the answer is then kResult, `body` holding what
// arrived so far).
using StreamSink = std::function<bool(std::string_view message)>;

// One client of an etcd cluster's JSON gateway: POSTs and streamed reads with
// deadlines and endpoint failover, as the file comment says.
class EtcdHttp {
 public:
  explicit EtcdHttp(EndpointOptions options);
  ~EtcdHttp();
  EtcdHttp(const EtcdHttp&) = delete;
  EtcdHttp& operator=(const EtcdHttp&) = delete;

  // POSTs `body` to `path` (e.g. "/v3/kv/txn"), failing over while the
  // request certainly had no effect, within `timeout` in total. With a
  // `stream` sink, the answer's lines are handed to it as they arrive, and
  // the call ends when it says so; a stream that is still open at the
  // deadline ends as a timeout (cause kTimedOut, http_status 200: the
  // member answered, so the next call stays with it).
  HttpResult Post(const std::string& path, const std::string& body, core::Nanos timeout,
                  const StreamSink* stream = nullptr);

  // One attempt at one endpoint (no failover, no authentication of its
  // own: the current token, if any, is sent); used by tests and tools.
  HttpResult PostTo(std::size_t endpoint, const std::string& path, const std::string& body,
                    core::Nanos timeout);

  // Authenticates as the configured user now (a new token), within `timeout`.
  HttpResult Authenticate(core::Nanos timeout);
  // How many tokens were obtained so far.
  std::int64_t authentications() const { return authentications_.load(); }
  // Passes a message to options.on_error (deduplicated).
  void ReportError(const std::string& message);

  const EndpointOptions& options() const { return options_; }
  std::size_t endpoint_count() const { return options_.endpoints.size(); }
  const std::string& endpoint(std::size_t i) const { return options_.endpoints[i]; }

 private:
  struct Handle;
  struct Request;
  static std::size_t Collect(char* data, std::size_t size, std::size_t count, void* user);
  std::unique_ptr<Handle> Acquire(std::size_t endpoint);
  void Configure(void* curl, Request& request, const std::string& endpoint, const std::string& path,
                 const std::string& body, core::Nanos timeout, const std::string& token) const;
  void Release(std::size_t endpoint, std::unique_ptr<Handle> handle);
  // Post's failover over the endpoints until `deadline` (monotonic ns).
  HttpResult PostUntil(const std::string& path, const std::string& body, core::Nanos deadline, bool with_token,
                       const StreamSink* stream = nullptr);
  HttpResult AuthenticateUntil(core::Nanos deadline);
  HttpResult Attempt(std::size_t endpoint, const std::string& path, const std::string& body, core::Nanos timeout,
                     bool with_token, const StreamSink* stream = nullptr);
  std::string Token();

  EndpointOptions options_;
  std::atomic<std::size_t> preferred_{0};
  std::mutex mu_;
  std::vector<std::vector<std::unique_ptr<Handle>>> idle_;  // per endpoint: reusable connections
  std::string token_;                                      // under mu_
  std::atomic<std::int64_t> authentications_{0};
  std::mutex report_mu_;
  std::vector<std::pair<std::string, core::Nanos>> reported_;  // recent messages, bounded
};

}  // namespace leasesim::etcd
