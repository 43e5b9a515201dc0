//===- AlgorithmCompute.cpp - Computes of scans, sorts and einsum ---------===//
//
/// \file
/// cumsum, topk, argsort and sort are extern (structured) stages: a
/// sequential scan along the axis, and a rank-and-place selection shared by
/// the three sorts; einsum is one compute stage
/// (a sum of products over the contracted subscripts).
//
//===----------------------------------------------------------------------===//

#include "Einsum.h"

#include "nnir/IR/Type.h"
#include "nnir/Ops/AlgorithmAttrs.h"
#include "nnir/Ops/Compute.h"
#include "nnir/TE/Stmt.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::te;

static const TensorType &tensorResult(const nnir::Type *type, unsigned i) {
  if (const auto *tuple = dyn_cast<TupleType>(type))
    return *cast<TensorType>(tuple->getField(i));
  return *cast<TensorType>(type);
}

/// cumsum: for every position off the axis, a sequential loop along it
/// (out[k] = out[k-1] + data[k], or data[k-1] when exclusive). Axis None
/// scans the data in row-major order.
static Expected<std::vector<te::Tensor>>
cumsumCompute(const ComputeArgs &args) {
  const auto *attrs = cast<ScanopAttrs>(args.attrs);
  const te::Tensor &data = args.arg(0);
  const TensorType &result = tensorResult(args.resultType, 0);
  DataType dtype = result.getDType();
  bool exclusive = attrs->exclusive.value_or(false);
  // The data's extents, or their product when the data is scanned flat.
  std::vector<te::Expr> outShape = data.getShape();
  if (!attrs->axis) {
    te::Expr size = 1;
    for (const te::Expr &e : data.getShape())
      size = size * e;
    outShape = {size};
  }
  if (outShape.size() != result.getRank())
    return computeError("the result has another rank than the scan");
  unsigned rank = outShape.size();
  unsigned axis = 0;
  if (attrs->axis)
    axis = *attrs->axis < 0 ? *attrs->axis + rank : *attrs->axis;
  auto read = [&](ArrayRef<te::Expr> at) {
    if (attrs->axis)
      return te::cast(dtype, data(at));
    return te::cast(dtype, data(unravel(at[0], data.getShape())));
  };
  return externOp(
      "cumsum", {data}, {{outShape, dtype}},
      [&](ArrayRef<te::Tensor>, ArrayRef<te::Tensor> outs) {
        const te::Tensor &out = outs[0];
        std::vector<te::Expr> outer(outShape);
        outer[axis] = 1;
        return forNest(outer, [&](ArrayRef<te::Expr> pos) {
          return forLoop(
              outShape[axis],
              [&](te::Expr k) {
                SmallVector<te::Expr, 4> at(pos.begin(), pos.end()),
                    prev(pos.begin(), pos.end());
                at[axis] = k;
                prev[axis] = k - 1;
                te::Expr first =
                    exclusive ? constant(dtype, 0) : read(at);
                te::Expr next = exclusive ? out(prev) + read(prev)
                                          : out(prev) + read(at);
                return ifThenElse(k == 0, store(out, at, first),
                                  store(out, at, next));
              },
              "k");
        });
      });
}

