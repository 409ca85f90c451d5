#include "train/target_stop.hpp"

#include "common/phase_timer.hpp"
#include "mpi/backoff_wait.hpp"
#include "mpi/call.hpp"

namespace psbench::train {
namespace {

// The first worker's commands to the others in async mode.
constexpr int kPause = 1;
constexpr int kResume = 2;
constexpr int kStop = 3;
constexpr int kFinished = 4;

}  // namespace

TargetStop::TargetStop(const mpi::Communicator& workers, bool lockstep, bool stop, bool async_pauses)
    : workers_(workers),
      lockstep_(lockstep),
      stop_(stop),
      async_(!lockstep && (stop || async_pauses)),
      first_(workers.rank() == 0),
      request_(1, "the first worker's command broadcast") {
  if (async_ && !first_) post_command(0);
}

TargetStop::~TargetStop() {
  if (posted_) MPI_Wait(request_.at(0), MPI_STATUS_IGNORE);
}

// Posts this worker's next broadcast: the first worker's command, or the others' receive of it. The first worker
// completes its part at once: an MPI without asynchronous progress (MPICH) would otherwise send the command only at
// the first worker's next MPI call, after the evaluation that the others were to pause for.
void TargetStop::post_command(int command) {
  if (posted_) mpi::wait_all(request_.all());  // the buffer must not change under a broadcast in flight
  command_ = command;
  PSBENCH_MPI_CALL(MPI_Ibcast(&command_, 1, MPI_INT, 0, workers_.native(), request_.at(0)));
  posted_ = true;
  if (!first_) return;
  mpi::wait_all(request_.all());
  posted_ = false;
}

// The others: waits for the command in flight, returns it, and posts the receive of the next unless it ends them.
int TargetStop::next_command() {
  mpi::wait_all(request_.all());
  posted_ = false;
  const int command = command_;
  if (command == kStop || command == kFinished) {
    finished_ = true;
  } else {
    post_command(0);
  }
  return command;
}

void TargetStop::pause_others() {
  if (async_ && first_ && !finished_) post_command(kPause);
}

bool TargetStop::at_evaluation(bool reached) {
  if (lockstep_) {
    if (!stop_) return false;
    int verdict = reached ? 1 : 0;
    PSBENCH_MPI_CALL(MPI_Bcast(&verdict, 1, MPI_INT, 0, workers_.native()));
    return verdict != 0;
  }
  if (!async_ || finished_) return stopped_;
  stopped_ = stop_ && reached;
  post_command(stopped_ ? kStop : kResume);
  finished_ = stopped_;
  return stopped_;
}

bool TargetStop::after_others_step(double& paused_s) {
  if (!async_ || first_ || finished_) return stopped_;
  int done = 0;
  PSBENCH_MPI_CALL(MPI_Test(request_.at(0), &done, MPI_STATUS_IGNORE));
  if (done == 0) return false;
  posted_ = false;
  const double start = monotonic_seconds();
  int command = command_;
  if (command == kPause) {
    post_command(0);
    command = next_command();  // resume or stop, after the first worker's evaluation
    paused_s += monotonic_seconds() - start;
  } else if (command == kStop || command == kFinished) {
    finished_ = true;
  } else {
    post_command(0);
  }
  stopped_ = command == kStop;
  return stopped_;
}

void TargetStop::finish() {
  if (!async_) return;
  if (first_) {
    if (!finished_) post_command(kFinished);
    finished_ = true;
  } else {
    while (!finished_) stopped_ = next_command() == kStop || stopped_;
  }
  if (posted_) mpi::wait_all(request_.all());
  posted_ = false;
}

}  // namespace psbench::train
