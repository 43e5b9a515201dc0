//===- SimplifyInference.cpp - Normalisation ops to arithmetic ------------===//
//
/// \file
/// Implements SimplifyInference (see SimplifyInference.h) as an ExprMutator
/// whose post-order hooks replace each normalisation call, so deep graphs
/// are rewritten without recursion.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/SimplifyInference.h"
#include "nnir/Transforms/Passes.h"

#include "PatternUtils.h"

#include "nnir/IR/ExprMutator.h"
#include "nnir/Ops/Attrs.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::patterns;

namespace {

/// The operators the rewrite matches or builds.
constexpr StringRef kOpNames[] = {"nn.batch_norm",
                                  "nn.dropout",
                                  "nn.layer_norm",
                                  "nn.group_norm",
                                  "nn.instance_norm",
                                  "nn.l2_normalize",
                                  "add",
                                  "subtract",
                                  "multiply",
                                  "divide",
                                  "sqrt",
                                  "negative",
                                  "maximum",
                                  "sum",
                                  "mean",
                                  "variance",
                                  "reshape",
                                  "expand_dims"};

/// A 0-d constant of \p dtype holding \p value rounded to float32, as Relay's
/// MakeConstantScalar(dtype, static_cast<float>(value)).
Ref<Expr> makeEpsilon(DataType dtype, double value) {
  return Constant::getScalar(dtype,
                             static_cast<double>(static_cast<float>(value)));
}

/// The normalised axis of a rank-\p rank tensor.
int64_t normalizeAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// True if every extent of \p type is known.
bool isStatic(const TensorType &type) {
  return llvm::all_of(type.getShape(), [](int64_t d) { return d >= 0; });
}

class InferenceSimplifier : public ExprMutator {
public:
  explicit InferenceSimplifier(OpSet ops) : ops(std::move(ops)) {}

  Ref<Expr> rewriteTupleGetItem(TupleGetItem *pre,
                                TupleGetItem *post) override {
    if (post->getIndex() != 0)
      return post;
    const auto *call = dyn_cast<Call>(post->getTuple().get());
    if (!call)
      return post;
    Op *op = call->getCalledOp();
    if (op == ops["nn.dropout"]) {
      ++numRewritten;
      return call->getArg(0);
    }
    if (op != ops["nn.batch_norm"] || call->getNumArgs() != 5)
      return post;
    // The data's type, from the original call (rebuilt nodes lose theirs).
    const auto *original = dyn_cast<Call>(pre->getTuple().get());
    const TensorType *type =
        original ? getTensorType(original->getArg(0).get()) : nullptr;
    const auto *attrs = getAttrsAs<BatchNormAttrs>(*call);
    if (!type || !attrs)
      return post;
    ++numRewritten;
    return batchNorm(*call, *attrs, *type, post->getLoc());
  }

  Ref<Expr> rewriteCall(Call *pre, Call *post) override {
    Op *op = post->getCalledOp();
    if (!op || post->getNumArgs() == 0)
      return post;
    const TensorType *type = getTensorType(pre->getArg(0).get());
    if (!type)
      return post;
    Ref<Expr> result;
    if (op == ops["nn.layer_norm"]) {
      if (const auto *attrs = getAttrsAs<LayerNormAttrs>(*post))
        result = layerNorm(*post, *attrs, *type);
    } else if (op == ops["nn.group_norm"]) {
      if (const auto *attrs = getAttrsAs<GroupNormAttrs>(*post))
        result = groupNorm(*post, *attrs, *type);
    } else if (op == ops["nn.instance_norm"]) {
      if (const auto *attrs = getAttrsAs<InstanceNormAttrs>(*post))
        result = instanceNorm(*post, *attrs, *type);
    } else if (op == ops["nn.l2_normalize"]) {
      if (const auto *attrs = getAttrsAs<L2NormalizeAttrs>(*post))
        result = l2Normalize(*post, *attrs, *type);
    }
    if (!result)
      return post;
    ++numRewritten;
    return result;
  }

  int64_t numRewritten = 0;

private:
  /// `data * scale + shift` (Relay's BatchNormToInferUnpack).
  Ref<Expr> batchNorm(const Call &call, const BatchNormAttrs &attrs,
                      const TensorType &type, SMLoc loc) {
    DataType dtype = type.getDType();
    Ref<Expr> varAddEps =
        ops::add(call.getArg(4), makeEpsilon(dtype, attrs.epsilon), loc);
    Ref<Expr> sqrtVar = ops::sqrt(varAddEps, loc);
    Ref<Expr> scale =
        ops::divide(Constant::getScalar(dtype, 1.0), sqrtVar, loc);
    if (attrs.scale)
      scale = ops::multiply(scale, call.getArg(1), loc);
    Ref<Expr> negMean = ops::negative(call.getArg(3), loc);
    Ref<Expr> shift = ops::multiply(negMean, scale, loc);
    if (attrs.center)
      shift = ops::add(shift, call.getArg(2), loc);
    int64_t rank = type.getRank();
    int64_t axis = normalizeAxis(attrs.axis, rank);
    scale = expandBiasToMatchAxis(scale, rank, {axis}, loc);
    shift = expandBiasToMatchAxis(shift, rank, {axis}, loc);
    return ops::add(ops::multiply(call.getArg(0), scale, loc), shift, loc);
  }

