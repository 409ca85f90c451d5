#pragma once

#include <cstdint>
#include <string>

namespace psbench::data {

/// Bytes in decimal units with three significant digits: "812 B", "78.4 kB", "1.11 GB".
std::string format_bytes(std::uint64_t bytes);

/// Describes any HDF5 file: size, root attributes with their values, and every dataset's type, shape,
/// layout and chunking. Throws UserError if the file is missing or not HDF5.
std::string describe_file(const std::string& path);

/// Validates both splits as the loader would (datasets, types, counts, attributes, label range, finite
/// float32 images: the count of bad samples and the first) and
/// summarises them (samples, label range, samples per class). Throws UserError naming the file and problem.
std::string check_layout(const std::string& path);

}  // namespace psbench::data
