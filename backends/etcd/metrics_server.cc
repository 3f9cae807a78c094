#include "backends/etcd/metrics_server.h"

#include <httplib.h>

#include <cassert>
#include <chrono>

namespace leasesim::etcd {
namespace {

constexpr int kWorkerThreads = 2;  // a scraper and a prober at once

}  // namespace

MetricsServer::MetricsServer(MetricsServerOptions options)
    : options_(std::move(options)), server_(std::make_unique<httplib::Server>()) {
  assert(options_.metrics);
  // determinism-ok: live mode — the operations endpoint's own threads.
  server_->new_task_queue = [] { return new httplib::ThreadPool(kWorkerThreads); };
  server_->set_read_timeout(std::chrono::seconds(2));
  server_->set_write_timeout(std::chrono::seconds(2));
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& response) {
    response.set_content(options_.metrics(), "text/plain; version=0.0.4; charset=utf-8");
  });
  server_->Get("/healthz", [this](const httplib::Request&, httplib::Response& response) {
    const HealthStatus status = options_.health ? options_.health() : HealthStatus{true, "ok"};
    response.status = status.healthy ? 200 : 503;
    response.set_content(status.message + "\n", "text/plain; charset=utf-8");
  });
  const int port = options_.port == 0 ? server_->bind_to_any_port(options_.bind_address)
                                      : (server_->bind_to_port(options_.bind_address, options_.port)
                                             ? options_.port
                                             : -1);
  if (port <= 0) {
    error_ = "cannot bind " + options_.bind_address + ":" + std::to_string(options_.port) +
             " (address not local, port taken, or not permitted)";
    return;
  }
  port_ = port;
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  // stop() only ends a server already listening: wait until it is (bounded).
  for (int i = 0; i < 2'000 && !server_->is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

MetricsServer::~MetricsServer() {
  if (thread_.joinable()) {
    server_->stop();
    thread_.join();
  }
}

}  // namespace leasesim::etcd
