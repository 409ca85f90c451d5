// A hand-made calibration of a 2-core machine, shared by the perf tests that derive step costs from one.
#pragma once

#include "perf/calibration.hpp"

namespace psbench::perf::test_support {

/// mlp:64 on 28x28 inputs; t_fb 10 ms at any batch, the update 2 ms for the whole vector, push/pull over the
/// window 3 ms (1 ms beyond the update); disks at 1 GB/s; a 2-core machine; no set-up.
inline Calibration two_core_calibration() {
  Calibration c;
  c.machine.cores = 2;
  c.compute.push_back({"mlp:64", LinearFit{0.010, 0.0, "nn.json", 0.0, 2, {}}});
  c.update = LinearFit{0.0, 0.002 / (4.0 * 50890.0), "server_update.json", 0.0, 2, {}};
  c.exchange_shared_window = LinearFit{0.0, 0.003 / (4.0 * 50890.0), "push_pull.json", 0.0, 2, {}};
  c.disk_sequential = LinearFit{0.0, 1e-9, "data_io.json", 0.0, 2, {}};
  c.disk_sequential_Bps = {1e9, "data_io.json", 0.0, 2};
  c.disk_parallel_Bps = {1e9, "data_io.json", 0.0, 2};
  return c;
}

}  // namespace psbench::perf::test_support
