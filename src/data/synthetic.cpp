#include "data/synthetic.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <optional>

#include "common/check.hpp"
#include "common/error.hpp"
#include "data/dataset_writer.hpp"
#include "data/normalization.hpp"
#include "data/random.hpp"

namespace psbench::data {
namespace {

constexpr std::int64_t kBackground = 96;
constexpr int kSharedBlobs = 2;
constexpr int kClassBlobs = 3;
constexpr std::int64_t kMinAmplitude = 60;
constexpr std::int64_t kAmplitudeRange = 81;  // amplitudes 60..140, either sign
constexpr std::uint64_t kMinWeight = 115;     // own-class weight in 256ths: 115..256 = 0.45..1.0
constexpr std::uint64_t kWeightRange = 142;
constexpr std::int64_t kBrightness = 20;  // brightness shift -20..20
constexpr std::int64_t kNoise = 40;       // triangular pixel noise -40..40
constexpr std::uint64_t kBlockBytes = std::uint64_t{8} << 20;
constexpr std::uint64_t kPrototypeStream = ~std::uint64_t{0};
constexpr int kMaxClasses = 1 << 20;

struct Blob {
  std::int64_t y, x, radius2, amplitude;
};

Blob random_blob(Xoshiro256& rng, const SampleShape& shape) {
  const std::int64_t side = std::max(shape.height, shape.width);
  const std::int64_t low = std::max<std::int64_t>(1, side / 6);
  const std::int64_t high = std::max<std::int64_t>(low, side / 2);
  const auto radius = low + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(high - low + 1)));
  const auto magnitude = kMinAmplitude + static_cast<std::int64_t>(rng.below(kAmplitudeRange));
  return {static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(shape.height))),
          static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(shape.width))), radius * radius,
          (rng.next() & 1) != 0 ? magnitude : -magnitude};
}

// Adds blobs into one channel plane (integer arithmetic only, so the bytes never depend on the compiler).
void add_blobs(std::span<std::int64_t> plane, const std::vector<Blob>& blobs, const SampleShape& shape) {
  for (const Blob& blob : blobs) {
    for (std::int64_t y = 0; y < shape.height; ++y) {
      for (std::int64_t x = 0; x < shape.width; ++x) {
        const std::int64_t d2 = (y - blob.y) * (y - blob.y) + (x - blob.x) * (x - blob.x);
        if (d2 < blob.radius2)
          plane[static_cast<std::size_t>(y * shape.width + x)] += blob.amplitude * (blob.radius2 - d2) / blob.radius2;
      }
    }
  }
}

void validate(const SynthOptions& options) {
  if (options.train_samples == 0) throw UserError("--samples must be at least 1");
  if (options.test_samples == 0) throw UserError("--test-samples must be at least 1");
  if (options.num_classes < 2 || options.num_classes > kMaxClasses) {
    throw UserError("--classes " + std::to_string(options.num_classes) + " must lie in 2.." +
                    std::to_string(kMaxClasses));
  }
  if (options.shape.channels <= 0 || options.shape.height <= 0 || options.shape.width <= 0) {
    throw UserError("--shape needs positive C,H,W");
  }
  if (options.chunk_bytes == 0) throw UserError("the chunk size (--chunk-kib) must be positive");
}

// Generates every sample of a split in blocks and hands each block to sink (bounded memory).
void for_each_block(const SyntheticGenerator& generator, SynthSplit split, std::uint64_t samples,
                    std::uint64_t block_samples, std::size_t values,
                    const std::function<void(std::span<const std::uint8_t>, std::span<const std::int32_t>)>& sink) {
  std::vector<std::uint8_t> pixels(block_samples * values);
  std::vector<std::int32_t> labels(block_samples);
  for (std::uint64_t first = 0; first < samples; first += block_samples) {
    const std::uint64_t count = std::min(block_samples, samples - first);
    for (std::uint64_t i = 0; i < count; ++i) {
      labels[i] = generator.generate(split, first + i, std::span<std::uint8_t>(pixels.data() + i * values, values));
    }
    sink(std::span<const std::uint8_t>(pixels.data(), count * values),
         std::span<const std::int32_t>(labels.data(), count));
  }
}

}  // namespace

SyntheticGenerator::SyntheticGenerator(SampleShape shape, int num_classes, std::uint64_t seed)
    : shape_(shape),
      num_classes_(num_classes),
      seed_(seed),
      prototypes_(static_cast<std::size_t>(num_classes) * shape.values()) {
  // Every sample mixes in a prototype of another class, so there must be one.
  PSBENCH_CHECK(num_classes >= 2 && shape.values() > 0) << "bad synthetic shape or class count";
  const std::size_t plane_size = static_cast<std::size_t>(shape.height) * static_cast<std::size_t>(shape.width);
  for (int channel = 0; channel < shape.channels; ++channel) {
    Xoshiro256 shared_rng(stream_key(seed, kPrototypeStream, static_cast<std::uint64_t>(channel)));
    std::vector<Blob> shared;
    for (int b = 0; b < kSharedBlobs; ++b) shared.push_back(random_blob(shared_rng, shape));
    for (int label = 0; label < num_classes; ++label) {
      Xoshiro256 rng(stream_key(seed, kPrototypeStream - 1 - static_cast<std::uint64_t>(label),
                                static_cast<std::uint64_t>(channel)));
      std::vector<Blob> blobs = shared;
      for (int b = 0; b < kClassBlobs; ++b) blobs.push_back(random_blob(rng, shape));
      std::vector<std::int64_t> plane(plane_size, kBackground);
      add_blobs(plane, blobs, shape);
      std::uint8_t* out = prototypes_.data() + static_cast<std::size_t>(label) * shape.values() +
                          static_cast<std::size_t>(channel) * plane_size;
      for (std::size_t i = 0; i < plane_size; ++i)
        out[i] = static_cast<std::uint8_t>(std::clamp<std::int64_t>(plane[i], 0, 255));
    }
  }
}

