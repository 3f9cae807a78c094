#pragma once
// The trace of a run: every observable step folds into a running 64-bit
// hash that identifies the run (same seed and scenario, same hash). When
// retention is on, the steps are also kept, to print them or to find the
// first step at which two runs diverge.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/time.h"

namespace leasesim::sim {

// What kind of step a trace event is: its name (a string literal) with the
// name's content hash, which is what the trace hash folds in. For a literal
// the hash is computed at compile time, so recording an event hashes no
// text; a name known only at run time (a table's entry, a parameter) is
// hashed where it is passed. Either way the hash depends on the content
// alone, so runs stay comparable across builds.
class TraceKind {
 public:
  template <std::size_t N>
  consteval TraceKind(const char (&name)[N]) : name_(name), hash_(HashName(name)) {}  // NOLINT: converting, a name is a kind
  // Exactly const char*: a literal takes the compile-time constructor above
  // (the more specialized template), only a pointer comes here.
  template <std::same_as<const char*> Name>
  constexpr TraceKind(Name name) : name_(name), hash_(HashName(name)) {}  // NOLINT: converting, a name is a kind

  constexpr const char* name() const { return name_; }
  constexpr std::uint64_t hash() const { return hash_; }

 private:
  // FNV-1a over the name's bytes.
  static constexpr std::uint64_t HashName(const char* name) {
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (const char* c = name; *c != '\0'; ++c) {
      hash ^= static_cast<unsigned char>(*c);
      hash *= 0x100000001b3ULL;
    }
    return hash;
  }
  const char* name_;
  std::uint64_t hash_;
};

struct TraceEvent {
  Nanos time;
  std::int32_t host;
  const char* kind;  // a string literal: what happened
  std::int64_t a;
  std::int64_t b;
  std::string ToJson() const;
  friend bool operator==(const TraceEvent& x, const TraceEvent& y);
};

// A run's trace: the running hash, and the steps when retained.
class Trace {
 public:
  explicit Trace(bool retain_events);

  // Inline: every simulated step records, and for a run that keeps no
  // events this is five multiplications in registers.
  void Record(Nanos time, std::int32_t host, TraceKind kind, std::int64_t a = 0, std::int64_t b = 0) {
    if (slow_) [[unlikely]] return RecordSlowly(time, host, kind, a, b);
    Fold(time, host, kind.hash(), a, b);
  }
  std::uint64_t hash() const { return hash_; }
  std::uint64_t count() const { return count_; }
  const std::vector<TraceEvent>& events() const { return events_; }

 private:
  static constexpr std::size_t kRetainedEventsMax = 20'000'000;
  static constexpr std::uint64_t Mix(std::uint64_t hash, std::uint64_t value) {
    hash ^= value + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2);
    hash *= 0xff51afd7ed558ccdULL;
    return hash ^ (hash >> 32);
  }
  void Fold(Nanos time, std::int32_t host, std::uint64_t kind_hash, std::int64_t a, std::int64_t b) {
    std::uint64_t hash = Mix(hash_, static_cast<std::uint64_t>(time));
    hash = Mix(hash, static_cast<std::uint64_t>(host));
    hash = Mix(hash, kind_hash);
    hash = Mix(hash, static_cast<std::uint64_t>(a));
    hash_ = Mix(hash, static_cast<std::uint64_t>(b));
    ++count_;
  }
  // Keeps the event, or does a slowed build's extra work; and folds it in.
  void RecordSlowly(Nanos time, std::int32_t host, TraceKind kind, std::int64_t a, std::int64_t b);

  bool retain_;
  bool slow_;  // Record takes RecordSlowly: retain_, or a deliberately slowed build
  std::uint64_t hash_ = 0x6a09e667f3bcc909ULL;
  std::uint64_t count_ = 0;
  std::vector<TraceEvent> events_;
};

}  // namespace leasesim::sim
