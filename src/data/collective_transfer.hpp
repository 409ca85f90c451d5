#pragma once

#include <hdf5.h>

#include <string>

#include "data/hdf5_handle.hpp"
#include "data/load_modes.hpp"

namespace psbench::data {

/// A dataset transfer property list asking for collective MPI-IO, which records after each read what
/// HDF5 actually did (H5Pget_mpio_actual_io_mode), since HDF5 silently falls back to independent I/O.
class CollectiveTransfer {
 public:
  /// Creates the transfer list with H5FD_MPIO_COLLECTIVE, carried out by MPI-IO as mpi_io says.
  explicit CollectiveTransfer(MpiIoMode mpi_io);
  /// The property list to pass to H5Dread.
  [[nodiscard]] hid_t get() const { return list_.get(); }
  /// Records the outcome of the read just made with this list.
  void record();
  /// True when every recorded read was collective (false before any read).
  [[nodiscard]] bool all_collective() const { return reads_ > 0 && all_collective_; }
  /// What the recorded reads were, e.g. "chunk-collective, independent MPI-IO" or
  /// "independent (cause: datatype conversion)".
  [[nodiscard]] const std::string& description() const { return description_; }

 private:
  PropertyList list_;
  MpiIoMode mpi_io_;
  int reads_ = 0;
  bool all_collective_ = true;
  std::string description_;
};

}  // namespace psbench::data
