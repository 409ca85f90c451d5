// libFuzzer target: the results-file reader (results/file_io parse_results) on any text. A bad document
// must end in UserError (SchemaError names the key); a document it accepts must write back (results_text)
// to text that parses to the same value.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/error.hpp"
#include "results/file_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  psbench::results::ResultsFile file;
  try {
    file = psbench::results::parse_results(text, "fuzz input");
  } catch (const psbench::UserError&) {
    return 0;
  }
  const psbench::results::ResultsFile again =
      psbench::results::parse_results(psbench::results::results_text(file), "written back");
  if (!(again == file)) __builtin_trap();
  return 0;
}
