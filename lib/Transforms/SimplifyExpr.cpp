//===- SimplifyExpr.cpp - Algebraic simplifications -----------------------===//
//
/// \file
/// Implements SimplifyExpr (see SimplifyExpr.h): an ExprMutator whose
/// post-order call hook applies the rewrites. Rewritten and rebuilt nodes
/// have no checked type yet, so the walk records the type of every node it
/// returns (the type of the node it replaces) for the rewrites above it.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/SimplifyExpr.h"
#include "nnir/Transforms/Passes.h"

#include "PatternUtils.h"

#include "nnir/IR/ExprMutator.h"
#include "nnir/Ops/Attrs.h"

#include "llvm/ADT/DenseMap.h"

#include <cmath>

using namespace llvm;
using namespace nnir;
using namespace nnir::patterns;

namespace {

constexpr StringRef kOpNames[] = {
    "reshape", "transpose", "add",   "subtract", "multiply",   "divide",
    "cast",    "cast_like", "zeros", "ones",     "zeros_like", "ones_like"};

/// The axis order of a transpose of a rank-\p rank tensor (no axes: the
/// reverse order), or nothing when the attributes do not describe one.
std::optional<std::vector<int64_t>> getTransposeOrder(const Call &call,
                                                      int64_t rank) {
  const auto *attrs = getAttrsAs<TransposeAttrs>(call);
  if (!attrs)
    return std::nullopt;
  std::vector<int64_t> order;
  if (!attrs->axes || attrs->axes->empty()) {
    for (int64_t i = rank - 1; i >= 0; --i)
      order.push_back(i);
    return order;
  }
  if (static_cast<int64_t>(attrs->axes->size()) != rank)
    return std::nullopt;
  for (int64_t axis : *attrs->axes)
    order.push_back(axis < 0 ? axis + rank : axis);
  return order;
}

bool isIdentityOrder(ArrayRef<int64_t> order) {
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i] != static_cast<int64_t>(i))
      return false;
  return true;
}

/// True if \p e is a constant holding one value (however it is shaped)
/// that \p pred accepts.
bool isUniformConstant(const Expr *e, bool (*pred)(double)) {
  const auto *constant = dyn_cast<Constant>(e);
  if (!constant || constant->getData().getNumElements() == 0)
    return false;
  const NDArray &data = constant->getData();
  double first = data.getElementAsDouble(0);
  for (int64_t i = 1, n = data.getNumElements(); i < n; ++i)
    if (data.getElementAsDouble(i) != first)
      return false;
  return pred(first);
}

/// argmax, argmin or argsort of qnn.dequantize(x, scale, zero_point) -> the
/// same of x (TVM's SimplifyDQArgFunc): dequantizing is increasing, so the
/// positions are those of x. Unlike TVM, only when that holds: one positive
/// constant scale and one constant zero point (a per-channel or negative
/// scale changes the order). Null when the rewrite does not apply.
Ref<Expr> simplifyDequantizeArg(const Call &post) {
  static const Op *dequantize = Op::lookup("qnn.dequantize");
  static const Op *argOps[] = {Op::lookup("argmax"), Op::lookup("argmin"),
                               Op::lookup("argsort")};
  Op *op = post.getCalledOp();
  if (!op || !dequantize || !llvm::is_contained(argOps, op) ||
      post.getNumArgs() != 1)
    return nullptr;
  const auto *dq = dyn_cast<Call>(post.getArg(0).get());
  if (!dq || dq->getCalledOp() != dequantize || dq->getNumArgs() != 3 ||
      !isUniformConstant(dq->getArg(1).get(),
                         [](double scale) { return scale > 0; }) ||
      !isUniformConstant(dq->getArg(2).get(), [](double) { return true; }))
    return nullptr;
  return Call::get(post.getCallee(), {dq->getArg(0)}, post.getAttrs(),
                   post.getLoc());
}

class ExprSimplifier : public ExprMutator {
public:
  explicit ExprSimplifier(OpSet ops) : ops(std::move(ops)) {}

