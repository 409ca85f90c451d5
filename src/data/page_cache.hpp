#pragma once

#include <string>

namespace psbench::data {

/// Asks the kernel to drop this node's cached pages of the file (fdatasync, then posix_fadvise DONTNEED),
/// so the next read goes to the storage device. Throws UserError if the file cannot be opened. Best effort:
/// pages that another process keeps mapped or dirty, other nodes' caches and device caches stay.
void drop_cached_pages(const std::string& path);

/// Fraction of the file's pages resident in this node's page cache (mmap + mincore), in [0, 1].
double cached_fraction(const std::string& path);

}  // namespace psbench::data
