#pragma once

#include <cstdint>

namespace psbench {

/// splitmix64 (Steele, Lea and Flood): a tiny generator whose output is fixed by its definition, not by a
/// library version, so seeded shuffles, initial weights and synthetic data reproduce on every platform.
class SplitMix64 {
 public:
  /// Starts the sequence at state.
  explicit SplitMix64(std::uint64_t state) : state_(state) {}
  /// The next 64 random bits.
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31U);
  }
  /// A uniform value in [0, bound) without modulo bias; bound must be positive.
  std::uint64_t below(std::uint64_t bound) {
    // Rejects the lowest 2^64 mod bound values, so every residue is equally likely.
    const std::uint64_t limit = -bound % bound;
    for (;;) {
      const std::uint64_t value = next();
      if (value >= limit) return value % bound;
    }
  }
  /// The current state: a generator started from it continues this sequence.
  [[nodiscard]] std::uint64_t state() const { return state_; }
  /// Uniform in (0, 1], from the top 53 bits.
  double uniform() { return (static_cast<double>(next() >> 11U) + 1.0) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

}  // namespace psbench
