#include "backends/etcd/etcd_http.h"

#include <curl/curl.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <chrono>

#include <nlohmann/json.hpp>

namespace leasesim::etcd {
namespace {

std::once_flag curl_init;

core::Nanos SteadyNow() {
  // determinism-ok: live mode — deadlines of real HTTP calls.
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

long ToMillis(core::Nanos ns) { return static_cast<long>(std::max<core::Nanos>(1, ns / base::kNanosPerMilli)); }

// "https://host:port" split; port 0 when absent.
struct UrlParts {
  std::string scheme, host;
  int port = 0;
};

UrlParts SplitUrl(const std::string& url) {
  UrlParts parts;
  const std::size_t sep = url.find("://");
  parts.scheme = sep == std::string::npos ? "" : url.substr(0, sep);
  std::string rest = sep == std::string::npos ? url : url.substr(sep + 3);
  const std::size_t colon = rest.rfind(':');
  if (colon != std::string::npos && rest.find(']', colon) == std::string::npos) {
    parts.port = std::atoi(rest.c_str() + colon + 1);
    rest.resize(colon);
  }
  parts.host = rest;
  return parts;
}

bool Readable(const std::string& path) { return ::access(path.c_str(), R_OK) == 0; }

// The handshake failed: nothing was sent.
bool TlsHandshakeFailure(CURLcode code) {
  switch (code) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CIPHER:
      return true;
    default:
      return false;
  }
}

FailureCause CauseOfAnswer(int grpc_code) {
  switch (grpc_code) {
    case -1: return FailureCause::kHttpError;
    case static_cast<int>(GrpcCode::kPermissionDenied): return FailureCause::kPermissionDenied;
    case static_cast<int>(GrpcCode::kUnauthenticated): return FailureCause::kTokenRejected;
    default: return FailureCause::kEtcdError;
  }
}

}  // namespace

std::vector<std::string> SplitEndpoints(const std::string& list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string part = list.substr(start, comma - start);
    while (!part.empty() && part.back() == '/') part.pop_back();
    if (!part.empty()) out.push_back(part);
    start = comma + 1;
  }
  return out;
}

std::vector<std::string> ValidateEndpointOptions(const EndpointOptions& o) {
  std::vector<std::string> errors;
  if (o.endpoints.empty()) errors.push_back("endpoints: at least one URL");
  const TlsOptions& t = o.tls;
  const bool tls = !t.ca_file.empty() || !t.cert_file.empty() || !t.key_file.empty() || !t.server_name.empty();
  for (const std::string& url : o.endpoints) {
    const UrlParts parts = SplitUrl(url);
    if (parts.scheme != "http" && parts.scheme != "https") {
      errors.push_back("endpoints: " + url + " must start with http:// or https://");
    } else if (tls && parts.scheme != "https") {
      errors.push_back("endpoints: " + url + " is not https:// but TLS options are given");
    }
    if (!t.server_name.empty() && parts.port <= 0) errors.push_back("endpoints: " + url + " needs a port");
  }
  for (const auto& [field, path] : {std::pair{"tls.ca_file", t.ca_file}, std::pair{"tls.cert_file", t.cert_file},
                                    std::pair{"tls.key_file", t.key_file}}) {
    if (!path.empty() && !Readable(path)) errors.push_back(std::string(field) + ": cannot read " + path);
  }
  if (t.cert_file.empty() != t.key_file.empty()) {
    errors.push_back("tls.cert_file, tls.key_file: give both (a client certificate and its key) or neither");
  }
  if (o.auth.user.empty() && !o.auth.password.empty()) errors.push_back("auth.user: a password needs a user");
  return errors;
}

struct EtcdHttp::Handle {
  CURL* curl = nullptr;
  Handle() { curl = curl_easy_init(); }
  ~Handle() { curl_easy_cleanup(curl); }
};

EtcdHttp::EtcdHttp(EndpointOptions options) : options_(std::move(options)) {
  assert(!options_.endpoints.empty());
  std::call_once(curl_init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  idle_.resize(options_.endpoints.size());
}

EtcdHttp::~EtcdHttp() = default;

std::unique_ptr<EtcdHttp::Handle> EtcdHttp::Acquire(std::size_t endpoint) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& pool = idle_[endpoint];
    if (!pool.empty()) {
      std::unique_ptr<Handle> handle = std::move(pool.back());
      pool.pop_back();
      return handle;
    }
  }
  return std::make_unique<Handle>();
}

