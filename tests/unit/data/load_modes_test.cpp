#include "data/load_modes.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace psbench::data {
namespace {

TEST(LoadModes, NamesParseBackAndDefaultsFollowTheIssue) {
  EXPECT_EQ(parse_io_mode("sequential"), IoMode::kSequential);
  EXPECT_EQ(parse_io_mode("parallel"), IoMode::kParallel);
  EXPECT_EQ(parse_read_mode("whole"), ReadMode::kWhole);
  EXPECT_EQ(parse_read_mode("partition"), ReadMode::kPartition);
  EXPECT_EQ(parse_mpi_io_mode("two-phase"), MpiIoMode::kTwoPhase);
  EXPECT_EQ(mode_name(IoMode::kParallel, ReadMode::kPartition), "parallel+partition");
  EXPECT_EQ(default_read_mode(IoMode::kSequential), ReadMode::kWhole);
  EXPECT_EQ(default_read_mode(IoMode::kParallel), ReadMode::kPartition);
  EXPECT_THROW(parse_io_mode("posix"), UserError);
  EXPECT_THROW(parse_read_mode("half"), UserError);
  EXPECT_THROW(parse_mpi_io_mode("collective"), UserError);
}

}  // namespace
}  // namespace psbench::data
