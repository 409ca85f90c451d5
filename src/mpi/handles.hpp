#pragma once

#include <mpi.h>

namespace psbench::mpi {

/// Move-only owner of an MPI_Group, freed on destruction (never after MPI_Finalize).
class Group {
 public:
  /// Collective-free: the group of comm's ranks (MPI_Comm_group).
  explicit Group(MPI_Comm comm);
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;
  /// Moves ownership; the source becomes MPI_GROUP_NULL.
  Group(Group&& other) noexcept;
  Group& operator=(Group&&) = delete;
  /// Frees the group.
  ~Group();
  /// The raw handle.
  [[nodiscard]] MPI_Group native() const { return group_; }

 private:
  MPI_Group group_ = MPI_GROUP_NULL;
};

/// Move-only owner of an MPI_Info of hints, freed on destruction (never after MPI_Finalize).
class Info {
 public:
  /// An empty info object (MPI_Info_create).
  Info();
  Info(const Info&) = delete;
  Info& operator=(const Info&) = delete;
  /// Moves ownership; the source becomes MPI_INFO_NULL.
  Info(Info&& other) noexcept;
  Info& operator=(Info&&) = delete;
  /// Frees the info object.
  ~Info();
  /// Sets hint key to value (MPI_Info_set).
  void set(const char* key, const char* value);
  /// The raw handle.
  [[nodiscard]] MPI_Info native() const { return info_; }

 private:
  MPI_Info info_ = MPI_INFO_NULL;
};

}  // namespace psbench::mpi
