#include "data/load_modes.hpp"

#include "common/error.hpp"

namespace psbench::data {

std::string_view mpi_io_name(MpiIoMode mode) { return mode == MpiIoMode::kIndependent ? "independent" : "two-phase"; }

MpiIoMode parse_mpi_io_mode(const std::string& text) {
  if (text == "independent") return MpiIoMode::kIndependent;
  if (text == "two-phase") return MpiIoMode::kTwoPhase;
  throw UserError("--mpi-io '" + text + "' is not an MPI-IO mode: use independent or two-phase");
}

std::string_view io_mode_name(IoMode mode) { return mode == IoMode::kSequential ? "sequential" : "parallel"; }

std::string_view read_mode_name(ReadMode mode) { return mode == ReadMode::kWhole ? "whole" : "partition"; }

std::string mode_name(IoMode io, ReadMode read) {
  return std::string(io_mode_name(io)) + "+" + std::string(read_mode_name(read));
}

IoMode parse_io_mode(const std::string& text) {
  if (text == "sequential") return IoMode::kSequential;
  if (text == "parallel") return IoMode::kParallel;
  throw UserError("--io '" + text + "' is not an I/O mode: use sequential or parallel");
}

ReadMode parse_read_mode(const std::string& text) {
  if (text == "whole") return ReadMode::kWhole;
  if (text == "partition") return ReadMode::kPartition;
  throw UserError("--read '" + text + "' is not a read mode: use whole or partition");
}

ReadMode default_read_mode(IoMode io) { return io == IoMode::kSequential ? ReadMode::kWhole : ReadMode::kPartition; }

}  // namespace psbench::data
