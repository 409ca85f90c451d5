#include "perf/predict.hpp"

#include "common/error.hpp"
#include "perf/closed_forms.hpp"
#include "perf/collective_forms.hpp"
#include "perf/interval.hpp"
#include "perf/mva_prediction.hpp"

namespace psbench::perf {
namespace {

// Learners without servers: one prediction per W, whatever the server list.
void predict_collective_kind(const Calibration& calibration, const PredictRequest& request, Kind kind,
                             std::vector<Prediction>& out) {
  const Scenario& scenario = request.scenario;
  if (kind == Kind::kSim) {
    throw UserError(
        std::string("--kind sim simulates the parameter servers' protocol (--mode async) only: predict --mode ") +
        learner_name(scenario.learner) + " with --kind ideal, revised or mva");
  }
  for (const int workers : request.workers)
    out.push_back(predict_collective(collective_costs(calibration, scenario, workers), kind, scenario.io));
}

void predict_kind(const Calibration& calibration, const PredictRequest& request, Kind kind, int servers,
                  std::vector<Prediction>& out) {
  const Scenario& scenario = request.scenario;
  if (kind == Kind::kMva) {
    for (Prediction& p : predict_mva(calibration, scenario, request.workers, servers)) out.push_back(p);
    return;
  }
  for (const int workers : request.workers) {
    const StepCosts costs = step_costs(calibration, scenario, workers, servers);
    if (kind == Kind::kIdeal) out.push_back(predict_ideal(costs));
    if (kind == Kind::kRevised) out.push_back(predict_revised(costs, scenario.io));
    if (kind == Kind::kSim) out.push_back(simulate(costs, scenario, request.sim));
  }
}

}  // namespace

std::vector<Prediction> predict(const Calibration& calibration, const PredictRequest& request) {
  if (request.workers.empty()) throw UserError("--workers is an empty list");
  if (request.servers.empty()) throw UserError("--servers is an empty list");
  if (request.kinds.empty()) throw UserError("--kind names no kind");
  std::vector<Prediction> predictions;
  for (const Kind kind : request.kinds) {
    if (request.scenario.learner != Learner::kAsync) {
      predict_collective_kind(calibration, request, kind, predictions);
      continue;
    }
    for (const int servers : request.servers) predict_kind(calibration, request, kind, servers, predictions);
  }
  for (Prediction& p : predictions) {
    p.io = request.scenario.io;
    p.read = request.scenario.read;
  }
  add_intervals(calibration, request, predictions);
  return predictions;
}

}  // namespace psbench::perf
