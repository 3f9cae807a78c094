#pragma once
// Child processes of a live run and the etcd cluster it starts. Every child
// is started with PR_SET_PDEATHSIG(SIGKILL), so it dies with the
// orchestrator even when the orchestrator is killed outright; the RAII
// owners below stop their children and remove temporary data otherwise.

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backends/etcd/etcd_http.h"
#include "backends/etcd/etcd_provision.h"

namespace leasesim::live {

// fork+exec of argv with stdout and stderr appended to log_path. Returns the
// pid, or -1 (with `error` set) when the fork failed; an exec failure shows
// as the child exiting with 127.
pid_t Launch(const std::vector<std::string>& argv, const std::string& log_path, std::string& error);

// A free TCP port on 127.0.0.1 (bound and released: a small race remains).
int FreeLoopbackPort();

// A 3-member etcd cluster on loopback, data under a fresh temporary
// directory. Destruction stops every member and removes the directory.
// Secure, it runs TLS for clients and peers with certificates made for the
// run in that directory (openssl), requires client certificates, and has
// etcd auth on: a root user and the run's user "leasesim", whose role may
// read and write everything under "leasesim/" (both passwords random).
class EtcdCluster {
 public:
  static constexpr int kMembers = 3;

  EtcdCluster() = default;
  ~EtcdCluster();
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  // Starts every member and waits (at most `wait_ms`) until each answers;
  // secure: then switches etcd auth on.
  bool Start(const std::string& etcd_binary, int wait_ms, bool secure, std::string& error);

  std::string ClientUrls() const;  // "http://127.0.0.1:p1,..." ("https://" when secure)
  const std::string& dir() const { return dir_; }
  // How a client connects (TLS files, the run's user and password; no endpoints).
  const etcd::EndpointOptions& client_options() const { return client_options_; }
  // Secure: the file holding the run's user's password (mode 0600).
  const std::string& password_file() const { return password_file_; }

  // Crash (SIGKILL) and restart one member (0-based); restart keeps its data.
  void Kill(int member);
  bool Restart(int member, std::string& error);
  bool running(int member) const { return members_[member].pid > 0; }

  // The member (0-based) that is the etcd (raft) leader, or -1 if unknown.
  int Leader() const;

  // Stops every member and removes the data directory (idempotent).
  void Shutdown();

 private:
  // One member's ports and process.
  struct Member {
    int client_port = 0;
    int peer_port = 0;
    pid_t pid = -1;
  };
  pid_t Spawn(int member, std::string& error);
  bool WaitReady(int member, int wait_ms) const;
  // Certificates and the client's TLS options; an error or empty.
  std::string MakeCertificates();
  // Users, role and auth on; the client's auth options and password file.
  std::string EnableAuth();
  etcd::EtcdHttp ClientOf(int member) const;

  std::string binary_;
  bool secure_ = false;
  std::string scheme_ = "http";
  etcd::CertificateFiles certs_;
  etcd::EndpointOptions client_options_;
  std::string password_file_;
  std::string dir_;
  std::string initial_cluster_;
  Member members_[kMembers];
};

// Removes a directory tree (best effort).
void RemoveTree(const std::string& path);

}  // namespace leasesim::live
