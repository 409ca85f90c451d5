// libFuzzer target: the HDF5 layout validator (data/inspect check_layout, which opens both splits as the
// loader does) on any bytes. A bad file must end in UserError or SystemError, never a crash or a hang.
#include <cstddef>
#include <cstdint>

#include "common/error.hpp"
#include "data/inspect.hpp"
#include "fuzz_input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const psbench::fuzz::FuzzInputFile file(data, size, ".h5");
  try {
    (void)psbench::data::check_layout(file.path());
  } catch (const psbench::UserError&) {
  } catch (const psbench::SystemError&) {
  }
  return 0;
}
