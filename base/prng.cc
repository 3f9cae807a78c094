#include "base/prng.h"

#include <cassert>

namespace leasesim::base {
namespace {

// Lemire's bounded draw multiplies two 64-bit words into one 128-bit product.
__extension__ using UInt128 = unsigned __int128;

std::uint64_t Rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

std::uint64_t SplitMix64(std::uint64_t& state) {
  state += 0x9e3779b97f4a7c15ULL;
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t DeriveSeed(std::uint64_t master_seed, std::string_view label) {
  // FNV-1a over the label, mixed with the master seed through SplitMix64.
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (char c : label) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  std::uint64_t state = master_seed ^ hash;
  SplitMix64(state);
  return SplitMix64(state);
}

Prng::Prng(std::uint64_t seed) {
  std::uint64_t state = seed;
  for (std::uint64_t& word : state_) word = SplitMix64(state);
}

std::uint64_t Prng::Next() {
  const std::uint64_t result = Rotl(state_[1] * 5, 7) * 9;
  const std::uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = Rotl(state_[3], 45);
  return result;
}

std::uint64_t Prng::UniformBelow(std::uint64_t bound) {
  assert(bound > 0);
  UInt128 product = static_cast<UInt128>(Next()) * bound;
  std::uint64_t low = static_cast<std::uint64_t>(product);
  if (low < bound) {
    const std::uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      product = static_cast<UInt128>(Next()) * bound;
      low = static_cast<std::uint64_t>(product);
    }
  }
  return static_cast<std::uint64_t>(product >> 64);
}

std::int64_t Prng::UniformRange(std::int64_t low, std::int64_t high) {
  assert(low <= high);
  const std::uint64_t span = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  if (span == UINT64_MAX) return static_cast<std::int64_t>(Next());
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + UniformBelow(span + 1));
}

bool Prng::ChancePpm(std::uint32_t ppm) {
  assert(ppm <= kPpmOne);
  if (ppm == 0) return false;
  return UniformBelow(kPpmOne) < ppm;
}

}  // namespace leasesim::base
