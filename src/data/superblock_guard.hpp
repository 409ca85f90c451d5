#pragma once

#include <string>

namespace psbench::data {

/// Throws UserError when the HDF5 file's version 0/1 superblock names a driver information block that runs
/// past the end of the file: HDF5 1.10 allocates and fills a buffer of the claimed size (up to 4 GiB) before it
/// notices. Files whose superblock it cannot read, or of later versions, are left to HDF5. It reads the few bytes
/// it checks (the signature's candidate offsets, the superblock, the block's 16-byte header), never the file.
void refuse_oversized_driver_block(const std::string& path);

}  // namespace psbench::data
