#include "live/live_config.h"

#include <unistd.h>

#include <filesystem>

#include "backends/etcd/etcd_http.h"
#include "live/live_faults.h"
#include "core/protocol.h"
#include "live/live_node.h"

namespace leasesim::live {

std::string ProtocolName(const std::string& protocol) {
  return protocol.empty() ? core::Protocols().default_name() : protocol;
}

std::string ValidateProtocol(const std::string& protocol) {
  return core::Protocols().Find(ProtocolName(protocol)).error;
}

core::TimingConfig TimingOf(const LiveOptions& o) {
  return core::TimingConfig{.lease_duration = o.lease_ms * kNanosPerMilli,
                            .renew_interval = o.renew_interval_ms * kNanosPerMilli,
                            .renew_deadline = o.renew_deadline_ms * kNanosPerMilli,
                            .retry = o.retry_ms * kNanosPerMilli,
                            .request_timeout = o.request_timeout_ms * kNanosPerMilli,
                            .drift_bound_ppm = o.drift_ppm,
                            .safety_margin = o.margin_ms * kNanosPerMilli,
                            .pause_budget = o.pause_budget_ms * kNanosPerMilli};
}

// The etcd security flags' rules; an error naming the flag, or empty.
std::string ValidateEtcdSecurity(const LiveOptions& o) {
  const bool own_cluster = o.etcd_urls.empty();
  const std::pair<const char*, const std::string*> flags[] = {
      {"--etcd-ca", &o.etcd_ca},     {"--etcd-cert", &o.etcd_cert},          {"--etcd-key", &o.etcd_key},
      {"--etcd-server-name", &o.etcd_server_name}, {"--etcd-user", &o.etcd_user},
      {"--etcd-password-file", &o.etcd_password_file}};
  if (o.etcd_secure && !own_cluster) {
    return "--etcd-secure secures the run's own cluster: not with --etcd (describe a secured one with "
           "--etcd-ca, --etcd-cert, --etcd-key, --etcd-user, --etcd-password-file)";
  }
  for (const auto& [flag, value] : flags) {
    if (own_cluster && !value->empty()) return std::string(flag) + " describes a cluster given with --etcd";
  }
  if (own_cluster) return {};
  etcd::EndpointOptions client{.endpoints = etcd::SplitEndpoints(o.etcd_urls),
                               .tls = {o.etcd_ca, o.etcd_cert, o.etcd_key, o.etcd_server_name},
                               .auth = {o.etcd_user, o.etcd_password_file.empty() ? "" : "from file"}};
  std::vector<std::string> errors = etcd::ValidateEndpointOptions(client);
  if (errors.empty()) {
    if (!o.etcd_user.empty() && o.etcd_password_file.empty()) return "--etcd-user needs --etcd-password-file";
    if (!o.etcd_password_file.empty() && ::access(o.etcd_password_file.c_str(), R_OK) != 0) {
      return "--etcd-password-file: cannot read " + o.etcd_password_file;
    }
    return {};
  }
  // The client's field names, as the flags that set them.
  std::string error = errors.front();
  const std::pair<const char*, const char*> names[] = {
      {"tls.ca_file", "--etcd-ca"}, {"tls.cert_file", "--etcd-cert"}, {"tls.key_file", "--etcd-key"},
      {"auth.user", "--etcd-user"}, {"endpoints", "--etcd"}};
  for (const auto& [field, flag] : names) {
    for (std::size_t at = error.find(field); at != std::string::npos; at = error.find(field)) {
      error.replace(at, std::string_view(field).size(), flag);
    }
  }
  return error;
}

std::optional<RunFailure> ValidateOptions(const LiveOptions& o) {
  for (const core::TimingError& error : core::ValidateTiming(TimingOf(o))) {
    return RunFailure{2, "timing: " + error.path + " " + error.rule};
  }
  if (o.nodes < 1 || o.nodes > 9) return RunFailure{2, "--nodes must be in 1..9"};
  if (o.duration_ms < 1'000) return RunFailure{2, "--duration must be at least 1 s"};
  if (o.period_ms < 1) return RunFailure{2, "--period-ms must be at least 1"};
  if (std::string error = ValidateProtocol(o.protocol); !error.empty()) return RunFailure{2, error};
  if (o.faults.size() > kMaxLiveFaults) return RunFailure{2, "at most " + std::to_string(kMaxLiveFaults) + " faults"};
  if (std::string error = ValidateEtcdSecurity(o); !error.empty()) return RunFailure{2, error};
  const bool own_cluster = o.etcd_urls.empty();
  for (const LiveFault& fault : o.faults) {
    const LiveFaultSpec& spec = SpecOf(fault.kind);
    if (spec.target == TargetKind::kEtcdMember && !own_cluster) {
      return RunFailure{2, "fault \"" + fault.text + "\": " + spec.name + " needs the run's own cluster (no --etcd)"};
    }
    if (spec.target == TargetKind::kNode && !fault.leader && (fault.target < 1 || fault.target > o.nodes)) {
      return RunFailure{2, "fault \"" + fault.text + "\": node " + std::to_string(fault.target) +
                               " out of range 1.." + std::to_string(o.nodes)};
    }
    if (fault.at_ms >= o.duration_ms) return RunFailure{2, "fault \"" + fault.text + "\" starts after the run ends"};
  }
  return std::nullopt;
}

std::optional<RunFailure> ResolveNodeBinary(const LiveOptions& o, std::string& binary,
                                            std::vector<std::string>& words) {
  binary = o.node_binary;
  words.clear();
  if (binary.empty()) {
    // This program runs the nodes too: they then run the protocols it registered.
    std::error_code ec;
    binary = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    words.emplace_back(kLiveNodeCommand);
  }
  if (::access(binary.c_str(), X_OK) != 0) {
    return RunFailure{kExitCouldNotRun, "node executable " + binary + " not found"};
  }
  return std::nullopt;
}

}  // namespace leasesim::live
