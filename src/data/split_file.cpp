#include "data/split_file.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <type_traits>

#include "common/error.hpp"
#include "data/hdf5_attribute.hpp"
#include "data/hdf5_type.hpp"
#include "data/layout.hpp"
#include "data/superblock_guard.hpp"

namespace psbench::data {
namespace {

constexpr const char* kMakeHint = " (make one with 'psbench data convert' or 'psbench data synth')";

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw UserError("'" + path + "': " + problem);
}

bool path_exists(hid_t file, const std::string& object) {
  // H5Lexists needs every intermediate group to exist: test "/train" before "/train/images".
  std::size_t slash = 0;
  while ((slash = object.find('/', slash + 1)) != std::string::npos) {
    if (H5Lexists(file, object.substr(0, slash).c_str(), H5P_DEFAULT) <= 0) return false;
  }
  return H5Lexists(file, object.c_str(), H5P_DEFAULT) > 0 && H5Oexists_by_name(file, object.c_str(), H5P_DEFAULT) > 0;
}

Dataset open_dataset(hid_t file, const std::string& path, const std::string& name) {
  if (!path_exists(file, name)) fail(path, "has no dataset '" + name + "'" + kMakeHint);
  const hid_t id = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  if (id < 0) fail(path, "'" + name + "' is not a readable dataset: " + take_hdf5_error_text());
  return Dataset(id);
}

std::vector<hsize_t> dimensions(hid_t dataset) {
  const Dataspace space(check_id(H5Dget_space(dataset), "H5Dget_space"));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  check_status(rank < 0 ? -1 : 0, "H5Sget_simple_extent_ndims");
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  return dims;
}

std::uint64_t chunk_samples(hid_t dataset, int rank) {
  const PropertyList create(check_id(H5Dget_create_plist(dataset), "H5Dget_create_plist"));
  if (H5Pget_layout(create.get()) != H5D_CHUNKED) return 0;
  std::vector<hsize_t> chunk(static_cast<std::size_t>(rank));
  check_status(H5Pget_chunk(create.get(), rank, chunk.data()), "H5Pget_chunk");
  return chunk.empty() ? 0 : chunk[0];
}

std::string shape_text(const std::vector<hsize_t>& dims) {
  std::string text;
  for (const hsize_t d : dims) text += (text.empty() ? "" : " x ") + std::to_string(d);
  return text.empty() ? "scalar" : text;
}

int to_int_dimension(const std::string& path, const std::string& name, hsize_t value) {
  if (value == 0 || value > static_cast<hsize_t>(std::numeric_limits<int>::max())) {
    fail(path, name + " has a sample dimension of " + std::to_string(value));
  }
  return static_cast<int>(value);
}

// A numeric root attribute, or UserError naming the file when it is not one.
std::vector<double> root_numbers(hid_t file, const std::string& path, const char* name) {
  try {
    return read_doubles_attribute(file, name);
  } catch (const SystemError& error) {
    fail(path, std::string("root attribute '") + name + "': " + error.what());
  }
}

std::vector<double> channel_attribute(hid_t file, const std::string& path, const char* name, int channels) {
  if (!has_attribute(file, name)) fail(path, std::string("lacks the root attribute '") + name + "'" + kMakeHint);
  const std::vector<double> values = root_numbers(file, path, name);
  if (values.size() != static_cast<std::size_t>(channels)) {
    fail(path, std::string("root attribute '") + name + "' has " + std::to_string(values.size()) +
                   " values but the images have " + std::to_string(channels) + " channels");
  }
  return values;
}

void read_attributes(hid_t file, SplitInfo& info) {
  const std::string& path = info.path;
  if (!has_attribute(file, layout::kNumClasses)) {
    fail(path, std::string("lacks the root attribute '") + layout::kNumClasses + "'" + kMakeHint);
  }
  const std::vector<double> classes = root_numbers(file, path, layout::kNumClasses);
  if (classes.size() != 1 || classes[0] < 1 || classes[0] > std::numeric_limits<std::int32_t>::max() ||
      classes[0] != static_cast<double>(static_cast<std::int64_t>(classes[0]))) {
    fail(path, std::string("root attribute '") + layout::kNumClasses + "' must be one positive integer");
  }
  info.num_classes = static_cast<int>(classes[0]);
  if (has_attribute(file, layout::kShape)) {
    const auto shape = root_numbers(file, path, layout::kShape);
    const std::vector<double> expected{static_cast<double>(info.shape.channels), static_cast<double>(info.shape.height),
                                       static_cast<double>(info.shape.width)};
    if (shape != expected) fail(path, "root attribute 'shape' does not match the images' C x H x W");
  }
  if (info.pixel_type == PixelType::kUint8 || has_attribute(file, layout::kMean)) {
    info.mean = channel_attribute(file, path, layout::kMean, info.shape.channels);
    info.stddev = channel_attribute(file, path, layout::kStd, info.shape.channels);
  }
}

// Reads rows [range) of a dataset whose rows have row_dims, with no selection on ranks that read nothing.
herr_t read_rows(hid_t dataset, hid_t memory_type, SampleRange range, std::span<const hsize_t> row_dims, void* out,
                 hid_t transfer_list) {
  const Dataspace file_space(check_id(H5Dget_space(dataset), "H5Dget_space"));
  std::vector<hsize_t> start(row_dims.size() + 1, 0);
  std::vector<hsize_t> count{range.count};
  count.insert(count.end(), row_dims.begin(), row_dims.end());
  start[0] = range.first;
  std::vector<hsize_t> memory_dims = count;
  memory_dims[0] = std::max<hsize_t>(range.count, 1);
  const Dataspace memory_space(check_id(
      H5Screate_simple(static_cast<int>(memory_dims.size()), memory_dims.data(), nullptr), "H5Screate_simple"));
  if (range.count == 0) {
    check_status(H5Sselect_none(file_space.get()), "H5Sselect_none");
    check_status(H5Sselect_none(memory_space.get()), "H5Sselect_none");
  } else {
    check_status(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
                 "H5Sselect_hyperslab");
  }
  return H5Dread(dataset, memory_type, memory_space.get(), file_space.get(), transfer_list, out);
}

template <typename Stored>
void widen(const std::uint8_t* stored, std::span<std::int32_t> labels) {
  constexpr auto kLow = std::numeric_limits<std::int32_t>::min();
  constexpr auto kHigh = std::numeric_limits<std::int32_t>::max();
  for (std::size_t i = 0; i < labels.size(); ++i) {
    Stored value{};
    std::memcpy(&value, stored + i * sizeof(Stored), sizeof(Stored));
    // Saturate: a label too large for int32 stays out of range instead of wrapping into it.
    if constexpr (std::is_signed_v<Stored>) {
      labels[i] = static_cast<std::int32_t>(std::clamp<std::int64_t>(value, kLow, kHigh));
    } else {
      labels[i] = static_cast<std::int32_t>(std::min<std::uint64_t>(value, kHigh));
    }
  }
}

// Converts labels read in their stored native integer type to int32.
void widen_labels(const std::uint8_t* stored, std::size_t size, bool is_signed, std::span<std::int32_t> labels) {
  switch (size) {
    case 1: return is_signed ? widen<std::int8_t>(stored, labels) : widen<std::uint8_t>(stored, labels);
    case 2: return is_signed ? widen<std::int16_t>(stored, labels) : widen<std::uint16_t>(stored, labels);
    case 4: return is_signed ? widen<std::int32_t>(stored, labels) : widen<std::uint32_t>(stored, labels);
    default: return is_signed ? widen<std::int64_t>(stored, labels) : widen<std::uint64_t>(stored, labels);
  }
}

}  // namespace

