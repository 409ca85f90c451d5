#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>

namespace psbench::train::checkpoint_layout {

// The checkpoint file: attributes on the root group, and these datasets (docs/reliability.md).
inline constexpr const char* kParameters = "parameters";                      ///< float32[P]
inline constexpr const char* kVelocity = "velocity";                          ///< float32[P]
inline constexpr const char* kServerVersions = "server_versions";             ///< uint64[S], one entry in sync/local
inline constexpr const char* kServerUpdates = "server_updates";               ///< uint64[S], one entry in sync/local
inline constexpr const char* kWorkerEpochs = "worker_next_epoch";             ///< uint32[W]
inline constexpr const char* kWorkerSteps = "worker_next_step";               ///< uint64[W]
inline constexpr const char* kFormatAttribute = "psbench_checkpoint_format";  ///< int32, kCheckpointFormat

/// Writes a scalar uint64 attribute on object.
void write_u64_attribute(hid_t object, const char* name, std::uint64_t value);
/// Reads a scalar integer attribute of object as uint64; throws SystemError naming file when it is missing.
std::uint64_t read_u64_attribute(hid_t object, const char* name, const std::string& file);

}  // namespace psbench::train::checkpoint_layout
