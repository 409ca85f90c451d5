#include "data/inspect.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <sstream>
#include <vector>

#include "common/error.hpp"
#include "data/finite_check.hpp"
#include "data/hdf5_attribute.hpp"
#include "data/hdf5_handle.hpp"
#include "data/hdf5_type.hpp"
#include "data/layout.hpp"
#include "data/split_file.hpp"
#include "data/superblock_guard.hpp"

namespace psbench::data {
namespace {

constexpr std::size_t kShownValues = 16;
constexpr std::uint64_t kLabelBlock = std::uint64_t{1} << 20;
constexpr std::uint64_t kImageBlockBytes = std::uint64_t{64} << 20;

std::string dims_text(const std::vector<hsize_t>& dims) {
  std::string text = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) text += (i == 0 ? "" : ", ") + std::to_string(dims[i]);
  return text + "]";
}

std::string attribute_value(hid_t location, const char* name) {
  const Attribute attribute(check_id(H5Aopen(location, name, H5P_DEFAULT), "H5Aopen"));
  const Datatype type(check_id(H5Aget_type(attribute.get()), "H5Aget_type"));
  const H5T_class_t type_class = H5Tget_class(type.get());
  std::vector<std::string> items;
  if (type_class == H5T_STRING) {
    for (const auto& text : read_strings_attribute(location, name)) items.push_back("\"" + text + "\"");
  } else if (type_class == H5T_INTEGER || type_class == H5T_FLOAT) {
    for (const double value : read_doubles_attribute(location, name)) {
      std::ostringstream text;
      text.precision(type_class == H5T_FLOAT ? 6 : 20);
      text << value;
      items.push_back(text.str());
    }
  } else {
    return "(" + type_name(type.get()) + ")";
  }
  const Dataspace space(check_id(H5Aget_space(attribute.get()), "H5Aget_space"));
  const bool scalar = H5Sget_simple_extent_type(space.get()) == H5S_SCALAR;
  if (scalar && items.size() == 1) return items[0];
  std::string text = "[";
  for (std::size_t i = 0; i < items.size() && i < kShownValues; ++i) text += (i == 0 ? "" : ", ") + items[i];
  if (items.size() > kShownValues) text += ", ... (" + std::to_string(items.size()) + " values)";
  return text + "]";
}

herr_t add_attribute_line(hid_t location, const char* name, const H5A_info_t* /*info*/, void* out) {
  auto& lines = *static_cast<std::string*>(out);
  try {  // no exception may cross HDF5's C frames
    lines += "  " + std::string(name) + " = " + attribute_value(location, name) + "\n";
  } catch (const std::exception& error) {
    lines += "  " + std::string(name) + " = (unreadable: " + error.what() + ")\n";
  }
  return 0;
}

std::string dataset_line(hid_t file, const char* name) {
  const Dataset dataset(check_id(H5Dopen2(file, name, H5P_DEFAULT), std::string("opening ") + name));
  const Datatype type(check_id(H5Dget_type(dataset.get()), "H5Dget_type"));
  const Dataspace space(check_id(H5Dget_space(dataset.get()), "H5Dget_space"));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 0)));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  std::uint64_t elements = 1;
  for (const hsize_t d : dims) elements *= d;
  const std::size_t element_size = H5Tget_size(type.get());
  std::string line = "/" + std::string(name) + ": " + type_name(type.get()) + " " + dims_text(dims) + ", " +
                     format_bytes(elements * element_size);
  const PropertyList create(check_id(H5Dget_create_plist(dataset.get()), "H5Dget_create_plist"));
  switch (H5Pget_layout(create.get())) {
    case H5D_CHUNKED: {
      std::vector<hsize_t> chunk(dims.size());
      H5Pget_chunk(create.get(), rank, chunk.data());
      std::uint64_t chunk_elements = 1;
      for (const hsize_t c : chunk) chunk_elements *= c;
      std::uint64_t chunks = 1;
      for (std::size_t d = 0; d < dims.size(); ++d) chunks *= (dims[d] + chunk[d] - 1) / chunk[d];
      line += ", chunked " + dims_text(chunk) + " (" + format_bytes(chunk_elements * element_size) + " per chunk, " +
              std::to_string(chunks) + (chunks == 1 ? " chunk)" : " chunks)");
      const int filters = H5Pget_nfilters(create.get());
      if (filters > 0) line += ", " + std::to_string(filters) + " filter(s)";
      break;
    }
    case H5D_CONTIGUOUS: line += ", contiguous"; break;
    case H5D_COMPACT: line += ", compact"; break;
    default: line += ", other layout"; break;
  }
  return line + "\n";
}