std::span<const std::uint8_t> SyntheticGenerator::prototype(int label) const {
  return std::span<const std::uint8_t>(prototypes_)
      .subspan(static_cast<std::size_t>(label) * shape_.values(), shape_.values());
}

std::int32_t SyntheticGenerator::generate(SynthSplit split, std::uint64_t index, std::span<std::uint8_t> pixels) const {
  PSBENCH_CHECK(pixels.size() == shape_.values()) << pixels.size() << " bytes for a sample of " << shape_.values();
  Xoshiro256 rng(stream_key(seed_, static_cast<std::uint64_t>(split), index));
  const auto classes = static_cast<std::uint64_t>(num_classes_);
  const auto label = static_cast<int>(rng.below(classes));
  const auto other = static_cast<int>((static_cast<std::uint64_t>(label) + 1 + rng.below(classes - 1)) % classes);
  const auto weight = static_cast<std::int64_t>(kMinWeight + rng.below(kWeightRange));
  const std::int64_t brightness = static_cast<std::int64_t>(rng.below(2 * kBrightness + 1)) - kBrightness;
  const auto own = prototype(label);
  const auto mixed = prototype(other);
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < pixels.size(); ++i) {
    if (i % 4 == 0) bits = rng.next();
    const auto a = static_cast<std::int64_t>(bits & 0xFF);
    const auto b = static_cast<std::int64_t>((bits >> 8) & 0xFF);
    bits >>= 16;
    const std::int64_t noise = (a + b - 255) * kNoise / 255;
    const std::int64_t blend = (weight * own[i] + (256 - weight) * mixed[i] + 128) >> 8;
    pixels[i] = static_cast<std::uint8_t>(std::clamp<std::int64_t>(blend + brightness + noise, 0, 255));
  }
  return label;
}

SampleShape parse_shape(const std::string& text, const std::string& flag) {
  int dims[3] = {0, 0, 0};
  const char* cursor = text.data();
  const char* end = text.data() + text.size();
  for (int d = 0; d < 3; ++d) {
    const auto [next, error] = std::from_chars(cursor, end, dims[d]);
    const bool separator_ok = d < 2 ? (next != end && *next == ',') : next == end;
    if (error != std::errc() || dims[d] <= 0 || !separator_ok) {
      throw UserError(flag + " '" + text + "' is not C,H,W with three positive integers (e.g. 1,28,28)");
    }
    cursor = next + 1;
  }
  return {dims[0], dims[1], dims[2]};
}

void write_synthetic(const std::string& path, const SynthOptions& options) {
  validate(options);
  const SyntheticGenerator generator(options.shape, options.num_classes, options.seed);
  const std::size_t values = options.shape.values();

  DatasetDescription description;
  description.shape = options.shape;
  description.num_classes = options.num_classes;
  for (int k = 0; k < options.num_classes; ++k) description.class_names.push_back("class " + std::to_string(k));
  description.source = "psbench synth: seed " + std::to_string(options.seed) + ", " +
                       std::to_string(options.num_classes) + " classes of blended prototypes with noise";
  description.pixel_type = options.pixel_type;
  description.chunk_bytes = options.chunk_bytes;
  DatasetWriter writer(path, description);

  const std::uint64_t chunk = writer.chunk_samples(options.train_samples);
  const std::uint64_t sample_bytes = values * pixel_bytes(options.pixel_type);
  const std::uint64_t block_samples = std::max<std::uint64_t>(chunk, kBlockBytes / sample_bytes / chunk * chunk);

  PixelStatistics statistics(options.shape);
  std::optional<Normalizer> normalizer;
  if (options.pixel_type == PixelType::kFloat32) {  // normalised values need the statistics first
    for_each_block(generator, SynthSplit::kTrain, options.train_samples, block_samples, values,
                   [&](auto pixels, auto) { statistics.add(pixels); });
    normalizer.emplace(options.shape, statistics.mean(), statistics.stddev());
  }
  std::vector<float> normalised;
  const auto write_block = [&](std::span<const std::uint8_t> pixels, std::span<const std::int32_t> labels) {
    if (options.pixel_type == PixelType::kUint8) {
      writer.append(pixels.data(), labels);
      return;
    }
    normalised.resize(pixels.size());
    normalizer->apply(pixels, normalised);
    writer.append(normalised.data(), labels);
  };
  writer.begin_split(layout::kTrain, options.train_samples);
  for_each_block(generator, SynthSplit::kTrain, options.train_samples, block_samples, values,
                 [&](auto pixels, auto labels) {
                   if (options.pixel_type == PixelType::kUint8) statistics.add(pixels);
                   write_block(pixels, labels);
                 });
  writer.begin_split(layout::kTest, options.test_samples);
  for_each_block(generator, SynthSplit::kTest, options.test_samples, block_samples, values, write_block);
  writer.set_statistics(statistics.mean(), statistics.stddev());
  writer.commit();
}

}  // namespace psbench::data
