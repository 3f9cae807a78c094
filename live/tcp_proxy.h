#pragma once
// A loopback TCP proxy for the proxy faults (live/live_faults.h): a node
// whose etcd traffic goes through it can be cut off (every open connection
// closed, new ones closed on accept) and healed again, or delayed (each
// forwarded chunk held for a while, in order, in both directions). One
// thread forwards for every proxy.

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace leasesim::live {

// The proxies of a run, one group (a node number) per node behind them.
class ProxyHub {
 public:
  // Bounds: connections open at once, and bytes held per direction of one
  // connection (a side is not read while its held bytes exceed this).
  static constexpr std::size_t kMaxPipes = 256;
  static constexpr std::size_t kMaxHeldBytes = 1 << 20;

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
  // Hold each chunk forwarded for `group` this long from now on (0: none).
  // Chunks already held keep their release time, so order is kept.
  void SetDelay(int group, std::int64_t delay_ms);

 private:
  // A listening socket of one group's proxy, and where it forwards to.
  struct Listener {
    int fd = -1;
    int group = 0;
    int target_port = 0;
  };
  // Bytes read from one side, held until their release time.
  struct Chunk {
    std::int64_t release_ns = 0;
    std::string bytes;
  };
  // One direction of a connection: bytes read, waiting to be sent on.
  struct Direction {
    std::deque<Chunk> held;
    std::size_t held_bytes = 0;
    bool eof = false;  // the source closed (or failed); close once `held` drains
  };
  // One proxied connection: the client's socket and ours to etcd.
  struct Pipe {
    int client = -1;
    int upstream = -1;
    int group = 0;
    Direction to_upstream;
    Direction to_client;
  };
  // What the proxy thread reads of the settings, once per round.
  struct Settings {
    std::map<int, bool> cut;
    std::map<int, std::int64_t> delay_ns;
  };
  // A pollfd's meaning: a listener, or one side of a pipe.
  struct Watched {
    std::size_t index = 0;
    bool listener = false;
    bool client_side = false;
  };

  void Run();
  void Round(char* buffer, std::size_t size);
  Settings Snapshot();
  int PollTimeoutMs(std::int64_t now) const;
  void Accept(const Listener& listener, const Settings& settings);
  void Read(Pipe& pipe, bool client_side, std::int64_t delay_ns, char* buffer, std::size_t size);
  void Flush(Pipe& pipe, std::int64_t now);
  static void ClosePipe(Pipe& pipe);

  std::vector<Listener> listeners_;
  std::vector<Pipe> pipes_;  // only the proxy thread touches these
  std::mutex mu_;
  Settings settings_;  // guarded by mu_
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

// A TCP connection to 127.0.0.1:port; -1 when refused.
int ConnectLoopback(int port);

}  // namespace leasesim::live
