#include "data/hdf5_handle.hpp"

#include <cstdio>
#include <mutex>
#include <vector>

#include "common/error.hpp"

namespace psbench::data {
namespace {

herr_t collect_description(unsigned /*index*/, const H5E_error2_t* error, void* out) {
  auto& descriptions = *static_cast<std::vector<std::string>*>(out);
  if (error->desc != nullptr && error->desc[0] != '\0') descriptions.emplace_back(error->desc);
  return 0;
}

}  // namespace

void silence_hdf5_errors() {
  static std::once_flag once;
  std::call_once(once, [] { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); });
}

std::string take_hdf5_error_text() {
  std::vector<std::string> descriptions;  // innermost cause first
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, collect_description, &descriptions);
  H5Eclear2(H5E_DEFAULT);
  if (descriptions.empty()) return "no HDF5 error message";
  if (descriptions.size() == 1 || descriptions.front() == descriptions.back()) return descriptions.back();
  return descriptions.back() + " (" + descriptions.front() + ")";
}

void warn_close_failed(const char* what) noexcept {
  std::fprintf(stderr, "psbench: warning: closing an %s failed\n", what);
  H5Eclear2(H5E_DEFAULT);
}

hid_t check_id(hid_t id, const std::string& what) {
  if (id < 0) throw SystemError(what + " failed: " + take_hdf5_error_text());
  return id;
}

void check_status(herr_t status, const std::string& what) {
  if (status < 0) throw SystemError(what + " failed: " + take_hdf5_error_text());
}

}  // namespace psbench::data