void EtcdHttp::Release(std::size_t endpoint, std::unique_ptr<Handle> handle) {
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_[endpoint].size() < 4) idle_[endpoint].push_back(std::move(handle));
}

std::string EtcdHttp::Token() {
  std::lock_guard<std::mutex> lock(mu_);
  return token_;
}

void EtcdHttp::ReportError(const std::string& message) {
  if (!options_.on_error) return;
  const core::Nanos now = SteadyNow();
  constexpr core::Nanos kQuiet = 10'000 * base::kNanosPerMilli;
  constexpr std::size_t kRemembered = 16;
  {
    std::lock_guard<std::mutex> lock(report_mu_);
    auto seen = std::find_if(reported_.begin(), reported_.end(), [&](const auto& r) { return r.first == message; });
    if (seen != reported_.end() && now - seen->second < kQuiet) return;  // told recently
    if (seen != reported_.end()) reported_.erase(seen);
    if (reported_.size() >= kRemembered) reported_.erase(reported_.begin());
    reported_.emplace_back(message, now);
  }
  options_.on_error(message);
}

HttpResult EtcdHttp::PostTo(std::size_t endpoint, const std::string& path, const std::string& body,
                            core::Nanos timeout) {
  return Attempt(endpoint, path, body, timeout, /*with_token=*/true);
}

// The request's options on a (reset) handle; the lists it allocates are
// freed by the caller after the transfer.
struct EtcdHttp::Request {
  CURL* curl = nullptr;
  const StreamSink* stream = nullptr;  // streamed answers: told each line
  std::size_t delivered = 0;           // bytes of `response` handed to `stream`
  bool stopped = false;                // `stream` had what it waited for
  std::string url;
  curl_slist* headers = nullptr;
  curl_slist* connect_to = nullptr;
  std::string response;
  std::string detail = std::string(CURL_ERROR_SIZE, '\0');  // curl's error text (its API wants this size)
  ~Request() {
    curl_slist_free_all(headers);
    curl_slist_free_all(connect_to);
  }
};

std::size_t EtcdHttp::Collect(char* data, std::size_t size, std::size_t count, void* user) {
  auto* request = static_cast<Request*>(user);
  request->response.append(data, size * count);
  if (request->stream == nullptr) return size * count;
  long status = 0;
  curl_easy_getinfo(request->curl, CURLINFO_RESPONSE_CODE, &status);
  if (status != 200) return size * count;  // an error answer: read whole, classified as usual
  std::size_t newline;
  while ((newline = request->response.find('\n', request->delivered)) != std::string::npos) {
    const std::string_view line(request->response.data() + request->delivered, newline - request->delivered);
    request->delivered = newline + 1;
    if (line.find_first_not_of(" \r\t") == std::string_view::npos) continue;
    if ((*request->stream)(line)) {
      request->stopped = true;
      return 0;  // ends the transfer (CURLE_WRITE_ERROR): we have what we waited for
    }
  }
  return size * count;
}

void EtcdHttp::Configure(void* curl, Request& request, const std::string& endpoint, const std::string& path,
                         const std::string& body, core::Nanos timeout, const std::string& token) const {
  const TlsOptions& tls = options_.tls;
  request.url = endpoint + path;
  if (!tls.server_name.empty()) {
    // Connect to the URL's address, but verify (and send SNI for) the name.
    const UrlParts parts = SplitUrl(endpoint);
    const std::string port = std::to_string(parts.port);
    request.url = parts.scheme + "://" + tls.server_name + ":" + port + path;
    request.connect_to =
        curl_slist_append(nullptr, (tls.server_name + ":" + port + ":" + parts.host + ":" + port).c_str());
    curl_easy_setopt(curl, CURLOPT_CONNECT_TO, request.connect_to);
  }
  request.headers = curl_slist_append(nullptr, "Content-Type: application/json");
  if (!token.empty()) request.headers = curl_slist_append(request.headers, ("Authorization: " + token).c_str());
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, request.headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &request);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, request.detail.data());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM-based timeouts
  curl_easy_setopt(curl, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(curl, CURLOPT_PROXY, "");     // never an environment proxy
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, ToMillis(timeout));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, ToMillis(std::min(timeout, options_.connect_timeout)));
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!tls.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, tls.ca_file.c_str());
  if (!tls.cert_file.empty()) curl_easy_setopt(curl, CURLOPT_SSLCERT, tls.cert_file.c_str());
  if (!tls.key_file.empty()) curl_easy_setopt(curl, CURLOPT_SSLKEY, tls.key_file.c_str());
}

