#pragma once
// One etcd member on loopback for the live tests, started under a temporary
// directory with any extra flags (TLS, client-certificate auth, token TTL),
// and waited for until it answers a linearizable read; killed and its data
// removed on destruction.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "backends/etcd/etcd_http.h"
#include "backends/etcd/etcd_json.h"

namespace leasesim::etcd {

inline constexpr const char* kEtcd = "/usr/bin/etcd";

inline int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

struct OneEtcdOptions {
  std::string scheme = "http";     // "https" with TLS flags in `flags`
  std::vector<std::string> flags;  // extra etcd flags
  TlsOptions client_tls;           // how the readiness probe connects
};

// One running etcd member, owned: started by the constructor, gone with the object.
class OneEtcd {
 public:
  explicit OneEtcd(OneEtcdOptions options = {}) {
    char dir_template[] = "/tmp/leasesim-etcd-test.XXXXXX";
    dir_ = ::mkdtemp(dir_template);
    const int client = FreePort();
    const int peer = FreePort();
    url_ = options.scheme + "://127.0.0.1:" + std::to_string(client);
    const std::string peer_url = "http://127.0.0.1:" + std::to_string(peer);
    std::vector<std::string> args = {kEtcd, "--name", "t1", "--data-dir", dir_ + "/data",
                                     "--listen-client-urls", url_, "--advertise-client-urls", url_,
                                     "--listen-peer-urls", peer_url, "--initial-advertise-peer-urls", peer_url,
                                     "--initial-cluster", "t1=" + peer_url, "--logger", "zap", "--log-level", "warn"};
    args.insert(args.end(), options.flags.begin(), options.flags.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      FILE* out = std::freopen((dir_ + "/etcd.log").c_str(), "w", stderr);
      (void)out;
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(kEtcd, argv.data());
      std::_Exit(127);
    }
    EtcdHttp http({.endpoints = {url_}, .tls = options.client_tls});
    for (int i = 0; i < 200; ++i) {
      if (http.Post("/v3/kv/range", RangeBody("probe"), 200 * base::kNanosPerMilli).verdict == Verdict::kResult) {
        ready_ = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ~OneEtcd() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  OneEtcd(const OneEtcd&) = delete;
  OneEtcd& operator=(const OneEtcd&) = delete;
  bool ready() const { return ready_; }
  const std::string& url() const { return url_; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::string url_;
  pid_t pid_ = -1;
  bool ready_ = false;
};

}  // namespace leasesim::etcd
