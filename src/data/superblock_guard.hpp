#pragma once

#include <string>

namespace psbench::data {

/// Throws UserError when the HDF5 file's version 0/1 superblock names a driver information block that runs
/// past the end of the file: HDF5 1.10 allocates and fills a buffer of the claimed size (up to 4 GiB) before it
/// notices. Files whose superblock it cannot read, or of later versions, are left to HDF5.
void refuse_oversized_driver_block(const std::string& path);

}  // namespace psbench::data
