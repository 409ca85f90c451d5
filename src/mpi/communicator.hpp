#pragma once

#include <mpi.h>

#include <span>
#include <string>
#include <vector>

#include "mpi/call.hpp"
#include "mpi/datatype.hpp"

namespace psbench::mpi {

/// Reduction operations offered by Communicator.
enum class ReduceOp { kSum, kMax, kMin };

/// Move-only owner of an MPI communicator (a view, never freed, for MPI_COMM_WORLD).
class Communicator {
 public:
  /// An empty communicator (MPI_COMM_NULL).
  Communicator() = default;
  /// A non-owning view of MPI_COMM_WORLD.
  static Communicator world();
  /// Takes ownership of comm, which is freed on destruction.
  static Communicator adopt(MPI_Comm comm);

  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  /// Moves ownership; the source becomes empty.
  Communicator(Communicator&& other) noexcept;
  /// Frees what this owns, then takes other's communicator; the source becomes empty.
  Communicator& operator=(Communicator&& other) noexcept;
  /// Frees an owned communicator (never after MPI_Finalize).
  ~Communicator();

  /// This process's rank.
  [[nodiscard]] int rank() const { return rank_; }
  /// Number of ranks.
  [[nodiscard]] int size() const { return size_; }
  /// The raw handle for MPI calls this class does not wrap.
  [[nodiscard]] MPI_Comm native() const { return comm_; }
  /// True unless this is MPI_COMM_NULL.
  [[nodiscard]] bool valid() const { return comm_ != MPI_COMM_NULL; }

  /// Collective: splits into sub-communicators by color, ordered by key (MPI_Comm_split).
  [[nodiscard]] Communicator split(int color, int key) const;
  /// Collective: a new communicator over the same ranks, whose messages never match this one's (MPI_Comm_dup).
  [[nodiscard]] Communicator duplicate() const;
  /// Collective: splits into one communicator per shared-memory node, ordered by rank here
  /// (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED).
  [[nodiscard]] Communicator split_by_node() const;
  /// The rank in this communicator of each rank of other (MPI_UNDEFINED where other's rank is not here).
  [[nodiscard]] std::vector<int> ranks_of(const Communicator& other) const;
  /// Collective: waits for every rank.
  void barrier() const;

  /// Collective: reduces values element-wise in place over all ranks.
  template <typename T>
  void allreduce(std::span<T> values, ReduceOp op) const {
    PSBENCH_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), datatype<T>(),
                                   native_op(op), comm_));
  }
  /// Collective: returns the reduction of one value over all ranks.
  template <typename T>
  [[nodiscard]] T allreduce(T value, ReduceOp op) const {
    allreduce(std::span<T>(&value, 1), op);
    return value;
  }
  /// Collective: reduces values element-wise onto root (other ranks' values are left unchanged).
  template <typename T>
  void reduce(std::span<T> values, ReduceOp op, int root) const {
    const void* send = rank_ == root ? MPI_IN_PLACE : values.data();
    PSBENCH_MPI_CALL(
        MPI_Reduce(send, values.data(), static_cast<int>(values.size()), datatype<T>(), native_op(op), root, comm_));
  }
  /// Collective: copies root's values to every rank.
  template <typename T>
  void broadcast(std::span<T> values, int root) const {
    PSBENCH_MPI_CALL(MPI_Bcast(values.data(), static_cast<int>(values.size()), datatype<T>(), root, comm_));
  }
  /// Collective: copies root's string to every rank.
  void broadcast(std::string& text, int root) const;
  /// Collective: gathers count values from every rank onto root, rank-major (empty elsewhere).
  template <typename T>
  [[nodiscard]] std::vector<T> gather(std::span<const T> values, int root) const {
    std::vector<T> all(rank_ == root ? values.size() * static_cast<std::size_t>(size_) : 0);
    PSBENCH_MPI_CALL(MPI_Gather(values.data(), static_cast<int>(values.size()), datatype<T>(), all.data(),
                                static_cast<int>(values.size()), datatype<T>(), root, comm_));
    return all;
  }
  /// Collective: gathers one string from every rank onto root (empty elsewhere).
  [[nodiscard]] std::vector<std::string> gather(const std::string& text, int root) const;

 private:
  Communicator(MPI_Comm comm, bool owned);
  static MPI_Op native_op(ReduceOp op);
  void release() noexcept;

  MPI_Comm comm_ = MPI_COMM_NULL;
  bool owned_ = false;
  int rank_ = 0;
  int size_ = 0;
};

}  // namespace psbench::mpi
