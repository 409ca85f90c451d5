// perf::SharedCpu against finish times computed by hand and against SimGrid's own CPU model. SimGrid 3.32's
// Engine is one per process, so every case runs on hosts of its own in one simulation (one gtest test).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "perf/sim/sim_platform.hpp"
#include "perf/sim/sim_shared_cpu.hpp"

namespace psbench::perf {
namespace {
namespace sg4 = simgrid::s4u;

struct Job {
  double start_s;  // when it asks for the CPU
  double work_s;   // core-seconds it needs
  double weight;   // share weight (SimGrid's priority)
};

struct Case {
  std::string name;
  int cores;
  std::vector<Job> jobs;
  std::vector<double> expected_finish_s;  // by hand
};

std::vector<Case> cases() {
  return {
      // Three equal jobs on two cores: each gets 2/3 of a core and all end at 1 / (2/3).
      {"equal", 2, {{0, 1, 1}, {0, 1, 1}, {0, 1, 1}}, {1.5, 1.5, 1.5}},
      // A heavy job is capped at one core; the other three share the second core (1/3 each) until it ends at
      // 0.5 s, having done 1/6; their 5/6 left at 2/3 of a core take 1.25 s more.
      {"weighted", 2, {{0, 0.5, 1000}, {0, 1, 1}, {0, 1, 1}, {0, 1, 1}}, {0.5, 1.75, 1.75, 1.75}},
      // One core: the first job runs alone for 1 s, then both at 1/2; the second's 0.5 ends at 2, the first's
      // last 0.5 alone at 2.5.
      {"late", 1, {{0, 2, 1}, {1, 0.5, 1}}, {2.5, 2.0}},
      // Weights 3 and 1 on one core (no cap binds): 3/4 and 1/4 until the first ends at 4/3, the second has
      // done 1/3 and runs its 2/3 alone.
      {"ratio", 1, {{0, 1, 3}, {0, 1, 1}}, {4.0 / 3.0, 2.0}},
      // Fewer jobs than cores: each runs at one core.
      {"spare", 4, {{0, 1, 1}, {0.25, 1, 5}}, {1.0, 1.25}},
  };
}

// Runs every case twice, on a SharedCpu host and with SimGrid's execute on a twin host; returns the finish
// times, [case][0 shared | 1 simgrid][job].
std::vector<std::vector<std::vector<double>>> run_cases(const std::vector<Case>& all) {
  int argc = 3;
  const char* argv[] = {"shared-cpu-test", "--cfg=contexts/factory:raw", "--log=root.thresh:critical", nullptr};
  sg4::Engine engine(&argc, const_cast<char**>(argv));
  auto* zone = sg4::create_full_zone("test");
  std::vector<std::vector<std::vector<double>>> finish(all.size());
  std::vector<std::unique_ptr<SharedCpu>> cpus;
  for (std::size_t c = 0; c < all.size(); ++c) {
    finish[c].assign(2, std::vector<double>(all[c].jobs.size(), -1.0));
    sg4::Host* shared = zone->create_host("shared-" + all[c].name, kSimFlopsPerS)->set_core_count(all[c].cores)->seal();
    sg4::Host* twin = zone->create_host("simgrid-" + all[c].name, kSimFlopsPerS)->set_core_count(all[c].cores)->seal();
    cpus.push_back(std::make_unique<SharedCpu>(shared, all[c].cores));
    for (std::size_t j = 0; j < all[c].jobs.size(); ++j) {
      const Job job = all[c].jobs[j];
      SharedCpu* cpu = cpus.back().get();
      double* out = &finish[c][0][j];
      sg4::Actor::create("s", shared, [cpu, job, out] {
        sg4::this_actor::sleep_for(job.start_s);
        cpu->execute(job.work_s, job.weight);
        *out = sg4::Engine::get_clock();
      });
      double* twin_out = &finish[c][1][j];
      sg4::Actor::create("g", twin, [job, twin_out] {
        sg4::this_actor::sleep_for(job.start_s);
        sg4::this_actor::execute(job.work_s * kSimFlopsPerS, job.weight);
        *twin_out = sg4::Engine::get_clock();
      });
    }
  }
  zone->seal();
  engine.run();
  return finish;
}

TEST(SharedCpu, SharesCoresAsSimGridDoes) {
  const std::vector<Case> all = cases();
  const auto finish = run_cases(all);
  for (std::size_t c = 0; c < all.size(); ++c) {
    for (std::size_t j = 0; j < all[c].jobs.size(); ++j) {
      EXPECT_NEAR(finish[c][0][j], all[c].expected_finish_s[j], 1e-9) << all[c].name << " job " << j << " (SharedCpu)";
      EXPECT_NEAR(finish[c][1][j], all[c].expected_finish_s[j], 1e-6) << all[c].name << " job " << j << " (SimGrid)";
    }
  }
}

}  // namespace
}  // namespace psbench::perf
