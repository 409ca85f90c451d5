#include "data/hdf5_handle.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace psbench::data {
namespace {

TEST(Handle, MovingNullsTheSourceAndClosesOnce) {
  silence_hdf5_errors();
  Dataspace space(check_id(H5Screate(H5S_SCALAR), "H5Screate"));
  const hid_t id = space.get();
  EXPECT_GT(H5Iis_valid(id), 0);
  Dataspace moved(std::move(space));
  EXPECT_FALSE(space.valid());  // NOLINT(bugprone-use-after-move): the moved-from state is the point
  EXPECT_EQ(moved.get(), id);
  Dataspace assigned;
  assigned = std::move(moved);
  EXPECT_FALSE(moved.valid());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(assigned.close(), 0);
  EXPECT_FALSE(assigned.valid());
  EXPECT_LE(H5Iis_valid(id), 0);
}

TEST(Handle, FailedCallsCarryTheHdf5MessageAndTheCall) {
  silence_hdf5_errors();
  try {
    check_id(H5Fopen("/nonexistent/psbench.h5", H5F_ACC_RDONLY, H5P_DEFAULT), "H5Fopen(/nonexistent/psbench.h5)");
    FAIL() << "opened a missing file";
  } catch (const SystemError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("H5Fopen(/nonexistent/psbench.h5) failed: "), std::string::npos) << message;
    EXPECT_NE(message.find("unable to open file"), std::string::npos) << message;
  }
  EXPECT_EQ(take_hdf5_error_text(), "no HDF5 error message") << "the stack is cleared after use";
}

}  // namespace
}  // namespace psbench::data
