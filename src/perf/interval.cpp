#include "perf/interval.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <numbers>
#include <thread>

#include "common/median.hpp"
#include "perf/predict.hpp"

namespace psbench::perf {
namespace {

// exp(sigma z), z standard normal; 1 (and no draw) for sigma 0.
double log_normal_factor(double sigma, std::mt19937_64& random) {
  if (sigma <= 0.0) return 1.0;
  return std::exp(sigma * std::normal_distribution<double>(0.0, 1.0)(random));
}

double draw_factor(const Spread& spread, std::mt19937_64& random) {
  return log_normal_factor(spread_sigma(spread), random);
}

double scale(LinearFit& fit, double factor) {
  fit.intercept *= factor;
  fit.slope *= factor;
  for (Point& p : fit.table) p.y *= factor;
  return factor;
}

double draw(LinearFit& fit, std::mt19937_64& random) { return scale(fit, draw_factor(fit.spread, random)); }

void draw(FittedValue& value, std::mt19937_64& random) { value.value *= draw_factor(value.spread, random); }

// The 10th and 90th percentiles of one time over the drawn predictions.
TimeInterval interval_of(const std::vector<double>& values) {
  return {percentile(values, 0.5 - kIntervalCoverage / 2.0), percentile(values, 0.5 + kIntervalCoverage / 2.0)};
}

}  // namespace

double median_spread_scale(int runs) {
  if (runs <= 2) return 1.0 / std::sqrt(static_cast<double>(std::max(1, runs)));
  return std::min(1.0, std::sqrt(std::numbers::pi / (2.0 * runs)));
}

Calibration draw_calibration(const Calibration& calibration, std::mt19937_64& random) {
  Calibration c = calibration;
  for (ComputeFit& fit : c.compute) draw(fit.step, random);
  for (ComputeFit& fit : c.evaluate) draw(fit.step, random);
  draw(c.flops_per_s, random);
  for (LinearFit* fit :
       {&c.exchange_messages, &c.exchange_shared_window, &c.exchange_rma, &c.update, &c.update_compensated, &c.quantize,
        &c.dequantize, &c.allreduce, &c.disk_fresh_later, &c.core_sharing}) {
    draw(*fit, random);
  }
  for (FittedValue* value : {&c.service_scale, &c.disk_parallel_Bps, &c.setup_s, &c.exchange_overhead_s}) {
    draw(*value, random);
  }
  const double read = draw(c.disk_sequential, random);  // a slower read is a lower bandwidth
  c.disk_sequential_Bps.value /= read;
  return c;
}

void add_intervals(const Calibration& calibration, const PredictRequest& request,
                   std::vector<Prediction>& predictions) {
  const int samples = request.interval_samples;
  if (samples < 2) return;
  // Every draw is made first, in one sequence, so the intervals do not depend on the threads.
  std::mt19937_64 random(request.sim.seed);
  std::vector<Calibration> drawn;
  std::vector<std::uint64_t> seeds;
  for (int s = 0; s < samples; ++s) {
    drawn.push_back(draw_calibration(calibration, random));
    seeds.push_back(random());
  }
  std::vector<std::vector<Prediction>> sampled(static_cast<std::size_t>(samples));
  const auto predict_draw = [&](std::size_t s) {
    PredictRequest one = request;
    one.interval_samples = 0;
    one.sim.seed = seeds[s];
    sampled[s] = predict(drawn[s], one);
  };
  // One thread per core: the closed forms and mva are pure functions, and the sim runs each simulation in a forked
  // child of its own (glibc's fork resets the allocator's and stdio's locks in the child, which touches nothing
  // else of the parent's).
  const std::size_t threads = std::min<std::size_t>(sampled.size(), std::max(1U, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const auto work = [&] {
    for (std::size_t s = next++; s < sampled.size(); s = next++) {
      try {
        predict_draw(s);
      } catch (...) {
        const std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  if (failure) std::rethrow_exception(failure);
  // The runs' own scatter, drawn here, after the threads, in one sequence too.
  const double run_sigma = spread_sigma(calibration.run_spread.spread) * median_spread_scale(request.runs_in_median);
  const std::size_t count = predictions.size();
  std::vector<std::vector<double>> init(count), compute(count), total(count), evaluation(count);
  for (const std::vector<Prediction>& sample : sampled) {
    for (std::size_t i = 0; i < count; ++i) {
      init[i].push_back(sample[i].init_io_s);
      compute[i].push_back(sample[i].compute_s);
      total[i].push_back(sample[i].total_s * log_normal_factor(run_sigma, random));
      evaluation[i].push_back(sample[i].evaluation_s);
    }
  }
  for (std::size_t i = 0; i < count; ++i) {
    predictions[i].interval = PredictionIntervals{interval_of(init[i]), interval_of(compute[i]), interval_of(total[i]),
                                                  interval_of(evaluation[i])};
  }
}

}  // namespace psbench::perf
