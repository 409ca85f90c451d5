#pragma once

#include "perf/calibration.hpp"

namespace psbench::perf {

/// Seconds to quantize bytes of fp32 values to 1 bit with error feedback (BM_OneBitQuantize's fit). Throws
/// UserError naming the benchmark when the calibration has none.
double quantize_s(const Calibration& calibration, double bytes);

/// Seconds to dequantize bytes of fp32 values from their 1-bit form (BM_OneBitDequantize's fit). Throws UserError
/// naming the benchmark when the calibration has none.
double dequantize_s(const Calibration& calibration, double bytes);

/// Seconds of an MPI_Allreduce in which each rank sends ring_bytes (BM_Allreduce's fit, whose abscissa is the
/// bytes each rank sends in a ring). Throws UserError naming the benchmark when the calibration has none.
double allreduce_s(const Calibration& calibration, double ring_bytes);

}  // namespace psbench::perf
