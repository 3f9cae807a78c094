#include "live/processes.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "backends/etcd/etcd_http.h"
#include "backends/etcd/etcd_json.h"

namespace leasesim::live {

pid_t Launch(const std::vector<std::string>& argv, const std::string& log_path, std::string& error) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    error = std::string("fork: ") + std::strerror(errno);
    return -1;
  }
  if (pid == 0) {
    // Die with the orchestrator, whatever kills it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) std::_Exit(1);
    ::setpgid(0, 0);  // the terminal's ^C reaches the orchestrator only; it stops us
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    const int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log >= 0) {
      ::dup2(log, 1);
      ::dup2(log, 2);
    }
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    ::execv(args[0], args.data());
    std::_Exit(127);
  }
  return pid;
}

int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

void RemoveTree(const std::string& path) {
  if (path.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
}

namespace {

void KillAndReap(pid_t pid) {
  if (pid <= 0) return;
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

}  // namespace

EtcdCluster::~EtcdCluster() { Shutdown(); }

void EtcdCluster::Shutdown() {
  for (Member& member : members_) {
    KillAndReap(member.pid);
    member.pid = -1;
  }
  RemoveTree(dir_);
  dir_.clear();
}

std::string EtcdCluster::ClientUrls() const {
  std::string urls;
  for (const Member& member : members_) {
    if (!urls.empty()) urls += ",";
    urls += scheme_ + "://127.0.0.1:" + std::to_string(member.client_port);
  }
  return urls;
}

etcd::EtcdHttp EtcdCluster::ClientOf(int member) const {
  etcd::EndpointOptions options = client_options_;
  options.endpoints = {scheme_ + "://127.0.0.1:" + std::to_string(members_[member].client_port)};
  return etcd::EtcdHttp(std::move(options));
}

pid_t EtcdCluster::Spawn(int i, std::string& error) {
  const Member& m = members_[i];
  const std::string name = "m" + std::to_string(i + 1);
  const std::string client = scheme_ + "://127.0.0.1:" + std::to_string(m.client_port);
  const std::string peer = scheme_ + "://127.0.0.1:" + std::to_string(m.peer_port);
  std::vector<std::string> argv = {
      binary_, "--name", name, "--data-dir", dir_ + "/" + name + ".data", "--listen-client-urls", client,
      "--advertise-client-urls", client, "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
      "--initial-cluster", initial_cluster_, "--initial-cluster-state", "new", "--initial-cluster-token",
      "leasesim-" + std::to_string(members_[0].client_port), "--logger", "zap", "--log-outputs", "stderr",
      "--log-level", "warn"};
  if (secure_) {
    // bcrypt cost 4 (etcd's minimum): a throwaway loopback cluster, where
    // every node and restart authenticates.
    const std::vector<std::string> tls = {
        "--cert-file", certs_.server_cert, "--key-file", certs_.server_key, "--trusted-ca-file", certs_.ca,
        "--client-cert-auth", "--peer-cert-file", certs_.server_cert, "--peer-key-file", certs_.server_key,
        "--peer-trusted-ca-file", certs_.ca, "--peer-client-cert-auth", "--bcrypt-cost", "4"};
    argv.insert(argv.end(), tls.begin(), tls.end());
  }
  return Launch(argv, dir_ + "/" + name + ".log", error);
}

std::string EtcdCluster::MakeCertificates() {
  if (std::string error = etcd::MakeCertificates(dir_, certs_); !error.empty()) return error;
  client_options_.tls = {.ca_file = certs_.ca, .cert_file = certs_.client_cert, .key_file = certs_.client_key};
  return {};
}

std::string EtcdCluster::EnableAuth() {
  etcd::EndpointOptions admin_options = client_options_;
  admin_options.endpoints = etcd::SplitEndpoints(ClientUrls());
  etcd::EtcdHttp admin(std::move(admin_options));
  const etcd::AuthSetup setup{.root_password = etcd::RandomSecret(),
                              .user = "leasesim",
                              .password = etcd::RandomSecret(),
                              .role = "leasesim",
                              .prefix = "leasesim/"};
  if (std::string error = etcd::EnableAuth(admin, setup); !error.empty()) return error;
  client_options_.auth = {.user = setup.user, .password = setup.password};
  password_file_ = dir_ + "/etcd-password";
  const int fd = ::open(password_file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const bool written = fd >= 0 && ::write(fd, setup.password.data(), setup.password.size()) ==
                                      static_cast<ssize_t>(setup.password.size());
  if (fd >= 0) ::close(fd);
  return written ? std::string() : "cannot write " + password_file_;
}

bool EtcdCluster::WaitReady(int i, int wait_ms) const {
  etcd::EtcdHttp http = ClientOf(i);
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  while (std::chrono::steady_clock::now() < until) {
    // A linearizable read answers only once the member has a leader.
    if (http.Post("/v3/kv/range", etcd::RangeBody("leasesim/probe"), 300'000'000).verdict ==
        etcd::Verdict::kResult) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

bool EtcdCluster::Start(const std::string& etcd_binary, int wait_ms, bool secure, std::string& error) {
  binary_ = etcd_binary;
  secure_ = secure;
  scheme_ = secure ? "https" : "http";
  if (::access(binary_.c_str(), X_OK) != 0) {
    error = binary_ + " not found (apt-get install etcd-server)";
    return false;
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string dir_template = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/leasesim-etcd.XXXXXX";
  if (::mkdtemp(dir_template.data()) == nullptr) {
    error = std::string("mkdtemp: ") + std::strerror(errno);
    return false;
  }
  dir_ = dir_template;
  if (secure_) {
    error = MakeCertificates();
    if (!error.empty()) return false;
  }
  initial_cluster_.clear();
  for (int i = 0; i < kMembers; ++i) {
    members_[i].client_port = FreeLoopbackPort();
    members_[i].peer_port = FreeLoopbackPort();
    if (!initial_cluster_.empty()) initial_cluster_ += ",";
    initial_cluster_ +=
        "m" + std::to_string(i + 1) + "=" + scheme_ + "://127.0.0.1:" + std::to_string(members_[i].peer_port);
  }
  for (int i = 0; i < kMembers; ++i) {
    members_[i].pid = Spawn(i, error);
    if (members_[i].pid < 0) return false;
  }
  for (int i = 0; i < kMembers; ++i) {
    if (!WaitReady(i, wait_ms)) {
      error = "etcd member m" + std::to_string(i + 1) + " did not become ready within " + std::to_string(wait_ms) +
              " ms (log: " + dir_ + "/m" + std::to_string(i + 1) + ".log)";
      return false;
    }
  }
  if (secure_) error = EnableAuth();
  return error.empty();
}

void EtcdCluster::Kill(int member) {
  KillAndReap(members_[member].pid);
  members_[member].pid = -1;
}

bool EtcdCluster::Restart(int member, std::string& error) {
  if (members_[member].pid > 0) return true;
  members_[member].pid = Spawn(member, error);
  return members_[member].pid > 0;
}

int EtcdCluster::Leader() const {
  for (int i = 0; i < kMembers; ++i) {
    if (members_[i].pid <= 0) continue;
    etcd::EtcdHttp http = ClientOf(i);
    const etcd::HttpResult result = http.Post("/v3/maintenance/status", "{}", 300'000'000);
    if (result.verdict != etcd::Verdict::kResult) continue;
    const nlohmann::json json = nlohmann::json::parse(result.body, nullptr, false);
    if (!json.is_object() || !json.contains("header") || !json.contains("leader")) continue;
    const std::string self = json["header"].value("member_id", std::string());
    const std::string leader = json.value("leader", std::string());
    if (!self.empty() && self == leader) return i;
  }
  return -1;
}

}  // namespace leasesim::live
