// Writes the files the CLI tests of `psbench data` feed to it: a tiny valid set, files with one layout
// defect each, a float32 file whose training images are all NaN, a file that is not HDF5, and folders of
// IDX files (valid, truncated gzip, truncated items, bad magic). Usage: make_data_fixtures OUTDIR
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "data_fixtures.hpp"

int main(int argc, char** argv) {
  using namespace psbench::data::fixtures;
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_data_fixtures OUTDIR\n");
    return 2;
  }
  const std::string out = argv[1];
  std::filesystem::create_directories(out);
  write_small_synth(out + "/tiny.h5", 2, 1);
  write_defective_file(out + "/missing_labels.h5", Defect::kMissingLabels);
  write_defective_file(out + "/count_mismatch.h5", Defect::kCountMismatch);
  write_defective_file(out + "/label_out_of_range.h5", Defect::kLabelOutOfRange);
  write_defective_file(out + "/unsupported_type.h5", Defect::kUnsupportedType);
  write_non_finite_file(out + "/nan_images.h5", 40, 0);
  std::ofstream(out + "/not_hdf5.h5") << "this is a text file, not HDF5\n";
  write_idx_folder(out + "/idx_ok", 20, 10, IdxDefect::kNone);
  write_idx_folder(out + "/idx_truncated_gzip", 20, 10, IdxDefect::kTruncatedGzip);
  write_idx_folder(out + "/idx_truncated_items", 20, 10, IdxDefect::kTruncatedItems);
  write_idx_folder(out + "/idx_bad_magic", 20, 10, IdxDefect::kBadMagic);
  return 0;
}
