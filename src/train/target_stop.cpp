#include "train/target_stop.hpp"

#include "mpi/call.hpp"

namespace psbench::train {

TargetStop::TargetStop(const mpi::Communicator& workers, bool lockstep, bool enabled)
    : workers_(workers),
      lockstep_(lockstep),
      enabled_(enabled),
      first_(workers.rank() == 0),
      request_(1, "the stop-at-target broadcast") {
  if (!enabled_ || lockstep_ || first_) return;
  PSBENCH_MPI_CALL(MPI_Ibcast(&verdict_, 1, MPI_INT, 0, workers_.native(), request_.at(0)));
  posted_ = true;
}

TargetStop::~TargetStop() {
  if (posted_) MPI_Wait(request_.at(0), MPI_STATUS_IGNORE);
}

bool TargetStop::at_evaluation(bool reached) {
  if (!enabled_) return false;
  if (lockstep_) {
    verdict_ = reached ? 1 : 0;
    PSBENCH_MPI_CALL(MPI_Bcast(&verdict_, 1, MPI_INT, 0, workers_.native()));
    return verdict_ != 0;
  }
  if (posted_) return true;  // the first worker has said stop: its broadcast's buffer must not change
  if (!reached) return false;
  verdict_ = 1;
  PSBENCH_MPI_CALL(MPI_Ibcast(&verdict_, 1, MPI_INT, 0, workers_.native(), request_.at(0)));
  posted_ = true;
  return true;
}

bool TargetStop::stopped_by_first() {
  if (!enabled_ || lockstep_ || first_ || !posted_) return verdict_ != 0;
  int done = 0;
  PSBENCH_MPI_CALL(MPI_Test(request_.at(0), &done, MPI_STATUS_IGNORE));
  if (done != 0) posted_ = false;
  return done != 0 && verdict_ != 0;
}

void TargetStop::finish() {
  if (!enabled_ || lockstep_) return;
  if (first_ && !posted_ && verdict_ == 0) {
    PSBENCH_MPI_CALL(MPI_Ibcast(&verdict_, 1, MPI_INT, 0, workers_.native(), request_.at(0)));
    posted_ = true;
  }
  if (posted_) PSBENCH_MPI_CALL(MPI_Wait(request_.at(0), MPI_STATUS_IGNORE));
  posted_ = false;
}

}  // namespace psbench::train
