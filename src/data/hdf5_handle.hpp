#pragma once

#include <hdf5.h>

#include <string>
#include <utility>

namespace psbench::data {

/// Turns off HDF5's automatic printing of its error stack (idempotent); our exceptions carry its message.
void silence_hdf5_errors();

/// The current HDF5 error stack as one short line ("api message (innermost cause)"), then clears it.
std::string take_hdf5_error_text();

/// Reports a failed close from a destructor (which must not throw).
void warn_close_failed(const char* what) noexcept;

/// Move-only owner of one HDF5 identifier, closed with Close; moving leaves the source empty.
template <herr_t (*Close)(hid_t)>
class Handle {
 public:
  /// An empty handle.
  Handle() = default;
  /// Takes ownership of id (which may be negative, meaning empty).
  explicit Handle(hid_t id) : id_(id) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  /// Moves ownership; the source becomes empty.
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)) {}
  /// Closes what this owns, then takes other's identifier; the source becomes empty.
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  /// Closes the identifier; a failure is only reported.
  ~Handle() { reset(); }

  /// The raw identifier for HDF5 calls.
  [[nodiscard]] hid_t get() const { return id_; }
  /// True when an identifier is held.
  [[nodiscard]] bool valid() const { return id_ >= 0; }
  /// Closes the identifier now and returns HDF5's status, for callers that must report a failed close.
  [[nodiscard]] herr_t close() noexcept {
    const herr_t status = id_ >= 0 ? Close(id_) : 0;
    id_ = H5I_INVALID_HID;
    return status;
  }
  /// Closes the identifier now (noexcept); the handle becomes empty.
  void reset() noexcept {
    if (id_ >= 0 && Close(id_) < 0) warn_close_failed("HDF5 identifier");
    id_ = H5I_INVALID_HID;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
};

/// An open HDF5 file.
using File = Handle<H5Fclose>;
/// An open group.
using Group = Handle<H5Gclose>;
/// An open dataset.
using Dataset = Handle<H5Dclose>;
/// A dataspace (shape and selection).
using Dataspace = Handle<H5Sclose>;
/// A property list (file access, creation, transfer).
using PropertyList = Handle<H5Pclose>;
/// An open attribute.
using Attribute = Handle<H5Aclose>;
/// A datatype made by H5Tcopy or returned by H5Dget_type/H5Aget_type (never a predefined type).
using Datatype = Handle<H5Tclose>;

/// Throws SystemError naming what and the HDF5 error stack unless id is valid; returns id.
hid_t check_id(hid_t id, const std::string& what);
/// Throws SystemError naming what and the HDF5 error stack if status is negative.
void check_status(herr_t status, const std::string& what);

}  // namespace psbench::data
