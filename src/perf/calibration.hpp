#pragma once

#include <string>
#include <vector>

#include "perf/fit.hpp"

namespace psbench::perf {

/// Version of calib.json this code writes and reads.
inline constexpr int kCalibrationFormat = 1;

/// The calibrating machine.
struct MachineFacts {
  std::string host;        ///< host name
  std::string cpu;         ///< CPU model name
  int cores = 1;           ///< online cores per node
  std::string onednn_isa;  ///< ISA oneDNN dispatched to
  std::string source;      ///< file the facts came from
};

/// Forward+backward seconds per step of one model as a line in the batch size.
struct ComputeFit {
  std::string model;  ///< spec, e.g. mlp:512,256
  LinearFit step;     ///< seconds per step = intercept + slope x batch
};

/// Everything the predictions need, each value with its source file and residual.
struct Calibration {
  MachineFacts machine;              ///< cores per node and the ISA
  std::vector<ComputeFit> compute;   ///< t_fb(b) per benchmarked model
  FittedValue flops_per_s;           ///< training FLOP/s of one core: the fallback for other models
  FittedValue compute_cv;            ///< coefficient of variation of t_fb (0: not measured)
  LinearFit exchange_messages;       ///< one push+pull round trip (1 server, 1 worker) vs bytes, messages
  LinearFit exchange_shared_window;  ///< the same through the shared window
  LinearFit exchange_rma;            ///< the same by MPI one-sided communication (optional)
  LinearFit update;                  ///< the server's SGD update alone vs bytes
  LinearFit update_compensated;      ///< the DC-ASGD update (--delay-compensation) vs bytes (0 points: not measured)
  LinearFit quantize;         ///< 1-bit quantization with error feedback vs the values' fp32 bytes (0 points: none)
  LinearFit dequantize;       ///< 1-bit dequantization vs the values' fp32 bytes (0 points: not measured)
  LinearFit allreduce;        ///< an MPI_Allreduce vs the bytes each rank sends in a ring (0 points: none)
  FittedValue service_cv;     ///< coefficient of variation of D (0: not measured)
  FittedValue service_scale;  ///< measured D over the update fit's D (1: no runs or saturation file)
  FittedValue disk_sequential_Bps;   ///< one reader's bandwidth, bytes/s
  LinearFit disk_sequential;         ///< one reader's seconds vs bytes (intercept: open and set-up)
  FittedValue disk_parallel_Bps;     ///< all readers together, bytes/s
  LinearFit disk_fresh_later;        ///< a reader after a node's first, into fresh pages: s vs bytes (0 points: none)
  FittedValue setup_s;               ///< set-up and stop outside the read and training of one worker per core
  FittedValue exchange_overhead_s;   ///< per-step exchange time seen by workers beyond the fits, from runs
  std::vector<ComputeFit> evaluate;  ///< one evaluation call (Model::evaluate) per model vs its samples (0: none)
  LinearFit core_sharing;  ///< concurrent step / (alone x max(1, k/c)) vs ranks per core k/c (0 points: not measured)
  FittedValue run_spread;  ///< a run's total over its configuration's median, from runs repeated (0 points: none)
  std::vector<std::string> sources;  ///< every file read
};

/// Writes calib.json atomically.
void write_calibration(const Calibration& calibration, const std::string& path);

/// Reads calib.json; throws UserError naming the file for a missing file, malformed JSON, another format
/// version or a missing key.
Calibration read_calibration(const std::string& path);

/// Forward+backward seconds per step of spec at batch: its fit if benchmarked, else FLOPs / flops_per_s.
/// Throws UserError when neither is available.
double compute_seconds(const Calibration& calibration, const std::string& spec, double flops_per_sample, int batch);

/// Seconds of one evaluation call of spec over chunk samples: its fit if benchmarked, else a third of the train step
/// at that batch (the forward pass's share of a step's FLOPs: the backward pass does two matrix products per forward
/// one).
double evaluate_seconds(const Calibration& calibration, const std::string& spec, double flops_per_sample, int chunk);

/// The core-sharing stretch of a train step where ranks_per_core computing ranks share each core of a node: the fit's
/// curve at ranks_per_core, held at its value at the smallest and largest measured ratio beyond them; 1 where the
/// calibration has no such fit.
double core_sharing_stretch(const Calibration& calibration, double ranks_per_core);

}  // namespace psbench::perf