SplitFile SplitFile::open(const std::string& path, const std::string& split) {
  silence_hdf5_errors();
  check_readable_hdf5(path);
  return open_with(path, split, H5P_DEFAULT);
}

SplitFile SplitFile::open_parallel(const mpi::Communicator& comm, const std::string& path, const std::string& split) {
  silence_hdf5_errors();
  const PropertyList access(check_id(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate(FILE_ACCESS)"));
  check_status(H5Pset_fapl_mpio(access.get(), comm.native(), MPI_INFO_NULL), "H5Pset_fapl_mpio");
  check_status(H5Pset_all_coll_metadata_ops(access.get(), true), "H5Pset_all_coll_metadata_ops");
  return open_with(path, split, access.get());
}

SplitFile SplitFile::open_with(const std::string& path, const std::string& split, hid_t access) {
  if (split != layout::kTrain && split != layout::kTest) {
    throw UserError("split '" + split + "' is not one of 'train' or 'test'");
  }
  SplitFile result;
  SplitInfo& info = result.info_;
  info.path = path;
  info.split = split;
  refuse_oversized_driver_block(path);
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, access);
  if (file < 0) fail(path, "cannot open as HDF5: " + take_hdf5_error_text());
  result.file_ = File(file);

  const std::string images_name = layout::images_path(split);
  const std::string labels_name = layout::labels_path(split);
  result.images_ = open_dataset(file, path, images_name);
  result.labels_ = open_dataset(file, path, labels_name);

  const Datatype image_type(check_id(H5Dget_type(result.images_.get()), "H5Dget_type"));
  const H5T_class_t image_class = H5Tget_class(image_type.get());
  const std::size_t image_size = H5Tget_size(image_type.get());
  if (image_class == H5T_INTEGER && image_size == 1 && H5Tget_sign(image_type.get()) == H5T_SGN_NONE) {
    info.pixel_type = PixelType::kUint8;
    result.image_memory_type_ = H5T_NATIVE_UINT8;
  } else if (image_class == H5T_FLOAT && image_size == 4) {
    info.pixel_type = PixelType::kFloat32;
    result.image_memory_type_ = H5T_NATIVE_FLOAT;
  } else {
    fail(path,
         images_name + " has unsupported type " + type_name(image_type.get()) + " (psbench reads uint8 or float32)");
  }
  const Datatype label_type(check_id(H5Dget_type(result.labels_.get()), "H5Dget_type"));
  if (H5Tget_class(label_type.get()) != H5T_INTEGER) {
    fail(path, labels_name + " has unsupported type " + type_name(label_type.get()) + " (labels must be integers)");
  }
  result.label_type_ = Datatype(check_id(H5Tget_native_type(label_type.get(), H5T_DIR_ASCEND), "H5Tget_native_type"));

  const auto image_dims = dimensions(result.images_.get());
  const auto label_dims = dimensions(result.labels_.get());
  if (image_dims.size() != 4) {
    fail(path, images_name + " has shape " + shape_text(image_dims) + ", expected 4 dimensions N x C x H x W");
  }
  if (label_dims.size() != 1) fail(path, labels_name + " has shape " + shape_text(label_dims) + ", expected N");
  if (image_dims[0] != label_dims[0]) {
    fail(path, images_name + " holds " + std::to_string(image_dims[0]) + " samples but " + labels_name + " holds " +
                   std::to_string(label_dims[0]) + " labels");
  }
  info.samples = image_dims[0];
  info.shape = {to_int_dimension(path, images_name, image_dims[1]), to_int_dimension(path, images_name, image_dims[2]),
                to_int_dimension(path, images_name, image_dims[3])};
  info.chunk_samples = chunk_samples(result.images_.get(), 4);
  read_attributes(file, info);
  return result;
}

void SplitFile::read(SampleRange range, void* images, std::span<std::int32_t> labels,
                     CollectiveTransfer* transfer) const {
  read_images(range, images, transfer);
  read_labels(range, labels, transfer);
}

void SplitFile::read_images(SampleRange range, void* images, CollectiveTransfer* transfer) const {
  const hsize_t sample_dims[3] = {static_cast<hsize_t>(info_.shape.channels), static_cast<hsize_t>(info_.shape.height),
                                  static_cast<hsize_t>(info_.shape.width)};
  const hid_t transfer_list = transfer != nullptr ? transfer->get() : H5P_DEFAULT;
  if (read_rows(images_.get(), image_memory_type_, range, sample_dims, images, transfer_list) < 0) {
    throw UserError("'" + info_.path + "': reading samples " + std::to_string(range.first) + ".." +
                    std::to_string(range.end()) + " of " + layout::images_path(info_.split) +
                    " failed: " + take_hdf5_error_text());
  }
  if (transfer != nullptr) transfer->record();
}

void SplitFile::read_labels(SampleRange range, std::span<std::int32_t> labels, CollectiveTransfer* transfer) const {
  const hid_t transfer_list = transfer != nullptr ? transfer->get() : H5P_DEFAULT;
  const std::size_t label_size = H5Tget_size(label_type_.get());
  std::vector<std::uint8_t> stored(std::max<std::size_t>(labels.size(), 1) * label_size);
  if (read_rows(labels_.get(), label_type_.get(), range, {}, stored.data(), transfer_list) < 0) {
    throw UserError("'" + info_.path + "': reading " + layout::labels_path(info_.split) +
                    " failed: " + take_hdf5_error_text());
  }
  if (transfer != nullptr) transfer->record();
  widen_labels(stored.data(), label_size, H5Tget_sign(label_type_.get()) != H5T_SGN_NONE, labels);
}

std::uint64_t SplitFile::stored_bytes(std::uint64_t count) const {
  return count * (info_.sample_bytes() + H5Tget_size(label_type_.get()));
}

void SplitFile::close() {
  images_.reset();
  labels_.reset();
  label_type_.reset();
  check_status(file_.close(), "closing '" + info_.path + "'");
}

void check_readable_hdf5(const std::string& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) fail(path, "no such file");
  if (std::filesystem::is_directory(status)) fail(path, "is a directory, not an HDF5 file");
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
  if (is_hdf5 < 0) fail(path, "cannot read the file: " + take_hdf5_error_text());
  if (is_hdf5 == 0) fail(path, "not an HDF5 file");
}

UserError label_out_of_range(const SplitInfo& info, std::uint64_t index, std::int32_t value) {
  return UserError("'" + info.path + "': " + layout::labels_path(info.split) + "[" + std::to_string(index) + "] is " +
                   std::to_string(value) + ", outside [0, " + std::to_string(info.num_classes) +
                   ") set by the root attribute '" + layout::kNumClasses + "'");
}

SplitInfo read_split_info(const std::string& path, const std::string& split) {
  auto file = SplitFile::open(path, split);
  return file.info();
}

}  // namespace psbench::data
