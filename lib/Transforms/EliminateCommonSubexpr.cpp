//===- EliminateCommonSubexpr.cpp - Merge equal operator calls ------------===//
//
/// \file
/// Implements EliminateCommonSubexpr (see EliminateCommonSubexpr.h): an
/// ExprMutator whose post-order hooks look each rewritten call up in a table
/// of earlier calls of the same operator. The table is scoped: entries made
/// inside an if branch or a nested function are dropped when it is left.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/EliminateCommonSubexpr.h"
#include "nnir/Transforms/Passes.h"

#include "PatternUtils.h"

#include "nnir/IR/ExprMutator.h"
#include "nnir/IR/OpProperties.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallVector.h"

using namespace llvm;
using namespace nnir;

namespace {

class CommonSubexprEliminator : public ExprMutator {
public:
  explicit CommonSubexprEliminator(const CommonSubexprSkipFn &skip)
      : skip(skip) {}

  Ref<Expr> rewriteCall(Call *, Call *post) override {
    Op *op = post->getCalledOp();
    if (post->getNumArgs() == 0 || !op || isStatefulOp(op) || skipped(post))
      return post;
    hash_code key = hashCall(*post);
    auto it = table.find(key);
    if (it != table.end())
      for (const Ref<Expr> &candidate : it->second) {
        const auto *call = dyn_cast<Call>(candidate.get());
        if (!call || call->getCallee() != post->getCallee() ||
            call->getNumArgs() != post->getNumArgs() ||
            !attrsEqual(call->getAttrs().get(), post->getAttrs().get()))
          continue;
        bool equivalent = true;
        for (size_t i = 0, e = post->getNumArgs(); i != e && equivalent; ++i)
          equivalent =
              isEquivalent(post->getArg(i).get(), call->getArg(i).get());
        if (equivalent) {
          ++numMerged;
          return candidate;
        }
      }
    record(key, post);
    return post;
  }

  Ref<Expr> rewriteTupleGetItem(TupleGetItem *, TupleGetItem *post) override {
    if (skipped(post))
      return post;
    hash_code key = hash_combine(post->getTuple().get(), post->getIndex());
    auto it = table.find(key);
    if (it != table.end())
      for (const Ref<Expr> &candidate : it->second) {
        const auto *item = dyn_cast<TupleGetItem>(candidate.get());
        if (item && item->getTuple() == post->getTuple() &&
            item->getIndex() == post->getIndex()) {
          ++numMerged;
          return candidate;
        }
      }
    record(key, post);
    return post;
  }

  /// The branches are scopes of their own; the condition is not.
  Ref<Expr> visitIf(If *e) override {
    mutate(e->getCond().get());
    inScope([&] { mutate(e->getThen().get()); });
    inScope([&] { mutate(e->getElse().get()); });
    return ExprMutator::visitIf(e); // Rebuilds from the memoised results.
  }

  Ref<Expr> visitFunction(Function *e) override {
    Ref<Expr> result;
    inScope([&] { result = ExprMutator::visitFunction(e); });
    return result;
  }

  int64_t numMerged = 0;
  /// The first error of the skip predicate; once set, nothing more is
  /// merged.
  Error skipError = Error::success();

private:
  bool skipped(Expr *node) {
    if (!skip)
      return false;
    if (skipError)
      return true;
    Expected<bool> result = skip(Ref<Expr>(node));
    if (!result) {
      skipError = result.takeError();
      return true;
    }
    return *result;
  }

  const CommonSubexprSkipFn &skip;
  /// Relay's IsEquivalent: the same node or equal scalar constants; tuples
  /// field by field.
  static bool isEquivalent(const Expr *arg, const Expr *candidate) {
    const auto *tuple = dyn_cast<Tuple>(arg);
    const auto *candidateTuple = dyn_cast<Tuple>(candidate);
    if (tuple && candidateTuple) {
      if (tuple->size() != candidateTuple->size())
        return false;
      for (size_t i = 0, e = tuple->size(); i != e; ++i)
        if (!isSameOrEqualScalar(tuple->getField(i).get(),
                                 candidateTuple->getField(i).get()))
          return false;
      return true;
    }
    return isSameOrEqualScalar(arg, candidate);
  }

