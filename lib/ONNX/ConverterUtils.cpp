//===- ConverterUtils.cpp - Building blocks of the converters -------------===//
//
/// \file
/// The building blocks Converters.h declares, shared by the converter files.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace nnir {
namespace onnximport {

int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

Expected<Value> reshape(NodeContext &ctx, const Value &x,
                        ArrayRef<int64_t> shape) {
  if (x.shape() == shape)
    return x;
  // Relay's reshape reads a 0 in newshape as "copy the input's extent"; a
  // result with a zero extent has no elements to move, so it is a constant.
  if (is_contained(shape, 0))
    return ctx.typed(
        ops::zeros(IntList(shape.begin(), shape.end()), x.dtype()));
  return ctx.typed(ops::reshape(x, IntList(shape.begin(), shape.end())));
}

Expected<Value> cast(NodeContext &ctx, const Value &x, DataType dtype) {
  if (x.dtype() == dtype)
    return x;
  return ctx.typed(ops::cast(x, dtype));
}

Value scalarLike(NodeContext &ctx, const Value &x, double v) {
  return ctx.scalar(x.dtype(), v);
}

Expected<Value> sliceAxis(NodeContext &ctx, const Value &x, int64_t axis,
                          int64_t begin, int64_t end) {
  return ctx.typed(ops::stridedSlice(x, {begin}, {end}, {1}, {axis}));
}

Expected<Value> contractAxis(NodeContext &ctx, const Value &x, int64_t axis,
                             int64_t out, ArrayRef<double> weights) {
  int64_t rank = x.rank(), in = x.shape()[axis];
  if (rank > 25)
    return ctx.unsupported("a tensor of rank above 25 here");
  TRY(matrix, NDArray::create(x.dtype(), {out, in}));
  for (size_t k = 0; k < weights.size(); ++k)
    matrix.setElementFromDouble(k, weights[k]);
  std::string letters;
  for (int64_t a = 0; a < rank; ++a)
    letters += char('a' + a);
  std::string result = letters;
  result[axis] = 'z';
  std::string equation = letters + ",z" + letters[axis] + "->" + result;
  return ctx.typed(
      ops::einsum(ctx.tuple({x, ctx.constant(matrix)}), equation));
}

Expected<std::vector<int64_t>>
broadcastShapes(NodeContext &ctx, ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return ctx.error(formatv("shapes cannot be broadcast: dimension {0} "
                               "vs {1}",
                               da, db)
                           .str());
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Expected<Value> broadcastTo(NodeContext &ctx, const Value &x,
                            ArrayRef<int64_t> shape) {
  if (x.shape() == shape)
    return x;
  return ctx.typed(ops::broadcastTo(x, IntList(shape.begin(), shape.end())));
}

Expected<std::optional<std::vector<int64_t>>> axesOperand(NodeContext &ctx,
                                                          int64_t inputSince) {
  if (ctx.getOpset() < inputSince)
    return ctx.getOptInts("axes");
  if (!ctx.hasInput(1))
    return std::nullopt;
  TRY(axes, ctx.constantInts(1, "axes"));
  return std::optional<std::vector<int64_t>>(axes);
}

} // namespace onnximport
} // namespace nnir
