#include "train/fault_plan.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace psbench::train {
namespace {

TEST(FaultPlan, ParsesCrashAndStall) {
  const FaultPlan crash = parse_fault("crash:rank=2,step=5");
  EXPECT_EQ(crash.kind, FaultPlan::Kind::kCrash);
  EXPECT_EQ(crash.rank, 2);
  EXPECT_EQ(crash.step, 5U);
  EXPECT_EQ(fault_text(crash), "crash:rank=2,step=5");
  const FaultPlan stall = parse_fault("stall:rank=0,seconds=2.5");
  EXPECT_EQ(stall.kind, FaultPlan::Kind::kStall);
  EXPECT_DOUBLE_EQ(stall.seconds, 2.5);
  EXPECT_EQ(stall.step, 1U);
  EXPECT_EQ(fault_text(stall), "stall:rank=0,seconds=2.5,step=1");
  EXPECT_EQ(fault_text(FaultPlan{}), "");
}

TEST(FaultPlan, ParsesADivergingWorker) {
  const FaultPlan diverge = parse_fault("diverge:rank=1,step=3");
  EXPECT_EQ(diverge.kind, FaultPlan::Kind::kDiverge);
  EXPECT_EQ(diverge.rank, 1);
  EXPECT_EQ(diverge.step, 3U);
  EXPECT_EQ(fault_text(diverge), "diverge:rank=1,step=3");
  EXPECT_THROW(parse_fault("diverge:rank=1"), UserError);
  EXPECT_THROW(validate_faults(diverge, {}, 3, 2), UserError) << "rank 1 is a server with 2 servers";
  EXPECT_NO_THROW(validate_faults(diverge, {}, 3, 1));
}

TEST(FaultPlan, RefusesWhatItCannotDo) {
  EXPECT_THROW(parse_fault("explode:rank=1"), UserError);
  EXPECT_THROW(parse_fault("crash:rank=1"), UserError);
  EXPECT_THROW(parse_fault("crash:rank=1,step=0"), UserError);
  EXPECT_THROW(parse_fault("crash:rank=-1,step=2"), UserError);
  EXPECT_THROW(parse_fault("crash:rank=1.5,step=2"), UserError);
  EXPECT_THROW(parse_fault("crash:rank=1,step=2,when=now"), UserError);
  EXPECT_THROW(parse_fault("stall:rank=1,seconds=abc"), UserError);
  EXPECT_THROW(validate_faults(parse_fault("crash:rank=4,step=1"), {}, 4, 1), UserError);
  EXPECT_NO_THROW(validate_faults(parse_fault("crash:rank=3,step=1"), {}, 4, 1));
}

TEST(FaultPlan, StragglerMustBeAWorkerSlowedByAtLeastOne) {
  const StragglerPlan plan = parse_straggler("rank=2,factor=3");
  EXPECT_EQ(plan.rank, 2);
  EXPECT_DOUBLE_EQ(plan.factor, 3.0);
  EXPECT_EQ(straggler_text(plan), "rank=2,factor=3");
  EXPECT_THROW(parse_straggler("rank=2,factor=0.5"), UserError);
  EXPECT_NO_THROW(validate_faults({}, plan, 3, 2));  // ranks 0 and 1 serve, 2 works
  EXPECT_THROW(validate_faults({}, parse_straggler("rank=1,factor=2"), 3, 2), UserError);  // a server
  EXPECT_THROW(validate_faults({}, parse_straggler("rank=3,factor=2"), 3, 2), UserError);  // not in the job
}

}  // namespace
}  // namespace psbench::train