namespace {

// What a transfer that ended with `code` came to on the wire.
Transport TransportOf(CURL* curl, CURLcode code, FailureCause& cause) {
  switch (code) {
    case CURLE_OK:
      return Transport::kAnswered;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      cause = FailureCause::kUnreachable;
      return Transport::kRefused;
    case CURLE_OPERATION_TIMEDOUT: {
      // A connect that never completed sent nothing; otherwise unknown.
      long request_size = 0;
      curl_easy_getinfo(curl, CURLINFO_REQUEST_SIZE, &request_size);
      curl_off_t connect_time = 0;
      curl_easy_getinfo(curl, CURLINFO_CONNECT_TIME_T, &connect_time);
      const bool never_sent = request_size == 0 && connect_time == 0;
      cause = never_sent ? FailureCause::kUnreachable : FailureCause::kTimedOut;
      return never_sent ? Transport::kRefused : Transport::kTimedOut;
    }
    default:
      // A failed handshake sent nothing; any other failure may have.
      cause = TlsHandshakeFailure(code) ? FailureCause::kTls : FailureCause::kBroken;
      return TlsHandshakeFailure(code) ? Transport::kRefused : Transport::kBroken;
  }
}

}  // namespace

HttpResult EtcdHttp::Attempt(std::size_t endpoint, const std::string& path, const std::string& body,
                             core::Nanos timeout, bool with_token, const StreamSink* stream) {
  HttpResult result;
  result.endpoint = options_.endpoints.at(endpoint);
  std::unique_ptr<Handle> handle = Acquire(endpoint);
  CURL* curl = handle->curl;
  curl_easy_reset(curl);  // a pooled handle keeps its connection, not its options
  Request request;
  request.curl = curl;
  request.stream = stream;
  Configure(curl, request, result.endpoint, path, body, timeout, with_token ? Token() : std::string());
  const CURLcode code = curl_easy_perform(curl);
  // A stream the sink ended was answered (200) with what it waited for.
  const bool stopped = request.stopped && code == CURLE_WRITE_ERROR;
  result.cause = FailureCause::kNone;
  const Transport transport = stopped ? Transport::kAnswered : TransportOf(curl, code, result.cause);
  long status = 0;
  if (code == CURLE_OK || stopped) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  result.verdict = Classify(transport, status, request.response);
  result.http_status = status;
  if (stream != nullptr && code == CURLE_OPERATION_TIMEDOUT) {
    // A stream the member opened (200) and kept open without news: the
    // member answered; its http_status says so (PostUntil stays with it).
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result.http_status);
  }
  if (result.verdict == Verdict::kResult) {
    result.body = std::move(request.response);
  } else if (code != CURLE_OK && !stopped) {
    request.detail.resize(request.detail.find('\0'));
    result.error = std::string(curl_easy_strerror(code)) + (request.detail.empty() ? "" : ": " + request.detail);
  } else {
    const GatewayError gateway = ParseGatewayError(request.response);
    result.grpc_code = gateway.code;
    result.cause = CauseOfAnswer(gateway.code);
    result.error = "HTTP " + std::to_string(status) +
                   (gateway.code >= 0 ? " " + GrpcCodeName(gateway.code) : std::string()) + ": " + gateway.message;
  }
  if (code == CURLE_OK) Release(endpoint, std::move(handle));  // keep the connection for the next call
  return result;
}

