#include "perf/collective_costs.hpp"

#include <cmath>

#include "common/error.hpp"
#include "common/ring_allreduce_bytes.hpp"
#include "perf/learner_fits.hpp"
#include "perf/model_shape.hpp"
#include "perf/wire_bytes.hpp"

namespace psbench::perf {
namespace {

// CNTK's 1-bit aggregation per step (src/train/exchange/onebit_sync_exchange.cpp): quantize the whole gradient,
// dequantize and sum the W copies of one's own stripe, quantize the sum, dequantize the W gathered sums. Its bytes go
// in two collectives, MPI_Ialltoallv and MPI_Iallgatherv.
double onebit_codec_s(const Calibration& calibration, const compress::ColumnLayout& columns, int workers) {
  const double bytes = 4.0 * static_cast<double>(columns.values());
  const double stripe = 4.0 * static_cast<double>(onebit_largest_stripe_values(columns, workers));
  return quantize_s(calibration, bytes) + dequantize_s(calibration, workers * stripe) +
         quantize_s(calibration, stripe) + dequantize_s(calibration, bytes);
}

void sync_exchange(const Calibration& calibration, const Scenario& scenario, const ModelShape& shape,
                   CollectiveCosts& costs) {
  const int workers = costs.base.workers;
  costs.syncs = costs.base.steps_per_worker;
  if (scenario.onebit) {
    const compress::ColumnLayout columns = onebit_columns(shape.onebit_matrices);
    costs.bytes_per_sync = onebit_sync_bytes(columns, workers);
    costs.codec_s = onebit_codec_s(calibration, columns, workers);
  } else {
    costs.bytes_per_sync =
        static_cast<double>(ring_allreduce_bytes(static_cast<std::uint64_t>(costs.base.parameter_bytes), workers));
  }
  costs.transfer_s =
      collective_transfer_s(calibration, scenario.platform, costs.bytes_per_sync, workers, scenario.onebit ? 2 : 1);
}

// A block ends at the first step that brings the busiest worker's samples since the last one to block_samples,
// the count running across epochs, and the last, partial block is synchronised too.
void block_exchange(const Calibration& calibration, const Scenario& scenario, CollectiveCosts& costs) {
  if (scenario.block_samples == 0) {
    throw UserError(std::string("--mode ") + learner_name(scenario.learner) + " needs --block-samples N");
  }
  const int workers = costs.base.workers;
  const double partition = std::ceil(static_cast<double>(scenario.samples) / workers);
  costs.syncs = std::ceil(scenario.epochs * partition / static_cast<double>(scenario.block_samples));
  costs.bytes_per_sync =
      static_cast<double>(ring_allreduce_bytes(static_cast<std::uint64_t>(costs.base.parameter_bytes), workers));
  costs.transfer_s = collective_transfer_s(calibration, scenario.platform, costs.bytes_per_sync, workers);
  const bool bmuf = scenario.learner == Learner::kBmuf;
  if (!bmuf) {  // averaging first sums the samples each worker trained on: one more allreduce, of 8 bytes
    costs.transfer_s += collective_transfer_s(calibration, scenario.platform,
                                              static_cast<double>(ring_allreduce_bytes(8, workers)), workers);
  }
  costs.block_update_s = (bmuf ? kBmufBlockUpdates : kAverageBlockUpdates) * costs.update_s;
}

}  // namespace

double collective_transfer_s(const Calibration& calibration, const PlatformSpec& platform, double bytes_per_rank,
                             int workers, int collectives) {
  const double fixed = allreduce_s(calibration, 0.0);
  const double more = (collectives - 1) * fixed;
  if (platform.kind == PlatformKind::kThis || platform.kind == PlatformKind::kXml)
    return allreduce_s(calibration, bytes_per_rank) + more;
  const double latency = platform.latency_s + platform.hop_latency_s;
  return fixed + more + 2.0 * (workers - 1) * latency + bytes_per_rank / platform.link_Bps;
}

CollectiveCosts collective_costs(const Calibration& calibration, const Scenario& scenario, int workers) {
  CollectiveCosts costs;
  costs.base = step_costs(calibration, scenario, workers, 0);
  costs.update_s = calibration.update.at(costs.base.parameter_bytes);
  const ModelShape shape = model_shape(scenario.model, scenario.input);
  if (scenario.learner == Learner::kSync) {
    sync_exchange(calibration, scenario, shape, costs);
  } else {
    block_exchange(calibration, scenario, costs);
  }
  return costs;
}

}  // namespace psbench::perf
