#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/loader.hpp"
#include "data/split_file.hpp"

namespace psbench::data::fixtures {

/// A fresh folder under the system temporary folder, removed with everything in it on destruction.
class TempDir {
 public:
  /// Creates "<tmp>/psbench-<tag>-<pid>-<n>".
  explicit TempDir(const std::string& tag);
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  /// Removes the folder and its contents.
  ~TempDir();
  /// The folder's path.
  [[nodiscard]] const std::string& path() const { return path_; }
  /// path() + "/" + name.
  [[nodiscard]] std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/// Writes a small synthetic psbench file (seed 7, 5 classes, 1 x 4 x 3 samples unless told otherwise).
void write_small_synth(const std::string& path, std::uint64_t train_samples, std::uint64_t test_samples,
                       PixelType type = PixelType::kUint8, std::uint64_t seed = 7);

/// Writes a valid float32 file (5 classes, 1 x 4 x 4 samples, 10 finite test samples) whose training samples
/// from first_bad on hold NaN in every value (first_bad 0: all of them).
void write_non_finite_file(const std::string& path, std::uint64_t train_samples, std::uint64_t first_bad);

/// Every sample's images as the model's float32 input (StoredImages::normalise over all samples).
std::vector<float> normalised_images(const Samples& samples);

/// Ways a fixture file breaks psbench's HDF5 layout (docs/data.md).
enum class Defect {
  kMissingLabels,    ///< /train/labels absent
  kCountMismatch,    ///< /train/images holds 10 samples, /train/labels 9
  kLabelOutOfRange,  ///< the last training label is 5 with num_classes 5
  kUnsupportedType,  ///< /train/images stored as int16
};

/// Writes a 10-sample file (1 x 2 x 2 images, 5 classes, both splits) with one defect.
void write_defective_file(const std::string& path, Defect defect);

/// Writes an IDX file of unsigned bytes, gzip-compressed, with the given header dimensions and items.
void write_idx_gz(const std::string& path, const std::vector<std::uint32_t>& dims,
                  const std::vector<std::uint8_t>& items);

/// How a folder of Fashion-MNIST-like IDX files is broken.
enum class IdxDefect { kNone, kTruncatedGzip, kTruncatedItems, kBadMagic };

/// Writes the four Fashion-MNIST IDX files (train samples, test samples, 28 x 28, labels i % 10) into folder,
/// with the training images file broken as defect says.
void write_idx_folder(const std::string& folder, std::uint32_t train, std::uint32_t test, IdxDefect defect);

}  // namespace psbench::data::fixtures
