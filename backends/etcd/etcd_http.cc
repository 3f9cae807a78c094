#include "backends/etcd/etcd_http.h"

#include <curl/curl.h>

#include <algorithm>
#include <cassert>
#include <chrono>

namespace leasesim::etcd {
namespace {

std::once_flag curl_init;

std::size_t Collect(char* data, std::size_t size, std::size_t count, void* user) {
  auto* body = static_cast<std::string*>(user);
  body->append(data, size * count);
  return size * count;
}

core::Nanos SteadyNow() {
  // determinism-ok: live mode — deadlines of real HTTP calls.
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

long ToMillis(core::Nanos ns) { return static_cast<long>(std::max<core::Nanos>(1, ns / base::kNanosPerMilli)); }

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

struct EtcdHttp::Handle {
  CURL* curl = nullptr;
  curl_slist* headers = nullptr;
  Handle() {
    curl = curl_easy_init();
    headers = curl_slist_append(nullptr, "Content-Type: application/json");
  }
  ~Handle() {
    curl_easy_cleanup(curl);
    curl_slist_free_all(headers);
  }
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

HttpResult EtcdHttp::PostTo(std::size_t endpoint, const std::string& path, const std::string& body,
                            core::Nanos timeout) {
  HttpResult result;
  result.endpoint = options_.endpoints.at(endpoint);
  std::unique_ptr<Handle> handle = Acquire(endpoint);
  CURL* curl = handle->curl;
  const std::string url = result.endpoint + path;
  std::string response;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, handle->headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM-based timeouts
  curl_easy_setopt(curl, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(curl, CURLOPT_PROXY, "");     // never an environment proxy
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, ToMillis(timeout));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, ToMillis(std::min(timeout, options_.connect_timeout)));
  const CURLcode code = curl_easy_perform(curl);
  Transport transport = Transport::kAnswered;
  long status = 0;
  switch (code) {
    case CURLE_OK:
      curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
      break;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      transport = Transport::kRefused;
      break;
    case CURLE_OPERATION_TIMEDOUT: {
      // A connect that never completed sent nothing; otherwise unknown.
      long request_size = 0;
      curl_easy_getinfo(curl, CURLINFO_REQUEST_SIZE, &request_size);
      curl_off_t connect_time = 0;
      curl_easy_getinfo(curl, CURLINFO_CONNECT_TIME_T, &connect_time);
      transport = (request_size == 0 && connect_time == 0) ? Transport::kRefused : Transport::kTimedOut;
      break;
    }
    default:
      transport = Transport::kBroken;
      break;
  }
  result.verdict = Classify(transport, status, response);
  result.http_status = status;
  if (result.verdict == Verdict::kResult) {
    result.body = std::move(response);
  } else if (code != CURLE_OK) {
    result.error = curl_easy_strerror(code);
  } else {
    const GatewayError gateway = ParseGatewayError(response);
    result.grpc_code = gateway.code;
    result.error = "HTTP " + std::to_string(status) +
                   (gateway.code >= 0 ? " " + GrpcCodeName(gateway.code) : std::string()) + ": " + gateway.message;
  }
  if (code == CURLE_OK) {
    Release(endpoint, std::move(handle));  // keep the connection for the next call
  }
  return result;
}

HttpResult EtcdHttp::Post(const std::string& path, const std::string& body, core::Nanos timeout) {
  const core::Nanos deadline = SteadyNow() + timeout;
  const std::size_t n = options_.endpoints.size();
  const std::size_t first = preferred_.load() % n;
  HttpResult last;
  last.verdict = Verdict::kNotApplied;
  last.error = "no endpoint tried";
  for (std::size_t attempt = 0; attempt < n; ++attempt) {
    const std::size_t endpoint = (first + attempt) % n;
    const core::Nanos remaining = deadline - SteadyNow();
    if (remaining < base::kNanosPerMilli) break;  // < 1 ms left: not worth a try
    last = PostTo(endpoint, path, body, remaining);
    if (last.verdict == Verdict::kResult) {
      preferred_.store(endpoint);
      return last;
    }
    // The next call starts elsewhere: this member refused, has no leader,
    // or did not answer in time.
    preferred_.store((endpoint + 1) % n);
    if (last.verdict == Verdict::kUnknown) return last;  // may have applied: no retry
  }
  return last;
}

}  // namespace leasesim::etcd
