#include "live/etcd_side.h"

#include <chrono>
#include <filesystem>
#include <ostream>
#include <thread>

namespace leasesim::live {
namespace {

constexpr int kStartWaitMs = 20'000;  // for every member to answer a linearizable read

}  // namespace

std::string EtcdSide::Connect(const std::string& urls, const std::string& etcd_binary, std::ostream& out) {
  own_ = urls.empty();
  urls_ = urls;
  if (own_) {
    std::string error;
    if (!cluster_.Start(etcd_binary, kStartWaitMs, error)) return "etcd: " + error;
    urls_ = cluster_.ClientUrls();
    out << "live: etcd cluster of 3 at " << urls_ << " (data " << cluster_.dir() << ")\n";
  } else {
    out << "live: etcd at " << urls_ << "\n";
  }
  http_ = std::make_unique<etcd::EtcdHttp>(etcd::EndpointOptions{.endpoints = etcd::SplitEndpoints(urls_)});
  store_ = std::make_unique<etcd::EtcdStoreClient>(*http_);
  return {};
}

std::string EtcdSide::StartProxies(int nodes, const std::vector<LiveFault>& faults) {
  const auto size = static_cast<std::size_t>(nodes + 1);
  proxied_.assign(size, false);
  node_urls_.assign(size, urls_);
  bool every_node = false;
  for (const LiveFault& fault : faults) {
    if (!SpecOf(fault.kind).behind_proxy) continue;
    if (fault.leader) every_node = true;
    else proxied_[static_cast<std::size_t>(fault.target)] = true;
  }
  for (int n = 1; n <= nodes; ++n) {
    const auto index = static_cast<std::size_t>(n);
    if (!every_node && !proxied_[index]) continue;
    proxied_[index] = true;
    std::string list;
    for (const std::string& url : etcd::SplitEndpoints(urls_)) {
      int port = 0;
      try {
        port = std::stoi(url.substr(url.rfind(':') + 1));
      } catch (...) {
        return "--etcd URL " + url + " has no port to put a proxy in front of";
      }
      const int local = proxies_.Add(n, port);
      if (local == 0) return "cannot start the TCP proxy";
      list += (list.empty() ? "" : ",") + std::string("http://127.0.0.1:") + std::to_string(local);
    }
    node_urls_[index] = list;
  }
  proxies_.Start();
  return {};
}

const std::string& EtcdSide::NodeUrls(int node) const { return node_urls_.at(static_cast<std::size_t>(node)); }

bool EtcdSide::BehindProxy(int node) const {
  return node >= 1 && node < static_cast<int>(proxied_.size()) && proxied_[static_cast<std::size_t>(node)];
}

bool EtcdSide::ReadLedger(const std::string& prefix, std::vector<etcd::AppliedBatch>& applied) {
  etcd::EtcdLedgerClient ledger(*http_, {.prefix = prefix, .writer = "orchestrator"});
  constexpr int kAttempts = 20;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    if (ledger.ListApplied(2'000 * kNanosPerMs, applied)) return true;
    // determinism-ok: live mode — waiting for etcd to answer again.
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return false;
}

void EtcdSide::SaveLogsAndStop(const std::string& out_dir) {
  if (!own_) return;
  for (int m = 1; m <= EtcdCluster::kMembers; ++m) {
    std::error_code ignored;
    std::filesystem::copy_file(cluster_.dir() + "/m" + std::to_string(m) + ".log",
                               out_dir + "/etcd-m" + std::to_string(m) + ".log",
                               std::filesystem::copy_options::overwrite_existing, ignored);
  }
  cluster_.Shutdown();
}

}  // namespace leasesim::live
