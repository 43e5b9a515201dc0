//===- AlterOpLayout.cpp - Replace calls by their target's forms ----------===//
//
/// \file
/// Implements AlterOpLayout (see AlterOpLayout.h): the operator property
/// with TVM's priority levels, and the pass as an ExprMutator whose
/// post-order hook asks each call's alteration for a replacement and checks
/// the replacement's type, so deep graphs are rewritten without recursion.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/AlterOpLayout.h"
#include "nnir/Transforms/InferType.h"
#include "nnir/Transforms/Passes.h"

#include "nnir/IR/ExprMutator.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Type.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace llvm;
using namespace nnir;

NNIR_DEFINE_EXPLICIT_TYPE_ID(nnir::AlterOpLayoutEntry)

//===----------------------------------------------------------------------===//
// The operator property
//===----------------------------------------------------------------------===//

static OpAttrMap<AlterOpLayoutEntry> &getAlterOpLayoutMap() {
  return OpRegistry::instance().getAttrMap<AlterOpLayoutEntry>(
      kAlterOpLayoutAttr);
}

Error nnir::setAlterOpLayout(const Op &op, AlterOpLayoutFn fn, int level) {
  if (!fn)
    return makeError("the layout alteration of " + op.getName() +
                     " is null (resetAlterOpLayout removes one)");
  OpAttrMap<AlterOpLayoutEntry> &map = getAlterOpLayoutMap();
  if (map.has(&op) && map.get(&op).fn) {
    int current = map.get(&op).level;
    if (current == level)
      return makeError("attribute " + kAlterOpLayoutAttr + " of " +
                       op.getName() + " is already registered with level " +
                       Twine(level));
    if (current > level)
      return Error::success();
  }
  map.set(&op, {std::move(fn), level});
  return Error::success();
}

void nnir::resetAlterOpLayout(const Op &op) {
  OpAttrMap<AlterOpLayoutEntry> &map = getAlterOpLayoutMap();
  if (map.has(&op))
    map.set(&op, {});
}

const AlterOpLayoutFn *nnir::getAlterOpLayout(const Op *op) {
  const OpAttrMap<AlterOpLayoutEntry> *map =
      OpRegistry::instance().findAttrMap<AlterOpLayoutEntry>(
          kAlterOpLayoutAttr);
  if (!map || !map->has(op) || !map->get(op).fn)
    return nullptr;
  return &map->get(op).fn;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {

/// A replacement closed over its call's arguments: each argument (by
/// identity) becomes a variable annotated with its type, so type-checking
/// the replacement does not walk the graph below it again.
class CloseOverArguments final : public ExprMutator {
public:
  CloseOverArguments(ArrayRef<Ref<Expr>> args, ArrayRef<const Type *> types) {
    for (size_t i = 0, e = args.size(); i != e; ++i)
      memo[args[i].get()] = Var::get(("arg" + Twine(i)).str(),
                                     const_cast<Type *>(types[i]));
  }
};

class LayoutAlterer final : public ExprMutator {
public:
  int64_t numAltered = 0;

private:
  Ref<Expr> rewriteCall(Call *pre, Call *post) override {
    Op *op = post->getCalledOp();
    const AlterOpLayoutFn *alter = getAlterOpLayout(op);
    if (!alter)
      return post;
    SmallVector<const Type *, 8> argTypes;
    for (const Ref<Expr> &arg : pre->getArgs())
      argTypes.push_back(arg->getCheckedType().get());
    const Type *resultType = pre->getCheckedType().get();
    if (!resultType || llvm::is_contained(argTypes, nullptr)) {
      fail(makeError(pre->getLoc(), "AlterOpLayout: the call of " +
                                        op->getName() +
                                        " is not typed; run InferType first"));
      return post;
    }
    Expected<Ref<Expr>> replacement = (*alter)(*post, argTypes, resultType);
    if (!replacement) {
      fail(replacement.takeError());
      return post;
    }
    if (!*replacement)
      return post;
    if (Error err = checkType(*pre, *post, argTypes, *replacement)) {
      fail(std::move(err));
      return post;
    }
    ++numAltered;
    return *replacement;
  }

  /// Checks that \p replacement has the type of the call \p pre.
  static Error checkType(const Call &pre, const Call &post,
                         ArrayRef<const Type *> argTypes,
                         const Ref<Expr> &replacement) {
    StringRef opName = post.getCalledOp()->getName();
    CloseOverArguments closer(post.getArgs(), argTypes);
    Expected<Ref<Expr>> typed = inferExprTypes(closer.mutate(replacement));
    if (!typed)
      return makeError(pre.getLoc(),
                       "AlterOpLayout: the replacement of " + opName +
                           " does not type-check: " +
                           toString(typed.takeError()));
    const Type *want = pre.getCheckedType().get();
    const Type *got = (*typed)->getCheckedType().get();
    if (typesEqual(got, want))
      return Error::success();
    return makeError(pre.getLoc(),
                     "AlterOpLayout: the replacement of " + opName +
                         " has type " + got->str() + ", not the call's " +
                         want->str() +
                         " (nnir's AlterOpLayout inserts no "
                         "layout_transform: the alteration must)");
  }
};

} // namespace

Expected<Ref<Expr>> nnir::alterOpLayout(Expr *expr, int64_t *numAltered) {
  LayoutAlterer alterer;
  Expected<Ref<Expr>> result = alterer.mutateOrError(expr);
  if (result && numAltered)
    *numAltered += alterer.numAltered;
  return result;
}

Ref<Pass> nnir::createAlterOpLayoutPass() {
  PassInfo info = getBuiltinPassInfo(BuiltinPass::AlterOpLayout, {"InferType"});
  return createFunctionPass(
      [](Ref<Function> func, const IRModule &,
         PassContext &ctx) -> Expected<Ref<Function>> {
        int64_t count = 0;
        Expected<Ref<Expr>> result = alterOpLayout(func.get(), &count);
        if (!result)
          return result.takeError();
        ctx.getStatistics().add("AlterOpLayout", "num-altered", count,
                                "Number of calls replaced by their "
                                "operator's layout alteration");
        return Ref<Function>(cast<Function>(result->get()));
      },
      std::move(info));
}