HttpResult EtcdHttp::PostUntil(const std::string& path, const std::string& body, core::Nanos deadline,
                               bool with_token, const StreamSink* stream) {
  const std::size_t n = options_.endpoints.size();
  const std::size_t first = preferred_.load() % n;
  HttpResult last;
  last.verdict = Verdict::kNotApplied;
  last.error = "no endpoint tried";
  last.cause = FailureCause::kTimedOut;
  for (std::size_t attempt = 0; attempt < n; ++attempt) {
    const std::size_t endpoint = (first + attempt) % n;
    const core::Nanos remaining = deadline - SteadyNow();
    if (remaining < base::kNanosPerMilli) break;  // < 1 ms left: not worth a try
    last = Attempt(endpoint, path, body, remaining, with_token, stream);
    if (last.verdict == Verdict::kResult) {
      preferred_.store(endpoint);
      return last;
    }
    // The next call starts elsewhere: this member refused, rejected the
    // request, or did not answer in time (a stream it opened and kept open
    // without news until the deadline is an answer: a quiet watch).
    const bool quiet_stream = stream != nullptr && last.http_status == 200;
    if (!quiet_stream) preferred_.store((endpoint + 1) % n);
    if (last.verdict == Verdict::kUnknown) return last;  // may have applied: no retry
  }
  return last;
}

HttpResult EtcdHttp::AuthenticateUntil(core::Nanos deadline) {
  const AuthOptions& auth = options_.auth;
  const std::string body = nlohmann::json{{"name", auth.user}, {"password", auth.password}}.dump();
  // Authenticating changes nothing a retry could double: any endpoint will do.
  HttpResult result = PostUntil("/v3/auth/authenticate", body, deadline, /*with_token=*/false);
  if (result.verdict == Verdict::kResult) {
    const nlohmann::json json = nlohmann::json::parse(result.body, nullptr, false);
    if (json.is_object() && json.contains("token") && json["token"].is_string() &&
        !json["token"].get_ref<const std::string&>().empty()) {
      std::lock_guard<std::mutex> lock(mu_);
      token_ = json["token"].get<std::string>();
      authentications_.fetch_add(1);
      return result;
    }
    result.verdict = Verdict::kNotApplied;
    result.cause = FailureCause::kUnreadable;
    result.error = "etcd auth: the authenticate answer carried no token";
    return result;
  }
  const std::string who = "etcd auth as user \"" + auth.user + "\" failed: ";
  if (result.grpc_code == static_cast<int>(GrpcCode::kInvalidArgument)) {
    // authenticate answers InvalidArgument for a wrong name or password.
    result.cause = FailureCause::kWrongCredentials;
    result.error = who + "wrong user name or password (" + result.error + ")";
  } else if (result.grpc_code == static_cast<int>(GrpcCode::kFailedPrecondition)) {
    result.error = who + "etcd refused (is auth enabled on the cluster?) (" + result.error + ")";
  } else {
    result.error = who + result.error;
  }
  return result;
}

HttpResult EtcdHttp::Authenticate(core::Nanos timeout) { return AuthenticateUntil(SteadyNow() + timeout); }

HttpResult EtcdHttp::Post(const std::string& path, const std::string& body, core::Nanos timeout,
                          const StreamSink* stream) {
  const core::Nanos deadline = SteadyNow() + timeout;
  const bool auth = !options_.auth.user.empty();
  if (auth && Token().empty()) {
    HttpResult login = AuthenticateUntil(deadline);
    if (login.verdict != Verdict::kResult) {
      if (login.cause == FailureCause::kWrongCredentials || login.cause == FailureCause::kTls) ReportError(login.error);
      return login;
    }
  }
  HttpResult result = PostUntil(path, body, deadline, /*with_token=*/true, stream);
  if (auth && result.cause == FailureCause::kTokenRejected) {
    // Expired (unused longer than etcd's --auth-token-ttl) or revoked; the
    // request was not applied: a fresh token and one more try.
    HttpResult login = AuthenticateUntil(deadline);
    if (login.verdict != Verdict::kResult) {
      login.error = "etcd rejected the auth token (expired or revoked), and re-authenticating failed: " + login.error;
      ReportError(login.error);
      return login;
    }
    result = PostUntil(path, body, deadline, /*with_token=*/true, stream);
    if (result.cause == FailureCause::kTokenRejected) {
      result.error = "etcd rejected a fresh auth token of user \"" + options_.auth.user + "\": " + result.error;
    }
  }
  if (result.cause == FailureCause::kTls) {
    result.error = "TLS to " + result.endpoint + " failed: " + result.error;
    ReportError(result.error);
  }
  return result;
}

}  // namespace leasesim::etcd
