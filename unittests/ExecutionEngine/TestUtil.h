//===- TestUtil.h - Helpers of the ExecutionEngine tests --------*- C++ -*-===//

#ifndef NNIR_UNITTESTS_EXECUTIONENGINE_TESTUTIL_H
#define NNIR_UNITTESTS_EXECUTIONENGINE_TESTUTIL_H

#include "nnir/IR/Module.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Parser/Parser.h"
#include "nnir/Transforms/InferType.h"

#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

namespace nnir::test {

/// Parses and type-checks \p text; fails the test on error.
inline Ref<IRModule> parseTyped(llvm::StringRef text, llvm::SourceMgr &sm) {
  registerAllOps();
  llvm::Expected<Ref<IRModule>> m = parseModule(text, sm);
  if (!m) {
    ADD_FAILURE() << llvm::toString(m.takeError());
    return nullptr;
  }
  llvm::Expected<Ref<IRModule>> typed = inferTypes(*m);
  if (!typed) {
    ADD_FAILURE() << llvm::toString(typed.takeError());
    return nullptr;
  }
  return *typed;
}

/// The first primitive function called in @main's body.
inline const Function *firstPrimitive(const IRModule &m,
                                      llvm::StringRef name = "main") {
  const Expr *e = m.lookup(name)->getBody().get();
  while (true) {
    if (const auto *let = llvm::dyn_cast<Let>(e)) {
      if (const auto *fn = llvm::dyn_cast<Function>(let->getValue().get()))
        if (fn->isPrimitive())
          return fn;
      e = let->getBody().get();
      continue;
    }
    if (const auto *call = llvm::dyn_cast<Call>(e))
      if (const auto *fn = llvm::dyn_cast<Function>(call->getCallee().get()))
        return fn;
    return nullptr;
  }
}

} // namespace nnir::test

#endif // NNIR_UNITTESTS_EXECUTIONENGINE_TESTUTIL_H
