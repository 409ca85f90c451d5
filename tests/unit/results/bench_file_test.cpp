#include "results/bench_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>

#include "results/file_io.hpp"

namespace psbench::results {
namespace {

// What Google Benchmark 1.7.1 writes with --benchmark_out_format=json, plus psbench's custom context.
constexpr const char* kGoogleBenchmarkText = R"({
  "context": {
    "date": "2026-12-01T08:00:00+00:00", "host_name": "node-a", "executable": "./bench_push_pull",
    "num_cpus": 2, "mhz_per_cpu": 2450, "cpu_scaling_enabled": false,
    "caches": [{"type": "Data", "level": 1, "size": 32768, "num_sharing": 1}],
    "load_avg": [1.5, 1.0, 0.5], "library_build_type": "release",
    "psbench_host": "node-a", "psbench_cores": "2", "psbench_cpu": "AMD EPYC 7B13",
    "psbench_onednn_isa": "avx2",
    "psbench_libraries": "{\"psbench\":\"0.1.0\",\"mpi\":\"Open MPI v4.1.4\",\"hdf5\":\"1.10.8\",\"onednn\":\"2.6.0\"}",
    "psbench_git_commit": "cb17090"
  },
  "benchmarks": [
    {"name": "BM_PushPull/path:0/101800", "family_index": 0, "per_family_instance_index": 0,
     "run_name": "BM_PushPull/path:0/101800", "run_type": "iteration", "repetitions": 1, "repetition_index": 0,
     "threads": 1, "iterations": 2000, "real_time": 95.5, "cpu_time": 90.25, "time_unit": "us",
     "bytes_per_second": 2.13e9, "vs_limit": 0.8},
    {"name": "BM_PushPull/path:0/101800_mean", "family_index": 0, "per_family_instance_index": 0,
     "run_name": "BM_PushPull/path:0/101800", "run_type": "aggregate", "repetitions": 3, "threads": 1,
     "aggregate_name": "mean", "aggregate_unit": "time", "iterations": 3, "real_time": 96.0, "cpu_time": 91.0,
     "time_unit": "us", "bytes_per_second": 2.12e9, "vs_limit": 0.79},
    {"name": "BM_LocalUpdate/101800", "run_type": "iteration", "iterations": 10, "real_time": 1.0,
     "cpu_time": 1.0, "time_unit": "ms", "error_occurred": true, "error_message": "needs 2 ranks"}
  ]
})";

SaturationFile sample_saturation() {
  SaturationFile file;
  file.context = {"node-a", 2, "AMD EPYC 7B13", "avx2", {{"psbench", "0.1.0"}}, "cb17090", "2026-12-01T08:00:00Z",
                  33554432};
  file.note = "compute is emulated: each client sleeps think_us in place of forward+backward";
  SaturationRun run{1, 535818, 2000.0, 250.0, 0.1, 9, 9.0, {}, {}, 180.0};
  run.points = {SaturationPoint{1, 400.0, 0.1, 260.0, 0.1}, SaturationPoint{2, 790.0, 0.2, 262.0, 0.21}};
  run.points[1].service_us = 251.0;  // each point's own D: an optional key of format 1
  run.points[1].server_cpu_us = 240.0;
  run.window_huge_pages = 0.97;    // shared path only: optional
  run.server_cpu_busy_us = 410.0;  // optional
  file.runs = {run};
  return file;
}

std::string bench_error(const std::string& text) {
  try {
    (void)parse_bench(text, "bench.json");
  } catch (const UserError& error) {
    return error.what();
  }
  return "no error";
}

Json google_json() { return Json::parse(kGoogleBenchmarkText); }

TEST(BenchSchema, ReadsGoogleBenchmarkJson) {
  const auto file = std::get<GoogleBenchmarkFile>(parse_bench(kGoogleBenchmarkText, "bench.json"));
  EXPECT_EQ(file.context.num_cpus, 2);
  EXPECT_EQ(file.context.psbench.cores, 2);
  EXPECT_EQ(file.context.psbench.onednn_isa, "avx2");
  EXPECT_EQ(file.context.psbench.libraries.at("onednn"), "2.6.0");
  ASSERT_EQ(file.benchmarks.size(), 3U);
  const BenchmarkRun& run = file.benchmarks[0];
  EXPECT_EQ(run.iterations, 2000);
  EXPECT_EQ(run.run_type, "iteration");
  EXPECT_TRUE(run.aggregate_name.empty());
  EXPECT_EQ(run.counters, (std::map<std::string, double>{{"bytes_per_second", 2.13e9}, {"vs_limit", 0.8}}));
  EXPECT_DOUBLE_EQ(real_time_seconds(run), 95.5e-6);
  EXPECT_EQ(file.benchmarks[1].aggregate_name, "mean");
  EXPECT_EQ(file.benchmarks[1].run_name, "BM_PushPull/path:0/101800");
  EXPECT_EQ(file.benchmarks[2].error_message, "needs 2 ranks");
  EXPECT_EQ(file.benchmarks[2].run_name, "BM_LocalUpdate/101800");
  EXPECT_DOUBLE_EQ(real_time_seconds(file.benchmarks[2]), 1e-3);
}

