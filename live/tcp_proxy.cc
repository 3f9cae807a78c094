#include "live/tcp_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

namespace leasesim::live {

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
  cut_[group] = cut;
}

void ProxyHub::ClosePipe(Pipe& pipe) {
  if (pipe.client >= 0) ::close(pipe.client);
  if (pipe.upstream >= 0) ::close(pipe.upstream);
  pipe.client = pipe.upstream = -1;
}

void ProxyHub::Run() {
  char buffer[16384];
  while (!stopping_.load()) {
    std::map<int, bool> cut;
    {
      std::lock_guard<std::mutex> lock(mu_);
      cut = cut_;
    }
    for (Pipe& pipe : pipes_) {
      if (cut[pipe.group]) ClosePipe(pipe);
    }
    pipes_.erase(std::remove_if(pipes_.begin(), pipes_.end(), [](const Pipe& p) { return p.client < 0; }),
                 pipes_.end());
    std::vector<pollfd> fds;
    for (const Listener& listener : listeners_) fds.push_back({listener.fd, POLLIN, 0});
    for (const Pipe& pipe : pipes_) {
      fds.push_back({pipe.client, POLLIN, 0});
      fds.push_back({pipe.upstream, POLLIN, 0});
    }
    if (::poll(fds.data(), fds.size(), 20) <= 0) continue;
    for (std::size_t i = 0; i < listeners_.size(); ++i) {
      if ((fds[i].revents & POLLIN) == 0) continue;
      const int client = ::accept4(listeners_[i].fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      if (cut[listeners_[i].group]) {
        ::close(client);  // cut: the connection dies at once
        continue;
      }
      const int upstream = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      addr.sin_port = htons(static_cast<std::uint16_t>(listeners_[i].target_port));
      if (upstream < 0 || ::connect(upstream, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        if (upstream >= 0) ::close(upstream);
        ::close(client);
        continue;
      }
      const int one = 1;
      ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      ::setsockopt(upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      pipes_.push_back(Pipe{client, upstream, listeners_[i].group});
    }
    // Forward (blocking sends on loopback are short).
    const std::size_t base = listeners_.size();
    const std::size_t open_pipes = (fds.size() - base) / 2;
    for (std::size_t p = 0; p < open_pipes; ++p) {
      Pipe& pipe = pipes_[p];
      for (int side = 0; side < 2; ++side) {
        const pollfd& f = fds[base + 2 * p + static_cast<std::size_t>(side)];
        if (f.revents == 0 || pipe.client < 0) continue;
        const int from = side == 0 ? pipe.client : pipe.upstream;
        const int to = side == 0 ? pipe.upstream : pipe.client;
        const ssize_t n = ::recv(from, buffer, sizeof buffer, 0);
        if (n <= 0) {
          ClosePipe(pipe);
          continue;
        }
        std::size_t sent = 0;
        while (sent < static_cast<std::size_t>(n)) {
          const ssize_t m = ::send(to, buffer + sent, static_cast<std::size_t>(n) - sent, MSG_NOSIGNAL);
          if (m <= 0) break;
          sent += static_cast<std::size_t>(m);
        }
        if (sent < static_cast<std::size_t>(n)) ClosePipe(pipe);
      }
    }
  }
}

}  // namespace leasesim::live
