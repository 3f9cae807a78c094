#include "live/tcp_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "base/units.h"

namespace leasesim::live {
namespace {

using base::kNanosPerMilli;
constexpr int kIdlePollMs = 20;  // how often a cut is noticed when nothing moves

std::int64_t NowNanos() {
  // determinism-ok: live mode — the proxy holds chunks for real time.
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}


// Sends all of `bytes` (blocking; sends on loopback are short). false on failure.
bool SendAll(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t m = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (m <= 0) return false;
    sent += static_cast<std::size_t>(m);
  }
  return true;
}

}  // namespace

int ConnectLoopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

ProxyHub::~ProxyHub() {
  stopping_.store(true);
  if (thread_.joinable()) thread_.join();
  for (Pipe& pipe : pipes_) ClosePipe(pipe);
  for (Listener& listener : listeners_) ::close(listener.fd);
}

int ProxyHub::Add(int group, int target_port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 64) != 0) {
    ::close(fd);
    return 0;
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  listeners_.push_back(Listener{fd, group, target_port});
  return ntohs(addr.sin_port);
}

void ProxyHub::Start() {
  // determinism-ok: live mode — the proxy's forwarding thread.
  thread_ = std::thread([this] { Run(); });
}

void ProxyHub::SetCut(int group, bool cut) {
  std::lock_guard<std::mutex> lock(mu_);
  settings_.cut[group] = cut;
}

void ProxyHub::SetLatency(int group, Latency to_etcd, Latency from_etcd) {
  std::lock_guard<std::mutex> lock(mu_);
  settings_.to_etcd[group] = to_etcd;
  settings_.from_etcd[group] = from_etcd;
}

void ProxyHub::SetStall(int group, bool stalled) {
  std::lock_guard<std::mutex> lock(mu_);
  settings_.stalled[group] = stalled;
}

std::int64_t ProxyHub::HoldNs(const Latency& latency) {
  std::int64_t hold = std::max<std::int64_t>(0, latency.base_ms) * kNanosPerMilli;
  if (latency.jitter_ms > 0) {
    // xorshift64: jitter only (live mode is not replayed).
    jitter_state_ ^= jitter_state_ << 13;
    jitter_state_ ^= jitter_state_ >> 7;
    jitter_state_ ^= jitter_state_ << 17;
    const auto span = static_cast<std::uint64_t>(latency.jitter_ms * kNanosPerMilli + 1);
    hold += static_cast<std::int64_t>(jitter_state_ % span);
  }
  return hold;
}

ProxyHub::Settings ProxyHub::Snapshot() {
  std::lock_guard<std::mutex> lock(mu_);
  return settings_;
}

void ProxyHub::ClosePipe(Pipe& pipe) {
  if (pipe.client >= 0) ::close(pipe.client);
  if (pipe.upstream >= 0) ::close(pipe.upstream);
  pipe.client = pipe.upstream = -1;
  pipe.to_upstream = Direction{};
  pipe.to_client = Direction{};
}

void ProxyHub::Run() {
  std::vector<char> buffer(16384);
  while (!stopping_.load()) Round(buffer.data(), buffer.size());
}

int ProxyHub::PollTimeoutMs(std::int64_t now, const Settings& settings) const {
  std::int64_t next = now + kIdlePollMs * kNanosPerMilli;
  for (const Pipe& pipe : pipes_) {
    if (settings.stalled.contains(pipe.group) && settings.stalled.at(pipe.group)) continue;  // nothing is due
    for (const Direction* d : {&pipe.to_upstream, &pipe.to_client}) {
      if (!d->held.empty()) next = std::min(next, d->held.front().release_ns);
    }
  }
  return static_cast<int>(std::max<std::int64_t>(0, (next - now + kNanosPerMilli - 1) / kNanosPerMilli));
}

