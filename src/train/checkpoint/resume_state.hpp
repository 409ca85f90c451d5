#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "train/checkpoint/checkpoint_file.hpp"

namespace psbench::train {

/// Where a resumed run starts, known on every rank once set-up has shared the checkpoint.
struct ResumeState {
  std::string path;                       ///< the --resume file
  std::uint32_t epoch = 0;                ///< epochs every worker had finished
  std::uint64_t step = 0;                 ///< the checkpoint's step (CheckpointHeader::step)
  int servers = 0;                        ///< S of the run that wrote it (0 in sync and local mode)
  std::vector<std::uint64_t> versions;    ///< per server of that run (one entry in sync and local mode)
  std::vector<std::uint64_t> updates;     ///< per server of that run
  std::vector<WorkerPosition> positions;  ///< per worker: its next step
  std::vector<float> velocity;            ///< the whole optimizer velocity (P values; empty on async workers)
};

}  // namespace psbench::train
