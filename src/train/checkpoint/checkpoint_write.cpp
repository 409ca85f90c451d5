#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "common/error.hpp"
#include "data/hdf5_attribute.hpp"
#include "data/hdf5_handle.hpp"
#include "mpi/call.hpp"
#include "train/checkpoint/checkpoint_file.hpp"
#include "train/checkpoint/checkpoint_layout.hpp"

namespace psbench::train {
namespace {

namespace layout = checkpoint_layout;
using data::check_id;
using data::check_status;

void write_header(hid_t file, const CheckpointHeader& header) {
  const std::int32_t format = header.format;
  data::write_ints_attribute(file, layout::kFormatAttribute, std::span(&format, 1), true);
  data::write_string_attribute(file, "model", header.model);
  data::write_ints_attribute(file, "input_shape", header.input, false);
  const std::array<std::int32_t, 4> counts{header.classes, header.batch, header.workers, header.servers};
  const std::array<const char*, 4> names{"classes", "batch", "workers", "servers"};
  for (std::size_t i = 0; i < counts.size(); ++i)
    data::write_ints_attribute(file, names[i], std::span(&counts[i], 1), true);
  data::write_string_attribute(file, "mode", header.mode);
  layout::write_u64_attribute(file, "training_samples", header.training_samples);
  layout::write_u64_attribute(file, "parameters", header.parameters);
  layout::write_u64_attribute(file, "seed", header.seed);
  layout::write_u64_attribute(file, "epoch", header.epoch);
  layout::write_u64_attribute(file, "step", header.step);
  data::write_doubles_attribute(file, "learning_rate", std::span(&header.learning_rate, 1));
  data::write_doubles_attribute(file, "momentum", std::span(&header.momentum, 1));
}

// Collective: a 1-D dataset of size values, of which this writer writes count values from begin (count may
// be 0; writers that write nothing still take part).
void write_vector(hid_t file, const char* name, hid_t file_type, hid_t memory_type, std::uint64_t size,
                  std::uint64_t begin, std::uint64_t count, const void* values) {
  const hsize_t dims[1] = {size};
  const data::Dataspace file_space(check_id(H5Screate_simple(1, dims, nullptr), "H5Screate_simple"));
  const data::Dataset dataset(
      check_id(H5Dcreate2(file, name, file_type, file_space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
               std::string("creating dataset '") + name + "'"));
  const hsize_t start[1] = {begin};
  const hsize_t length[1] = {count};
  if (count == 0) {
    check_status(H5Sselect_none(file_space.get()), "H5Sselect_none");
  } else {
    check_status(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, length, nullptr),
                 "H5Sselect_hyperslab");
  }
  const hsize_t memory_dims[1] = {count};
  const data::Dataspace memory_space(check_id(H5Screate_simple(1, memory_dims, nullptr), "H5Screate_simple"));
  if (count == 0) check_status(H5Sselect_none(memory_space.get()), "H5Sselect_none");
  const data::PropertyList transfer(check_id(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate"));
  check_status(H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");
  check_status(H5Dwrite(dataset.get(), memory_type, memory_space.get(), file_space.get(), transfer.get(), values),
               std::string("writing dataset '") + name + "'");
}

void write_datasets(hid_t file, const CheckpointHeader& header, const CheckpointSlice& slice, int index, int writers) {
  const std::uint64_t count = slice.parameters.size();
  std::vector<float> zeros;
  const float* velocity = slice.velocity.data();
  if (slice.velocity.empty()) {
    zeros.assign(count, 0.0F);
    velocity = zeros.data();
  }
  const auto p = header.parameters;
  write_vector(file, layout::kParameters, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, p, slice.begin, count,
               slice.parameters.data());
  write_vector(file, layout::kVelocity, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, p, slice.begin, count, velocity);
  const auto at = static_cast<std::uint64_t>(index);
  const auto s = static_cast<std::uint64_t>(writers);
  write_vector(file, layout::kServerVersions, H5T_STD_U64LE, H5T_NATIVE_UINT64, s, at, 1, &slice.version);
  write_vector(file, layout::kServerUpdates, H5T_STD_U64LE, H5T_NATIVE_UINT64, s, at, 1, &slice.updates);
  const auto w = static_cast<std::uint64_t>(header.workers);
  std::vector<std::uint32_t> epochs;
  std::vector<std::uint64_t> steps;
  if (index == 0) {
    for (const WorkerPosition& position : slice.positions) {
      epochs.push_back(position.epoch);
      steps.push_back(position.step);
    }
  }
  const std::uint64_t own = index == 0 ? w : 0;
  write_vector(file, layout::kWorkerEpochs, H5T_STD_U32LE, H5T_NATIVE_UINT32, w, 0, own, epochs.data());
  write_vector(file, layout::kWorkerSteps, H5T_STD_U64LE, H5T_NATIVE_UINT64, w, 0, own, steps.data());
}

// Writer 0's epoch and step go into the file (each server counts its own, which may lag by a few pushes).
CheckpointHeader agreed_header(MPI_Comm writers, const CheckpointHeader& header) {
  CheckpointHeader agreed = header;
  std::array<std::uint64_t, 2> counters{header.epoch, header.step};
  PSBENCH_MPI_CALL(MPI_Bcast(counters.data(), 2, MPI_UINT64_T, 0, writers));
  agreed.epoch = static_cast<std::uint32_t>(counters[0]);
  agreed.step = counters[1];
  return agreed;
}

// The temporary file is complete once every writer has closed it: make it durable, then rename it over path
// (rename within one folder is atomic, so path is the old checkpoint or the new one, never a mix).
void publish(const std::string& temporary, const std::string& path) {
  const int descriptor = ::open(temporary.c_str(), O_RDONLY);
  if (descriptor < 0 || ::fsync(descriptor) != 0) {
    const std::string reason = std::strerror(errno);
    if (descriptor >= 0) ::close(descriptor);
    throw SystemError("syncing checkpoint '" + temporary + "' failed: " + reason);
  }
  ::close(descriptor);
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temporary.c_str());
    throw SystemError("renaming '" + temporary + "' to '" + path + "' failed: " + reason);
  }
  const std::filesystem::path folder = std::filesystem::absolute(path).parent_path();
  const int directory = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (directory >= 0) {  // the rename itself becomes durable with its folder
    ::fsync(directory);
    ::close(directory);
  }
}

}  // namespace

std::string checkpoint_temporary_path(const std::string& path) { return path + ".tmp"; }

bool write_checkpoint(MPI_Comm writers, const std::string& path, const CheckpointHeader& header,
                      const CheckpointSlice& slice, bool valid) {
  int all_valid = valid ? 1 : 0;
  PSBENCH_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, &all_valid, 1, MPI_INT, MPI_MIN, writers));
  if (all_valid == 0) return false;
  int index = 0;
  int size = 1;
  PSBENCH_MPI_CALL(MPI_Comm_rank(writers, &index));
  PSBENCH_MPI_CALL(MPI_Comm_size(writers, &size));
  const CheckpointHeader agreed = agreed_header(writers, header);
  const std::string temporary = checkpoint_temporary_path(path);
  data::silence_hdf5_errors();
  {
    const data::PropertyList access(check_id(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate"));
    check_status(H5Pset_fapl_mpio(access.get(), writers, MPI_INFO_NULL), "H5Pset_fapl_mpio");
    data::File file(check_id(H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()),
                             "creating checkpoint '" + temporary + "'"));
    write_header(file.get(), agreed);
    write_datasets(file.get(), agreed, slice, index, size);
    check_status(file.close(), "closing checkpoint '" + temporary + "'");
  }
  PSBENCH_MPI_CALL(MPI_Barrier(writers));
  if (index == 0) publish(temporary, path);  // the next checkpoint's H5Fcreate is collective: it waits for this
  return true;
}

}  // namespace psbench::train
