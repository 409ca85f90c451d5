// libFuzzer target: the IDX parser (data/idx_file) on any bytes, gzip-compressed or plain. The first byte
// picks the rank it expects (1 for labels, 3 for images); a bad file must end in UserError, nothing else.
#include <cstddef>
#include <cstdint>

#include "common/error.hpp"
#include "data/idx_file.hpp"
#include "fuzz_input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int rank = (data[0] & 1) != 0 ? 3 : 1;
  const psbench::fuzz::FuzzInputFile file(data + 1, size - 1, ".idx");
  try {
    const psbench::data::IdxArray array = psbench::data::read_idx(file.path(), rank);
    std::uint64_t items = 1;
    for (const std::uint32_t dim : array.dims) items *= dim;
    if (array.dims.size() != static_cast<std::size_t>(rank) || items != array.items.size()) __builtin_trap();
  } catch (const psbench::UserError&) {
  }
  return 0;
}
