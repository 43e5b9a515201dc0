//===- ConverterUtils.cpp - Building blocks of the converters -------------===//
//
/// \file
/// The building blocks Converters.h declares, shared by the converter files.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "nnir/Ops/DataMovementAttrs.h"
#include "nnir/Ops/ElementwiseAttrs.h"
#include "nnir/Ops/TypeRelations.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace nnir {
namespace onnximport {

int64_t product(ArrayRef<int64_t> dims) {
  if (is_contained(dims, 0))
    return 0;
  if (is_contained(dims, kAnyDim))
    return kAnyDim;
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

Expected<Value> reshape(NodeContext &ctx, const Value &x,
                        ArrayRef<int64_t> shape) {
  if (x.shape() == shape)
    return x;
  if (!isStaticShape(shape)) {
    // One `?` is what the static extents leave (Relay's -1); with more, the
    // caller builds the call that keeps them (expand_dims, reshape_like).
    if (llvm::count(shape, kAnyDim) > 1 || is_contained(shape, 0))
      return ctx.error("reshaping " + x.type().str() + " to " +
                       formatIntList(shape) +
                       " needs static extents: at most one of the new "
                       "extents may be dynamic, and none zero");
    return ctx.typed(ops::reshape(x, IntList(shape.begin(), shape.end())));
  }
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

/// symbolicInts() of \p e, at most \p depth calls deep.
static std::optional<std::vector<SymbolicInt>>
symbolicIntsOf(const Expr *e, unsigned depth) {
  using Ints = std::vector<SymbolicInt>;
  if (const auto *c = dyn_cast<Constant>(e)) {
    const NDArray &data = c->getData();
    if (data.getRank() > 1 || !data.getDType().isInteger() ||
        data.getNumElements() > 64)
      return std::nullopt;
    Ints out;
    for (int64_t i = 0, n = data.getNumElements(); i < n; ++i)
      out.push_back({data.getElementAsInt(i)});
    return out;
  }
  const auto *call = dyn_cast<Call>(e);
  const Op *op = call ? call->getCalledOp() : nullptr;
  if (!op || depth == 0 || call->getArgs().empty())
    return std::nullopt;
  StringRef name = op->getName();
  const Expr *arg = call->getArgs()[0].get();
  if (name == "shape_of") {
    const auto *type = dyn_cast_or_null<TensorType>(arg->getCheckedType().get());
    if (!type)
      return std::nullopt;
    Ints out;
    for (int64_t d = 0, r = type->getRank(); d < r; ++d)
      out.push_back(isAnyDim(type->getShape()[d])
                        ? SymbolicInt{0, arg, d}
                        : SymbolicInt{type->getShape()[d]});
    return out;
  }
  if (name == "concatenate") {
    const auto *fields = dyn_cast<Tuple>(arg);
    if (!fields)
      return std::nullopt;
    Ints out;
    for (const Ref<Expr> &field : fields->getFields()) {
      std::optional<Ints> part = symbolicIntsOf(field.get(), depth - 1);
      if (!part)
        return std::nullopt;
      out.insert(out.end(), part->begin(), part->end());
    }
    return out;
  }
  std::optional<Ints> in = symbolicIntsOf(arg, depth - 1);
  if (!in)
    return std::nullopt;
  // Integer casts, and the reshapes of a vector or a scalar, keep the
  // elements.
  if (name == "cast") {
    const auto *attrs = call->getAttrsAs<CastAttrs>();
    return attrs && attrs->dtype.isInteger() ? in : std::nullopt;
  }
  if (name == "reshape" || name == "expand_dims" || name == "squeeze")
    return in;
  int64_t n = in->size();
  if (name == "strided_slice") {
    const auto *attrs = call->getAttrsAs<StridedSliceAttrs>();
    if (!attrs || !attrs->begin || !attrs->end || attrs->begin->size() != 1 ||
        attrs->end->size() != 1 || attrs->sliceMode != "end" ||
        (attrs->strides && (attrs->strides->size() != 1 ||
                            (*attrs->strides)[0] != 1)) ||
        (attrs->axes && (attrs->axes->size() != 1 || (*attrs->axes)[0] != 0)))
      return std::nullopt;
    auto bound = [&](std::optional<int64_t> v, int64_t def) {
      int64_t b = v ? *v : def;
      if (b < 0)
        b = std::max<int64_t>(b, -n) + n;
      return std::min(b, n);
    };
    int64_t begin = bound((*attrs->begin)[0], 0),
            end = bound((*attrs->end)[0], n);
    if (end <= begin)
      return Ints();
    return Ints(in->begin() + begin, in->begin() + end);
  }
  if (name == "take" && call->getArgs().size() == 2) {
    const auto *attrs = call->getAttrsAs<TakeAttrs>();
    std::optional<Ints> indices =
        symbolicIntsOf(call->getArgs()[1].get(), depth - 1);
    if (!attrs || !attrs->axis || *attrs->axis != 0 || !indices)
      return std::nullopt;
    Ints out;
    for (const SymbolicInt &index : *indices) {
      int64_t i = index.value < 0 ? index.value + n : index.value;
      if (!index.isKnown() || i < 0 || i >= n)
        return std::nullopt;
      out.push_back((*in)[i]);
    }
    return out;
  }
  return std::nullopt;
}

std::optional<std::vector<SymbolicInt>> symbolicInts(const Value &v) {
  if (!v.isTensor() || v.rank() > 1 || !v.dtype().isInteger())
    return std::nullopt;
  return symbolicIntsOf(v.expr.get(), 16);
}

Value foldKnownInts(NodeContext &ctx, const Value &v) {
  if (v.constant)
    return v;
  std::optional<std::vector<SymbolicInt>> elements = symbolicInts(v);
  if (!elements || !all_of(*elements, [](const SymbolicInt &e) {
        return e.isKnown();
      }))
    return v;
  Expected<NDArray> array = NDArray::create(v.dtype(), v.shape());
  if (!array) {
    consumeError(array.takeError());
    return v;
  }
  for (size_t i = 0; i < elements->size(); ++i)
    array->setElementFromInt(i, (*elements)[i].value);
  return ctx.constant(std::move(*array));
}

} // namespace onnximport
} // namespace nnir
