#pragma once
// A loopback TCP proxy for the proxy faults (live/live_faults.h): a node
// whose etcd traffic goes through it can be cut off (every open connection
// closed, new ones closed on accept) and healed again; slowed (each
// forwarded chunk held for a latency plus a random jitter, set per
// direction, in order: a chunk never overtakes the one before it); or
// stalled (connections stay open but nothing is passed on, either way,
// until healed: a black hole, not a refusal). One thread forwards for every
// proxy.

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
  // How long each forwarded chunk of one direction is held: `base_ms`
  // plus a uniform draw in [0, jitter_ms].
  struct Latency {
    std::int64_t base_ms = 0;
    std::int64_t jitter_ms = 0;
    friend bool operator==(const Latency&, const Latency&) = default;
  };
  // Hold each chunk forwarded for `group` this long from now on ({0, 0}:
  // none), toward etcd and back. Chunks already held keep their release
  // time, and a chunk is never released before the one ahead of it.
  void SetLatency(int group, Latency to_etcd, Latency from_etcd);
  // The same fixed latency both ways.
  void SetDelay(int group, std::int64_t delay_ms) { SetLatency(group, {delay_ms, 0}, {delay_ms, 0}); }
  // Stall every connection of `group` (nothing passed on, connections kept
  // open, new ones accepted) or resume them (what was held goes on, in order).
  void SetStall(int group, bool stalled);

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
    std::map<int, bool> stalled;
    std::map<int, Latency> to_etcd;
    std::map<int, Latency> from_etcd;
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
  int PollTimeoutMs(std::int64_t now, const Settings& settings) const;
  void Accept(const Listener& listener, const Settings& settings);
  void Read(Pipe& pipe, bool client_side, const Settings& settings, char* buffer, std::size_t size);
  void Flush(Pipe& pipe, std::int64_t now, const Settings& settings);
  // How long the next chunk of one direction is held (base + jitter), in ns.
  std::int64_t HoldNs(const Latency& latency);
  static void ClosePipe(Pipe& pipe);

  std::vector<Listener> listeners_;
  std::vector<Pipe> pipes_;  // only the proxy thread touches these
  std::mutex mu_;
  Settings settings_;  // guarded by mu_
  std::atomic<bool> stopping_{false};
  std::uint64_t jitter_state_ = 0x9e3779b97f4a7c15ULL;  // the proxy thread's own jitter source
  std::thread thread_;
};

// A TCP connection to 127.0.0.1:port; -1 when refused.
int ConnectLoopback(int port);

}  // namespace leasesim::live
