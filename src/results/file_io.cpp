#include "results/file_io.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>
#include <variant>

#include "common/atomic_file.hpp"
#include "common/error.hpp"

namespace psbench::results {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot read '" + path + "': " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw UserError("cannot read '" + path + "': " + std::strerror(errno));
  return text.str();
}

Json parse_json(const std::string& text, const std::string& source) {
  try {
    return Json::parse(text);
  } catch (const Json::exception& error) {  // parse_error, or out_of_range for a number such as 1e99999
    // nlohmann's message starts with "[json.exception.parse_error.101] "; keep what follows it.
    std::string what = error.what();
    const auto bracket = what.find("] ");
    if (bracket != std::string::npos) what = what.substr(bracket + 2);
    throw UserError(source + ": not valid JSON: " + what);
  }
}

template <class T>
T decode(const Json& document, const std::string& source) {
  T value;
  try {
    from_json(document, value);
  } catch (SchemaError& error) {
    error.set_source(source);
    throw;
  }
  return value;
}

}  // namespace

ResultsFile parse_results(const std::string& text, const std::string& source) {
  return decode<ResultsFile>(parse_json(text, source), source);
}

ResultsFile read_results_file(const std::string& path) { return parse_results(read_text(path), path); }

BenchFile parse_bench(const std::string& text, const std::string& source) {
  const Json document = parse_json(text, source);
  if (document.is_object() && document.contains("benchmark")) return decode<SaturationFile>(document, source);
  return decode<GoogleBenchmarkFile>(document, source);
}

BenchFile read_bench_file(const std::string& path) { return parse_bench(read_text(path), path); }

bool is_trainer_limit_file(const std::string& path) {
  const Json document = parse_json(read_text(path), path);
  return document.is_object() && document.contains("benchmark") && document.at("benchmark") == "trainer_limit";
}

GoogleBenchmarkFile read_google_benchmark_file(const std::string& path) {
  BenchFile file = read_bench_file(path);
  if (auto* google = std::get_if<GoogleBenchmarkFile>(&file)) return std::move(*google);
  throw UserError(path + ": is a server_saturation file, not a Google Benchmark file");
}

SaturationFile read_saturation_file(const std::string& path) {
  BenchFile file = read_bench_file(path);
  if (auto* saturation = std::get_if<SaturationFile>(&file)) return std::move(*saturation);
  throw UserError(path + ": is a Google Benchmark file, not a server_saturation file");
}

std::string results_text(const ResultsFile& file) {
  Json document;
  try {
    to_json(document, file);
  } catch (SchemaError& error) {
    error.set_source("results file");
    throw;
  }
  return document.dump(2) + "\n";
}

void write_results_file(const std::string& path, const ResultsFile& file) {
  try {
    write_file_atomically(path, results_text(file));
  } catch (SchemaError& error) {
    error.set_source(path);
    throw;
  }
}

}  // namespace psbench::results
