#pragma once

#include "mpi/communicator.hpp"
#include "mpi/request_set.hpp"

namespace psbench::train {

/// The first worker's evaluations (--eval-every) and --stop-at-target among the workers. The first worker
/// (rank 0 of the workers' communicator) evaluates and says when its test accuracy reached the target.
///
/// Lockstep (sync, local, bmuf, average): every worker reaches each evaluation step together and waits there (at
/// its next collective) while the first worker evaluates; with --stop-at-target all decide at the evaluation
/// step, by a broadcast from the first worker that each of them joins there, so their collectives stay matched.
///
/// Async: the others would keep training while the first worker evaluates, and their progress would reach the
/// curve with no training time to show for it. So the first worker sends the others its commands by non-blocking
/// broadcasts, one posted ahead on each of them and tested after every step: pause (at each evaluation), then
/// resume or stop (the verdict), and finished when its training ends. A worker that sees pause waits, without
/// training, for the next command, and that wait is not training time; the first worker does not wait for the
/// others to pause (a server holding a reply for SSP may need its next push first), so each of them finishes the
/// step it is in, at most one step per worker per evaluation.
class TargetStop {
 public:
  /// Collective over workers when enabled (async: posts the others' first broadcast); does nothing when not.
  /// stop: --stop-at-target; async_pauses: async mode with evaluations (the others pause for each).
  TargetStop(const mpi::Communicator& workers, bool lockstep, bool stop, bool async_pauses);
  TargetStop(const TargetStop&) = delete;
  TargetStop& operator=(const TargetStop&) = delete;
  /// Completes a posted broadcast (finish() must have run on the first worker).
  ~TargetStop();

  /// Async, the first worker, before it evaluates: tells the others to pause.
  void pause_others();
  /// At an evaluation step: reached is the first worker's verdict (others pass false). Lockstep: every worker
  /// calls it at the same step and all get the first worker's verdict. Async: only the first worker calls it,
  /// after pause_others(), and it resumes the others or stops them. Returns whether this worker stops.
  bool at_evaluation(bool reached);
  /// After a step of a worker other than the first (async): waits out a pause, adding its seconds to paused_s;
  /// true once the first worker has said stop.
  [[nodiscard]] bool after_others_step(double& paused_s);
  /// At the end of a worker's training (async): the first worker sends finished (unless it said stop); the others
  /// take its commands until finished or stop.
  void finish();

 private:
  void post_command(int command);
  int next_command();
  const mpi::Communicator& workers_;
  bool lockstep_;
  bool stop_;
  bool async_;
  bool first_;
  int command_ = 0;      // the broadcast's buffer
  bool posted_ = false;  // a broadcast of this worker's is posted and not yet complete
  bool stopped_ = false;
  bool finished_ = false;  // async: the first worker sent (the others saw) finished or stop
  mpi::RequestSet request_;
};

}  // namespace psbench::train
