#include "perf/learner_fits.hpp"

#include <string>

#include "common/error.hpp"

namespace psbench::perf {
namespace {

// A fit only some learners need: a calibration without it cannot predict them.
double required(const LinearFit& fit, double bytes, const std::string& what, const std::string& file) {
  if (fit.points == 0) {
    throw UserError("the calibration has no " + what + " in " + file + ".json: run bench/run_all.sh --only " + file +
                    " and calibrate again");
  }
  return fit.at(bytes);
}

}  // namespace

double quantize_s(const Calibration& calibration, double bytes) {
  return required(calibration.quantize, bytes, "1-bit quantization time (BM_OneBitQuantize)", "server_update");
}

double dequantize_s(const Calibration& calibration, double bytes) {
  return required(calibration.dequantize, bytes, "1-bit dequantization time (BM_OneBitDequantize)", "server_update");
}

double allreduce_s(const Calibration& calibration, double ring_bytes) {
  return required(calibration.allreduce, ring_bytes, "allreduce time (BM_Allreduce)", "push_pull");
}

}  // namespace psbench::perf