/// The order topk, argsort and sort share: element j of a row of \p data
/// goes to position rank(j), the number of elements before it in the order
/// (larger first, or smaller first when \p isAscend; equal values keep their
/// index order, as a stable sort), when that rank is below \p k (k < 1 keeps
/// them all). NaN compares as larger than every number (ascending: last;
/// descending: first), NaNs in index order. The outputs are the values when
/// \p values and the indices (as \p indexType) when \p indexType is not
/// void, in that order: one extern stage, O(n^2) per row.
static Expected<std::vector<te::Tensor>>
sortAlongAxis(StringRef name, const te::Tensor &data, int64_t axisAttr,
              int64_t k, bool isAscend, bool values, DataType indexType) {
  unsigned rank = data.getRank();
  unsigned axis = axisAttr < 0 ? axisAttr + rank : axisAttr;
  std::vector<te::Expr> shape(data.getShape());
  // Every element (k < 1) of an axis of any extent; the first k of a
  // static one.
  std::optional<int64_t> n = shape[axis].getConstInt();
  if (!n && k >= 1)
    return computeError("a static k needs a static extent on the axis");
  if (n && (k < 1 || k > *n))
    k = *n;
  te::Expr kept = n ? te::Expr(k) : shape[axis];
  std::vector<te::Expr> outShape(shape);
  outShape[axis] = kept;
  DataType dtype = data.getDType();
  bool floating = dtype.isFloatingPoint();
  // a before b in the order (a's index ia, b's index ib).
  auto before = [&](te::Expr a, te::Expr ia, te::Expr b, te::Expr ib) {
    te::Expr better = isAscend ? a < b : a > b;
    te::Expr equal = a == b;
    if (floating) {
      te::Expr aNaN = call(Intrinsic::IsNan, {a});
      te::Expr bNaN = call(Intrinsic::IsNan, {b});
      // NaN is the largest value: first when descending, last ascending.
      te::Expr nanFirst = isAscend ? logicalAnd(bNaN, logicalNot(aNaN))
                                   : logicalAnd(aNaN, logicalNot(bNaN));
      better = logicalOr(nanFirst,
                         logicalAnd(logicalNot(logicalOr(aNaN, bNaN)), better));
      equal = logicalOr(logicalAnd(aNaN, bNaN), equal);
    }
    return logicalOr(better, logicalAnd(equal, ia < ib));
  };
  std::vector<std::pair<std::vector<te::Expr>, DataType>> outputs;
  if (values)
    outputs.push_back({outShape, dtype});
  if (!indexType.isVoid())
    outputs.push_back({outShape, indexType});
  return externOp(
      name, {data}, outputs,
      [&](ArrayRef<te::Tensor>, ArrayRef<te::Tensor> bufs) {
        std::vector<te::Expr> outer(shape);
        outer[axis] = 1;
        return forNest(outer, [&](ArrayRef<te::Expr> pos) {
          return forLoop(
              shape[axis],
              [&](te::Expr j) {
                SmallVector<te::Expr, 4> at(pos.begin(), pos.end());
                at[axis] = j;
                IterVar m = reduceAxis(shape[axis], "m");
                SmallVector<te::Expr, 4> other(pos.begin(), pos.end());
                other[axis] = m.var;
                te::Expr position =
                    sum(select(before(data(other), m.var, data(at), j),
                               te::Expr(1), te::Expr(0)),
                        {m});
                SmallVector<te::Expr, 4> dst(pos.begin(), pos.end());
                dst[axis] = position;
                std::vector<Stmt> stores;
                if (values)
                  stores.push_back(store(bufs[0], dst, data(at)));
                if (!indexType.isVoid())
                  stores.push_back(
                      store(bufs.back(), dst, te::cast(indexType, j)));
                return ifThenElse(position < kept, seq(stores));
              },
              "j");
        });
      });
}

/// topk: the first k of the order (values, indices or both).
static Expected<std::vector<te::Tensor>> topkCompute(const ComputeArgs &args) {
  const auto *attrs = cast<TopKAttrs>(args.attrs);
  StringRef retType = attrs->retType;
  return sortAlongAxis("topk", args.arg(0), attrs->axis, attrs->k.value_or(0),
                       attrs->isAscend, retType != "indices",
                       retType == "values" ? DataType() : attrs->dtype);
}

/// argsort: every index of the order.
static Expected<std::vector<te::Tensor>>
argsortCompute(const ComputeArgs &args) {
  const auto *attrs = cast<ArgsortAttrs>(args.attrs);
  return sortAlongAxis("argsort", args.arg(0), attrs->axis, /*k=*/0,
                       attrs->isAscend, /*values=*/false, attrs->dtype);
}

