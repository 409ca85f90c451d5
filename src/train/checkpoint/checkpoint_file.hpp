#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace psbench::train {

/// The checkpoint file format this psbench writes and reads (docs/reliability.md, "Checkpoints").
inline constexpr int kCheckpointFormat = 1;

/// Where one worker's next step lies: its epoch and the step within that epoch (both from 0).
struct WorkerPosition {
  std::uint32_t epoch = 0;  ///< epoch of the next step
  std::uint64_t step = 0;   ///< step within that epoch
  /// Member-wise equality.
  bool operator==(const WorkerPosition&) const = default;
};

/// What a checkpoint was made from and where training stood; identical on every writer.
struct CheckpointHeader {
  int format = kCheckpointFormat;       ///< file format version
  std::string model;                    ///< model spec
  std::array<std::int32_t, 3> input{};  ///< channels, height, width of one sample
  std::int32_t classes = 0;             ///< classes of the data
  std::uint64_t training_samples = 0;   ///< samples in the training split
  std::uint64_t parameters = 0;         ///< P
  std::uint64_t seed = 0;               ///< --seed
  std::int32_t batch = 0;               ///< --batch
  std::string mode;                     ///< async | sync | local
  std::int32_t workers = 0;             ///< W
  std::int32_t servers = 0;             ///< S in async mode, 0 otherwise
  double learning_rate = 0.0;           ///< --lr of the run that wrote it
  double momentum = 0.0;                ///< --momentum of the run that wrote it
  std::uint32_t epoch = 0;              ///< epochs that every worker had finished
  std::uint64_t step = 0;               ///< async: gradient pushes server 0 had received (all workers' steps together);
                                        ///< sync and local: steps each worker had taken
  /// Member-wise equality.
  bool operator==(const CheckpointHeader&) const = default;
};

/// A whole checkpoint as read back.
struct Checkpoint {
  CheckpointHeader header;                ///< the file's attributes
  std::vector<float> parameters;          ///< P values
  std::vector<float> velocity;            ///< P values of the optimizer's momentum (zeros without momentum)
  std::vector<std::uint64_t> versions;    ///< per server (one entry, the replicas', in sync and local mode)
  std::vector<std::uint64_t> updates;     ///< per server: updates applied (same layout as versions)
  std::vector<WorkerPosition> positions;  ///< per worker: its next step
};

/// One writer's part of a checkpoint: a contiguous slice of the parameters and of the velocity, and its counters.
struct CheckpointSlice {
  std::uint64_t begin = 0;                    ///< index of the slice's first parameter
  std::span<const float> parameters;          ///< the slice's parameters
  std::span<const float> velocity;            ///< the slice's velocity; empty means zeros (no momentum)
  std::uint64_t version = 0;                  ///< this writer's shard version
  std::uint64_t updates = 0;                  ///< this writer's updates applied
  std::span<const WorkerPosition> positions;  ///< every worker's position (read from writer 0 only)
};

/// Collective over writers (the servers' communicator, or MPI_COMM_SELF for one writer): unless some writer
/// passes valid = false (then nothing is written and false is returned everywhere), writes every writer's
/// slice into one HDF5 file through parallel HDF5 (MPI-IO, collective transfers), under a temporary name
/// beside path that writer 0 syncs and renames over path: path holds a whole checkpoint at every moment.
/// The header's epoch and step are writer 0's. Throws SystemError when a library call fails.
bool write_checkpoint(MPI_Comm writers, const std::string& path, const CheckpointHeader& header,
                      const CheckpointSlice& slice, bool valid);

/// Reads a checkpoint and checks its layout; throws UserError naming the file and the problem (missing,
/// not HDF5, not a checkpoint, another format version, a dataset of the wrong size).
Checkpoint read_checkpoint(const std::string& path);

/// The name a checkpoint is written under before it is renamed over path.
std::string checkpoint_temporary_path(const std::string& path);

}  // namespace psbench::train