// One round: drop cut connections, wait for traffic (or the next held
// chunk's release), read what came, accept new connections, send what is due.
void ProxyHub::Round(char* buffer, std::size_t size) {
  Settings settings = Snapshot();
  for (Pipe& pipe : pipes_) {
    if (settings.cut.contains(pipe.group) && settings.cut.at(pipe.group)) ClosePipe(pipe);
  }
  std::erase_if(pipes_, [](const Pipe& p) { return p.client < 0; });
  std::vector<pollfd> fds;
  std::vector<Watched> watched;
  for (std::size_t i = 0; i < listeners_.size(); ++i) {
    fds.push_back({listeners_[i].fd, POLLIN, 0});
    watched.push_back({i, true, false});
  }
  for (std::size_t i = 0; i < pipes_.size(); ++i) {
    const Pipe& pipe = pipes_[i];
    // A side whose held bytes are at the bound is not read until they drain.
    if (!pipe.to_upstream.eof && pipe.to_upstream.held_bytes < kMaxHeldBytes) {
      fds.push_back({pipe.client, POLLIN, 0});
      watched.push_back({i, false, true});
    }
    if (!pipe.to_client.eof && pipe.to_client.held_bytes < kMaxHeldBytes) {
      fds.push_back({pipe.upstream, POLLIN, 0});
      watched.push_back({i, false, false});
    }
  }
  if (::poll(fds.data(), fds.size(), PollTimeoutMs(NowNanos(), settings)) > 0) {
    // What came is read under the settings of now, not of before the wait.
    settings = Snapshot();
    // Pipes first: accepting appends to pipes_.
    for (std::size_t f = 0; f < fds.size(); ++f) {
      if (fds[f].revents == 0 || watched[f].listener) continue;
      Read(pipes_[watched[f].index], watched[f].client_side, settings, buffer, size);
    }
    for (std::size_t f = 0; f < fds.size(); ++f) {
      if ((fds[f].revents & POLLIN) != 0 && watched[f].listener) Accept(listeners_[watched[f].index], settings);
    }
  }
  const std::int64_t now = NowNanos();
  for (Pipe& pipe : pipes_) Flush(pipe, now, settings);
}

void ProxyHub::Accept(const Listener& listener, const Settings& settings) {
  const int client = ::accept4(listener.fd, nullptr, nullptr, SOCK_CLOEXEC);
  if (client < 0) return;
  const bool cut = settings.cut.contains(listener.group) && settings.cut.at(listener.group);
  if (cut || pipes_.size() >= kMaxPipes) {
    ::close(client);  // cut: the connection dies at once
    return;
  }
  const int upstream = ConnectLoopback(listener.target_port);
  if (upstream < 0) {
    ::close(client);
    return;
  }
  const int one = 1;
  ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  ::setsockopt(upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  Pipe pipe;
  pipe.client = client;
  pipe.upstream = upstream;
  pipe.group = listener.group;
  pipes_.push_back(std::move(pipe));
}

void ProxyHub::Read(Pipe& pipe, bool client_side, const Settings& settings, char* buffer, std::size_t size) {
  if (pipe.client < 0) return;
  Direction& direction = client_side ? pipe.to_upstream : pipe.to_client;
  const ssize_t n = ::recv(client_side ? pipe.client : pipe.upstream, buffer, size, 0);
  if (n <= 0) {
    direction.eof = true;  // what is held still goes out first
    return;
  }
  const std::map<int, Latency>& latencies = client_side ? settings.to_etcd : settings.from_etcd;
  const auto latency = latencies.find(pipe.group);
  std::int64_t release = NowNanos() + (latency == latencies.end() ? 0 : HoldNs(latency->second));
  // A stream keeps its order: jitter never lets a chunk overtake the last.
  if (!direction.held.empty()) release = std::max(release, direction.held.back().release_ns);
  direction.held.push_back(Chunk{release, std::string(buffer, static_cast<std::size_t>(n))});
  direction.held_bytes += static_cast<std::size_t>(n);
}

void ProxyHub::Flush(Pipe& pipe, std::int64_t now, const Settings& settings) {
  if (pipe.client < 0) return;
  // Stalled: held (and still read, up to the bound), passed on only once healed.
  if (settings.stalled.contains(pipe.group) && settings.stalled.at(pipe.group)) return;
  for (const bool client_side : {true, false}) {
    Direction& direction = client_side ? pipe.to_upstream : pipe.to_client;
    while (!direction.held.empty() && direction.held.front().release_ns <= now) {
      if (!SendAll(client_side ? pipe.upstream : pipe.client, direction.held.front().bytes)) {
        ClosePipe(pipe);
        return;
      }
      direction.held_bytes -= direction.held.front().bytes.size();
      direction.held.pop_front();
    }
    if (direction.eof && direction.held.empty()) {
      ClosePipe(pipe);
      return;
    }
  }
}

}  // namespace leasesim::live