/// sort: every value of the order.
static Expected<std::vector<te::Tensor>> sortCompute(const ComputeArgs &args) {
  const auto *attrs = cast<ArgsortAttrs>(args.attrs);
  return sortAlongAxis("sort", args.arg(0), attrs->axis, /*k=*/0,
                       attrs->isAscend, /*values=*/true, DataType());
}

/// einsum: out[o] = sum over the contracted subscripts c of the product of
/// operand_i[its subscripts of (o, c)]; an ellipsis axis of extent 1 in an
/// operand reads index 0 (broadcast).
static Expected<std::vector<te::Tensor>>
einsumCompute(const ComputeArgs &args) {
  const auto *attrs = cast<EinsumAttrs>(args.attrs);
  ArrayRef<te::Tensor> operands = args.args[0];
  SmallVector<unsigned, 4> ranks;
  for (const te::Tensor &t : operands)
    ranks.push_back(t.getRank());
  Expected<EinsumSpec> spec = parseEinsum(attrs->equation, ranks);
  if (!spec)
    return spec.takeError();
  std::vector<te::Expr> extent(spec->numLabels);
  for (unsigned i = 0; i < operands.size(); ++i)
    for (unsigned a = 0; a < ranks[i]; ++a) {
      te::Expr &e = extent[spec->operands[i][a]];
      const te::Expr &d = operands[i].getShape()[a];
      // A `?` extent meets only itself: one of 1 at run time would
      // broadcast.
      if (e && !provablyEqual(e, d) &&
          (!e.getConstInt() || !d.getConstInt()))
        return computeError("a `?` extent of a subscript needs static "
                            "shapes");
      if (!e || e.isConstInt(1))
        e = d;
    }
  std::vector<te::Expr> derived;
  for (unsigned label : spec->output)
    derived.push_back(extent[label]);
  const TensorType &result = tensorResult(args.resultType, 0);
  if (derived.size() != result.getRank())
    return computeError("the result has another rank than the equation's");
  ComputeArgs resultArgs = args;
  resultArgs.resultType = &result;
  return std::vector<te::Tensor>{compute(
      resultArgs.getResultShape(derived),
      [&](ArrayRef<te::Expr> o) {
        std::vector<te::Expr> index(spec->numLabels);
        for (unsigned p = 0; p < spec->output.size(); ++p)
          index[spec->output[p]] = o[p];
        SmallVector<IterVar, 4> axes;
        for (unsigned label = 0; label < spec->numLabels; ++label)
          if (!index[label]) {
            axes.push_back(reduceAxis(extent[label], "c"));
            index[label] = axes.back().var;
          }
        te::Expr product;
        for (unsigned i = 0; i < operands.size(); ++i) {
          SmallVector<te::Expr, 4> at;
          for (unsigned a = 0; a < ranks[i]; ++a) {
            unsigned label = spec->operands[i][a];
            bool broadcast = spec->isEllipsis[label] &&
                             operands[i].getShape()[a].isConstInt(1);
            at.push_back(broadcast ? te::Expr(0) : index[label]);
          }
          te::Expr read = operands[i](at);
          product = product ? product * read : read;
        }
        if (axes.empty())
          return product;
        return sum(product, axes);
      },
      "einsum")};
}

void nnir::registerAlgorithmComputes() {
  setOpCompute("cumsum", cumsumCompute);
  setOpCompute("topk", topkCompute);
  setOpCompute("argsort", argsortCompute);
  setOpCompute("sort", sortCompute);
  setOpCompute("einsum", einsumCompute);
  // All derive their extents from their arguments' (topk and sort along a
  // `?` axis keep every element; a static k needs a static axis).
  markSymbolicShapes({"cumsum", "topk", "argsort", "sort", "einsum"});
}
