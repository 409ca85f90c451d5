#pragma once

#include <cstdint>
#include <queue>
#include <simgrid/s4u.hpp>
#include <vector>

namespace psbench::perf {

/// One host's cores shared by many executions, as SimGrid's CPU model shares them (weighted max-min: each
/// execution gets a share of the cores proportional to its weight, at most one core), but solved in
/// O(log n) per event instead of SimGrid's O(n): executions of equal weight always progress at the same
/// rate, so each weight class keeps one virtual clock (work done so far by any of its members) and a heap
/// of finish marks on that clock. A daemon actor on the host wakes each execution when its work is done.
class SharedCpu {
 public:
  /// Serves `cores` cores of one core-second per second each, on `host` (where the daemon actor lives).
  SharedCpu(simgrid::s4u::Host* host, int cores);
  /// Not copyable: its daemon actor keeps `this`.
  SharedCpu(const SharedCpu&) = delete;
  /// Not assignable, as above.
  SharedCpu& operator=(const SharedCpu&) = delete;

  /// Blocks the calling actor until it has received `seconds` of one core's work, shared by weight.
  void execute(double seconds, double weight);

 private:
  struct Job {
    double finish = 0.0;      // mark on the class's virtual clock
    std::uint64_t order = 0;  // arrival order: equal marks finish first come, first served
    simgrid::s4u::Semaphore* done = nullptr;
    bool operator>(const Job& other) const {
      return finish != other.finish ? finish > other.finish : order > other.order;
    }
  };
  struct WeightClass {
    double weight = 1.0;
    double virtual_work = 0.0;  // core-seconds every member has received since the class began
    double rate = 0.0;          // cores each member gets now
    std::priority_queue<Job, std::vector<Job>, std::greater<>> jobs;
  };

  void serve();
  void advance_to_now();
  void share_cores();
  void finish_due_jobs();
  void finish_first(WeightClass& weight_class);
  WeightClass& class_of(double weight);
  WeightClass* next_to_finish(double& in_seconds);

  double cores_;
  double updated_at_ = 0.0;
  std::uint64_t arrivals_ = 0;
  std::vector<WeightClass> classes_;  // by weight, highest first
  simgrid::s4u::SemaphorePtr wake_;
};

}  // namespace psbench::perf
