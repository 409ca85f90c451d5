#include "train/run_health.hpp"

#include <cmath>
#include <cstdio>

#include "mpi/collective_error.hpp"

namespace psbench::train {
namespace {

// How far a final loss may lie from ln K and still count as chance level.
constexpr double kChanceTolerance = 0.02;

std::string what_to_try(const TrainOptions& options) {
  char text[256];
  std::snprintf(text, sizeof text, "try a lower --lr (now %g) or --momentum (now %g), or --warmup-steps N (now %d)",
                options.learning_rate, options.momentum, options.warmup_steps);
  return text;
}

}  // namespace

std::string stop_message(const StopPoint& stop, int rank, int worker, const TrainOptions& options) {
  char where[160];
  std::snprintf(where, sizeof where, "rank %d (worker %d), step %llu (epoch %u of %d)", rank, worker,
                static_cast<unsigned long long>(stop.step), stop.epoch + 1, options.epochs);
  if (stop.own_loss) {
    char loss[32];
    std::snprintf(loss, sizeof loss, "%g", static_cast<double>(stop.loss));
    const std::string value = std::isnan(stop.loss) ? "NaN" : loss;  // not "-nan": NaN has no sign worth printing
    return "the training loss became " + value + " on " + where + ": the run diverged; " + what_to_try(options);
  }
  return std::string("the exchanged gradients became non-finite at ") + where + ": the run diverged; " +
         what_to_try(options);
}

void stop_if_any_rank_stopped(const mpi::Communicator& world, const std::optional<std::string>& diverged,
                              const std::optional<std::string>& stopped) {
  mpi::run_collectively(world, [&] {
    if (diverged) throw UserError(*diverged);
  });
  mpi::run_collectively(world, [&] {
    if (stopped) throw UserError(*stopped);
  });
}

std::optional<std::string> chance_level_warning(double final_loss, double test_loss, int classes,
                                                const TrainOptions& options) {
  if (classes < 2) return std::nullopt;
  const double chance = std::log(static_cast<double>(classes));
  const auto at_chance = [&](double loss) { return std::abs(loss - chance) <= kChanceTolerance * chance; };
  const char* what = nullptr;
  double loss = 0.0;
  if (at_chance(final_loss)) {
    what = "the final training loss";
    loss = final_loss;
  } else if (at_chance(test_loss)) {  // the last epoch's mean may still hold the steps before a collapse
    what = "the final parameters' test loss";
    loss = test_loss;
  } else {
    return std::nullopt;
  }
  char text[400];
  std::snprintf(text, sizeof text,
                "%s %.4f is within 2%% of ln %d = %.4f, the loss of a uniform guess: the model did not learn; try "
                "another --lr (now %g), a lower --momentum (now %g), --warmup-steps N (now %d) or more --epochs "
                "(now %d)",
                what, loss, classes, chance, options.learning_rate, options.momentum, options.warmup_steps,
                options.epochs);
  return text;
}

}  // namespace psbench::train
