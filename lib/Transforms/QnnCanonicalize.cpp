//===- QnnCanonicalize.cpp - QNN operators to primitives ------------------===//
//
/// \file
/// Implements QnnCanonicalize (see QnnCanonicalize.h) as an ExprMutator
/// whose post-order hook replaces each QNN call, so deep graphs are
/// rewritten without recursion.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/QnnCanonicalize.h"
#include "nnir/Transforms/Passes.h"

#include "nnir/IR/ExprMutator.h"
#include "nnir/IR/Traversal.h"
#include "nnir/Ops/QNN.h"

#include "llvm/ADT/SmallVector.h"

using namespace llvm;
using namespace nnir;

namespace {

class QnnCanonicalizer final : public ExprMutator {
public:
  Error takeError() { return std::move(error); }
  int64_t numRewritten = 0;

private:
  Ref<Expr> rewriteCall(Call *pre, Call *post) override {
    const QnnCanonicalizeFn *canonicalize =
        getQnnCanonicalization(post->getCalledOp());
    if (!canonicalize || error)
      return post;
    // The arguments' types are those of the original arguments: their
    // replacements, untyped, compute the same values.
    SmallVector<const Type *, 8> argTypes;
    for (const Ref<Expr> &arg : pre->getArgs()) {
      if (!arg->getCheckedType()) {
        error = makeError(pre->getLoc(),
                          "QnnCanonicalize: the call is not typed; run "
                          "InferType first");
        return post;
      }
      argTypes.push_back(arg->getCheckedType().get());
    }
    Expected<Ref<Expr>> lowered =
        (*canonicalize)(*post, argTypes, pre->getCheckedType().get());
    if (!lowered) {
      error = lowered.takeError();
      return post;
    }
    ++numRewritten;
    return *lowered;
  }

  Error error = Error::success();
};

} // namespace

Expected<Ref<Expr>> nnir::qnnCanonicalize(Expr *expr, int64_t *numRewritten) {
  QnnCanonicalizer canonicalizer;
  Ref<Expr> result = canonicalizer.mutate(expr);
  if (Error err = canonicalizer.takeError())
    return err;
  if (numRewritten)
    *numRewritten += canonicalizer.numRewritten;
  return result;
}

bool nnir::hasQnnCalls(const IRModule &module) {
  bool found = false;
  for (const IRModule::Entry &entry : module.getFunctions()) {
    walk(
        entry.func.get(),
        [&](Expr *e) {
          if (const auto *call = dyn_cast<Call>(e))
            found |= getQnnCanonicalization(call->getCalledOp()) != nullptr;
          return found ? WalkResult::interrupt() : WalkResult::advance();
        },
        WalkOrder::PreOrder);
    if (found)
      return true;
  }
  return false;
}

Ref<Pass> nnir::createQnnCanonicalizePass() {
  PassInfo info =
      getBuiltinPassInfo(BuiltinPass::QnnCanonicalize, {"InferType"});
  return createFunctionPass(
      [](Ref<Function> func, const IRModule &,
         PassContext &ctx) -> Expected<Ref<Function>> {
        int64_t count = 0;
        Expected<Ref<Expr>> result = qnnCanonicalize(func.get(), &count);
        if (!result)
          return result.takeError();
        ctx.getStatistics().add("QnnCanonicalize", "num-canonicalized", count,
                                "Number of QNN calls rewritten");
        return Ref<Function>(cast<Function>(result->get()));
      },
      std::move(info));
}
