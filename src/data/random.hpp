#pragma once

#include <cstdint>

#include "common/splitmix64.hpp"

namespace psbench::data {

/// One step of SplitMix64: a well-mixed 64-bit value from state (which it advances).
inline std::uint64_t splitmix64(std::uint64_t& state) {
  SplitMix64 generator(state);
  const std::uint64_t value = generator.next();
  state = generator.state();
  return value;
}

/// xoshiro256** (Blackman and Vigna): a small, fast generator seeded through SplitMix64, so any key gives
/// an independent stream (keyed by sample index, every sample can be generated alone).
class Xoshiro256 {
 public:
  /// A generator whose stream depends only on key.
  explicit Xoshiro256(std::uint64_t key) {
    for (auto& word : state_) word = splitmix64(key);
  }
  /// The next 64 random bits.
  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  /// A value in [0, bound) (bound > 0; the modulo bias is below 2^-32 for bounds under 2^32).
  std::uint64_t below(std::uint64_t bound) { return next() % bound; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4] = {};
};

/// A key mixing a seed with up to two more values, for independent streams per (seed, a, b).
inline std::uint64_t stream_key(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  std::uint64_t state = seed;
  std::uint64_t key = splitmix64(state);
  state = key ^ a;
  key = splitmix64(state);
  state = key ^ b;
  return splitmix64(state);
}

}  // namespace psbench::data
