#pragma once
// The operations endpoint of a process embedding the core: GET /metrics
// (the Prometheus text exposition format, from a callback) and GET
// /healthz (200 "ok" or 503 with the reason, from a callback), on
// cpp-httplib (Debian's libcpp-httplib-dev) with a small thread pool, bound
// to a configurable address ("127.0.0.1" by default; "0.0.0.0" for every
// interface, or one interface's address).

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "backends/etcd/lease_health.h"

namespace httplib {
class Server;
}

namespace leasesim::etcd {

struct MetricsServerOptions {
  std::string bind_address = "127.0.0.1";
  int port = 0;                            // 0: any free port
  std::function<std::string()> metrics;    // required: the exposition text
  std::function<HealthStatus()> health;    // optional: absent means always healthy
};

// The HTTP server of /metrics and /healthz, serving from its callbacks until destroyed.
class MetricsServer {
 public:
  // Binds and starts serving; ok() tells whether the bind worked.
  explicit MetricsServer(MetricsServerOptions options);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  bool ok() const { return port_ > 0; }
  const std::string& error() const { return error_; }
  int port() const { return port_; }  // the bound port

 private:
  MetricsServerOptions options_;
  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
  std::string error_;
  std::thread thread_;
};

}  // namespace leasesim::etcd
