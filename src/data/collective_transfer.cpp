#include "data/collective_transfer.hpp"

namespace psbench::data {
namespace {

std::string io_mode_name(H5D_mpio_actual_io_mode_t mode) {
  switch (mode) {
    case H5D_MPIO_NO_COLLECTIVE: return "independent";
    case H5D_MPIO_CHUNK_INDEPENDENT: return "chunk-independent";
    case H5D_MPIO_CHUNK_COLLECTIVE: return "chunk-collective";
    case H5D_MPIO_CHUNK_MIXED: return "chunk-mixed";
    case H5D_MPIO_CONTIGUOUS_COLLECTIVE: return "contiguous-collective";
  }
  return "unknown";
}

std::string no_collective_causes(std::uint32_t causes) {
  struct Cause {
    std::uint32_t bit;
    const char* name;
  };
  static constexpr Cause kCauses[] = {
      {H5D_MPIO_SET_INDEPENDENT, "independent transfer requested"},
      {H5D_MPIO_DATATYPE_CONVERSION, "datatype conversion"},
      {H5D_MPIO_DATA_TRANSFORMS, "data transforms"},
      {H5D_MPIO_MPI_OPT_TYPES_ENV_VAR_DISABLED, "MPI derived types disabled"},
      {H5D_MPIO_NOT_SIMPLE_OR_SCALAR_DATASPACES, "dataspace not simple"},
      {H5D_MPIO_NOT_CONTIGUOUS_OR_CHUNKED_DATASET, "layout neither contiguous nor chunked"},
      {H5D_MPIO_PARALLEL_FILTERED_WRITES_DISABLED, "filtered writes disabled"},
      {H5D_MPIO_ERROR_WHILE_CHECKING_COLLECTIVE_POSSIBLE, "error while checking"},
  };
  std::string text;
  for (const auto& cause : kCauses) {
    if ((causes & cause.bit) != 0) text += (text.empty() ? "" : ", ") + std::string(cause.name);
  }
  return text.empty() ? "unknown" : text;
}

}  // namespace

CollectiveTransfer::CollectiveTransfer(MpiIoMode mpi_io)
    : list_(check_id(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate(DATASET_XFER)")), mpi_io_(mpi_io) {
  check_status(H5Pset_dxpl_mpio(list_.get(), H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");
  const H5FD_mpio_collective_opt_t option =
      mpi_io == MpiIoMode::kIndependent ? H5FD_MPIO_INDIVIDUAL_IO : H5FD_MPIO_COLLECTIVE_IO;
  check_status(H5Pset_dxpl_mpio_collective_opt(list_.get(), option), "H5Pset_dxpl_mpio_collective_opt");
}

void CollectiveTransfer::record() {
  H5D_mpio_actual_io_mode_t mode = H5D_MPIO_NO_COLLECTIVE;
  check_status(H5Pget_mpio_actual_io_mode(list_.get(), &mode), "H5Pget_mpio_actual_io_mode");
  const bool collective = mode != H5D_MPIO_NO_COLLECTIVE && mode != H5D_MPIO_CHUNK_INDEPENDENT;
  std::string text = io_mode_name(mode);
  if (collective) {
    text += ", " + std::string(mpi_io_name(mpi_io_)) + " MPI-IO";
  } else {
    std::uint32_t local = 0;
    std::uint32_t global = 0;
    check_status(H5Pget_mpio_no_collective_cause(list_.get(), &local, &global), "H5Pget_mpio_no_collective_cause");
    text += " (cause: " + no_collective_causes(global | local) + ")";
  }
  all_collective_ = all_collective_ && collective;
  ++reads_;
  if (description_.find(text) == std::string::npos) description_ += (description_.empty() ? "" : ", ") + text;
}

}  // namespace psbench::data
