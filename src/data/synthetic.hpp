#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "data/layout.hpp"
#include "data/loader.hpp"
#include "data/split_file.hpp"

namespace psbench::data {

/// Which split a synthetic sample belongs to (each has its own random streams).
enum class SynthSplit : std::uint64_t { kTrain = 0, kTest = 1 };

/// Deterministic, learnable synthetic images: each class has a random prototype (smooth blobs on a shared
/// background); a sample blends its class's prototype (weight 0.45..1) with another class's, then adds a
/// brightness shift and pixel noise. Classes are separable but not trivially (about one sample in ten
/// leans towards the other class). Every sample depends only on (seed, split, index).
class SyntheticGenerator {
 public:
  /// Builds the class prototypes (num_classes x C x H x W bytes) for a seed.
  SyntheticGenerator(SampleShape shape, int num_classes, std::uint64_t seed);
  /// Writes sample index of split into pixels (shape.values() bytes) and returns its label.
  std::int32_t generate(SynthSplit split, std::uint64_t index, std::span<std::uint8_t> pixels) const;
  /// The prototype of a class (shape.values() bytes).
  [[nodiscard]] std::span<const std::uint8_t> prototype(int label) const;

 private:
  SampleShape shape_;
  int num_classes_;
  std::uint64_t seed_;
  std::vector<std::uint8_t> prototypes_;
};

/// What `psbench data synth` writes.
struct SynthOptions {
  std::uint64_t train_samples = 0;           ///< samples in /train
  std::uint64_t test_samples = 0;            ///< samples in /test
  SampleShape shape;                         ///< C x H x W
  int num_classes = 0;                       ///< K >= 2
  std::uint64_t seed = 1;                    ///< the same seed gives the same bytes
  PixelType pixel_type = PixelType::kUint8;  ///< uint8, or float32 normalised with the training statistics
  std::uint64_t chunk_bytes = layout::kDefaultChunkBytes;  ///< target bytes per images chunk
};

/// Parses "C,H,W" (positive integers); throws UserError naming flag otherwise.
SampleShape parse_shape(const std::string& text, const std::string& flag);

/// Writes a synthetic file in psbench's HDF5 layout (docs/data.md), generating and writing one block at a time (memory is
/// independent of the sample count); float32 takes a first pass for the statistics. Throws UserError on
/// bad options.
void write_synthetic(const std::string& path, const SynthOptions& options);

}  // namespace psbench::data
