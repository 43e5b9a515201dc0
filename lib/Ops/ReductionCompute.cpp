//===- ReductionCompute.cpp - Computes of the reduction operators ---------===//
//
/// \file
/// The TE computes of sum, mean, max, min, prod, all, any, argmax, argmin and
/// variance: the example of a *reduction* compute. The output keeps the
/// non-reduced axes (or size-1 axes with keepdims); each element reduces the
/// input over te::reduceAxis variables, one per reduced axis.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"
#include "nnir/IR/Type.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Compute.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::te;

/// The reduced axes of a rank-\p rank input (see Reduction.cpp).
static SmallBitVector
reducedAxes(unsigned rank, const std::optional<IntList> &axis, bool exclude) {
  SmallBitVector reduced(rank);
  if (!axis || axis->empty()) {
    reduced.set();
    return reduced;
  }
  for (int64_t a : *axis)
    reduced.set(a < 0 ? a + rank : a);
  if (exclude)
    reduced.flip();
  return reduced;
}

/// out(i) = reduce(in(kept i, reduced k)) over the reduced axes.
static te::Tensor reduceCompute(
    const te::Tensor &data, const SmallBitVector &reduced, bool keepdims,
    function_ref<te::Expr(ArrayRef<te::Expr> inIndex, ArrayRef<IterVar> axes)>
        body) {
  std::vector<te::Expr> shape;
  for (unsigned i = 0; i < data.getRank(); ++i)
    if (!reduced.test(i))
      shape.push_back(data.getShape()[i]);
    else if (keepdims)
      shape.push_back(1);
  return compute(
      shape,
      [&](ArrayRef<te::Expr> out) {
        SmallVector<IterVar, 4> axes;
        SmallVector<te::Expr, 4> in;
        unsigned o = 0;
        for (unsigned i = 0; i < data.getRank(); ++i) {
          if (reduced.test(i)) {
            axes.push_back(reduceAxis(data.getShape()[i], "k"));
            in.push_back(axes.back().var);
            if (keepdims)
              ++o;
          } else {
            in.push_back(out[o++]);
          }
        }
        return body(in, axes);
      },
      "reduce");
}

/// The number of elements reduced, as a value of \p dtype.
static te::Expr reducedCount(const te::Tensor &data,
                             const SmallBitVector &reduced, DataType dtype) {
  te::Expr count = 1;
  for (unsigned i = 0; i < data.getRank(); ++i)
    if (reduced.test(i))
      count = count * data.getShape()[i];
  return te::cast(dtype, count);
}

static TECompute simpleReduce(ReduceKind kind, bool mean = false) {
  return [kind,
          mean](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
    const auto *attrs = llvm::cast<ReduceAttrs>(args.attrs);
    const te::Tensor &data = args.arg(0);
    SmallBitVector reduced =
        reducedAxes(data.getRank(), attrs->axis, attrs->exclude);
    DataType dtype = data.getDType(), accType = getAccumulationType(dtype);
    te::Tensor out = reduceCompute(
        data, reduced, attrs->keepdims,
        [&](ArrayRef<te::Expr> in, ArrayRef<IterVar> axes) {
          if (!mean)
            return reduce(kind, data(in), axes);
          te::Expr total = reduce(kind, te::cast(accType, data(in)), axes);
          return te::cast(dtype, total / reducedCount(data, reduced, accType));
        });
    return std::vector<te::Tensor>{out};
  };
}

static TECompute argReduce(ReduceKind kind) {
  return [kind](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
    const auto *attrs = llvm::cast<ArgReduceAttrs>(args.attrs);
    const te::Tensor &data = args.arg(0);
    DataType indexType = llvm::cast<TensorType>(args.resultType)->getDType();
    SmallBitVector reduced =
        reducedAxes(data.getRank(), attrs->axis, attrs->exclude);
    te::Tensor out =
        reduceCompute(data, reduced, attrs->keepdims,
                      [&](ArrayRef<te::Expr> in, ArrayRef<IterVar> axes) {
                        return reduce(kind, data(in), axes, te::Expr(),
                                      attrs->selectLastIndex, indexType);
                      });
    return std::vector<te::Tensor>{out};
  };
}

void nnir::registerReductionComputes() {
  auto set = [](StringRef name, TECompute compute) {
    setOpCompute(name, std::move(compute));
  };
  set("sum", simpleReduce(ReduceKind::Sum));
  set("mean", simpleReduce(ReduceKind::Sum, /*mean=*/true));
  set("prod", simpleReduce(ReduceKind::Prod));
  set("max", simpleReduce(ReduceKind::Max));
  set("min", simpleReduce(ReduceKind::Min));
  set("all", simpleReduce(ReduceKind::All));
  set("any", simpleReduce(ReduceKind::Any));
  set("argmax", argReduce(ReduceKind::ArgMax));
  set("argmin", argReduce(ReduceKind::ArgMin));
  // variance(data, mean): sum((data - mean)^2) / (N or N - 1), mean read
  // with the reduced axes kept (its shape has them as 1 or dropped).
  markSymbolicShapes({"sum", "mean", "prod", "max", "min", "all", "any",
                      "argmax", "argmin", "variance"});
  set("variance",
      [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
        const auto *attrs = llvm::cast<VarianceAttrs>(args.attrs);
        const te::Tensor &data = args.arg(0);
        const te::Tensor &mean = args.arg(1);
        SmallBitVector reduced =
            reducedAxes(data.getRank(), attrs->axis, attrs->exclude);
        bool meanKeepsDims = mean.getRank() == data.getRank();
        te::Tensor out = reduceCompute(
            data, reduced, attrs->keepdims,
            [&](ArrayRef<te::Expr> in, ArrayRef<IterVar> axes) {
              SmallVector<te::Expr, 4> m;
              for (unsigned i = 0; i < data.getRank(); ++i)
                if (!reduced.test(i))
                  m.push_back(in[i]);
                else if (meanKeepsDims)
                  m.push_back(0);
              DataType dtype = data.getDType();
              DataType accType = getAccumulationType(dtype);
              te::Expr d =
                  te::cast(accType, data(in)) - te::cast(accType, mean(m));
              te::Expr n = reducedCount(data, reduced, accType);
              if (attrs->unbiased)
                n = n - constant(accType, 1);
              return te::cast(dtype, reduce(ReduceKind::Sum, d * d, axes) / n);
            });
        return std::vector<te::Tensor>{out};
      });
}
