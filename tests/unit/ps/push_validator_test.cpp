#include "ps/push_validator.hpp"

#include <gtest/gtest.h>

#include <string>

#include "ps/protocol_error.hpp"
#include "ps/stall_watch.hpp"

namespace psbench::ps {
namespace {

// Server 0 of a job of 1 server and 2 workers (ranks 1 and 2), batches of 8.
PushValidator validator() {
  PushValidator check(Topology::async(3, 0, 1));
  check.limit_samples(8);
  return check;
}

PushHeader step(std::uint32_t epoch, bool last = false) {
  PushHeader header;
  header.epoch = epoch;
  header.samples = 8;
  header.last_of_epoch = last ? 1 : 0;
  return header;
}

std::string refusal(PushValidator& check, int source, const PushHeader& header, std::uint64_t version) {
  try {
    check.accept(source, header, version);
  } catch (const ProtocolError& error) {
    return error.what();
  }
  return "accepted";
}

TEST(PushValidator, EpochsAdvanceOnlyAfterTheLastStepOfAnEpoch) {
  PushValidator check = validator();
  check.accept(1, step(0), 0);
  check.accept(1, step(0, true), 1);
  check.accept(1, step(1), 2);
  EXPECT_EQ(refusal(check, 2, step(1), 3),
            "parameter server 0 received a malformed push from worker 1 (rank 2): step of epoch 1, but the worker's "
            "steps belong to epoch 0");
  EXPECT_EQ(refusal(check, 1, step(0), 3),
            "parameter server 0 received a malformed push from worker 0 (rank 1): step of epoch 0, but the worker's "
            "steps belong to epoch 1");
}

TEST(PushValidator, VersionMayLagButNeverLead) {
  PushValidator check = validator();
  check.accept(1, step(0), 0);
  PushHeader ahead = step(0);
  ahead.version = 4;
  EXPECT_NE(refusal(check, 1, ahead, 3).find("gradient from version 4, but the shard is at version 3"),
            std::string::npos);
  ahead.version = 3;
  EXPECT_EQ(refusal(check, 1, ahead, 3), "accepted");
}

TEST(PushValidator, SendersMustBeWorkersOfTheJob) {
  PushValidator check = validator();
  EXPECT_THROW(check.check_envelope(0, sizeof(PushHeader)), ProtocolError);
  EXPECT_THROW(check.check_envelope(3, sizeof(PushHeader)), ProtocolError);
  EXPECT_THROW(check.check_envelope(1, sizeof(PushHeader) - 1), ProtocolError);
  EXPECT_NO_THROW(check.check_envelope(2, sizeof(PushHeader)));
  EXPECT_EQ(check.describe(0), "rank 0 (a server)");
  EXPECT_EQ(check.describe(7), "rank 7 (not in the job)");
}

TEST(PushValidator, NothingAfterDone) {
  PushValidator check = validator();
  PushHeader done;
  done.kind = PushKind::kDone;
  check.accept(2, done, 0);
  EXPECT_NE(refusal(check, 2, done, 0).find("a push after the worker said done"), std::string::npos);
  EXPECT_EQ(refusal(check, 1, step(0), 0), "accepted");
}

TEST(SilenceWatch, NamesTheWorkerSilentForTheTimeoutAndForgetsFinishedOnes) {
  const Topology server = Topology::async(4, 0, 1);  // workers at ranks 1, 2, 3
  SilenceWatch watch(server, 100.0, 10.0);
  watch.heard(1, 105.0);
  watch.heard(3, 106.0);
  watch.finished(3);
  EXPECT_NO_THROW(watch.check(109.9));
  try {
    watch.check(110.5);
    ADD_FAILURE() << "worker 1 (rank 2) has been silent for 10.5 s";
  } catch (const PeerStalled& error) {
    EXPECT_NE(std::string(error.what())
                  .find("worker 1 (rank 2) has sent nothing for 10.5 s, while the other "
                        "workers pushed 2 times (--stall-timeout 10)"),
              std::string::npos)
        << error.what();
  }
  SilenceWatch off(server, 0.0, 0.0);
  EXPECT_NO_THROW(off.check(1e9));
}

}  // namespace
}  // namespace psbench::ps
