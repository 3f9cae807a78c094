#pragma once
// A loopback TCP proxy for the "cut" fault: a node whose etcd traffic goes
// through it can be cut off (every open connection closed, new ones closed
// on accept) and healed again. One thread forwards for every proxy.

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace leasesim::live {

class ProxyHub {
 public:
  ProxyHub() = default;
  ~ProxyHub();
  ProxyHub(const ProxyHub&) = delete;
  ProxyHub& operator=(const ProxyHub&) = delete;

  // A proxy for `group` (a node number) to 127.0.0.1:target_port; returns
  // its listening port, or 0 on failure. Call before Start().
  int Add(int group, int target_port);
  void Start();
  // Cut or heal every proxy of `group`.
  void SetCut(int group, bool cut);

 private:
  struct Listener {
    int fd = -1;
    int group = 0;
    int target_port = 0;
  };
  struct Pipe {
    int client = -1;
    int upstream = -1;
    int group = 0;
  };
  void Run();
  void ClosePipe(Pipe& pipe);

  std::vector<Listener> listeners_;
  std::vector<Pipe> pipes_;  // only the proxy thread touches these
  std::mutex mu_;
  std::map<int, bool> cut_;  // by group, guarded by mu_
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace leasesim::live