TEST(BenchSchema, GoogleBenchmarkRoundTrip) {
  const auto file = std::get<GoogleBenchmarkFile>(parse_bench(kGoogleBenchmarkText, "bench.json"));
  Json written;
  to_json(written, file);
  EXPECT_EQ(std::get<GoogleBenchmarkFile>(parse_bench(written.dump(), "again.json")), file);
  EXPECT_EQ(written["benchmarks"][0]["vs_limit"], 0.8);  // counters go back to top-level keys
  EXPECT_EQ(written["context"]["psbench_cores"], "2");
}

TEST(BenchSchema, GoogleBenchmarkErrorsNameTheKey) {
  Json document = google_json();
  document["context"].erase("psbench_onednn_isa");
  EXPECT_EQ(bench_error(document.dump()), "bench.json: key 'context.psbench_onednn_isa' is missing");
  document = google_json();
  document["context"]["psbench_cores"] = "two";
  EXPECT_EQ(bench_error(document.dump()),
            "bench.json: key 'context.psbench_cores' must be a whole number as text, found 'two'");
  document = google_json();
  document["context"]["psbench_libraries"] = "{\"mpi\": 4}";
  EXPECT_EQ(bench_error(document.dump()),
            "bench.json: key 'context.psbench_libraries.mpi' must be a string, found the integer 4");
  document = google_json();
  document["benchmarks"][1]["real_time"] = nullptr;
  EXPECT_EQ(bench_error(document.dump()), "bench.json: key 'benchmarks[1].real_time' must be a number, found null");
  document = google_json();
  document["benchmarks"][0]["time_unit"] = "fortnights";
  EXPECT_EQ(bench_error(document.dump()),
            "bench.json: key 'benchmarks[0].time_unit' must be ns, us, ms or s, found 'fortnights'");
  document = google_json();
  document.erase("benchmarks");
  EXPECT_EQ(bench_error(document.dump()), "bench.json: key 'benchmarks' is missing");
}

TEST(BenchSchema, NonFiniteCounterIsNeverWritten) {
  auto file = std::get<GoogleBenchmarkFile>(parse_bench(kGoogleBenchmarkText, "bench.json"));
  file.benchmarks[1].counters["FLOP/s"] = std::numeric_limits<double>::quiet_NaN();
  Json written;
  try {
    to_json(written, file);
    ADD_FAILURE() << "a NaN counter was written";
  } catch (const SchemaError& error) {
    EXPECT_EQ(std::string(error.what()), "key 'benchmarks[1].FLOP/s' is NaN: a non-finite number is never written");
  }
}

TEST(BenchSchema, SaturationRoundTrip) {
  const SaturationFile file = sample_saturation();
  Json written;
  to_json(written, file);
  EXPECT_EQ(written["benchmark"], "server_saturation");
  EXPECT_EQ(written["format"], 1);
  EXPECT_EQ(std::get<SaturationFile>(parse_bench(written.dump(), "server_saturation.json")), file);
}

TEST(BenchSchema, SaturationErrorsNameTheKey) {
  Json written;
  to_json(written, sample_saturation());
  Json document = written;
  document["format"] = 2;
  EXPECT_EQ(bench_error(document.dump()),
            "bench.json: key 'format' is 2, but this psbench reads server_saturation files of format 1 only");
  document = written;
  document["benchmark"] = "push_pull";
  EXPECT_EQ(bench_error(document.dump()), "bench.json: key 'benchmark' must be 'server_saturation', found 'push_pull'");
  document = written;
  document["runs"][0]["points"][1].erase("response_us");
  EXPECT_EQ(bench_error(document.dump()), "bench.json: key 'runs[0].points[1].response_us' is missing");
  document = written;
  document["runs"][0]["knee_clients"] = 9.5;
  EXPECT_EQ(bench_error(document.dump()),
            "bench.json: key 'runs[0].knee_clients' must be an integer, found the number 9.5");
}

TEST(BenchSchema, KindSpecificReadersRefuseTheOtherKind) {
  const auto path = std::filesystem::temp_directory_path() / "psbench_bench_kind.json";
  std::ofstream(path) << kGoogleBenchmarkText;
  EXPECT_EQ(read_google_benchmark_file(path.string()).benchmarks.size(), 3U);
  try {
    (void)read_saturation_file(path.string());
    ADD_FAILURE() << "a Google Benchmark file was read as server_saturation";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()), path.string() + ": is a Google Benchmark file, not a server_saturation file");
  }
  Json saturation;
  to_json(saturation, sample_saturation());
  std::ofstream(path) << saturation.dump();
  EXPECT_EQ(read_saturation_file(path.string()), sample_saturation());
  EXPECT_THROW((void)read_google_benchmark_file(path.string()), UserError);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace psbench::results
