#pragma once

#include "mpi/communicator.hpp"
#include "mpi/request_set.hpp"

namespace psbench::train {

/// --stop-at-target among the workers: the first worker (rank 0 of the workers' communicator) says when its
/// test accuracy reached the target, and every worker stops. In lockstep (sync and local mode) all workers
/// decide at the same evaluation step, by a broadcast from the first worker that each of them joins there,
/// so their allreduces stay matched. Otherwise (async) each worker posts one non-blocking broadcast at the
/// start and tests it after every step; the first worker completes it when it stops, with or without the
/// target, so no worker waits on the others' steps.
class TargetStop {
 public:
  /// Collective over workers when enabled (posts the async broadcast); does nothing when not.
  TargetStop(const mpi::Communicator& workers, bool lockstep, bool enabled);
  TargetStop(const TargetStop&) = delete;
  TargetStop& operator=(const TargetStop&) = delete;
  /// Completes the async broadcast (finish() must have run on the first worker).
  ~TargetStop();

  /// At an evaluation step: reached is the first worker's verdict (others pass false). Lockstep: every worker
  /// calls it at the same step and all get the first worker's verdict. Async: only the first worker calls it,
  /// and a true verdict completes its broadcast. Returns whether this worker stops.
  bool at_evaluation(bool reached);
  /// After a step of a worker other than the first (async): true once the first worker has said stop.
  [[nodiscard]] bool stopped_by_first();
  /// At the end of the first worker's training (async): completes its broadcast with "no stop" if it has
  /// not said stop; every worker's broadcast then completes.
  void finish();

 private:
  const mpi::Communicator& workers_;
  bool lockstep_;
  bool enabled_;
  bool first_;
  int verdict_ = 0;      // the broadcast's value: 1 once the first worker says stop
  bool posted_ = false;  // this worker's async broadcast is posted and not yet complete
  mpi::RequestSet request_;
};

}  // namespace psbench::train
