#include "data/dataset_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "common/atomic_file.hpp"
#include "common/check.hpp"
#include "common/error.hpp"
#include "data/hdf5_attribute.hpp"

namespace psbench::data {
namespace {

constexpr int kUint8LabelClasses = 256;  // up to this many classes the labels are stored as uint8
constexpr std::uint64_t kLabelChunk = std::uint64_t{1} << 20;
constexpr std::uint64_t kMaxChunkBytes = std::uint64_t{1} << 31;  // HDF5 refuses chunks of 4 GiB or more

hid_t image_file_type(PixelType type) { return type == PixelType::kUint8 ? H5T_STD_U8LE : H5T_IEEE_F32LE; }
hid_t image_memory_type(PixelType type) { return type == PixelType::kUint8 ? H5T_NATIVE_UINT8 : H5T_NATIVE_FLOAT; }

// Chunked, allocated at creation in file order and never filled: the chunks lie contiguously in the file in
// sample order, and nothing is written twice.
PropertyList chunked_creation(int rank, const hsize_t* chunk) {
  PropertyList create(check_id(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate(DATASET_CREATE)"));
  check_status(H5Pset_chunk(create.get(), rank, chunk), "H5Pset_chunk");
  check_status(H5Pset_alloc_time(create.get(), H5D_ALLOC_TIME_EARLY), "H5Pset_alloc_time");
  check_status(H5Pset_fill_time(create.get(), H5D_FILL_TIME_NEVER), "H5Pset_fill_time");
  return create;
}

void write_rows(hid_t dataset, hid_t memory_type, std::uint64_t first, std::uint64_t count,
                std::span<const hsize_t> row_dims, const void* data, const std::string& path) {
  std::vector<hsize_t> start(row_dims.size() + 1, 0);
  start[0] = first;
  std::vector<hsize_t> counts{count};
  counts.insert(counts.end(), row_dims.begin(), row_dims.end());
  const Dataspace file_space(check_id(H5Dget_space(dataset), "H5Dget_space"));
  check_status(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, counts.data(), nullptr),
               "H5Sselect_hyperslab");
  const Dataspace memory_space(
      check_id(H5Screate_simple(static_cast<int>(counts.size()), counts.data(), nullptr), "H5Screate_simple"));
  if (H5Dwrite(dataset, memory_type, memory_space.get(), file_space.get(), H5P_DEFAULT, data) < 0) {
    throw UserError("'" + path + "': writing failed (disk full?): " + take_hdf5_error_text());
  }
}

void sync_to_disk(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw UserError("'" + path + "': cannot reopen to flush: " + std::strerror(errno));
  const int status = ::fsync(fd);
  const int saved_errno = errno;
  ::close(fd);
  if (status != 0) throw UserError("'" + path + "': fsync failed: " + std::strerror(saved_errno));
}

}  // namespace

DatasetWriter::DatasetWriter(std::string path, DatasetDescription description)
    : path_(std::move(path)), temporary_(temporary_path_for(path_)), description_(std::move(description)) {
  silence_hdf5_errors();
  PSBENCH_CHECK(description_.shape.values() > 0 && description_.num_classes > 0 &&
                description_.class_names.size() == static_cast<std::size_t>(description_.num_classes))
      << "bad dataset description";
  const std::filesystem::path target(path_);
  if (target.has_parent_path()) {
    std::error_code ignored;
    std::filesystem::create_directories(target.parent_path(), ignored);
  }
  const hid_t file = H5Fcreate(temporary_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0) throw UserError("'" + path_ + "': cannot create the file: " + take_hdf5_error_text());
  file_ = File(file);
}

DatasetWriter::~DatasetWriter() {
  if (committed_) return;
  images_.reset();
  labels_.reset();
  group_.reset();
  file_.reset();
  std::remove(temporary_.c_str());
}

std::uint64_t DatasetWriter::chunk_samples(std::uint64_t samples) const {
  const std::uint64_t sample_bytes = description_.shape.values() * pixel_bytes(description_.pixel_type);
  PSBENCH_CHECK(sample_bytes < kMaxChunkBytes) << "a sample of " << sample_bytes << " bytes exceeds an HDF5 chunk";
  const std::uint64_t per_chunk =
      std::clamp<std::uint64_t>(description_.chunk_bytes / sample_bytes, 1, kMaxChunkBytes / sample_bytes);
  return std::clamp<std::uint64_t>(per_chunk, 1, std::max<std::uint64_t>(samples, 1));
}

void DatasetWriter::begin_split(std::string_view split, std::uint64_t samples) {
  finish_split();
  PSBENCH_CHECK(samples > 0) << "split " << split << " needs at least one sample";
  split_ = std::string(split);
  capacity_ = samples;
  written_ = 0;
  group_ = Group(check_id(H5Gcreate2(file_.get(), ("/" + split_).c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                          "creating group /" + split_));
  const SampleShape& shape = description_.shape;
  const hsize_t image_dims[4] = {samples, static_cast<hsize_t>(shape.channels), static_cast<hsize_t>(shape.height),
                                 static_cast<hsize_t>(shape.width)};
  const hsize_t image_chunk[4] = {chunk_samples(samples), image_dims[1], image_dims[2], image_dims[3]};
  const Dataspace image_space(check_id(H5Screate_simple(4, image_dims, nullptr), "H5Screate_simple"));
  const PropertyList image_create = chunked_creation(4, image_chunk);
  images_ = Dataset(
      check_id(H5Dcreate2(file_.get(), layout::images_path(split_).c_str(), image_file_type(description_.pixel_type),
                          image_space.get(), H5P_DEFAULT, image_create.get(), H5P_DEFAULT),
               "creating " + layout::images_path(split_)));
  const hsize_t label_dims[1] = {samples};
  const hsize_t label_chunk[1] = {std::min(samples, kLabelChunk)};
  const Dataspace label_space(check_id(H5Screate_simple(1, label_dims, nullptr), "H5Screate_simple"));
  const PropertyList label_create = chunked_creation(1, label_chunk);
  const hid_t label_type = description_.num_classes <= kUint8LabelClasses ? H5T_STD_U8LE : H5T_STD_I32LE;
  labels_ = Dataset(check_id(H5Dcreate2(file_.get(), layout::labels_path(split_).c_str(), label_type, label_space.get(),
                                        H5P_DEFAULT, label_create.get(), H5P_DEFAULT),
                             "creating " + layout::labels_path(split_)));
}

void DatasetWriter::append(const void* images, std::span<const std::int32_t> labels) {
  PSBENCH_CHECK(images_.valid()) << "append() before begin_split()";
  const std::uint64_t count = labels.size();
  PSBENCH_CHECK(written_ + count <= capacity_) << "split " << split_ << " overflows: " << written_ << " + " << count;
  if (count == 0) return;
  for (const std::int32_t label : labels) {
    PSBENCH_CHECK(label >= 0 && label < description_.num_classes) << "label " << label << " out of range";
  }
  const SampleShape& shape = description_.shape;
  const hsize_t sample_dims[3] = {static_cast<hsize_t>(shape.channels), static_cast<hsize_t>(shape.height),
                                  static_cast<hsize_t>(shape.width)};
  write_rows(images_.get(), image_memory_type(description_.pixel_type), written_, count, sample_dims, images, path_);
  if (description_.num_classes <= kUint8LabelClasses) {
    label_bytes_.assign(labels.begin(), labels.end());
    write_rows(labels_.get(), H5T_NATIVE_UINT8, written_, count, {}, label_bytes_.data(), path_);
  } else {
    write_rows(labels_.get(), H5T_NATIVE_INT32, written_, count, {}, labels.data(), path_);
  }
  written_ += count;
}

void DatasetWriter::set_statistics(std::span<const double> mean, std::span<const double> stddev) {
  PSBENCH_CHECK(mean.size() == static_cast<std::size_t>(description_.shape.channels) && stddev.size() == mean.size())
      << "statistics need one value per channel";
  mean_.assign(mean.begin(), mean.end());
  stddev_.assign(stddev.begin(), stddev.end());
}

void DatasetWriter::finish_split() {
  if (!images_.valid()) return;
  PSBENCH_CHECK(written_ == capacity_) << "split " << split_ << " holds " << written_ << " of " << capacity_;
  images_.reset();
  labels_.reset();
  group_.reset();
}

void DatasetWriter::commit() {
  finish_split();
  PSBENCH_CHECK(!mean_.empty()) << "commit() before set_statistics()";
  const hid_t root = file_.get();
  const std::int32_t classes = description_.num_classes;
  write_ints_attribute(root, layout::kNumClasses, std::span<const std::int32_t>(&classes, 1), true);
  write_strings_attribute(root, layout::kClassNames, description_.class_names);
  write_string_attribute(root, layout::kSource, description_.source);
  const std::int32_t shape[3] = {description_.shape.channels, description_.shape.height, description_.shape.width};
  write_ints_attribute(root, layout::kShape, shape, false);
  write_doubles_attribute(root, layout::kMean, mean_);
  write_doubles_attribute(root, layout::kStd, stddev_);
  if (file_.close() < 0) throw UserError("'" + path_ + "': closing failed (disk full?): " + take_hdf5_error_text());
  // Clean pages on disk: the file survives a crash and --cold-cache can drop every page of it.
  sync_to_disk(temporary_);
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0) {
    throw UserError("cannot rename '" + temporary_ + "' to '" + path_ + "': " + std::strerror(errno));
  }
  committed_ = true;
}

}  // namespace psbench::data
