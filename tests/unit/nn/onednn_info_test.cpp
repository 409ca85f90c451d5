#include "nn/onednn_info.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace psbench::nn {
namespace {

TEST(OneDnnInfo, ReportsTheVersion) { EXPECT_EQ(onednn_version().rfind("2.", 0), 0U) << onednn_version(); }

TEST(OneDnnInfo, NamesTheDispatchedIsa) {
  const std::string isa = onednn_isa();
  EXPECT_NE(isa, "unknown");
  const char* cap = std::getenv("ONEDNN_MAX_CPU_ISA");
  if (cap != nullptr && std::string(cap) == "AVX2") {
    EXPECT_EQ(isa, "avx2");
  }
}

// A reference kernel would mean oneDNN found no optimised one for this ISA: every figure would be wrong.
TEST(OneDnnInfo, FullyConnectedLayersRunAnOptimisedKernel) {
  const std::string implementation = fully_connected_implementation(128, 784, 512);
  EXPECT_FALSE(implementation.empty());
  EXPECT_EQ(implementation.find("ref"), std::string::npos) << implementation;
}

}  // namespace
}  // namespace psbench::nn