  Ref<Expr> rewriteCall(Call *pre, Call *post) override {
    Ref<Expr> result = simplify(*pre, post);
    if (result.get() != post)
      ++numSimplified;
    return record(pre, std::move(result));
  }
  Ref<Expr> rewriteTuple(Tuple *pre, Tuple *post) override {
    return record(pre, post);
  }
  Ref<Expr> rewriteTupleGetItem(TupleGetItem *pre,
                                TupleGetItem *post) override {
    return record(pre, post);
  }
  Ref<Expr> rewriteLet(Let *pre, Let *post) override {
    return record(pre, post);
  }

  int64_t numSimplified = 0;

private:
  /// Notes that \p result has the type of \p pre.
  Ref<Expr> record(Expr *pre, Ref<Expr> result) {
    if (!result->getCheckedType() && pre->getCheckedType())
      types[result.get()] = pre->getCheckedType().get();
    return result;
  }

  const Type *typeOf(const Expr *e) const {
    if (const Ref<Type> &type = e->getCheckedType())
      return type.get();
    return types.lookup(e);
  }

  const TensorType *tensorTypeOf(const Expr *e) const {
    return dyn_cast_or_null<TensorType>(typeOf(e));
  }

  Ref<Expr> simplify(const Call &pre, Call *post) {
    Op *op = post->getCalledOp();
    const TensorType *type =
        dyn_cast_or_null<TensorType>(pre.getCheckedType().get());
    if (!op || !type || post->getNumArgs() == 0)
      return post;
    if (Ref<Expr> simplified = simplifyDequantizeArg(*post))
      return simplified;
    if (op == ops["reshape"])
      return simplifyReshape(*post, pre.getCheckedType());
    if (op == ops["transpose"])
      return simplifyTranspose(*post, pre.getCheckedType());
    if (op == ops["cast"] || op == ops["cast_like"]) {
      const TensorType *data = tensorTypeOf(post->getArg(0).get());
      return data && data->getDType() == type->getDType() ? post->getArg(0)
                                                          : post;
    }
    bool isAdd = op == ops["add"], isMultiply = op == ops["multiply"];
    if (isAdd || isMultiply || op == ops["subtract"] || op == ops["divide"]) {
      if (post->getNumArgs() != 2)
        return post;
      // The identity of the operation, exact for every x: x + (-0) is x
      // where x + (+0) turns x = -0 into +0, and x - (+0) is x where
      // x - (-0) turns -0 into +0 (integers have one zero, so either sign
      // matches theirs); x * 1 and x / 1 are x, inf and nan included.
      double identity = isAdd ? -0.0 : op == ops["subtract"] ? 0.0 : 1.0;
      // x op identity, and identity op x for the commutative ones.
      if (isIdentity(post->getArg(1).get(), identity) &&
          hasType(post->getArg(0).get(), *type))
        return post->getArg(0);
      if ((isAdd || isMultiply) &&
          isIdentity(post->getArg(0).get(), identity) &&
          hasType(post->getArg(1).get(), *type))
        return post->getArg(1);
    }
    return post;
  }

  /// reshape(reshape(x)) -> reshape(x); a reshape to x's shape -> x.
  Ref<Expr> simplifyReshape(Call &post, const Ref<Type> &resultType) {
    const auto &type = cast<TensorType>(*resultType);
    Ref<Expr> data = post.getArg(0);
    if (const auto *inner = dyn_cast<Call>(data.get()))
      if (inner->getCalledOp() == ops["reshape"] && inner->getNumArgs() == 1)
        data = inner->getArg(0);
    if (hasType(data.get(), type))
      return data;
    if (data == post.getArg(0))
      return &post;
    if (llvm::any_of(type.getShape(), [](int64_t d) { return d < 0; }))
      return &post;
    Ref<ReshapeAttrs> attrs = ReshapeAttrs::create();
    attrs->newshape.assign(type.getShape().begin(), type.getShape().end());
    return Call::get(Ref<Expr>(ops["reshape"]), {data}, attrs, post.getLoc(),
                     resultType);
  }

