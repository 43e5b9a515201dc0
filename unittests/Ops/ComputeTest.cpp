//===- ComputeTest.cpp - Tests of compute registration --------------------===//
//
/// \file
/// A compute attaches to a registered operator by name; a misspelt name is
/// an error with a suggestion (attachOpCompute) and stops registration code
/// at start-up (setOpCompute), in every build.
//
//===----------------------------------------------------------------------===//

#include "nnir/Ops/Compute.h"

#include "nnir/IR/Op.h"
#include "nnir/Ops/Ops.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace nnir;

namespace {

Expected<std::vector<te::Tensor>> noCompute(const ComputeArgs &) {
  return computeError("not for running");
}

class ComputeTest : public ::testing::Test {
protected:
  void SetUp() override { registerAllOps(); }
};

TEST_F(ComputeTest, RegisteredOperatorsHaveComputes) {
  for (StringRef name : {"add", "reshape", "nn.conv2d", "sum", "topk"}) {
    const Op *op = Op::lookup(name);
    ASSERT_TRUE(op) << name.str();
    EXPECT_TRUE(getOpCompute(op)) << name.str();
  }
}

TEST_F(ComputeTest, MisspeltNameIsAnErrorWithASuggestion) {
  Error error = attachOpCompute("nn.conv2dd", noCompute);
  ASSERT_TRUE(bool(error));
  EXPECT_EQ(toString(std::move(error)),
            "cannot attach a compute to 'nn.conv2dd': no such operator; did "
            "you mean 'nn.conv2d'?");

  Error far = attachOpCompute("no_such_operator_anywhere_at_all", noCompute);
  ASSERT_TRUE(bool(far));
  EXPECT_EQ(toString(std::move(far)),
            "cannot attach a compute to 'no_such_operator_anywhere_at_all': "
            "no such operator");
}

TEST_F(ComputeTest, EmptyComputeIsAnError) {
  const TECompute *before = getOpCompute(Op::lookup("add"));
  ASSERT_TRUE(before);
  Error error = attachOpCompute("add", TECompute());
  ASSERT_TRUE(bool(error));
  EXPECT_EQ(toString(std::move(error)),
            "cannot attach an empty compute to 'add'");
  // The operator keeps its compute.
  EXPECT_TRUE(getOpCompute(Op::lookup("add")));
}

TEST_F(ComputeTest, AttachesToARegisteredOperator) {
  Op *op = OpRegistry::instance().add("test.compute.target").getOp();
  EXPECT_FALSE(getOpCompute(op));
  ASSERT_FALSE(bool(attachOpCompute("test.compute.target", noCompute)));
  EXPECT_TRUE(getOpCompute(op));
}

TEST_F(ComputeTest, SetOpComputeStopsOnAMisspeltName) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(setOpCompute("resahpe", noCompute),
               "cannot attach a compute to 'resahpe': no such operator; did "
               "you mean 'reshape'\\?");
}

} // namespace
