#include "compress/onebit.hpp"

#include <algorithm>
#include <array>
#include <bit>

#include "common/check.hpp"

namespace psbench::compress {
namespace {

// Independent partial sums, so that the compiler keeps them in vector registers (a single float sum is a
// chain of dependent additions it may not reorder).
constexpr std::size_t kLanes = 16;
constexpr std::size_t kWordBits = 32;

// Bit b of a word, from a table: the loops below then vectorise (a shift by the loop index needs AVX2).
constexpr std::array<std::uint32_t, kWordBits> kBit = [] {
  std::array<std::uint32_t, kWordBits> bits{};
  for (std::size_t b = 0; b < kWordBits; ++b) bits[b] = std::uint32_t{1} << b;
  return bits;
}();

// All ones where v is below 0, else 0: selects by bitwise and, which the vectoriser takes (a conditional
// expression on floats leaves the loop scalar).
std::uint32_t below_mask(float v) { return 0U - static_cast<std::uint32_t>(v < 0.0F); }

// v where mask is all ones, else 0.
float masked(float v, std::uint32_t mask) { return std::bit_cast<float>(std::bit_cast<std::uint32_t>(v) & mask); }

struct Sums {
  float negative = 0.0F;
  float positive = 0.0F;  // the non-negative entries' sum
  std::size_t negatives = 0;
};

// Sums the negative and the non-negative entries of x, in place: with kFeedback x = values + residual is written
// into residual (where the packing pass reads it back from the cache), else x is values.
template <bool kFeedback>
Sums add_and_sum(const float* __restrict values, float* __restrict residual, std::size_t size) {
  float negative[kLanes] = {};
  float positive[kLanes] = {};
  std::uint32_t negatives[kLanes] = {};
  const auto take = [&](std::size_t i) {
    if constexpr (kFeedback) {
      const float v = values[i] + residual[i];
      residual[i] = v;
      return v;
    } else {
      return values[i];
    }
  };
  std::size_t i = 0;
  for (; i + kLanes <= size; i += kLanes) {
    for (std::size_t l = 0; l < kLanes; ++l) {
      const float v = take(i + l);
      const std::uint32_t below = below_mask(v);
      const float part = masked(v, below);
      negative[l] += part;
      positive[l] += v - part;
      negatives[l] -= below;  // adds 1 where below (all ones is -1)
    }
  }
  Sums sums;
  for (; i < size; ++i) {
    const float v = take(i);
    const std::uint32_t below = below_mask(v);
    const float part = masked(v, below);
    sums.negative += part;
    sums.positive += v - part;
    sums.negatives += below & 1U;
  }
  for (std::size_t l = 0; l < kLanes; ++l) {
    sums.negative += negative[l];
    sums.positive += positive[l];
    sums.negatives += negatives[l];
  }
  return sums;
}

// The word of count <= 32 values of x: bit b set where x[b] is not below 0.
std::uint32_t bits_of(const float* __restrict x, std::size_t count) {
  std::uint32_t word = 0;
  if (count == kWordBits) {
    for (std::size_t b = 0; b < kWordBits; ++b) word |= kBit[b] & ~below_mask(x[b]);
    return word;
  }
  for (std::size_t b = 0; b < count; ++b) word |= kBit[b] & ~below_mask(x[b]);
  return word;
}

// Packs the bits of x into words, and (with residual, which may be x itself) residual = x - reconstruction.
void pack_bits(const float* x, std::size_t size, Reconstruction r, float* residual, std::uint32_t* __restrict words) {
  for (std::size_t w = 0; w * kWordBits < size; ++w) {
    const std::size_t begin = w * kWordBits;
    words[w] = bits_of(x + begin, std::min(kWordBits, size - begin));
  }
  if (residual == nullptr) return;
  for (std::size_t i = 0; i < size; ++i) {
    const std::uint32_t below = below_mask(x[i]);
    residual[i] = x[i] - std::bit_cast<float>((std::bit_cast<std::uint32_t>(r.lower) & below) |
                                              (std::bit_cast<std::uint32_t>(r.upper) & ~below));
  }
}

// count <= 32 reconstructions of one word into out (with kAdd, added to it).
template <bool kAdd>
void unpack_word(std::uint32_t word, Reconstruction r, float* __restrict out, std::size_t count) {
  const auto put = [&](std::size_t b) {
    const float value = (word & kBit[b]) != 0 ? r.upper : r.lower;
    if constexpr (kAdd) {
      out[b] += value;
    } else {
      out[b] = value;
    }
  };
  if (count == kWordBits) {
    for (std::size_t b = 0; b < kWordBits; ++b) put(b);
    return;
  }
  for (std::size_t b = 0; b < count; ++b) put(b);
}

template <bool kAdd>
void unpack(const ColumnLayout& layout, std::span<const std::uint32_t> packed, std::span<float> out) {
  PSBENCH_CHECK(packed.size() == layout.words() && out.size() == layout.values())
      << packed.size() << " words and " << out.size() << " values for a layout of " << layout.words() << " and "
      << layout.values();
  for (std::size_t c = 0; c < layout.columns(); ++c) {
    const Column& column = layout.column(c);
    const std::uint32_t* words = packed.data() + column.word;
    const Reconstruction r{std::bit_cast<float>(words[0]), std::bit_cast<float>(words[1])};
    float* target = out.data() + column.begin;
    for (std::size_t begin = 0; begin < column.size; begin += kWordBits) {
      unpack_word<kAdd>(words[2 + begin / kWordBits], r, target + begin, std::min(kWordBits, column.size - begin));
    }
  }
}

}  // namespace

void quantize_onebit(const ColumnLayout& layout, std::span<const float> values, std::span<float> residual,
                     std::span<std::uint32_t> packed) {
  PSBENCH_CHECK(values.size() == layout.values() && (residual.empty() || residual.size() == layout.values()) &&
                packed.size() == layout.words())
      << values.size() << " values, " << residual.size() << " residuals and " << packed.size()
      << " words for a layout of " << layout.values() << " values and " << layout.words() << " words";
  const bool feedback = !residual.empty();
  for (std::size_t c = 0; c < layout.columns(); ++c) {
    const Column& column = layout.column(c);
    const float* in = values.data() + column.begin;
    float* kept = feedback ? residual.data() + column.begin : nullptr;
    const Sums sums =
        feedback ? add_and_sum<true>(in, kept, column.size) : add_and_sum<false>(in, nullptr, column.size);
    const std::size_t positives = column.size - sums.negatives;
    Reconstruction r;
    if (sums.negatives > 0) r.lower = sums.negative / static_cast<float>(sums.negatives);
    if (positives > 0) r.upper = sums.positive / static_cast<float>(positives);
    std::uint32_t* words = packed.data() + column.word;
    words[0] = std::bit_cast<std::uint32_t>(r.lower);
    words[1] = std::bit_cast<std::uint32_t>(r.upper);
    pack_bits(feedback ? kept : in, column.size, r, kept, words + 2);
  }
}

void dequantize_onebit(const ColumnLayout& layout, std::span<const std::uint32_t> packed, std::span<float> out) {
  unpack<false>(layout, packed, out);
}

void dequantize_add_onebit(const ColumnLayout& layout, std::span<const std::uint32_t> packed, std::span<float> out) {
  unpack<true>(layout, packed, out);
}

Reconstruction reconstruction_of(const ColumnLayout& layout, std::span<const std::uint32_t> packed, std::size_t i) {
  const std::uint32_t* words = packed.data() + layout.column(i).word;
  return {std::bit_cast<float>(words[0]), std::bit_cast<float>(words[1])};
}

}  // namespace psbench::compress
