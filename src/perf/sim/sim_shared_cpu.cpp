#include "perf/sim/sim_shared_cpu.hpp"

#include <algorithm>
#include <limits>
#include <string>

namespace psbench::perf {
namespace sg4 = simgrid::s4u;
namespace {

// Work left below this (core-seconds) is done: what floating point leaves of a job whose time has come.
constexpr double kDoneSlack = 1e-12;

}  // namespace

SharedCpu::SharedCpu(sg4::Host* host, int cores)
    : cores_(static_cast<double>(std::max(1, cores))), wake_(sg4::Semaphore::create(0)) {
  sg4::Actor::create("cpu-" + host->get_name(), host, [this] { serve(); })->daemonize();
}

void SharedCpu::execute(double seconds, double weight) {
  if (seconds <= 0.0) return;
  advance_to_now();
  WeightClass& weight_class = class_of(weight);
  const sg4::SemaphorePtr done = sg4::Semaphore::create(0);
  weight_class.jobs.push({weight_class.virtual_work + seconds, arrivals_++, done.get()});
  share_cores();
  wake_->release();
  done->acquire();
}

// The daemon: sleeps until the next job is due or a job arrives, then hands out what is done.
void SharedCpu::serve() {
  while (true) {
    double in_seconds = 0.0;
    WeightClass* next = next_to_finish(in_seconds);
    if (next == nullptr) {
      wake_->acquire();
    } else {
      const double weight = next->weight;        // an arrival may move the classes while it waits
      if (wake_->acquire_timeout(in_seconds)) {  // its time came: its first job is done
        advance_to_now();
        finish_first(class_of(weight));
      }
    }
    advance_to_now();
    finish_due_jobs();
  }
}

void SharedCpu::advance_to_now() {
  const double now = sg4::Engine::get_clock();
  const double elapsed = now - updated_at_;
  for (WeightClass& weight_class : classes_) weight_class.virtual_work += weight_class.rate * elapsed;
  updated_at_ = now;
}

// Weighted max-min with a one-core cap, as SimGrid's CPU model: the heaviest classes reach the cap first.
void SharedCpu::share_cores() {
  double capacity = cores_;
  double weights = 0.0;
  for (const WeightClass& weight_class : classes_)
    weights += static_cast<double>(weight_class.jobs.size()) * weight_class.weight;
  double share = -1.0;  // cores per unit weight, once the cap no longer binds
  for (WeightClass& weight_class : classes_) {
    const auto members = static_cast<double>(weight_class.jobs.size());
    if (members == 0.0) {
      weight_class.rate = 0.0;
      continue;
    }
    if (share < 0.0 && capacity * weight_class.weight >= weights) {
      weight_class.rate = 1.0;
      capacity -= members;
      weights -= members * weight_class.weight;
      continue;
    }
    if (share < 0.0) share = capacity / weights;
    weight_class.rate = share * weight_class.weight;
  }
}

void SharedCpu::finish_due_jobs() {
  for (WeightClass& weight_class : classes_) {
    while (!weight_class.jobs.empty() && weight_class.jobs.top().finish - weight_class.virtual_work <= kDoneSlack)
      finish_first(weight_class);
  }
  share_cores();
}

void SharedCpu::finish_first(WeightClass& weight_class) {
  if (weight_class.jobs.empty()) return;
  weight_class.jobs.top().done->release();
  weight_class.jobs.pop();
  share_cores();
}

SharedCpu::WeightClass& SharedCpu::class_of(double weight) {
  auto at =
      std::find_if(classes_.begin(), classes_.end(), [weight](const WeightClass& c) { return c.weight <= weight; });
  if (at != classes_.end() && at->weight == weight) return *at;
  WeightClass fresh;
  fresh.weight = weight;
  return *classes_.insert(at, std::move(fresh));
}

SharedCpu::WeightClass* SharedCpu::next_to_finish(double& in_seconds) {
  WeightClass* next = nullptr;
  in_seconds = std::numeric_limits<double>::infinity();
  for (WeightClass& weight_class : classes_) {
    if (weight_class.jobs.empty() || weight_class.rate <= 0.0) continue;
    const double due = std::max(0.0, (weight_class.jobs.top().finish - weight_class.virtual_work) / weight_class.rate);
    if (due < in_seconds) {
      in_seconds = due;
      next = &weight_class;
    }
  }
  return next;
}

}  // namespace psbench::perf