  /// `(data - mean) / sqrt(variance + eps)` over \p axes.
  Ref<Expr> normalize(Ref<Expr> data, std::vector<int64_t> axes, double epsilon,
                      DataType dtype, SMLoc loc) {
    Ref<Expr> mean = ops::mean(data, axes, true, loc);
    Ref<Expr> var = ops::variance(data, mean, axes, true, loc);
    Ref<Expr> denom =
        ops::sqrt(ops::add(var, makeEpsilon(dtype, epsilon), loc), loc);
    return ops::divide(ops::subtract(data, mean, loc), denom, loc);
  }

  /// Multiplies by gamma and adds beta along \p axis, by the flags.
  Ref<Expr> scaleAndCenter(Ref<Expr> out, const Call &call, bool scale,
                           bool center, int64_t rank, int64_t axis, SMLoc loc) {
    if (scale)
      out = ops::multiply(
          out, expandBiasToMatchAxis(call.getArg(1), rank, {axis}, loc), loc);
    if (center)
      out = ops::add(
          out, expandBiasToMatchAxis(call.getArg(2), rank, {axis}, loc), loc);
    return out;
  }

  Ref<Expr> layerNorm(const Call &call, const LayerNormAttrs &attrs,
                      const TensorType &type) {
    SMLoc loc = call.getLoc();
    int64_t rank = type.getRank();
    Ref<Expr> out = normalize(call.getArg(0), {attrs.axis}, attrs.epsilon,
                              type.getDType(), loc);
    return scaleAndCenter(out, call, attrs.scale, attrs.center, rank,
                          normalizeAxis(attrs.axis, rank), loc);
  }

  Ref<Expr> instanceNorm(const Call &call, const InstanceNormAttrs &attrs,
                         const TensorType &type) {
    SMLoc loc = call.getLoc();
    int64_t rank = type.getRank();
    int64_t axis = normalizeAxis(attrs.axis, rank);
    std::vector<int64_t> reduced;
    for (int64_t i = 1; i < rank; ++i)
      if (i != axis)
        reduced.push_back(i);
    Ref<Expr> out = normalize(call.getArg(0), std::move(reduced), attrs.epsilon,
                              type.getDType(), loc);
    return scaleAndCenter(out, call, attrs.scale, attrs.center, rank, axis,
                          loc);
  }

  /// Reshapes (N, C, H, W) to (N, G, C / G, H, W), normalises over the axes
  /// after G, and reshapes back. Null when the shape is not static or the
  /// groups do not divide the channels.
  Ref<Expr> groupNorm(const Call &call, const GroupNormAttrs &attrs,
                      const TensorType &type) {
    SMLoc loc = call.getLoc();
    int64_t rank = type.getRank();
    int64_t axis = normalizeAxis(attrs.axis, rank);
    if (!isStatic(type) || axis < 0 || axis >= rank || attrs.numGroups <= 0 ||
        type.getShape()[axis] % attrs.numGroups != 0)
      return nullptr;
    std::vector<int64_t> oldShape(type.getShape().begin(),
                                  type.getShape().end());
    std::vector<int64_t> newShape, reduced;
    for (int64_t i = 0; i < rank; ++i) {
      if (i == axis) {
        newShape.push_back(attrs.numGroups);
        newShape.push_back(oldShape[i] / attrs.numGroups);
        reduced.push_back(i + 1);
        continue;
      }
      if (i > axis)
        reduced.push_back(i + 1);
      newShape.push_back(oldShape[i]);
    }
    Ref<Expr> data = ops::reshape(call.getArg(0), std::move(newShape), loc);
    Ref<Expr> out = normalize(data, std::move(reduced), attrs.epsilon,
                              type.getDType(), loc);
    out = ops::reshape(out, std::move(oldShape), loc);
    return scaleAndCenter(out, call, attrs.scale, attrs.center, rank, axis,
                          loc);
  }

  Ref<Expr> l2Normalize(const Call &call, const L2NormalizeAttrs &attrs,
                        const TensorType &type) {
    SMLoc loc = call.getLoc();
    const Ref<Expr> &data = call.getArg(0);
    Ref<Expr> sqr = ops::multiply(data, data, loc);
    Ref<Expr> sum = ops::maximum(ops::sum(sqr, attrs.axis, true, loc),
                                 makeEpsilon(type.getDType(), attrs.eps), loc);
    return ops::divide(data, ops::sqrt(sum, loc), loc);
  }

  OpSet ops;
};

} // namespace

Expected<Ref<Expr>> nnir::simplifyInference(Expr *expr, int64_t *numRewritten) {
  Expected<OpSet> ops = OpSet::get(kOpNames);
  if (!ops)
    return ops.takeError();
  InferenceSimplifier simplifier(std::move(*ops));
  Ref<Expr> result = simplifier.mutate(expr);
  if (numRewritten)
    *numRewritten += simplifier.numRewritten;
  return result;
}

Ref<Pass> nnir::createSimplifyInferencePass() {
  PassInfo info =
      getBuiltinPassInfo(BuiltinPass::SimplifyInference, {"InferType"});
  return createFunctionPass(
      [](Ref<Function> func, const IRModule &,
         PassContext &ctx) -> Expected<Ref<Function>> {
        int64_t count = 0;
        Expected<Ref<Expr>> result = simplifyInference(func.get(), &count);
        if (!result)
          return result.takeError();
        ctx.getStatistics().add("SimplifyInference", "num-simplified", count,
                                "Number of normalisation calls rewritten");
        return Ref<Function>(cast<Function>(result->get()));
      },
      std::move(info));
}
