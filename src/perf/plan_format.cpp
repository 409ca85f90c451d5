#include "perf/plan_format.hpp"

#include <cmath>
#include <cstdio>

#include "perf/plan_grid.hpp"
#include "perf/prediction_format.hpp"

namespace psbench::perf {
namespace {

using Ordered = nlohmann::ordered_json;

Ordered choice_json(const PlanChoice& c) {
  const Diagnosis& d = c.diagnosis;
  return Ordered{{"workers", c.mva.workers},
                 {"servers", c.mva.servers},
                 {"ranks_per_node", c.ranks_per_node},
                 {"nodes", c.nodes},
                 {"io", io_mode_name(c.io)},
                 {"mva", prediction_json(c.mva)},
                 {"sim", c.sim ? prediction_json(*c.sim) : Ordered(nullptr)},
                 {"sim_note", c.sim_note},
                 {"bottleneck",
                  {{"resource", bottleneck_name(d.bottleneck)},
                   {"phase_share", d.phase_share},
                   {"server_cpu", d.server_cpu},
                   {"server_link", d.server_link},
                   {"cores", d.cores},
                   {"beyond_knee", d.beyond_knee},
                   {"words", bottleneck_words(d, c.mva, c.io)}}}};
}

std::string choice_line(const char* label, const PlanChoice& c) {
  const Prediction& p = c.mva;
  char knee[16] = "-";
  if (p.knee_workers) std::snprintf(knee, sizeof knee, "%.1f", *p.knee_workers);
  char sim[16] = "-";
  if (c.sim) std::snprintf(sim, sizeof sim, "%.3f", c.sim->total_s);
  char line[320];
  std::snprintf(line, sizeof line, "%-10s %7d %8d %5d %6d %-10s %9.3f %17s %9.3f %9.3f %11.1f %5.2f %7s %9s  %s\n",
                label, p.servers, p.workers, c.ranks_per_node, c.nodes, io_mode_name(c.io), p.total_s,
                interval_text(p).c_str(), p.init_io_s, p.compute_s, p.samples_per_s, p.server_utilization, knee, sim,
                bottleneck_name(c.diagnosis.bottleneck));
  return line;
}

// "16 servers and 1000 workers, 32 ranks per node on 32 nodes, parallel I/O"
std::string choice_words(const PlanChoice& c) {
  std::string words = std::to_string(c.mva.servers) + (c.mva.servers == 1 ? " server and " : " servers and ") +
                      std::to_string(c.mva.workers) + (c.mva.workers == 1 ? " worker, " : " workers, ");
  if (c.ranks_per_node > 0) words += std::to_string(c.ranks_per_node) + " ranks per node on ";
  words += std::to_string(c.nodes) + (c.nodes == 1 ? " node, " : " nodes, ") + io_mode_name(c.io) + " I/O";
  char time[96];
  std::snprintf(time, sizeof time, ": %.3f s", c.mva.total_s);
  words += time;
  if (c.mva.interval) {
    std::snprintf(time, sizeof time, " (80 %% interval %.3f-%.3f s)", c.mva.interval->total_s.low,
                  c.mva.interval->total_s.high);
    words += time;
  }
  if (c.sim) {
    std::snprintf(time, sizeof time, " (sim %.3f s)", c.sim->total_s);
    words += time;
  }
  return words;
}

// "S=16 W=16 parallel"
std::string short_name(const PlanChoice& c) {
  return "S=" + std::to_string(c.mva.servers) + " W=" + std::to_string(c.mva.workers) + " " + io_mode_name(c.io);
}

// A line where the recommendation's simulation differs from mva by more than kPlanSimDisagreement, naming the
// fastest simulated configuration; empty otherwise.
std::string sim_disagreement(const Plan& plan) {
  const PlanChoice& best = plan.choices.front();
  if (!best.sim || std::abs(best.sim->total_s - best.mva.total_s) <= kPlanSimDisagreement * best.mva.total_s) return "";
  const PlanChoice* fastest = &best;
  for (const PlanChoice& c : plan.choices)
    if (c.sim && c.sim->total_s < fastest->sim->total_s) fastest = &c;
  char line[320];
  std::snprintf(line, sizeof line,
                "The simulation disagrees: %.3f s against mva's %.3f s (it routes every message over the nodes' "
                "own links and cores, which mva pools); of those simulated, %s is fastest at %.3f s.\n",
                best.sim->total_s, best.mva.total_s, short_name(*fastest).c_str(), fastest->sim->total_s);
  return line;
}

}  // namespace

std::string format_plan_json(const PlanRequest& request, const Plan& plan) {
  Ordered inputs = scenario_json(request.scenario);
  inputs.erase("io");
  inputs.erase("read");
  inputs.erase("ranks_per_node");
  inputs["nodes"] = request.nodes;
  inputs["confirm"] = request.confirm;
  inputs["sim_max_pushes"] = request.sim_max_pushes;
  Ordered runners_up = Ordered::array();
  for (std::size_t i = 1; i < plan.choices.size(); ++i) runners_up.push_back(choice_json(plan.choices[i]));
  Ordered surface = Ordered::array();
  for (const PlanChoice& c : plan.surface)
    surface.push_back(Ordered{{"workers", c.mva.workers},
                              {"servers", c.mva.servers},
                              {"nodes", c.nodes},
                              {"total_s", c.mva.total_s},
                              {"samples_per_s", c.mva.samples_per_s}});
  return Ordered{{"format", kPlanJsonFormat},        {"inputs", inputs},
                 {"searched", plan.searched},        {"max_servers", kPlanMaxServers},
                 {"tolerance", kPlanTolerance},      {"recommendation", choice_json(plan.choices.front())},
                 {"runners_up", runners_up},         {"fastest", choice_json(plan.fastest)},
                 {"study", choice_json(plan.study)}, {"surface", surface}}
             .dump(2) +
         "\n";
}

std::string format_plan_table(const PlanRequest& request, const Plan& plan) {
  const Scenario& s = request.scenario;
  std::string out = "plan for " + s.model + ", batch " + std::to_string(s.batch) + ", " + std::to_string(s.samples) +
                    " samples x " + std::to_string(s.epochs) + " epochs on " + s.platform.text + " within " +
                    std::to_string(request.nodes) + (request.nodes == 1 ? " node" : " nodes") + ": " +
                    std::to_string(plan.searched) + " configurations predicted by mva\n\n";
  char line[320];
  std::snprintf(line, sizeof line, "%-10s %7s %8s %5s %6s %-10s %9s %17s %9s %9s %11s %5s %7s %9s  %s\n", "choice",
                "servers", "workers", "r", "nodes", "io", "total_s", "total_80%", "init_io_s", "compute_s", "samples/s",
                "util", "knee", "sim_s", "bottleneck");
  out += line;
  for (std::size_t i = 0; i < plan.choices.size(); ++i)
    out += choice_line(i == 0 ? "best" : "runner-up", plan.choices[i]);
  out += choice_line("fastest", plan.fastest);
  out += choice_line("study", plan.study);
  const PlanChoice& best = plan.choices.front();
  out += "\nRecommended: " + choice_words(best) + ".\n";
  out += "Its bottleneck: " + bottleneck_words(best.diagnosis, best.mva, best.io) + ".\n";
  out += "The study's set-up (one server, sequential I/O) at its best: " + choice_words(plan.study) + ".\n";
  out += "Its bottleneck: " + bottleneck_words(plan.study.diagnosis, plan.study.mva, plan.study.io) + ".\n";
  out += sim_disagreement(plan);
  for (const PlanChoice& c : plan.choices) {
    if (!c.sim_note.empty()) out += short_name(c) + ": " + c.sim_note + "\n";
  }
  return out;
}

}  // namespace psbench::perf
