// The HTTP layer's error mapping and failover against loopback sockets that
// refuse, hang, or answer (no etcd needed).

#include "backends/etcd/etcd_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "backends/etcd/etcd_kv.h"
#include "backends/etcd/etcd_store.h"
#include "base/units.h"

namespace leasesim::etcd {
namespace {

using base::Millis;

int ListenLoopback(int* port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_EQ(::listen(fd, 16), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *port = ntohs(addr.sin_port);
  return fd;
}

// A port nobody listens on (bound, then closed).
int ClosedPort() {
  int port = 0;
  ::close(ListenLoopback(&port));
  return port;
}

// Answers every request with `response` (or never, when empty).
class FakeServer {
 public:
  // `open_stream`: answers 200 with a chunked body it never ends (a
  // stream without news).
  explicit FakeServer(std::string response, bool open_stream = false)
      : response_(std::move(response)), open_stream_(open_stream) {
    fd_ = ListenLoopback(&port_);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakeServer() {
    stop_ = true;
    thread_.join();
    for (int c : held_) ::close(c);
    ::close(fd_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int requests() const { return requests_.load(); }

 private:
  void Serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int client = ::accept(fd_, nullptr, nullptr);
      if (client < 0) continue;
      std::string request;
      char buffer[4096];
      while (!stop_) {
        pollfd c{client, POLLIN, 0};
        if (::poll(&c, 1, 20) <= 0) continue;
        const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
        if (n <= 0) break;
        request.append(buffer, static_cast<std::size_t>(n));
        const std::size_t head = request.find("\r\n\r\n");
        if (head == std::string::npos) continue;
        const std::size_t cl = request.find("Content-Length: ");
        const std::size_t length = cl == std::string::npos ? 0 : std::stoul(request.substr(cl + 16));
        if (request.size() >= head + 4 + length) break;
      }
      requests_ += 1;
      if (open_stream_) {
        const std::string head =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
        (void)!::send(client, head.data(), head.size(), MSG_NOSIGNAL);
        held_.push_back(client);
        continue;
      }
      if (response_.empty()) {
        held_.push_back(client);  // never answer
        continue;
      }
      const std::string reply = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                                std::to_string(response_.size()) + "\r\n\r\n" + response_;
      (void)!::send(client, reply.data(), reply.size(), MSG_NOSIGNAL);
      ::close(client);
    }
  }

  std::string response_;
  bool open_stream_ = false;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::vector<int> held_;
  std::thread thread_;
};

std::string Url(int port) { return "http://127.0.0.1:" + std::to_string(port); }

TEST(EtcdHttp, SplitsEndpointLists) {
  EXPECT_EQ(SplitEndpoints("http://a:1,http://b:2/,,http://c:3"),
            (std::vector<std::string>{"http://a:1", "http://b:2", "http://c:3"}));
  EXPECT_TRUE(SplitEndpoints("").empty());
}

TEST(EtcdHttp, RefusedEverywhereIsUnavailableAndQuick) {
  EtcdHttp http({.endpoints = {Url(ClosedPort()), Url(ClosedPort())}});
  EtcdStoreClient store(http);
  const auto start = std::chrono::steady_clock::now();
  core::StoreResult result = store.Read("k", Millis(2'000));
  EXPECT_EQ(result.status, core::StoreStatus::kUnavailable);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1'000));
}

TEST(EtcdHttp, NoAnswerIsTimeoutWithinTheCallsDeadline) {
  FakeServer silent("");
  EtcdHttp http({.endpoints = {silent.url()}});
  EtcdStoreClient store(http);
  const auto start = std::chrono::steady_clock::now();
  core::StoreResult result = store.CompareAndSet("k", 3, core::LeaseRecord{.holder = "a", .term = 1}, Millis(150));
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(result.status, core::StoreStatus::kTimeout);
  EXPECT_GE(took, std::chrono::milliseconds(140));
  EXPECT_LT(took, std::chrono::milliseconds(1'000));
}

TEST(EtcdHttp, FailsOverFromARefusingEndpoint) {
  FakeServer good(R"({"header":{"revision":"4"}})");
  EtcdHttp http({.endpoints = {Url(ClosedPort()), good.url()}});
  EtcdStoreClient store(http);
  core::StoreResult result = store.Read("k", Millis(1'000));
  EXPECT_EQ(result.status, core::StoreStatus::kOk);
  EXPECT_FALSE(result.current.found);
  // The next call starts at the endpoint that answered.
  EXPECT_EQ(store.Read("k", Millis(1'000)).status, core::StoreStatus::kOk);
  EXPECT_EQ(good.requests(), 2);
}

TEST(EtcdHttp, DoesNotRetryElsewhereOnceTheOutcomeIsUnknown) {
  FakeServer silent("");
  FakeServer good(R"({"header":{"revision":"4"}})");
  EtcdHttp http({.endpoints = {silent.url(), good.url()}});
  EtcdStoreClient store(http);
  EXPECT_EQ(store.CompareAndSet("k", 1, core::LeaseRecord{.holder = "a", .term = 1}, Millis(100)).status,
            core::StoreStatus::kTimeout);
  EXPECT_EQ(good.requests(), 0);
  // ... but the next call goes to the other endpoint.
  EXPECT_EQ(store.Read("k", Millis(1'000)).status, core::StoreStatus::kOk);
  EXPECT_EQ(good.requests(), 1);
}

TEST(EtcdHttp, KvCallsRefusedEverywhereAreUnavailable) {
  EtcdHttp http({.endpoints = {Url(ClosedPort()), Url(ClosedPort())}});
  EtcdKvClient kv(http);
  core::KvTxn put;
  put.success.push_back(core::KvRequestOp::Put("k", "v"));
  EXPECT_EQ(kv.Txn(put, Millis(1'000)).status, core::KvStatus::kUnavailable);
  EXPECT_EQ(kv.Watch(core::KvKeys::Single("k"), 0, Millis(1'000)).status, core::KvStatus::kUnavailable);
  EXPECT_EQ(kv.LeaseGrant(Millis(5'000), Millis(1'000)).status, core::KvStatus::kUnavailable);
  EXPECT_EQ(kv.LeaseKeepAlive(7, Millis(1'000)).status, core::KvStatus::kUnavailable);
  EXPECT_EQ(kv.LeaseRevoke(7, Millis(1'000)).status, core::KvStatus::kUnavailable);
}

TEST(EtcdHttp, KvCallsWithNoAnswerAreTimeouts) {
  FakeServer silent("");
  EtcdHttp http({.endpoints = {silent.url()}});
  EtcdKvClient kv(http);
  core::KvTxn put;
  put.success.push_back(core::KvRequestOp::Put("k", "v"));
  EXPECT_EQ(kv.Txn(put, Millis(100)).status, core::KvStatus::kTimeout);  // may have applied
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(kv.Watch(core::KvKeys::Single("k"), 0, Millis(150)).status, core::KvStatus::kTimeout);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(140));
  EXPECT_EQ(kv.LeaseKeepAlive(7, Millis(100)).status, core::KvStatus::kTimeout);
}

// A member that opens a stream and keeps it open without news (a quiet
// watch) answered: the next call stays with it.
TEST(EtcdHttp, AQuietStreamTimesOutWithoutLeavingItsMember) {
  FakeServer quiet("", /*open_stream=*/true);
  FakeServer other(R"({"header":{"revision":"4"}})");
  EtcdHttp http({.endpoints = {quiet.url(), other.url()}});
  EtcdKvClient kv(http);
  const core::KvWatchResult watched = kv.Watch(core::KvKeys::Single("k"), 0, Millis(200));
  EXPECT_EQ(watched.status, core::KvStatus::kTimeout);
  EXPECT_EQ(quiet.requests(), 1);
  kv.Watch(core::KvKeys::Single("k"), 0, Millis(100));
  EXPECT_EQ(quiet.requests(), 2);
  EXPECT_EQ(other.requests(), 0);
}

TEST(EtcdHttp, AKvAnswerThatCannotBeReadIsOfUnknownOutcome) {
  FakeServer garbled(R"({"header":{"revision":"4"},"succeeded":true})");  // the put's response is missing
  EtcdHttp http({.endpoints = {garbled.url()}});
  EtcdKvClient kv(http);
  core::KvTxn put;
  put.success.push_back(core::KvRequestOp::Put("k", "v"));
  EXPECT_EQ(kv.Txn(put, Millis(1'000)).status, core::KvStatus::kTimeout);
  EXPECT_EQ(kv.LeaseGrant(Millis(5'000), Millis(1'000)).status, core::KvStatus::kTimeout);
}

}  // namespace
}  // namespace leasesim::etcd
