#include "live/etcd_side.h"

#include "backends/etcd/etcd_access.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <thread>

namespace leasesim::live {
namespace {

constexpr int kStartWaitMs = 20'000;  // for every member to answer a linearizable read

bool ReadPasswordFile(const std::string& path, std::string& password) {
  std::ifstream in(path);
  if (!in) return false;
  std::getline(in, password);  // the first line; a trailing newline is not part of it
  return true;
}

}  // namespace

namespace {

// The given cluster's TLS and auth options, from the flags; an error or empty.
std::string GivenClusterOptions(const LiveOptions& o, etcd::EndpointOptions& client,
                                std::vector<std::string>& node_flags) {
  client.tls = {.ca_file = o.etcd_ca, .cert_file = o.etcd_cert, .key_file = o.etcd_key,
                .server_name = o.etcd_server_name};
  client.auth.user = o.etcd_user;
  if (!o.etcd_password_file.empty() && !ReadPasswordFile(o.etcd_password_file, client.auth.password)) {
    return "--etcd-password-file: cannot read " + o.etcd_password_file;
  }
  const std::pair<const char*, const std::string*> flags[] = {
      {"--etcd-ca", &o.etcd_ca},     {"--etcd-cert", &o.etcd_cert},          {"--etcd-key", &o.etcd_key},
      {"--etcd-server-name", &o.etcd_server_name}, {"--etcd-user", &o.etcd_user},
      {"--etcd-password-file", &o.etcd_password_file}};
  for (const auto& [flag, value] : flags) {
    if (value->empty()) continue;
    node_flags.push_back(flag);
    node_flags.push_back(*value);
  }
  return {};
}

}  // namespace

std::string EtcdSide::Connect(const LiveOptions& o, std::ostream& out) {
  own_ = o.etcd_urls.empty();
  urls_ = o.etcd_urls;
  if (own_) {
    std::string error;
    if (!cluster_.Start(o.etcd_binary, kStartWaitMs, o.etcd_secure, error)) return "etcd: " + error;
    urls_ = cluster_.ClientUrls();
    client_ = cluster_.client_options();
    if (o.etcd_secure) {
      const etcd::TlsOptions& tls = client_.tls;
      node_flags_ = {"--etcd-ca", tls.ca_file, "--etcd-cert", tls.cert_file, "--etcd-key", tls.key_file,
                     "--etcd-user", client_.auth.user, "--etcd-password-file", cluster_.password_file()};
    }
    out << "live: etcd cluster of 3 at " << urls_ << (o.etcd_secure ? " (TLS, client certificates, etcd auth)" : "")
        << " (data " << cluster_.dir() << ")\n";
  } else {
    if (std::string error = GivenClusterOptions(o, client_, node_flags_); !error.empty()) return error;
    out << "live: etcd at " << urls_ << "\n";
  }
  etcd::EndpointOptions options = client_;
  options.endpoints = etcd::SplitEndpoints(urls_);
  http_ = std::make_unique<etcd::EtcdHttp>(std::move(options));
  store_ = std::make_unique<etcd::EtcdStoreClient>(*http_);
  return {};
}

std::string EtcdSide::CheckAccess(const std::string& lease_key, const std::string& ledger_prefix) {
  const std::vector<etcd::AccessProblem> problems =
      etcd::CheckAccess(*http_, {.lease_key = lease_key, .ledger_prefix = ledger_prefix}, 5'000 * kNanosPerMilli);
  std::string error;
  for (const etcd::AccessProblem& problem : problems) error += (error.empty() ? "" : "; ") + problem.message;
  return error;
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
      const std::string scheme = url.substr(0, url.find("://"));  // TLS passes through the proxy untouched
      list += (list.empty() ? "" : ",") + scheme + "://127.0.0.1:" + std::to_string(local);
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
    if (ledger.ListApplied(2'000 * kNanosPerMilli, applied)) return true;
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
