#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/model_subcommands.hpp"
#include "perf/calibrate.hpp"

namespace psbench::cli {
namespace {

struct CalibrateFlags {
  std::vector<std::string> bench;
  std::vector<std::string> runs;
  std::string out = "calib.json";
};

// A fit only some learners need, when a file measured it.
void print_optional(const char* what, const perf::LinearFit& fit, const char* per) {
  if (fit.points == 0) return;
  std::printf("  %s = %.3g s + %.3g s per %s (residual %.1f%%)\n", what, fit.intercept, fit.slope, per,
              100 * fit.residual);
}

void print_summary(const perf::Calibration& c, const std::string& out) {
  std::printf("wrote %s: %d cores (%s, %s)\n", out.c_str(), c.machine.cores, c.machine.cpu.c_str(),
              c.machine.onednn_isa.c_str());
  for (const perf::ComputeFit& fit : c.compute) {
    std::printf("  t_fb(%s) = %.3g s + %.3g s x batch (residual %.1f%%, %s)\n", fit.model.c_str(), fit.step.intercept,
                fit.step.slope, 100 * fit.step.residual, fit.step.source.c_str());
  }
  std::printf("  update = %.3g s + %.3g s/byte (residual %.1f%%); D scale %.3g\n", c.update.intercept, c.update.slope,
              100 * c.update.residual, c.service_scale.points > 0 ? c.service_scale.value : 1.0);
  std::printf("  disk: sequential %.0f MB/s, parallel %.0f MB/s\n", c.disk_sequential_Bps.value / 1e6,
              c.disk_parallel_Bps.value / 1e6);
  print_optional("allreduce", c.allreduce, "ring byte per rank");
  print_optional("1-bit quantize", c.quantize, "fp32 byte");
  print_optional("1-bit dequantize", c.dequantize, "fp32 byte");
}

}  // namespace

void add_calibrate(CLI::App& model) {
  auto flags = std::make_shared<CalibrateFlags>();
  CLI::App* command = model.add_subcommand("calibrate", "Fit calib.json from benchmark files and optional runs");
  command->add_option("--bench", flags->bench, "benchmark files (results/bench/*.json)")->required();
  command->add_option("--runs", flags->runs, "results files of psbench train runs that refine the fit");
  command->add_option("--out", flags->out, "calibration file to write (atomically)")->capture_default_str();
  command->callback([flags] {
    on_first_rank([&] {
      const perf::Calibration calibration = perf::calibrate(flags->bench, flags->runs);
      perf::write_calibration(calibration, flags->out);
      print_summary(calibration, flags->out);
    });
  });
}

}  // namespace psbench::cli
