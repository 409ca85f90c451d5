#include "results/binary_codec.hpp"

namespace psbench::results {

std::string encode_rank_entry(const RankEntry& entry) {
  BinaryWriter writer;
  writer.put(entry);
  return writer.bytes();
}

RankEntry decode_rank_entry(std::string_view bytes) {
  BinaryReader reader(bytes);
  RankEntry entry;
  reader.get(entry);
  if (!reader.done()) throw SystemError("corrupt binary record: bytes left after a per_rank entry");
  return entry;
}

}  // namespace psbench::results
