#pragma once
// The project's own pseudo-random generator and distributions. std::
// distributions differ between standard libraries, so none is used: every
// draw here is integer arithmetic with a fixed algorithm, identical on every
// platform. Probabilities are integers in parts per million. Base
// vocabulary: the simulated world draws each layer's faults and latencies
// from it, and the search (fuzz/) its cases and mutations without reaching
// into the world.

#include <cstdint>
#include <string_view>

#include "base/units.h"

namespace leasesim::base {

// SplitMix64 step: seeds the generator and derives independent seeds.
std::uint64_t SplitMix64(std::uint64_t& state);

// A seed for one layer ("network", "store", "node/3", ...) of a run: a pure
// function of the master seed and the label, so adding a layer never shifts
// another layer's draws.
std::uint64_t DeriveSeed(std::uint64_t master_seed, std::string_view label);

// xoshiro256** (Blackman & Vigna): small, fast, and good enough for fault
// schedules; not for cryptography.
class Prng {
 public:
  explicit Prng(std::uint64_t seed);

  std::uint64_t Next();
  // Uniform in [0, bound), bound > 0, without modulo bias (Lemire's method).
  std::uint64_t UniformBelow(std::uint64_t bound);
  // Uniform in [low, high], low <= high.
  std::int64_t UniformRange(std::int64_t low, std::int64_t high);
  // True with probability ppm / 1'000'000.
  bool ChancePpm(std::uint32_t ppm);

 private:
  std::uint64_t state_[4];
};

}  // namespace leasesim::base
