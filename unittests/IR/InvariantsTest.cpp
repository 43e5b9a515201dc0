//===- InvariantsTest.cpp - Internal invariants are asserted --------------===//
//
/// \file
/// With assertions on (Debug, or -DNNIR_ENABLE_ASSERTIONS=ON in any build
/// type), breaking an internal invariant stops the process at the assertion
/// instead of reading garbage: a kind mismatch in cast<>, a missing op
/// attribute map entry, a null NDArray. Without assertions the tests are
/// skipped; a build configured with NNIR_ENABLE_ASSERTIONS that still defines
/// NDEBUG fails.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Expr.h"
#include "nnir/IR/Op.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Runtime/NDArray.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace nnir;

namespace {

TEST(InvariantsTest, TheBuildOptionTurnsAssertionsOn) {
#if defined(NDEBUG) && defined(NNIR_ENABLE_ASSERTIONS)
  FAIL() << "NNIR_ENABLE_ASSERTIONS is set but NDEBUG is defined";
#elif defined(NDEBUG)
  GTEST_SKIP() << "assertions are off in this build";
#endif
}

#ifndef NDEBUG
TEST(InvariantsDeathTest, KindMismatchInCast) {
  Ref<Var> x = Var::get("x");
  Expr *e = x.get();
  EXPECT_DEATH((void)cast<Call>(e), "incompatible type");
}

TEST(InvariantsDeathTest, MissingOpAttrMapEntry) {
  registerAllOps();
  OpAttrMap<bool> &map =
      OpRegistry::instance().getAttrMap<bool>("InvariantsTestFlag");
  map.set(Op::lookup("add"), true);
  EXPECT_TRUE(map.get(Op::lookup("add")));
  EXPECT_DEATH((void)map.get(Op::lookup("multiply")),
               "operator has no entry in this attribute map");
}

TEST(InvariantsDeathTest, NullNDArray) {
  NDArray null;
  EXPECT_FALSE(bool(null));
  EXPECT_DEATH((void)null.getShape(), "accessing a null NDArray");
  EXPECT_DEATH((void)null.getData(), "accessing a null NDArray");
}
#endif

} // namespace
