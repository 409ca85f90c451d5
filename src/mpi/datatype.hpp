#pragma once

#include <mpi.h>

#include <cstdint>

namespace psbench::mpi {

/// The MPI datatype matching a C++ arithmetic type.
template <typename T>
MPI_Datatype datatype();

template <>
inline MPI_Datatype datatype<float>() {
  return MPI_FLOAT;
}
template <>
inline MPI_Datatype datatype<double>() {
  return MPI_DOUBLE;
}
template <>
inline MPI_Datatype datatype<int>() {
  return MPI_INT;
}
template <>
inline MPI_Datatype datatype<std::int64_t>() {
  return MPI_INT64_T;
}
template <>
inline MPI_Datatype datatype<std::uint64_t>() {
  return MPI_UINT64_T;
}
template <>
inline MPI_Datatype datatype<std::uint8_t>() {
  return MPI_UINT8_T;
}
template <>
inline MPI_Datatype datatype<char>() {
  return MPI_CHAR;
}

}  // namespace psbench::mpi
