// The MPI library names the results files carry: one short line whichever MPI wrote the text.
#include <gtest/gtest.h>

#include "mpi/environment.hpp"

namespace psbench::mpi {
namespace {

TEST(ShortLibraryVersion, OpenMpiEndsAtTheFirstComma) {
  EXPECT_EQ(short_library_version("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4\n"), "Open MPI v4.1.4");
}

TEST(ShortLibraryVersion, MpichKeepsItsFirstLineWithOneSpaceForTheTab) {
  EXPECT_EQ(short_library_version("MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 2022\nMPICH Device:\tch4:ucx"),
            "MPICH Version: 4.0.2");
}

TEST(ShortLibraryVersion, TrailingBlanksAndNulsGo) {
  EXPECT_EQ(short_library_version(std::string_view("Lib 1.0 \t\0\0", 11)), "Lib 1.0");
  EXPECT_EQ(short_library_version(""), "");
}

}  // namespace
}  // namespace psbench::mpi
