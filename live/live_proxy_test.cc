// The proxy in front of etcd (live/tcp_proxy.h) against a loopback echo
// peer: it forwards, cuts and heals, and delays each chunk — no etcd needed.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "live/tcp_proxy.h"

namespace leasesim::live {
namespace {

int ListenLoopback(int* port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::listen(fd, 8);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *port = ntohs(addr.sin_port);
  return fd;
}


// Echo through the proxy; true when "ping" came back.
bool Echoes(int proxy_port, int server_fd) {
  const int client = ConnectLoopback(proxy_port);
  if (client < 0) return false;
  ::send(client, "ping", 4, MSG_NOSIGNAL);
  pollfd p{server_fd, POLLIN, 0};
  bool ok = false;
  if (::poll(&p, 1, 500) > 0) {
    const int upstream = ::accept(server_fd, nullptr, nullptr);
    char buffer[8];
    pollfd u{upstream, POLLIN, 0};
    if (::poll(&u, 1, 500) > 0 && ::recv(upstream, buffer, sizeof buffer, 0) == 4) {
      ::send(upstream, buffer, 4, MSG_NOSIGNAL);
      pollfd c{client, POLLIN, 0};
      ok = ::poll(&c, 1, 500) > 0 && ::recv(client, buffer, sizeof buffer, 0) == 4;
    }
    ::close(upstream);
  }
  ::close(client);
  return ok;
}

TEST(LiveProxy, ForwardsAndCuts) {
  int target = 0;
  const int server = ListenLoopback(&target);
  ProxyHub hub;
  const int port = hub.Add(1, target);
  ASSERT_NE(port, 0);
  hub.Start();
  EXPECT_TRUE(Echoes(port, server));
  hub.SetCut(1, true);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(Echoes(port, server));
  hub.SetCut(1, false);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(Echoes(port, server));
  ::close(server);
}

// A connection through the proxy with the server's end accepted, for
// timing round trips.
class Connection {
 public:
  Connection(int proxy_port, int server_fd) : client_(ConnectLoopback(proxy_port)) {
    pollfd p{server_fd, POLLIN, 0};
    if (client_ >= 0 && ::send(client_, "x", 1, MSG_NOSIGNAL) == 1 && ::poll(&p, 1, 2000) > 0) {
      upstream_ = ::accept(server_fd, nullptr, nullptr);
      char byte = 0;
      if (!Receive(upstream_, &byte, 1, 2000)) Close();
    }
  }
  ~Connection() { Close(); }
  bool ok() const { return client_ >= 0 && upstream_ >= 0; }

  // Sends `text` to the server, which echoes it; the milliseconds until it
  // came back whole, or -1.
  std::int64_t RoundTripMs(const std::string& text) {
    const auto start = std::chrono::steady_clock::now();
    std::string got(text.size(), '\0');
    if (::send(client_, text.data(), text.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(text.size())) return -1;
    if (!Receive(upstream_, got.data(), got.size(), 5000)) return -1;
    if (::send(upstream_, got.data(), got.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(got.size())) return -1;
    if (!Receive(client_, got.data(), got.size(), 5000) || got != text) return -1;
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  }

 private:
  static bool Receive(int fd, char* into, std::size_t size, int timeout_ms) {
    std::size_t got = 0;
    for (int round = 0; round < 1000 && got < size; ++round) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, timeout_ms) <= 0) return false;
      const ssize_t n = ::recv(fd, into + got, size - got, 0);
      if (n <= 0) return false;
      got += static_cast<std::size_t>(n);
    }
    return got == size;
  }
  void Close() {
    if (client_ >= 0) ::close(client_);
    if (upstream_ >= 0) ::close(upstream_);
    client_ = upstream_ = -1;
  }
  int client_ = -1;
  int upstream_ = -1;
};

TEST(LiveProxy, DelaysEachChunkInBothDirectionsAndHeals) {
  int target = 0;
  const int server = ListenLoopback(&target);
  ProxyHub hub;
  const int port = hub.Add(1, target);
  ASSERT_NE(port, 0);
  hub.Start();
  Connection connection(port, server);
  ASSERT_TRUE(connection.ok());
  const std::int64_t before = connection.RoundTripMs("ping");
  ASSERT_GE(before, 0);
  EXPECT_LT(before, 300);  // no delay: a loopback round trip (upper bounds leave room for a loaded machine)
  hub.SetDelay(1, 150);
  const std::int64_t delayed = connection.RoundTripMs("ping");
  EXPECT_GE(delayed, 300);  // held 150 ms each way
  EXPECT_LT(delayed, 2000);
  // Bytes keep their order across chunks (the proxy reads 16 KiB at a time) while held.
  std::string long_text;
  for (int i = 0; i < 4000; ++i) long_text += std::to_string(i) + ",";
  EXPECT_GE(connection.RoundTripMs(long_text), 300);
  hub.SetDelay(1, 0);
  const std::int64_t healed = connection.RoundTripMs("ping");
  ASSERT_GE(healed, 0);
  EXPECT_LT(healed, 300);
  ::close(server);
}

TEST(LiveProxy, ADelayOnOneNodeLeavesTheOthersAlone) {
  int target = 0;
  const int server = ListenLoopback(&target);
  ProxyHub hub;
  const int slow = hub.Add(1, target);
  const int fast = hub.Add(2, target);
  ASSERT_NE(slow, 0);
  ASSERT_NE(fast, 0);
  hub.Start();
  hub.SetDelay(1, 400);
  Connection connection(fast, server);
  ASSERT_TRUE(connection.ok());
  const std::int64_t rtt = connection.RoundTripMs("ping");
  ASSERT_GE(rtt, 0);
  EXPECT_LT(rtt, 400);  // node 1's traffic would take at least 800 ms
  ::close(server);
}

}  // namespace
}  // namespace leasesim::live
