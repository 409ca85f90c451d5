#include "mpi/communicator.hpp"

#include <cstdio>
#include <utility>

#include "mpi/handles.hpp"

namespace psbench::mpi {

Communicator::Communicator(MPI_Comm comm, bool owned) : comm_(comm), owned_(owned) {
  if (comm_ != MPI_COMM_NULL) {
    PSBENCH_MPI_CALL(MPI_Comm_rank(comm_, &rank_));
    PSBENCH_MPI_CALL(MPI_Comm_size(comm_, &size_));
  }
}

Communicator Communicator::world() { return Communicator(MPI_COMM_WORLD, false); }

Communicator Communicator::adopt(MPI_Comm comm) { return Communicator(comm, true); }

Communicator::Communicator(Communicator&& other) noexcept
    : comm_(std::exchange(other.comm_, MPI_COMM_NULL)),
      owned_(std::exchange(other.owned_, false)),
      rank_(std::exchange(other.rank_, 0)),
      size_(std::exchange(other.size_, 0)) {}

Communicator& Communicator::operator=(Communicator&& other) noexcept {
  if (this != &other) {
    release();
    comm_ = std::exchange(other.comm_, MPI_COMM_NULL);
    owned_ = std::exchange(other.owned_, false);
    rank_ = std::exchange(other.rank_, 0);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

Communicator::~Communicator() { release(); }

void Communicator::release() noexcept {
  if (!owned_ || comm_ == MPI_COMM_NULL) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0 && MPI_Comm_free(&comm_) != MPI_SUCCESS) {
    std::fprintf(stderr, "psbench: warning: MPI_Comm_free failed\n");
  }
  comm_ = MPI_COMM_NULL;
  owned_ = false;
}

Communicator Communicator::split(int color, int key) const {
  MPI_Comm result = MPI_COMM_NULL;
  PSBENCH_MPI_CALL(MPI_Comm_split(comm_, color, key, &result));
  if (result == MPI_COMM_NULL) return Communicator();
  MPI_Comm_set_errhandler(result, MPI_ERRORS_RETURN);
  return adopt(result);
}

Communicator Communicator::duplicate() const {
  MPI_Comm result = MPI_COMM_NULL;
  PSBENCH_MPI_CALL(MPI_Comm_dup(comm_, &result));
  MPI_Comm_set_errhandler(result, MPI_ERRORS_RETURN);
  return adopt(result);
}

Communicator Communicator::split_by_node() const {
  MPI_Comm result = MPI_COMM_NULL;
  PSBENCH_MPI_CALL(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &result));
  MPI_Comm_set_errhandler(result, MPI_ERRORS_RETURN);
  return adopt(result);
}

std::vector<int> Communicator::ranks_of(const Communicator& other) const {
  const Group mine(comm_);
  const Group theirs(other.comm_);
  std::vector<int> their_ranks(static_cast<std::size_t>(other.size_));
  for (int r = 0; r < other.size_; ++r) their_ranks[static_cast<std::size_t>(r)] = r;
  std::vector<int> result(their_ranks.size());
  PSBENCH_MPI_CALL(
      MPI_Group_translate_ranks(theirs.native(), other.size_, their_ranks.data(), mine.native(), result.data()));
  return result;
}

void Communicator::barrier() const { PSBENCH_MPI_CALL(MPI_Barrier(comm_)); }

MPI_Op Communicator::native_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return MPI_SUM;
    case ReduceOp::kMax: return MPI_MAX;
    case ReduceOp::kMin: return MPI_MIN;
  }
  return MPI_SUM;
}

void Communicator::broadcast(std::string& text, int root) const {
  auto length = static_cast<std::uint64_t>(text.size());
  broadcast(std::span<std::uint64_t>(&length, 1), root);
  text.resize(length);
  broadcast(std::span<char>(text.data(), text.size()), root);
}

std::vector<std::string> Communicator::gather(const std::string& text, int root) const {
  const int length = static_cast<int>(text.size());
  std::vector<int> lengths(rank_ == root ? static_cast<std::size_t>(size_) : 0);
  PSBENCH_MPI_CALL(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, root, comm_));
  std::vector<int> offsets(lengths.size());
  int total = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    offsets[i] = total;
    total += lengths[i];
  }
  std::string joined(static_cast<std::size_t>(total), '\0');
  PSBENCH_MPI_CALL(
      MPI_Gatherv(text.data(), length, MPI_CHAR, joined.data(), lengths.data(), offsets.data(), MPI_CHAR, root, comm_));
  std::vector<std::string> result;
  result.reserve(lengths.size());
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    result.push_back(joined.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i])));
  }
  return result;
}

}  // namespace psbench::mpi
