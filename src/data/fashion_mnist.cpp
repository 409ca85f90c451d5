#include "data/fashion_mnist.hpp"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "common/error.hpp"
#include "data/dataset_writer.hpp"
#include "data/idx_file.hpp"
#include "data/normalization.hpp"

namespace psbench::data {
namespace {

constexpr int kSide = 28;
constexpr int kClasses = 10;
constexpr std::uint64_t kWriteBlockSamples = 8192;

const std::vector<std::string>& class_names() {
  static const std::vector<std::string> kNames{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                               "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
  return kNames;
}

// The file "<stem>.gz" in folder, or "<stem>" when only the uncompressed file is there.
std::string idx_path(const std::string& folder, const std::string& stem) {
  const std::filesystem::path base = std::filesystem::path(folder) / stem;
  const std::string compressed = base.string() + ".gz";
  if (std::filesystem::exists(compressed) || !std::filesystem::exists(base)) return compressed;
  return base.string();
}

struct IdxSplit {
  IdxArray images;
  IdxArray labels;
  std::uint64_t samples = 0;
};

IdxSplit read_split(const std::string& folder, const std::string& prefix, std::uint64_t limit) {
  const std::string images_path = idx_path(folder, prefix + "-images-idx3-ubyte");
  const std::string labels_path = idx_path(folder, prefix + "-labels-idx1-ubyte");
  IdxSplit split{read_idx(images_path, 3), read_idx(labels_path, 1), 0};
  const auto& dims = split.images.dims;
  if (dims[1] != kSide || dims[2] != kSide) {
    throw UserError("'" + images_path + "': images are " + std::to_string(dims[1]) + " x " + std::to_string(dims[2]) +
                    ", Fashion-MNIST's are 28 x 28");
  }
  if (dims[0] != split.labels.dims[0]) {
    throw UserError("'" + images_path + "' holds " + std::to_string(dims[0]) + " images but '" + labels_path +
                    "' holds " + std::to_string(split.labels.dims[0]) + " labels");
  }
  if (dims[0] == 0) throw UserError("'" + images_path + "' holds no images");
  const auto bad = std::find_if(split.labels.items.begin(), split.labels.items.end(),
                                [](std::uint8_t label) { return label >= kClasses; });
  if (bad != split.labels.items.end()) {
    throw UserError("'" + labels_path + "': label " + std::to_string(*bad) + " at index " +
                    std::to_string(bad - split.labels.items.begin()) + " is not a Fashion-MNIST class (0..9)");
  }
  split.samples = limit == 0 ? dims[0] : std::min<std::uint64_t>(limit, dims[0]);
  return split;
}

void write_split(DatasetWriter& writer, const std::string& name, const IdxSplit& split, PixelType type,
                 const Normalizer& normalizer) {
  constexpr std::size_t kValues = static_cast<std::size_t>(kSide) * kSide;
  writer.begin_split(name, split.samples);
  std::vector<std::int32_t> labels;
  std::vector<float> values;
  for (std::uint64_t first = 0; first < split.samples; first += kWriteBlockSamples) {
    const std::uint64_t count = std::min(kWriteBlockSamples, split.samples - first);
    labels.assign(split.labels.items.begin() + static_cast<std::ptrdiff_t>(first),
                  split.labels.items.begin() + static_cast<std::ptrdiff_t>(first + count));
    const std::span<const std::uint8_t> pixels(split.images.items.data() + first * kValues, count * kValues);
    if (type == PixelType::kUint8) {
      writer.append(pixels.data(), labels);
    } else {
      values.resize(pixels.size());
      normalizer.apply(pixels, values);
      writer.append(values.data(), labels);
    }
  }
}

}  // namespace

ConvertSummary convert_fashion_mnist(const ConvertOptions& options) {
  if (!std::filesystem::is_directory(options.from)) {
    throw UserError("--from '" + options.from +
                    "' is not a folder (install dataset-fashion-mnist or point --from at "
                    "the IDX files)");
  }
  const IdxSplit train = read_split(options.from, "train", options.limit);
  const IdxSplit test = read_split(options.from, "t10k", options.limit);
  const SampleShape shape{1, kSide, kSide};
  PixelStatistics statistics(shape);
  statistics.add(std::span<const std::uint8_t>(train.images.items.data(), train.samples * shape.values()));
  const auto mean = statistics.mean();
  const auto stddev = statistics.stddev();
  const Normalizer normalizer(shape, mean, stddev);

  DatasetDescription description;
  description.shape = shape;
  description.num_classes = kClasses;
  description.class_names = class_names();
  description.source = "Fashion-MNIST (Zalando Research, MIT licence), converted by psbench from IDX files in " +
                       std::filesystem::absolute(options.from).lexically_normal().string();
  description.pixel_type = options.pixel_type;
  description.chunk_bytes = options.chunk_bytes;
  DatasetWriter writer(options.out, description);
  write_split(writer, std::string(layout::kTrain), train, options.pixel_type, normalizer);
  write_split(writer, std::string(layout::kTest), test, options.pixel_type, normalizer);
  writer.set_statistics(mean, stddev);
  writer.commit();
  return {train.samples, test.samples};
}

}  // namespace psbench::data
