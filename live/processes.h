#pragma once
// Child processes of a live run and the etcd cluster it starts. Every child
// is started with PR_SET_PDEATHSIG(SIGKILL), so it dies with the
// orchestrator even when the orchestrator is killed outright; the RAII
// owners below stop their children and remove temporary data otherwise.

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace leasesim::live {

// fork+exec of argv with stdout and stderr appended to log_path. Returns the
// pid, or -1 (with `error` set) when the fork failed; an exec failure shows
// as the child exiting with 127.
pid_t Launch(const std::vector<std::string>& argv, const std::string& log_path, std::string& error);

// A free TCP port on 127.0.0.1 (bound and released: a small race remains).
int FreeLoopbackPort();

// A 3-member etcd cluster on loopback, data under a fresh temporary
// directory. Destruction stops every member and removes the directory.
class EtcdCluster {
 public:
  static constexpr int kMembers = 3;

  EtcdCluster() = default;
  ~EtcdCluster();
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  // Starts every member and waits (at most `wait_ms`) until each answers.
  bool Start(const std::string& etcd_binary, int wait_ms, std::string& error);

  std::string ClientUrls() const;  // "http://127.0.0.1:p1,..."
  const std::string& dir() const { return dir_; }

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

  std::string binary_;
  std::string dir_;
  std::string initial_cluster_;
  Member members_[kMembers];
};

// Removes a directory tree (best effort).
void RemoveTree(const std::string& path);

}  // namespace leasesim::live