herr_t add_dataset_line(hid_t file, const char* name, const H5O_info_t* info, void* out) {
  if (info->type != H5O_TYPE_DATASET) return 0;
  try {  // no exception may cross HDF5's C frames
    *static_cast<std::string*>(out) += dataset_line(file, name);
  } catch (const std::exception& error) {
    *static_cast<std::string*>(out) += "/" + std::string(name) + ": (unreadable: " + error.what() + ")\n";
  }
  return 0;
}

// Float32 images: reads them in blocks of about 64 MiB and throws non_finite_samples() (count and first
// index) if any sample holds NaN or infinity. uint8 images cannot.
void check_finite_images(const SplitFile& file) {
  const SplitInfo& info = file.info();
  if (info.pixel_type != PixelType::kFloat32 || info.samples == 0) return;
  const std::size_t values = info.shape.values();
  const std::uint64_t block_samples = std::max<std::uint64_t>(1, kImageBlockBytes / info.sample_bytes());
  std::vector<float> images;
  std::uint64_t bad = 0;
  std::uint64_t first_bad = 0;
  for (std::uint64_t first = 0; first < info.samples; first += block_samples) {
    const SampleRange block{first, std::min(block_samples, info.samples - first)};
    images.resize(block.count * values);
    file.read_images(block, images.data(), nullptr);
    const std::uint64_t block_bad = count_non_finite_samples(images, values);
    if (bad == 0 && block_bad > 0) first_bad = first + *first_non_finite_sample(images, values);
    bad += block_bad;
  }
  if (bad > 0) throw non_finite_samples(info, bad, first_bad);
}

std::string split_summary(const std::string& path, const std::string& split) {
  SplitFile file = SplitFile::open(path, split);
  const SplitInfo& info = file.info();
  std::vector<std::uint64_t> per_class(static_cast<std::size_t>(info.num_classes), 0);
  std::vector<std::int32_t> labels;
  for (std::uint64_t first = 0; first < info.samples; first += kLabelBlock) {
    const SampleRange block{first, std::min(kLabelBlock, info.samples - first)};
    labels.resize(block.count);
    file.read_labels(block, labels, nullptr);
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (labels[i] < 0 || labels[i] >= info.num_classes) throw label_out_of_range(info, first + i, labels[i]);
      ++per_class[static_cast<std::size_t>(labels[i])];
    }
  }
  check_finite_images(file);
  const auto [fewest, most] = std::minmax_element(per_class.begin(), per_class.end());
  return split + ": " + std::to_string(info.samples) + " samples of " + std::to_string(info.shape.channels) + "x" +
         std::to_string(info.shape.height) + "x" + std::to_string(info.shape.width) + " " +
         std::string(pixel_type_name(info.pixel_type)) + ", " + std::to_string(info.num_classes) +
         " classes, samples per class " + std::to_string(*fewest) + ".." + std::to_string(*most) + "\n";
}

}  // namespace

std::string format_bytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  auto value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 999.5 && unit + 1 < std::size(kUnits)) {
    value /= 1000.0;
    ++unit;
  }
  char text[32];
  const int decimals = unit == 0 || value >= 99.95 ? 0 : (value >= 9.995 ? 1 : 2);
  std::snprintf(text, sizeof text, "%.*f %s", decimals, value, kUnits[unit]);
  return text;
}

std::string describe_file(const std::string& path) {
  silence_hdf5_errors();
  check_readable_hdf5(path);
  refuse_oversized_driver_block(path);
  const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (id < 0) throw UserError("'" + path + "': cannot open as HDF5: " + take_hdf5_error_text());
  const File file(id);
  std::string text = "file: " + path + " (" + format_bytes(std::filesystem::file_size(path)) + ")\nattributes:\n";
  hsize_t position = 0;
  check_status(H5Aiterate2(file.get(), H5_INDEX_NAME, H5_ITER_INC, &position, add_attribute_line, &text),
               "listing the attributes of '" + path + "'");
  text += "datasets:\n";
  std::string datasets;
  check_status(H5Ovisit2(file.get(), H5_INDEX_NAME, H5_ITER_INC, add_dataset_line, &datasets, H5O_INFO_BASIC),
               "listing the datasets of '" + path + "'");
  std::istringstream lines(datasets);
  for (std::string line; std::getline(lines, line);) text += "  " + line + "\n";
  return text;
}

std::string check_layout(const std::string& path) {
  std::string text = split_summary(path, std::string(layout::kTrain));
  text += split_summary(path, std::string(layout::kTest));
  return text + "layout: ok (psbench can load both splits)\n";
}

}  // namespace psbench::data
