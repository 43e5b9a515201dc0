//===- Specialize.cpp - Primitive functions at concrete shapes ------------===//
//
/// \file
/// One post-order walk that rebuilds every node whose children changed and
/// types it from its children's types.
//
//===----------------------------------------------------------------------===//

#include "nnir/ExecutionEngine/Specialize.h"

#include "nnir/IR/Op.h"
#include "nnir/IR/Traversal.h"
#include "nnir/Ops/Builders.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/DenseMap.h"

using namespace llvm;
using namespace nnir;

/// Types \p root bottom-up; \p memo maps nodes already rebuilt (the
/// rebound parameters) to their replacements and receives the others.
static Expected<Ref<Expr>> retype(const Ref<Expr> &root,
                                  DenseMap<const Expr *, Ref<Expr>> &memo) {
  Error error = Error::success();
  auto get = [&](const Ref<Expr> &e) -> Ref<Expr> {
    auto it = memo.find(e.get());
    return it == memo.end() ? e : it->second;
  };
  walk(root.get(), [&](Expr *e) {
    if (error)
      return WalkResult::interrupt();
    if (memo.count(e) || isa<Op>(e))
      return WalkResult::advance();
    Ref<Expr> self(e);
    if (isa<Constant>(e) || isa<Var>(e)) {
      if (!e->getCheckedType())
        error = makeError(e->getLoc(), "cannot specialise: a variable without "
                                       "a type");
      return WalkResult::advance();
    }
    if (const auto *call = dyn_cast<Call>(e)) {
      if (!isa<Op>(call->getCallee().get())) {
        error = makeError(e->getLoc(), "cannot specialise a call of a "
                                       "function inside a primitive function");
        return WalkResult::advance();
      }
      SmallVector<Ref<Expr>, 4> args;
      bool changed = !call->getCheckedType();
      for (const Ref<Expr> &a : call->getArgs()) {
        args.push_back(get(a));
        changed |= args.back() != a;
      }
      if (!changed)
        return WalkResult::advance();
      Expected<Ref<Expr>> typed = ops::typeCheck(Call::get(
          call->getCallee(), args, call->getAttrs(), call->getLoc()));
      if (!typed)
        error = typed.takeError();
      else
        memo[e] = std::move(*typed);
      return WalkResult::advance();
    }
    if (const auto *tuple = dyn_cast<Tuple>(e)) {
      SmallVector<Ref<Expr>, 4> fields;
      SmallVector<Ref<Type>, 4> types;
      bool changed = !tuple->getCheckedType();
      for (const Ref<Expr> &f : tuple->getFields()) {
        fields.push_back(get(f));
        changed |= fields.back() != f;
        types.push_back(fields.back()->getCheckedType());
      }
      if (changed)
        memo[e] = Tuple::get(fields, e->getLoc(), TupleType::get(types));
      return WalkResult::advance();
    }
    if (const auto *item = dyn_cast<TupleGetItem>(e)) {
      Ref<Expr> tuple = get(item->getTuple());
      if (tuple == item->getTuple() && item->getCheckedType())
        return WalkResult::advance();
      const auto *type = dyn_cast_or_null<TupleType>(tuple->getCheckedType().get());
      if (!type || item->getIndex() >= type->getFields().size()) {
        error = makeError(e->getLoc(), "cannot specialise: a projection of a "
                                       "value that is not a tuple");
        return WalkResult::advance();
      }
      memo[e] = TupleGetItem::get(tuple, item->getIndex(), e->getLoc(),
                                  type->getFields()[item->getIndex()]);
      return WalkResult::advance();
    }
    error = makeError(e->getLoc(), "cannot specialise: a primitive function's "
                                   "body must be dataflow of operator calls");
    return WalkResult::advance();
  });
  if (error)
    return error;
  return get(root);
}

Expected<Ref<Expr>> nnir::typeDataflow(const Ref<Expr> &expr) {
  DenseMap<const Expr *, Ref<Expr>> memo;
  return retype(expr, memo);
}

Expected<Ref<Function>>
nnir::specializeFunction(const Function &fn, ArrayRef<Ref<Type>> paramTypes) {
  assert(paramTypes.size() == fn.getNumParams() && "one type per parameter");
  DenseMap<const Expr *, Ref<Expr>> memo;
  std::vector<Ref<Var>> params;
  for (size_t i = 0, e = paramTypes.size(); i != e; ++i) {
    const Var &param = *fn.getParam(i);
    params.push_back(Var::get(param.getNameHint(), paramTypes[i],
                              param.getLoc(), paramTypes[i]));
    memo[&param] = params.back();
  }
  Expected<Ref<Expr>> body = retype(fn.getBody(), memo);
  if (!body)
    return body.takeError();
  Ref<Type> result = (*body)->getCheckedType();
  return Function::get(params, *body, result, fn.getAttrs(), fn.getLoc());
}
