#include "data_fixtures.hpp"

#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "data/dataset_writer.hpp"
#include "data/hdf5_attribute.hpp"
#include "data/hdf5_handle.hpp"
#include "data/layout.hpp"
#include "data/synthetic.hpp"

namespace psbench::data::fixtures {
namespace {

std::atomic<int> g_next_dir{0};

void write_rows(hid_t file, const std::string& name, hid_t file_type, hid_t memory_type,
                const std::vector<hsize_t>& dims, const void* data) {
  const Dataspace space(check_id(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), "space"));
  const Dataset dataset(
      check_id(H5Dcreate2(file, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), name));
  check_status(H5Dwrite(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "writing " + name);
}

std::string gzip(const std::vector<std::uint8_t>& bytes) {
  uLongf size = compressBound(static_cast<uLong>(bytes.size())) + 64;
  std::string out(size, '\0');
  z_stream stream{};
  deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);  // gzip wrapper
  stream.next_in = const_cast<Bytef*>(bytes.data());
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  if (deflate(&stream, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("deflate failed");
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

std::vector<std::uint8_t> idx_bytes(const std::vector<std::uint32_t>& dims, const std::vector<std::uint8_t>& items,
                                    std::uint8_t first_magic_byte) {
  std::vector<std::uint8_t> bytes{first_magic_byte, 0, 0x08, static_cast<std::uint8_t>(dims.size())};
  for (const std::uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<std::uint8_t>(d >> shift));
  }
  bytes.insert(bytes.end(), items.begin(), items.end());
  return bytes;
}

void write_file(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
}

}  // namespace

TempDir::TempDir(const std::string& tag)
    : path_((std::filesystem::temp_directory_path() /
             ("psbench-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(g_next_dir++)))
                .string()) {
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

void write_small_synth(const std::string& path, std::uint64_t train_samples, std::uint64_t test_samples, PixelType type,
                       std::uint64_t seed) {
  SynthOptions options;
  options.train_samples = train_samples;
  options.test_samples = test_samples;
  options.shape = {1, 4, 3};
  options.num_classes = 5;
  options.seed = seed;
  options.pixel_type = type;
  options.chunk_bytes = 5 * 12;  // five samples per chunk: several chunks even in small files
  write_synthetic(path, options);
}

void write_non_finite_file(const std::string& path, std::uint64_t train_samples, std::uint64_t first_bad) {
  constexpr std::uint64_t kTestSamples = 10;
  DatasetDescription description;
  description.shape = {1, 4, 4};
  description.num_classes = 5;
  description.class_names = {"a", "b", "c", "d", "e"};
  description.source = "psbench test fixture: NaN training images";
  description.pixel_type = PixelType::kFloat32;
  DatasetWriter writer(path, description);
  const std::size_t values = description.shape.values();
  for (const auto& [split, samples] :
       {std::pair<std::string, std::uint64_t>{"train", train_samples}, {"test", kTestSamples}}) {
    std::vector<float> images(samples * values);
    std::vector<std::int32_t> labels(samples);
    for (std::size_t i = 0; i < images.size(); ++i) images[i] = static_cast<float>(i % 7) * 0.25F - 0.75F;
    if (split == "train") {
      std::fill(images.begin() + static_cast<std::ptrdiff_t>(first_bad * values), images.end(),
                std::numeric_limits<float>::quiet_NaN());
    }
    for (std::uint64_t i = 0; i < samples; ++i) labels[i] = static_cast<std::int32_t>(i % 5);
    writer.begin_split(split, samples);
    writer.append(images.data(), labels);
  }
  const std::vector<double> mean{0.5};
  const std::vector<double> stddev{0.25};
  writer.set_statistics(mean, stddev);
  writer.commit();
}

std::vector<float> normalised_images(const Samples& samples) {
  std::vector<float> out(samples.count() * samples.shape.values());
  samples.images.normalise(0, samples.count(), out);
  return out;
}

void write_defective_file(const std::string& path, Defect defect) {
  silence_hdf5_errors();
  constexpr hsize_t kSamples = 10;
  const File file(check_id(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), "create " + path));
  const std::int32_t classes = 5;
  write_ints_attribute(file.get(), layout::kNumClasses, std::span<const std::int32_t>(&classes, 1), true);
  const std::vector<double> mean{0.5};
  const std::vector<double> stddev{0.25};
  write_doubles_attribute(file.get(), layout::kMean, mean);
  write_doubles_attribute(file.get(), layout::kStd, stddev);
  for (const char* split : {"train", "test"}) {
    const Group group(check_id(H5Gcreate2(file.get(), split, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), split));
    const bool train = std::string(split) == "train";
    std::vector<std::uint8_t> labels(kSamples);
    for (hsize_t i = 0; i < kSamples; ++i) labels[i] = static_cast<std::uint8_t>(i % 5);
    if (train && defect == Defect::kLabelOutOfRange) labels.back() = 5;
    if (train && defect == Defect::kUnsupportedType) {
      const std::vector<std::int16_t> images(kSamples * 4, 3);
      write_rows(file.get(), layout::images_path(split), H5T_STD_I16LE, H5T_NATIVE_INT16, {kSamples, 1, 2, 2},
                 images.data());
    } else {
      const std::vector<std::uint8_t> images(kSamples * 4, 200);
      write_rows(file.get(), layout::images_path(split), H5T_STD_U8LE, H5T_NATIVE_UINT8, {kSamples, 1, 2, 2},
                 images.data());
    }
    if (train && defect == Defect::kMissingLabels) continue;
    const hsize_t label_count = train && defect == Defect::kCountMismatch ? kSamples - 1 : kSamples;
    write_rows(file.get(), layout::labels_path(split), H5T_STD_U8LE, H5T_NATIVE_UINT8, {label_count}, labels.data());
  }
}

void write_idx_gz(const std::string& path, const std::vector<std::uint32_t>& dims,
                  const std::vector<std::uint8_t>& items) {
  write_file(path, gzip(idx_bytes(dims, items, 0)));
}

void write_idx_folder(const std::string& folder, std::uint32_t train, std::uint32_t test, IdxDefect defect) {
  std::filesystem::create_directories(folder);
  for (const auto& [prefix, count] : {std::pair<std::string, std::uint32_t>{"train", train}, {"t10k", test}}) {
    std::vector<std::uint8_t> images(static_cast<std::size_t>(count) * 28 * 28);
    for (std::size_t i = 0; i < images.size(); ++i) images[i] = static_cast<std::uint8_t>((i * 7 + count) % 256);
    std::vector<std::uint8_t> labels(count);
    for (std::uint32_t i = 0; i < count; ++i) labels[i] = static_cast<std::uint8_t>(i % 10);
    const std::string images_path = folder + "/" + prefix + "-images-idx3-ubyte.gz";
    write_idx_gz(folder + "/" + prefix + "-labels-idx1-ubyte.gz", {count}, labels);
    if (prefix != "train" || defect == IdxDefect::kNone) {
      write_idx_gz(images_path, {count, 28, 28}, images);
      continue;
    }
    if (defect == IdxDefect::kBadMagic) {
      write_file(images_path, gzip(idx_bytes({count, 28, 28}, images, 0x1F)));
    } else if (defect == IdxDefect::kTruncatedItems) {
      images.resize(images.size() / 2);  // the header still promises every item
      write_idx_gz(images_path, {count, 28, 28}, images);
    } else {
      const std::string whole = gzip(idx_bytes({count, 28, 28}, images, 0));
      write_file(images_path, whole.substr(0, whole.size() / 2));  // cut inside the deflate stream
    }
  }
}

}  // namespace psbench::data::fixtures