  static bool isSameOrEqualScalar(const Expr *a, const Expr *b) {
    return a == b || patterns::isEqualScalar(a, b);
  }

  /// A hash that equivalent calls share: the callee, the attributes, and
  /// per argument its identity, or its value for a scalar constant (tuple
  /// arguments field by field).
  static hash_code hashArg(const Expr *arg) {
    if (const auto *constant = dyn_cast<Constant>(arg))
      if (constant->isScalar()) {
        ArrayRef<uint8_t> bytes = constant->getData().getBytes();
        return hash_combine(unsigned(constant->getData().getDType().getCode()),
                            constant->getData().getDType().getBits(),
                            hash_combine_range(bytes.begin(), bytes.end()));
      }
    return hash_value(arg);
  }
  static hash_code hashCall(const Call &call) {
    hash_code h =
        hash_combine(call.getCallee().get(), hashAttrs(call.getAttrs().get()));
    for (const Ref<Expr> &arg : call.getArgs()) {
      if (const auto *tuple = dyn_cast<Tuple>(arg.get())) {
        h = hash_combine(h, tuple->size());
        for (const Ref<Expr> &field : tuple->getFields())
          h = hash_combine(h, hashArg(field.get()));
        continue;
      }
      h = hash_combine(h, hashArg(arg.get()));
    }
    return h;
  }

  void record(hash_code key, Ref<Expr> node) {
    table[key].push_back(std::move(node));
    undoLog.push_back(key);
  }

  /// Runs \p fn with a scope: the entries it records are removed after.
  template <typename Fn> void inScope(Fn fn) {
    size_t mark = undoLog.size();
    fn();
    while (undoLog.size() > mark)
      table[undoLog.pop_back_val()].pop_back();
  }

  /// Earlier calls and projections by hashCall / (tuple, index): a lookup
  /// compares only with candidates of the same hash, so a function of n
  /// calls of one operator takes O(n), not O(n^2) as in Relay.
  DenseMap<hash_code, SmallVector<Ref<Expr>, 1>> table;
  /// The keys of the entries, in the order they were recorded.
  SmallVector<hash_code, 64> undoLog;
};

} // namespace

Expected<Ref<Expr>>
nnir::eliminateCommonSubexpr(Expr *expr, int64_t *numMerged,
                             const CommonSubexprSkipFn &skip) {
  CommonSubexprEliminator eliminator(skip);
  Ref<Expr> result = eliminator.mutate(expr);
  if (eliminator.skipError)
    return std::move(eliminator.skipError);
  if (numMerged)
    *numMerged += eliminator.numMerged;
  return result;
}

Ref<Pass> nnir::createEliminateCommonSubexprPass() {
  return createEliminateCommonSubexprSkipping(nullptr);
}

Ref<Pass> nnir::createEliminateCommonSubexprSkipping(CommonSubexprSkipFn skip) {
  PassInfo info =
      getBuiltinPassInfo(BuiltinPass::EliminateCommonSubexpr, {"InferType"});
  return createFunctionPass(
      [skip = std::move(skip)](Ref<Function> func, const IRModule &,
                               PassContext &ctx) -> Expected<Ref<Function>> {
        int64_t count = 0;
        Expected<Ref<Expr>> result =
            eliminateCommonSubexpr(func.get(), &count, skip);
        if (!result)
          return result.takeError();
        ctx.getStatistics().add("EliminateCommonSubexpr", "num-merged", count,
                                "Number of expressions merged");
        return Ref<Function>(cast<Function>(result->get()));
      },
      std::move(info));
}
