#include <filesystem>
#include <vector>

#include "common/error.hpp"
#include "data/hdf5_attribute.hpp"
#include "data/hdf5_handle.hpp"
#include "train/checkpoint/checkpoint_file.hpp"
#include "train/checkpoint/checkpoint_layout.hpp"

namespace psbench::train {
namespace {

namespace layout = checkpoint_layout;
using data::check_id;
using data::check_status;

[[noreturn]] void refuse(const std::string& path, const std::string& problem) {
  throw UserError("--resume '" + path + "': " + problem);
}

std::int32_t read_int(hid_t file, const char* name) {
  const std::vector<double> values = data::read_doubles_attribute(file, name);
  if (values.size() != 1) throw SystemError(std::string("attribute '") + name + "' is not a scalar");
  return static_cast<std::int32_t>(values[0]);
}

std::string read_text(hid_t file, const char* name) {
  const std::vector<std::string> values = data::read_strings_attribute(file, name);
  if (values.size() != 1) throw SystemError(std::string("attribute '") + name + "' is not a scalar");
  return values[0];
}

double read_double(hid_t file, const char* name) {
  const std::vector<double> values = data::read_doubles_attribute(file, name);
  if (values.size() != 1) throw SystemError(std::string("attribute '") + name + "' is not a scalar");
  return values[0];
}

CheckpointHeader read_header(hid_t file, const std::string& path) {
  CheckpointHeader header;
  header.format = read_int(file, layout::kFormatAttribute);
  if (header.format != kCheckpointFormat) {
    refuse(path, "checkpoint format version " + std::to_string(header.format) + ", but this psbench reads version " +
                     std::to_string(kCheckpointFormat) + " only");
  }
  header.model = read_text(file, "model");
  const std::vector<double> input = data::read_doubles_attribute(file, "input_shape");
  if (input.size() != 3) throw SystemError("attribute 'input_shape' does not hold 3 values");
  for (std::size_t i = 0; i < 3; ++i) header.input[i] = static_cast<std::int32_t>(input[i]);
  header.classes = read_int(file, "classes");
  header.batch = read_int(file, "batch");
  header.workers = read_int(file, "workers");
  header.servers = read_int(file, "servers");
  header.mode = read_text(file, "mode");
  header.training_samples = layout::read_u64_attribute(file, "training_samples", path);
  header.parameters = layout::read_u64_attribute(file, "parameters", path);
  header.seed = layout::read_u64_attribute(file, "seed", path);
  header.epoch = static_cast<std::uint32_t>(layout::read_u64_attribute(file, "epoch", path));
  header.step = layout::read_u64_attribute(file, "step", path);
  header.learning_rate = read_double(file, "learning_rate");
  header.momentum = read_double(file, "momentum");
  return header;
}

template <class T>
std::vector<T> read_vector(hid_t file, const char* name, hid_t memory_type, std::uint64_t expected,
                           const std::string& path) {
  const data::Dataset dataset(
      check_id(H5Dopen2(file, name, H5P_DEFAULT), std::string("opening dataset '") + name + "'"));
  const data::Dataspace space(check_id(H5Dget_space(dataset.get()), "H5Dget_space"));
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (H5Sget_simple_extent_ndims(space.get()) != 1 || count < 0 || static_cast<std::uint64_t>(count) != expected) {
    refuse(path, std::string("dataset '") + name + "' holds " + std::to_string(count) + " values, expected " +
                     std::to_string(expected));
  }
  std::vector<T> values(expected);
  if (expected > 0) {
    check_status(H5Dread(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
                 std::string("reading dataset '") + name + "'");
  }
  return values;
}

Checkpoint read_contents(hid_t file, const std::string& path) {
  Checkpoint checkpoint;
  checkpoint.header = read_header(file, path);
  const CheckpointHeader& header = checkpoint.header;
  if (header.workers < 1 || header.servers < 0) refuse(path, "its worker or server count is not positive");
  const auto entries = static_cast<std::uint64_t>(header.servers > 0 ? header.servers : 1);
  const auto workers = static_cast<std::uint64_t>(header.workers);
  checkpoint.parameters = read_vector<float>(file, layout::kParameters, H5T_NATIVE_FLOAT, header.parameters, path);
  checkpoint.velocity = read_vector<float>(file, layout::kVelocity, H5T_NATIVE_FLOAT, header.parameters, path);
  checkpoint.versions = read_vector<std::uint64_t>(file, layout::kServerVersions, H5T_NATIVE_UINT64, entries, path);
  checkpoint.updates = read_vector<std::uint64_t>(file, layout::kServerUpdates, H5T_NATIVE_UINT64, entries, path);
  const auto epochs = read_vector<std::uint32_t>(file, layout::kWorkerEpochs, H5T_NATIVE_UINT32, workers, path);
  const auto steps = read_vector<std::uint64_t>(file, layout::kWorkerSteps, H5T_NATIVE_UINT64, workers, path);
  for (std::size_t w = 0; w < epochs.size(); ++w) checkpoint.positions.push_back({epochs[w], steps[w]});
  return checkpoint;
}

}  // namespace

Checkpoint read_checkpoint(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::exists(path, error)) refuse(path, "no such file");
  if (fs::is_directory(path, error)) refuse(path, "is a folder, not a checkpoint file");
  data::silence_hdf5_errors();
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    refuse(path, "not an HDF5 file");
  }
  const data::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!file.valid()) refuse(path, "cannot open as HDF5: " + data::take_hdf5_error_text());
  if (!data::has_attribute(file.get(), layout::kFormatAttribute)) {
    refuse(path, "not a psbench checkpoint (no '" + std::string(layout::kFormatAttribute) + "' attribute)");
  }
  try {
    return read_contents(file.get(), path);
  } catch (const SystemError& failure) {  // a missing or mistyped piece: the file is not a whole checkpoint
    refuse(path, std::string("not a valid psbench checkpoint: ") + failure.what());
  }
}

}  // namespace psbench::train
