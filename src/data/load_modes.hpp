#pragma once

#include <string>
#include <string_view>

#include "data/loader.hpp"

namespace psbench::data {

/// How the MPI-IO layer carries out parallel mode's collective HDF5 reads. Independent: every reader reads
/// its own bytes straight into its buffer (HDF5's H5FD_MPIO_INDIVIDUAL_IO), right for disjoint contiguous
/// partitions. Two-phase: MPI-IO collective buffering, where aggregator ranks read and redistribute.
enum class MpiIoMode { kIndependent, kTwoPhase };

/// "independent" or "two-phase".
std::string_view mpi_io_name(MpiIoMode mode);
/// Parses --mpi-io: "independent" or "two-phase"; throws UserError naming the flag otherwise.
MpiIoMode parse_mpi_io_mode(const std::string& text);

/// "sequential" or "parallel".
std::string_view io_mode_name(IoMode mode);
/// "whole" or "partition".
std::string_view read_mode_name(ReadMode mode);
/// "sequential+whole", "parallel+partition", ...: the name LoadTiming::mode carries.
std::string mode_name(IoMode io, ReadMode read);
/// Parses --io: "sequential" or "parallel"; throws UserError naming the flag otherwise.
IoMode parse_io_mode(const std::string& text);
/// Parses --read: "whole" or "partition"; throws UserError naming the flag otherwise.
ReadMode parse_read_mode(const std::string& text);
/// The read mode used when --read is not given: whole for sequential (as CNTK did), partition for parallel.
ReadMode default_read_mode(IoMode io);

}  // namespace psbench::data
