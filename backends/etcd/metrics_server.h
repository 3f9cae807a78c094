#pragma once
// A tiny HTTP server on loopback that answers every GET (e.g. /metrics) with
// the Prometheus text exposition format produced by a callback. One thread,
// one connection at a time: enough for a scraper.

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace leasesim::etcd {

class MetricsServer {
 public:
  // Binds 127.0.0.1:port (0: any free port) and starts serving.
  MetricsServer(int port, std::function<std::string()> render);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  bool ok() const { return fd_ >= 0; }
  const std::string& error() const { return error_; }
  int port() const { return port_; }  // the bound port

 private:
  void Serve();

  std::function<std::string()> render_;
  int fd_ = -1;
  int port_ = 0;
  std::string error_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace leasesim::etcd
