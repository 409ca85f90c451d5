#pragma once

#include <cstddef>
#include <cstdint>

#include "compress/column_layout.hpp"
#include "compress/onebit.hpp"

// The 1-bit kernels over GCC's (and Clang's) vector types of a given width. Included only by the files that define
// a KernelSet (onebit_kernel_set.hpp), each compiled for one instruction set and instantiating one width. Everything
// here has internal linkage and calls no inline function of the standard library (builtins only), so the linker
// never takes one file's copy, compiled for a wider set, for another's: not even at -O0, where nothing is inlined.
namespace psbench::compress::kernels {
namespace {

/// Values per round: a column is taken in rounds of kLanes values, two rounds per 32-bit word of bits, each value
/// summed into lane (index % kLanes), whatever the vector width, so every width gives the same sums bit for bit.
inline constexpr std::size_t kLanes = 16;
/// Bits per packed word.
inline constexpr std::size_t kWordBits = 32;
static_assert(kWordBits == 2 * kLanes);

/// A vector of kWidth floats (Floats) and of kWidth 32-bit masks (Masks), with the OR of a mask's lanes.
template <std::size_t kWidth>
struct Vector;

/// SSE's width (the x86-64 baseline, and NEON's).
template <>
struct Vector<4> {
  using Floats = float __attribute__((vector_size(16)));        ///< four floats
  using Masks = std::int32_t __attribute__((vector_size(16)));  ///< four masks
  /// The OR of the lanes of m.
  static std::uint32_t or_lanes(Masks m) {
    m |= __builtin_shufflevector(m, m, 2, 3, 0, 1);
    m |= __builtin_shufflevector(m, m, 1, 0, 3, 2);
    return static_cast<std::uint32_t>(m[0]);
  }
};

/// AVX2's width.
template <>
struct Vector<8> {
  using Floats = float __attribute__((vector_size(32)));        ///< eight floats
  using Masks = std::int32_t __attribute__((vector_size(32)));  ///< eight masks
  /// The OR of the lanes of m.
  static std::uint32_t or_lanes(Masks m) {
    m |= __builtin_shufflevector(m, m, 4, 5, 6, 7, 0, 1, 2, 3);
    m |= __builtin_shufflevector(m, m, 2, 3, 0, 1, 6, 7, 4, 5);
    m |= __builtin_shufflevector(m, m, 1, 0, 3, 2, 5, 4, 7, 6);
    return static_cast<std::uint32_t>(m[0]);
  }
};

/// AVX-512's width.
template <>
struct Vector<16> {
  using Floats = float __attribute__((vector_size(64)));        ///< sixteen floats
  using Masks = std::int32_t __attribute__((vector_size(64)));  ///< sixteen masks
  /// The OR of the lanes of m.
  static std::uint32_t or_lanes(Masks m) {
    m |= __builtin_shufflevector(m, m, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
    m |= __builtin_shufflevector(m, m, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11);
    m |= __builtin_shufflevector(m, m, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
    m |= __builtin_shufflevector(m, m, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);
    return static_cast<std::uint32_t>(m[0]);
  }
};

/// A column's sums: of its negative entries, of its non-negative entries (NaN among them), and how many are negative.
struct Sums {
  float negative = 0.0F;      ///< sum of the entries below 0
  float positive = 0.0F;      ///< sum of the others
  std::size_t negatives = 0;  ///< entries below 0
};

/// The 1-bit kernels at kWidth floats per vector.
template <std::size_t kWidth>
struct OneBit {
  using Floats = typename Vector<kWidth>::Floats;         ///< a vector of floats
  using Masks = typename Vector<kWidth>::Masks;           ///< a vector of masks
  static constexpr std::size_t kParts = kLanes / kWidth;  ///< vectors per round

  /// Loads kWidth floats from any address.
  static Floats load(const float* from) {
    Floats part;
    __builtin_memcpy(&part, from, sizeof part);
    return part;
  }
  /// Stores kWidth floats at any address.
  static void store(float* to, Floats part) { __builtin_memcpy(to, &part, sizeof part); }
  /// The bits of part as masks.
  static Masks bits_of(Floats part) { return reinterpret_cast<Masks>(part); }
  /// The bits of masks as floats.
  static Floats floats_of(Masks bits) { return reinterpret_cast<Floats>(bits); }
  /// Every lane value.
  static Masks splat(std::int32_t value) { return Masks{} + value; }
  /// All ones where x is below 0, else 0 (a NaN is not below 0).
  static Masks below_zero(Floats x) { return x < Floats{}; }
  /// Bit (p x kWidth + lane) in each lane of part p of a round.
  static Masks lane_bits(std::size_t p) {
    Masks bits{};
    for (std::size_t l = 0; l < kWidth; ++l) bits[l] = std::int32_t{1} << (p * kWidth + l);
    return bits;
  }

  /// The partial sums of one column: lane l takes the values at l, l + kLanes, ... of its whole rounds, the values
  /// past the last whole round go to the totals one by one, then the lanes are added to the totals in order. This
  /// order fixes the means bit for bit (the tests pin packed forms made with it).
  struct LaneSums {
    Floats negative[kParts] = {};  ///< per lane
    Floats positive[kParts] = {};  ///< per lane
    Masks negatives[kParts] = {};  ///< minus the count per lane: a below-zero mask is -1

    /// Adds the round x and returns the vector whose lanes OR to its bits (value l at bit l + shift where it is
    /// not below 0).
    Masks add(const Floats* x, int shift) {
      Masks bits{};
#pragma GCC unroll 4
      for (std::size_t p = 0; p < kParts; ++p) {
        const Masks below = below_zero(x[p]);
        negative[p] += floats_of(bits_of(x[p]) & below);
        positive[p] += floats_of(bits_of(x[p]) & ~below);
        negatives[p] += below;
        bits |= ~below & (lane_bits(p) << shift);
      }
      return bits;
    }

    /// Adds the count < kLanes values x past the last round to the totals, then the lanes; ORs their bits into
    /// bits (value b at bit b: 1 where not below 0).
    Sums total(const float* x, std::size_t count, std::uint32_t& bits) const {
      Sums sums;
      for (std::size_t b = 0; b < count; ++b) {
        if (x[b] < 0.0F) {
          sums.negative += x[b];
          ++sums.negatives;
        } else {
          sums.positive += x[b];
          bits |= std::uint32_t{1} << b;
        }
      }
      for (std::size_t l = 0; l < kLanes; ++l) {
        sums.negative += negative[l / kWidth][l % kWidth];
        sums.positive += positive[l / kWidth][l % kWidth];
        sums.negatives += static_cast<std::size_t>(-negatives[l / kWidth][l % kWidth]);
      }
      return sums;
    }
  };

  /// One pass over a column: with kFeedback x = values + residual is written into residual, else x is values; sums
  /// the negative and the non-negative entries of x and writes its bits into words.
  template <bool kFeedback>
  static Sums sum_and_pack(const float* values, float* residual, std::size_t size, std::uint32_t* words) {
    Floats x[kParts];
    const auto take = [&](std::size_t i) {
#pragma GCC unroll 4
      for (std::size_t p = 0; p < kParts; ++p) {
        if constexpr (kFeedback) {
          x[p] = load(values + i + p * kWidth) + load(residual + i + p * kWidth);
          store(residual + i + p * kWidth, x[p]);
        } else {
          x[p] = load(values + i + p * kWidth);
        }
      }
      return x;
    };
    LaneSums lanes;
    std::size_t i = 0;
    for (; i + kWordBits <= size; i += kWordBits) {
      const Masks low = lanes.add(take(i), 0);
      words[i / kWordBits] = Vector<kWidth>::or_lanes(low | lanes.add(take(i + kLanes), kLanes));
    }
    std::uint32_t bits = 0;
    if (i + kLanes <= size) {
      bits = Vector<kWidth>::or_lanes(lanes.add(take(i), 0));
      i += kLanes;
    }
    const std::size_t rest = size - i;
    if constexpr (kFeedback) {
      for (std::size_t b = 0; b < rest; ++b) residual[i + b] += values[i + b];
    }
    std::uint32_t tail = 0;
    const Sums sums = lanes.total((kFeedback ? residual : values) + i, rest, tail);
    if (i % kWordBits != 0) {
      words[i / kWordBits] = bits | tail << kLanes;
    } else if (rest > 0) {
      words[i / kWordBits] = tail;
    }
    return sums;
  }

  /// residual = x - reconstruction over a column whose x is in residual.
  static void subtract_reconstruction(float* residual, std::size_t size, Reconstruction r) {
    const Masks lower = bits_of(Floats{} + r.lower);
    const Masks upper = bits_of(Floats{} + r.upper);
    std::size_t i = 0;
    for (; i + kWidth <= size; i += kWidth) {
      const Floats x = load(residual + i);
      const Masks below = below_zero(x);
      store(residual + i, x - floats_of((lower & below) | (upper & ~below)));
    }
    for (; i < size; ++i) residual[i] -= residual[i] < 0.0F ? r.lower : r.upper;
  }

  /// The columns [c, c + kWidth) when they are a tile: a matrix's adjacent columns of one size, so that a vector
  /// holds one value of each (a row of the tile) and the tile is taken row by row.
  static bool is_tile(const Column* columns, std::size_t c, std::size_t count) {
    if (columns[c].stride == 1 || c + kWidth > count) return false;
    for (std::size_t l = 1; l < kWidth; ++l) {
      const Column& column = columns[c + l];
      if (column.stride != columns[c].stride || column.size != columns[c].size || column.begin != columns[c].begin + l)
        return false;
    }
    return true;
  }

  /// The reconstruction of a column from its sums.
  static Reconstruction means(const Sums& sums, std::size_t size) {
    const std::size_t positives = size - sums.negatives;
    Reconstruction r{0.0F, 0.0F};
    if (sums.negatives > 0) r.lower = sums.negative / static_cast<float>(sums.negatives);
    if (positives > 0) r.upper = sums.positive / static_cast<float>(positives);
    return r;
  }

  /// Writes a column's reconstruction values into the first two words of its packed form.
  static void write_header(std::uint32_t* words, Reconstruction r) {
    words[0] = __builtin_bit_cast(std::uint32_t, r.lower);
    words[1] = __builtin_bit_cast(std::uint32_t, r.upper);
  }

  /// One pass over a strided column (sum_and_pack's contract), value by value in order: the order in which a tile's
  /// lanes sum, so that a column gives the same sums bit for bit whether it is taken alone or in a tile.
  template <bool kFeedback>
  static Sums sum_and_pack_strided(const float* values, float* residual, std::size_t size, std::size_t stride,
                                   std::uint32_t* words) {
    Sums sums;
    std::uint32_t word = 0;
    for (std::size_t i = 0; i < size; ++i) {
      float x = values[i * stride];
      if constexpr (kFeedback) {
        x += residual[i * stride];
        residual[i * stride] = x;
      }
      if (x < 0.0F) {
        sums.negative += x;
        ++sums.negatives;
      } else {
        sums.positive += x;
        word |= std::uint32_t{1} << (i % kWordBits);
      }
      if (i % kWordBits == kWordBits - 1 || i + 1 == size) {
        words[i / kWordBits] = word;
        word = 0;
      }
    }
    return sums;
  }

  /// Quantizes the kWidth columns of a tile (is_tile), a row of the tile per vector: lane l sums column l's values
  /// in order and collects its bits.
  template <bool kFeedback>
  static void quantize_tile(const Column* tile, const float* values, float* residual, std::uint32_t* packed) {
    const std::size_t size = tile[0].size;
    const std::size_t stride = tile[0].stride;
    const float* in = values + tile[0].begin;
    float* kept = kFeedback ? residual + tile[0].begin : nullptr;
    Floats negative{};
    Floats positive{};
    Masks negatives{};  // minus the count per lane: a below-zero mask is -1
    Masks word{};
    for (std::size_t i = 0; i < size; ++i) {
      Floats x = load(in + i * stride);
      if constexpr (kFeedback) {
        x += load(kept + i * stride);
        store(kept + i * stride, x);
      }
      const Masks below = below_zero(x);
      negative += floats_of(bits_of(x) & below);
      positive += floats_of(bits_of(x) & ~below);
      negatives += below;
      word |= ~below & splat(static_cast<std::int32_t>(std::uint32_t{1} << (i % kWordBits)));
      if (i % kWordBits == kWordBits - 1 || i + 1 == size) {
        for (std::size_t l = 0; l < kWidth; ++l) packed[tile[l].word + 2 + i / kWordBits] = static_cast<std::uint32_t>(word[l]);
        word = Masks{};
      }
    }
    Floats lower{};
    Floats upper{};
    for (std::size_t l = 0; l < kWidth; ++l) {
      const Reconstruction r =
          means({negative[l], positive[l], static_cast<std::size_t>(-negatives[l])}, size);
      write_header(packed + tile[l].word, r);
      lower[l] = r.lower;
      upper[l] = r.upper;
    }
    if constexpr (kFeedback) {
      for (std::size_t i = 0; i < size; ++i) {
        const Floats x = load(kept + i * stride);
        const Masks below = below_zero(x);
        store(kept + i * stride, x - floats_of((bits_of(lower) & below) | (bits_of(upper) & ~below)));
      }
    }
  }

  /// Quantizes one column, contiguous or strided.
  static void quantize_column(const Column& column, const float* values, float* residual, std::uint32_t* packed) {
    const float* in = values + column.begin;
    float* kept = residual != nullptr ? residual + column.begin : nullptr;
    std::uint32_t* words = packed + column.word;
    Sums sums;
    if (column.stride == 1) {
      sums = kept != nullptr ? sum_and_pack<true>(in, kept, column.size, words + 2)
                             : sum_and_pack<false>(in, nullptr, column.size, words + 2);
    } else {
      sums = kept != nullptr ? sum_and_pack_strided<true>(in, kept, column.size, column.stride, words + 2)
                             : sum_and_pack_strided<false>(in, nullptr, column.size, column.stride, words + 2);
    }
    const Reconstruction r = means(sums, column.size);
    write_header(words, r);
    if (kept == nullptr) return;
    if (column.stride == 1) {
      subtract_reconstruction(kept, column.size, r);
    } else {
      for (std::size_t i = 0; i < column.size; ++i) kept[i * column.stride] -= kept[i * column.stride] < 0.0F ? r.lower : r.upper;
    }
  }

  /// Quantizes count columns (quantize_onebit's contract): tiles of kWidth strided columns a row at a time, other
  /// columns one by one.
  static void quantize(const Column* columns, std::size_t count, const float* values, float* residual,
                       std::uint32_t* packed) {
    for (std::size_t c = 0; c < count;) {
      if (is_tile(columns, c, count)) {
        if (residual != nullptr) {
          quantize_tile<true>(columns + c, values, residual, packed);
        } else {
          quantize_tile<false>(columns + c, values, nullptr, packed);
        }
        c += kWidth;
      } else {
        quantize_column(columns[c], values, residual, packed);
        ++c;
      }
    }
  }

  /// Writes (with kAdd: adds) the reconstruction of every value of count columns' packed form into out.
  template <bool kAdd>
  static void unpack(const Column* columns, std::size_t count, const std::uint32_t* packed, float* out) {
    for (std::size_t c = 0; c < count;) {
      if (is_tile(columns, c, count)) {
        unpack_tile<kAdd>(columns + c, packed, out);
        c += kWidth;
        continue;
      }
      const Column& column = columns[c++];
      if (column.stride == 1) {
        unpack_column<kAdd>(packed + column.word, column.size, out + column.begin);
      } else {
        unpack_strided<kAdd>(packed + column.word, column.size, column.stride, out + column.begin);
      }
    }
  }

  /// unpack() of a tile (is_tile), a row of the tile per vector.
  template <bool kAdd>
  static void unpack_tile(const Column* tile, const std::uint32_t* packed, float* out) {
    const std::size_t size = tile[0].size;
    const std::size_t stride = tile[0].stride;
    Masks lower{};
    Masks upper{};
    for (std::size_t l = 0; l < kWidth; ++l) {
      lower[l] = static_cast<std::int32_t>(packed[tile[l].word]);
      upper[l] = static_cast<std::int32_t>(packed[tile[l].word + 1]);
    }
    Masks word{};
    float* to = out + tile[0].begin;
    for (std::size_t i = 0; i < size; ++i) {
      if (i % kWordBits == 0) {
        for (std::size_t l = 0; l < kWidth; ++l) word[l] = static_cast<std::int32_t>(packed[tile[l].word + 2 + i / kWordBits]);
      }
      const Masks set = (word & splat(static_cast<std::int32_t>(std::uint32_t{1} << (i % kWordBits)))) != 0;
      Floats value = floats_of((upper & set) | (lower & ~set));
      if constexpr (kAdd) value += load(to + i * stride);
      store(to + i * stride, value);
    }
  }

  /// unpack() of one strided column.
  template <bool kAdd>
  static void unpack_strided(const std::uint32_t* words, std::size_t size, std::size_t stride, float* out) {
    const Reconstruction r{__builtin_bit_cast(float, words[0]), __builtin_bit_cast(float, words[1])};
    for (std::size_t i = 0; i < size; ++i) {
      const float value = (words[2 + i / kWordBits] >> (i % kWordBits) & 1U) != 0 ? r.upper : r.lower;
      out[i * stride] = kAdd ? out[i * stride] + value : value;
    }
  }

  /// unpack() of one column.
  template <bool kAdd>
  static void unpack_column(const std::uint32_t* words, std::size_t size, float* out) {
    const Reconstruction r{__builtin_bit_cast(float, words[0]), __builtin_bit_cast(float, words[1])};
    const Masks lower = bits_of(Floats{} + r.lower);
    const Masks upper = bits_of(Floats{} + r.upper);
    std::size_t i = 0;
    for (; i + kLanes <= size; i += kLanes) {
      const Masks bits = splat(static_cast<std::int32_t>(words[2 + i / kWordBits] >> (i % kWordBits)));
#pragma GCC unroll 4
      for (std::size_t p = 0; p < kParts; ++p) {
        const Masks set = (bits & lane_bits(p)) != 0;
        Floats value = floats_of((upper & set) | (lower & ~set));
        if constexpr (kAdd) value += load(out + i + p * kWidth);
        store(out + i + p * kWidth, value);
      }
    }
    for (; i < size; ++i) {
      const float value = (words[2 + i / kWordBits] >> (i % kWordBits) & 1U) != 0 ? r.upper : r.lower;
      out[i] = kAdd ? out[i] + value : value;
    }
  }
};

}  // namespace
}  // namespace psbench::compress::kernels