  /// transpose(transpose(x)) -> one transpose; an identity transpose -> x.
  Ref<Expr> simplifyTranspose(Call &post, const Ref<Type> &resultType) {
    const auto &type = cast<TensorType>(*resultType);
    int64_t rank = type.getRank();
    std::optional<std::vector<int64_t>> order = getTransposeOrder(post, rank);
    if (!order)
      return &post;
    Ref<Expr> data = post.getArg(0);
    if (const auto *inner = dyn_cast<Call>(data.get()))
      if (inner->getCalledOp() == ops["transpose"])
        if (std::optional<std::vector<int64_t>> innerOrder =
                getTransposeOrder(*inner, rank)) {
          // out[i] = inner[outer[i]] in terms of the inner transpose's input.
          std::vector<int64_t> composed(rank);
          for (int64_t i = 0; i < rank; ++i)
            composed[i] = (*innerOrder)[(*order)[i]];
          order = std::move(composed);
          data = inner->getArg(0);
        }
    if (isIdentityOrder(*order))
      return data;
    if (data == post.getArg(0))
      return &post;
    Ref<TransposeAttrs> attrs = TransposeAttrs::create();
    attrs->axes = std::move(*order);
    return Call::get(Ref<Expr>(ops["transpose"]), {data}, attrs, post.getLoc(),
                     resultType);
  }

  bool hasType(const Expr *e, const TensorType &type) const {
    const Type *t = typeOf(e);
    return t && typesEqual(t, &type);
  }

  /// True if \p e is a constant whose every element is \p value, or a
  /// zeros/ones (_like) call of that value. Floating-point zeros match only
  /// with \p value's sign (zeros() makes +0); integer ones with either.
  bool isIdentity(const Expr *e, double value) const {
    auto matches = [&](double element, DataType dtype) {
      return element == value && (!dtype.isFloatingPoint() ||
                                  std::signbit(element) == std::signbit(value));
    };
    if (const auto *constant = dyn_cast<Constant>(e)) {
      const NDArray &data = constant->getData();
      // One value repeated (a splat): its first element decides.
      int64_t n = data.isRepeated() ? 1 : data.getNumElements();
      for (int64_t i = 0; i < n; ++i)
        if (!matches(data.getElementAsDouble(i), data.getDType()))
          return false;
      return true;
    }
    if (const auto *call = dyn_cast<Call>(e)) {
      Op *op = call->getCalledOp();
      bool zeros = op == ops["zeros"] || op == ops["zeros_like"];
      bool ones = op == ops["ones"] || op == ops["ones_like"];
      const TensorType *type = tensorTypeOf(call);
      if (!type || !(zeros || ones))
        return false;
      return matches(zeros ? 0.0 : 1.0, type->getDType());
    }
    return false;
  }

  OpSet ops;
  DenseMap<const Expr *, const Type *> types;
};

} // namespace

Expected<Ref<Expr>> nnir::simplifyExpr(Expr *expr, int64_t *numSimplified) {
  Expected<OpSet> ops = OpSet::get(kOpNames);
  if (!ops)
    return ops.takeError();
  ExprSimplifier simplifier(std::move(*ops));
  Ref<Expr> result = simplifier.mutate(expr);
  if (numSimplified)
    *numSimplified += simplifier.numSimplified;
  return result;
}

Ref<Pass> nnir::createSimplifyExprPass() {
  PassInfo info = getBuiltinPassInfo(BuiltinPass::SimplifyExpr, {"InferType"});
  return createFunctionPass(
      [](Ref<Function> func, const IRModule &,
         PassContext &ctx) -> Expected<Ref<Function>> {
        int64_t count = 0;
        Expected<Ref<Expr>> result = simplifyExpr(func.get(), &count);
        if (!result)
          return result.takeError();
        ctx.getStatistics().add("SimplifyExpr", "num-simplified", count,
                                "Number of calls simplified");
        return Ref<Function>(cast<Function>(result->get()));
      },
      std::move(info));
}
