//===- ConvertTensor.cpp - Constants, shapes and data movement ------------===//
//
/// \file
/// ONNX operators that make constants (Constant, Range, EyeLike, the windows),
/// fold shapes (Shape, Size) or move data (Reshape, Gather, Slice, Pad, ...).
/// Shape-valued inputs must be known at import time (NodeContext::
/// constantInts).
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "nnir/IR/Op.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstring>
#include <numeric>

using namespace llvm;

namespace nnir {
namespace onnximport {

//===----------------------------------------------------------------------===//
// Constants and shapes
//===----------------------------------------------------------------------===//

Result convertConstant(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(0, 0))
    return err;
  if (ctx.hasAttr("value")) {
    TRY(t, ctx.getTensor("value"));
    return one(ctx.constant(t));
  }
  if (ctx.hasAttr("value_float")) {
    TRY(v, ctx.getFloat("value_float", 0));
    return one(ctx.scalar(DataType::float32(), v));
  }
  if (ctx.hasAttr("value_int")) {
    TRY(v, ctx.getOptInt("value_int"));
    return one(ctx.scalar(DataType::int64(), *v));
  }
  if (ctx.hasAttr("value_ints")) {
    TRY(v, ctx.getInts("value_ints"));
    return one(ctx.int64Vector(v));
  }
  if (ctx.hasAttr("value_floats")) {
    TRY(v, ctx.getFloats("value_floats"));
    NDArray array = cantFail(
        NDArray::create(DataType::float32(), {static_cast<int64_t>(v.size())}));
    for (size_t i = 0; i < v.size(); ++i)
      array.setElementFromDouble(i, v[i]);
    return one(ctx.constant(array));
  }
  if (ctx.hasAttr("sparse_value"))
    return ctx.unsupported("sparse constants");
  if (ctx.hasAttr("value_string") || ctx.hasAttr("value_strings"))
    return ctx.unsupported("string constants");
  return ctx.error("has no value attribute");
}

Result convertShape(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  ArrayRef<int64_t> shape = ctx.input(0).shape();
  int64_t rank = shape.size();
  TRY(start, ctx.getInt("start", 0));
  TRY(endAttr, ctx.getOptInt("end"));
  int64_t end = endAttr ? *endAttr : rank;
  auto clampAxis = [&](int64_t a) {
    if (a < 0)
      a += rank;
    return std::min(std::max<int64_t>(a, 0), rank);
  };
  start = clampAxis(start);
  end = clampAxis(end);
  if (ctx.input(0).type().isDynamic()) {
    // A `?` extent is known at run time only: shape_of, which FoldConstant
    // leaves in place, sliced to [start, end).
    Ref<ShapeOfAttrs> attrs = ShapeOfAttrs::create();
    attrs->dtype = DataType::int64();
    TRY(all, ctx.typed(Call::get(Op::lookup("shape_of"), {ctx.input(0).expr},
                                 std::move(attrs))));
    if (start == 0 && end == rank)
      return one(all);
    TRY(part, ctx.typed(ops::stridedSlice(all, {start}, {end}, {1}, {0})));
    return one(part);
  }
  std::vector<int64_t> dims;
  for (int64_t i = start; i < end; ++i)
    dims.push_back(shape[i]);
  return one(ctx.int64Vector(dims));
}

Result convertSize(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  if (ctx.input(0).type().isDynamic()) {
    // Known at run time only, as Shape's shape_of.
    Ref<NdarraySizeAttrs> attrs = NdarraySizeAttrs::create();
    attrs->dtype = DataType::int64();
    TRY(size, ctx.typed(Call::get(Op::lookup("ndarray_size"),
                                  {ctx.input(0).expr}, std::move(attrs))));
    return one(size);
  }
  return one(ctx.scalar(DataType::int64(), product(ctx.input(0).shape())));
}

Result convertConstantOfShape(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  NDArray fill = NDArray::scalar(DataType::float32(), 0);
  if (ctx.hasAttr("value")) {
    TRY(t, ctx.getTensor("value"));
    if (t.getNumElements() != 1)
      return ctx.error("'value' must hold one element");
    fill = t;
  }
  if (!ctx.input(0).constant) {
    TRY(scalar, NDArray::fromBytes(fill.getDType(), {}, fill.getBytes()));
    return convertDynamicConstantOfShape(ctx, scalar);
  }
  TRY(shape, ctx.constantInts(0, "the shape"));
  for (int64_t d : shape)
    if (d < 0)
      return ctx.error("negative dimension " + Twine(d) + " in the shape");
  TRY(array, ctx.createArray(fill.getDType(), shape));
  size_t elem = fill.getDType().getStorageBytes();
  auto *dst = static_cast<uint8_t *>(array.getMutableData());
  for (int64_t i = 0, n = array.getNumElements(); i < n; ++i)
    std::memcpy(dst + i * elem, fill.getData(), elem);
  return one(ctx.constant(array));
}

Result convertRange(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(3, 3))
    return err;
  if (!ctx.input(0).constant || !ctx.input(1).constant ||
      !ctx.input(2).constant)
    return convertDynamicRange(ctx);
  DataType dtype = ctx.input(0).dtype();
  TRY(start, ctx.constantFloats(0, "start"));
  TRY(limit, ctx.constantFloats(1, "limit"));
  TRY(delta, ctx.constantFloats(2, "delta"));
  if (start.size() != 1 || limit.size() != 1 || delta.size() != 1)
    return ctx.error("start, limit and delta must be scalars");
  if (delta[0] == 0)
    return ctx.error("delta is zero");
  double count = std::ceil((limit[0] - start[0]) / delta[0]);
  if (!std::isfinite(count) || count > double(int64_t(1) << 48))
    return ctx.error("Range would have " + formatv("{0}", count).str() +
                     " elements");
  // A negative count (limit behind start) is an empty range; converting it
  // first could be out of int64's range, which is undefined.
  int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
  TRY(array, ctx.createArray(dtype, {n}));
  for (int64_t i = 0; i < n; ++i) {
    if (dtype.isFloatingPoint())
      array.setElementFromDouble(i, start[0] + i * delta[0]);
    else
      array.setElementFromInt(i, static_cast<int64_t>(start[0]) +
                                     i * static_cast<int64_t>(delta[0]));
  }
  return one(ctx.constant(array));
}

/// Trilu: the input times a constant triangular mask of its last two axes.
Result convertTrilu(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 2))
    return err;
  const Value &x = ctx.input(0);
  if (x.rank() < 2)
    return ctx.error("input must have rank 2 or more");
  TRY(upper, ctx.getInt("upper", 1));
  int64_t k = 0;
  if (ctx.hasInput(1)) {
    TRY(ks, ctx.constantInts(1, "k"));
    if (ks.size() != 1)
      return ctx.error("k must hold one value");
    k = ks[0];
  }
  int64_t rows = x.shape()[x.rank() - 2], cols = x.shape().back();
  TRY(mask, ctx.createArray(DataType::boolean(), {rows, cols}));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      mask.setElementFromInt(i * cols + j, upper ? j - i >= k : j - i <= k);
  TRY(out, ctx.typed(ops::where(ctx.constant(mask), x, scalarLike(ctx, x, 0))));
  return one(out);
}

Result convertEyeLike(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  if (x.rank() != 2)
    return ctx.error("input must be a matrix");
  TRY(k, ctx.getInt("k", 0));
  DataType dtype = x.dtype();
  TRY(code, ctx.getOptInt("dtype"));
  if (code) {
    TRY(d, dataTypeFromONNX(*code));
    dtype = d;
  }
  int64_t rows = x.shape()[0], cols = x.shape()[1];
  TRY(eye, ctx.createArray(dtype, {rows, cols}));
  // Column i + k, where it is one: k may be any int64, so i + k is formed
  // only once it is known to be in [0, cols).
  for (int64_t i = 0; i < rows; ++i)
    if (k >= -i && k < cols - i)
      eye.setElementFromInt(i * cols + i + k, 1);
  return one(ctx.constant(eye));
}

/// HannWindow, HammingWindow and BlackmanWindow (opset 17): generalised
/// cosine windows of a size known at import, computed in double and stored
/// as a constant of output_datatype.
Result convertWindow(NodeContext &ctx, CosineWindow kind) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  TRY(sizes, ctx.constantInts(0, "size"));
  if (sizes.size() != 1)
    return ctx.error("size must be a scalar");
  int64_t size = sizes[0];
  if (size <= 0)
    return ctx.unsupported(formatv("a window of size {0} (nnir has no empty "
                                   "tensors)",
                                   size));
  TRY(periodic, ctx.getInt("periodic", 1));
  TRY(code, ctx.getInt("output_datatype", onnx::TensorProto::FLOAT));
  TRY(dtype, dataTypeFromONNX(code));
  TRY(window, ctx.createArray(dtype, {size}));
  // a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N).
  double a[3] = {0.5, 0.5, 0};
  if (kind == CosineWindow::Hamming)
    a[0] = 25.0 / 46, a[1] = 1 - a[0];
  else if (kind == CosineWindow::Blackman)
    a[0] = 0.42, a[2] = 0.08;
  double n1 = double(periodic ? size : size - 1);
  for (int64_t n = 0; n < size; ++n) {
    constexpr double pi = 3.14159265358979323846;
    double t = n1 > 0 ? 2 * pi * double(n) / n1 : 0;
    double v = a[0] - a[1] * std::cos(t) + a[2] * std::cos(2 * t);
    if (dtype.isFloatingPoint())
      window.setElementFromDouble(n, v);
    else
      window.setElementFromInt(n, int64_t(v));
  }
  return one(ctx.constant(window));
}

//===----------------------------------------------------------------------===//
// Reshaping
//===----------------------------------------------------------------------===//

/// ONNX's reshape codes (0 copies a dimension unless allowzero, -1 infers
/// one) resolved against the static input shape.
static Expected<std::vector<int64_t>> resolveReshape(NodeContext &ctx,
                                                     ArrayRef<int64_t> in,
                                                     ArrayRef<int64_t> spec,
                                                     bool allowZero) {
  std::vector<int64_t> out;
  int64_t inferAt = -1, known = 1;
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t d = spec[i];
    if (d == 0 && !allowZero) {
      if (i >= in.size())
        return ctx.error("shape copies dimension " + Twine(i) + " of a rank-" +
                         Twine(in.size()) + " input");
      d = in[i];
    } else if (d == -1) {
      if (inferAt >= 0)
        return ctx.error("shape has more than one -1");
      inferAt = i;
      out.push_back(-1);
      continue;
    } else if (d < -1) {
      return ctx.error("invalid dimension " + Twine(d) + " in the shape");
    }
    if (MulOverflow(known, d, known))
      return ctx.error("the shape's element count overflows");
    out.push_back(d);
  }
  int64_t total = product(in);
  if (inferAt >= 0) {
    if (known == 0 || total % known)
      return ctx.error("cannot infer the -1 dimension");
    out[inferAt] = total / known;
  } else if (known != total) {
    return ctx.error(
        formatv("cannot reshape {0} elements into {1}", total, known).str());
  }
  return out;
}

/// The shape of a Reshape computed from `?` extents (symbolicInts) as ONNX's
/// codes: an extent of the input at its own position is a copy (0), and one
/// extent of another tensor the -1 that the others leave (when no element
/// is -1 already). None when the codes cannot say the shape: it is known at
/// run time only.
static std::optional<std::vector<int64_t>>
symbolicReshapeCodes(NodeContext &ctx, bool allowZero) {
  const Value &x = ctx.input(0);
  std::optional<std::vector<SymbolicInt>> elements =
      symbolicInts(ctx.input(1));
  if (!elements)
    return std::nullopt;
  std::vector<int64_t> codes;
  SmallVector<size_t, 2> unknown;
  bool inferred = false;
  for (size_t i = 0; i < elements->size(); ++i) {
    const SymbolicInt &e = (*elements)[i];
    if (e.isKnown()) {
      inferred |= e.value == -1;
      codes.push_back(e.value);
    } else if (e.of == x.expr.get() && e.dim == int64_t(i) && !allowZero) {
      codes.push_back(0);
    } else {
      unknown.push_back(i);
      codes.push_back(-1);
    }
  }
  if (unknown.size() > 1 || (unknown.size() == 1 && inferred))
    return std::nullopt;
  return codes;
}

Result convertReshape(NodeContext &ctx) {
  std::vector<int64_t> spec;
  if (ctx.getOpset() < 5) {
    if (Error err = ctx.checkNumInputs(1, 1))
      return err;
    TRY(s, ctx.getInts("shape"));
    spec = s;
  } else {
    if (Error err = ctx.checkNumInputs(2, 2))
      return err;
    if (!ctx.input(1).constant) {
      // A shape made of the input's own extents and constants keeps the
      // static reshape with Relay's codes; any other is read at run time.
      TRY(allowZero, ctx.getInt("allowzero", 0));
      std::optional<std::vector<int64_t>> codes =
          symbolicReshapeCodes(ctx, allowZero != 0);
      if (!codes)
        return convertDynamicReshape(ctx, allowZero != 0);
      spec = std::move(*codes);
    } else {
      TRY(s, ctx.constantInts(1, "the shape"));
      spec = s;
    }
  }
  TRY(allowZero, ctx.getInt("allowzero", 0));
  const Value &x = ctx.input(0);
  if (x.type().isDynamic()) {
    // ONNX's codes are Relay's (0 copies the extent at the same position,
    // -1 takes what is left): the relation keeps the `?` they give.
    for (size_t i = 0; i < spec.size(); ++i)
      if (spec[i] < -1 || (spec[i] == 0 && (allowZero || int64_t(i) >= x.rank())))
        return ctx.error(formatv("dimension {0} of the shape, {1}, cannot "
                                 "reshape the dynamic {2}",
                                 i, spec[i], x.type().str())
                             .str());
    TRY(out, ctx.typed(ops::reshape(x, IntList(spec.begin(), spec.end()))));
    return one(out);
  }
  TRY(shape, resolveReshape(ctx, ctx.input(0).shape(), spec, allowZero));
  TRY(out, reshape(ctx, ctx.input(0), shape));
  return one(out);
}

Result convertFlatten(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  TRY(axisAttr, ctx.getInt("axis", 1));
  int64_t axis = axisAttr < 0 ? axisAttr + x.rank() : axisAttr;
  if (axis < 0 || axis > x.rank())
    return ctx.error("axis " + Twine(axisAttr) + " is out of range");
  int64_t outer = product(x.shape().take_front(axis));
  int64_t inner = product(x.shape().drop_front(axis));
  if (axis == 1 && isAnyDim(outer) && isAnyDim(inner)) {
    // Both dynamic: the first extent copied (Relay's 0), the rest merged.
    TRY(out, ctx.typed(ops::reshape(x, IntList{0, -1})));
    return one(out);
  }
  TRY(out, reshape(ctx, x, {outer, inner}));
  return one(out);
}

Result convertSqueeze(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 2))
    return err;
  const Value &x = ctx.input(0);
  TRY(axes, axesOperand(ctx, 13));
  SmallVector<bool, 4> drop(x.rank(), false);
  if (!axes) {
    // Which extents are 1 is known when they are static.
    if (Error err = ctx.staticShape(0).takeError())
      return err;
    for (int64_t i = 0; i < x.rank(); ++i)
      drop[i] = x.shape()[i] == 1;
  } else {
    for (int64_t a : *axes) {
      TRY(axis, ctx.normalizeAxis(a, x.rank()));
      if (x.shape()[axis] != 1 && !isAnyDim(x.shape()[axis]))
        return ctx.error(formatv("cannot squeeze axis {0} of extent {1}", axis,
                                 x.shape()[axis])
                             .str());
      drop[axis] = true;
    }
  }
  if (x.type().isDynamic()) {
    // squeeze keeps the `?` of the other axes where reshape cannot.
    IntList dropped;
    for (int64_t i = 0; i < x.rank(); ++i)
      if (drop[i])
        dropped.push_back(i);
    TRY(out, ctx.typed(ops::squeeze(x, dropped)));
    return one(out);
  }
  std::vector<int64_t> shape;
  for (int64_t i = 0; i < x.rank(); ++i)
    if (!drop[i])
      shape.push_back(x.shape()[i]);
  TRY(out, reshape(ctx, x, shape));
  return one(out);
}

Result convertUnsqueeze(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 2))
    return err;
  const Value &x = ctx.input(0);
  TRY(axes, axesOperand(ctx, 13));
  if (!axes)
    return ctx.error("axes are required");
  int64_t rank = x.rank() + axes->size();
  SmallVector<bool, 4> inserted(rank, false);
  for (int64_t a : *axes) {
    TRY(axis, ctx.normalizeAxis(a, rank));
    if (inserted[axis])
      return ctx.error("axis " + Twine(axis) + " is given twice");
    inserted[axis] = true;
  }
  if (x.type().isDynamic()) {
    // expand_dims at each new axis, in increasing order, keeps the `?`.
    Value y = x;
    for (int64_t i = 0; i < rank; ++i) {
      if (!inserted[i])
        continue;
      TRY(e, ctx.typed(ops::expandDims(y, i)));
      y = e;
    }
    return one(y);
  }
  std::vector<int64_t> shape;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i)
    shape.push_back(inserted[i] ? 1 : x.shape()[next++]);
  TRY(out, reshape(ctx, x, shape));
  return one(out);
}

Result convertTranspose(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  std::vector<int64_t> reversed;
  for (int64_t i = x.rank() - 1; i >= 0; --i)
    reversed.push_back(i);
  TRY(perm, ctx.getInts("perm", reversed));
  TRY(out, ctx.typed(ops::transpose(x, perm)));
  return one(out);
}

/// The input of DepthToSpace and SpaceToDepth, (N, C, H, W), and its
/// blocksize.
struct BlockInput {
  int64_t b, n, c, h, w;
};

static Expected<BlockInput> readBlockInput(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  const Value &x = ctx.input(0);
  if (x.rank() != 4)
    return ctx.error("input must have rank 4");
  TRY(bs, ctx.getOptInt("blocksize"));
  if (!bs || *bs <= 0)
    return ctx.error("attribute 'blocksize' is required and positive");
  BlockInput in{*bs, x.shape()[0], x.shape()[1], x.shape()[2], x.shape()[3]};
  if (in.b > std::max({in.c, in.h, in.w, int64_t(1)}))
    return ctx.error("blocksize " + Twine(in.b) + " is larger than the input");
  return in;
}

/// reshape(transpose(reshape(input 0, mid), perm), outShape)
static Result moveBlocks(NodeContext &ctx, ArrayRef<int64_t> mid,
                         ArrayRef<int64_t> perm, ArrayRef<int64_t> outShape) {
  TRY(r, reshape(ctx, ctx.input(0), mid));
  TRY(t, ctx.typed(ops::transpose(r, IntList(perm.begin(), perm.end()))));
  TRY(out, reshape(ctx, t, outShape));
  return one(out);
}

/// DepthToSpace (DCR or CRD) as reshape-transpose-reshape.
Result convertDepthToSpace(NodeContext &ctx) {
  TRY(in, readBlockInput(ctx));
  auto [b, n, c, h, w] = in;
  if (c % (b * b))
    return ctx.error("channels are not a multiple of blocksize^2");
  TRY(mode, ctx.getString("mode", "DCR"));
  std::vector<int64_t> mid, perm;
  if (mode == "DCR") {
    mid = {n, b, b, c / (b * b), h, w};
    perm = {0, 3, 4, 1, 5, 2};
  } else if (mode == "CRD") {
    mid = {n, c / (b * b), b, b, h, w};
    perm = {0, 1, 4, 2, 5, 3};
  } else {
    return ctx.error("unknown mode '" + mode + "'");
  }
  return moveBlocks(ctx, mid, perm, {n, c / (b * b), h * b, w * b});
}

/// SpaceToDepth as reshape-transpose-reshape.
Result convertSpaceToDepth(NodeContext &ctx) {
  TRY(in, readBlockInput(ctx));
  auto [b, n, c, h, w] = in;
  if (h % b || w % b)
    return ctx.error("spatial extents are not multiples of blocksize");
  return moveBlocks(ctx, {n, c, h / b, b, w / b, b}, {0, 3, 5, 1, 2, 4},
                    {n, c * b * b, h / b, w / b});
}

//===----------------------------------------------------------------------===//
// Joining, indexing and slicing
//===----------------------------------------------------------------------===//

Result convertConcat(NodeContext &ctx) {
  if (ctx.getNumInputs() < 1)
    return ctx.error("expects at least one input");
  SmallVector<Value, 4> fields;
  for (size_t i = 0; i < ctx.getNumInputs(); ++i) {
    if (!ctx.hasInput(i))
      return ctx.error(formatv("input {0} is missing", i).str());
    fields.push_back(ctx.input(i));
  }
  TRY(axisAttr, ctx.getInt("axis", ctx.getOpset() < 4 ? 1 : INT64_MIN));
  if (axisAttr == INT64_MIN)
    return ctx.error("attribute 'axis' is required");
  TRY(axis, ctx.normalizeAxis(axisAttr, fields.front().rank()));
  if (fields.size() == 1)
    return one(fields.front());
  TRY(out, ctx.typed(ops::concatenate(ctx.tuple(fields), axis)));
  return one(foldKnownInts(ctx, out));
}

/// ONNX indices may be negative (from the end of \p extent).
static Expected<Value> wrapIndices(NodeContext &ctx, const Value &indices,
                                   int64_t extent) {
  if (indices.constant) {
    TRY(array, ctx.evaluate(indices));
    bool anyNegative = false;
    for (int64_t i = 0, n = array.getNumElements(); i < n; ++i)
      anyNegative |= array.getElementAsInt(i) < 0;
    if (!anyNegative)
      return indices;
  }
  if (isAnyDim(extent))
    return ctx.error("indices that may be negative index a dynamic axis; "
                     "nnir needs its extent: fix the graph inputs' symbolic "
                     "dimensions with --input-shape=NAME=D0xD1x...");
  TRY(negative, ctx.typed(ops::less(indices, scalarLike(ctx, indices, 0))));
  TRY(shifted, ctx.typed(ops::add(indices, scalarLike(ctx, indices, extent))));
  return ctx.typed(ops::where(negative, shifted, indices));
}

/// Gather and GatherElements: the axis attribute (default 0) normalised,
/// the indices wrapped into [0, extent) along it, and the call \p build
/// makes of the data, the indices and the axis.
static Result
convertIndexedByAxis(NodeContext &ctx,
                     function_ref<Ref<Expr>(const Value &data,
                                            const Value &indices, int64_t axis)>
                         build) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  const Value &data = ctx.input(0);
  TRY(axisAttr, ctx.getInt("axis", 0));
  TRY(axis, ctx.normalizeAxis(axisAttr, data.rank()));
  TRY(indices, wrapIndices(ctx, ctx.input(1), data.shape()[axis]));
  TRY(out, ctx.typed(build(data, indices, axis)));
  return one(foldKnownInts(ctx, out));
}

Result convertGather(NodeContext &ctx) {
  return convertIndexedByAxis(
      ctx, [](const Value &data, const Value &indices, int64_t axis) {
        return ops::take(data, indices, axis, "fast");
      });
}

Result convertGatherElements(NodeContext &ctx) {
  return convertIndexedByAxis(
      ctx, [](const Value &data, const Value &indices, int64_t axis) {
        return ops::gather(data, indices, axis);
      });
}

Result convertGatherND(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  const Value &data = ctx.input(0);
  const Value &indices = ctx.input(1);
  TRY(batchDims, ctx.getInt("batch_dims", 0));
  if (indices.rank() < 1)
    return ctx.error("indices must have rank 1 or more");
  int64_t indexRank = indices.shape().back();
  // nnir (Relay) keeps the index tuple on the first axis of indices.
  std::vector<int64_t> perm{indices.rank() - 1};
  for (int64_t i = 0; i + 1 < indices.rank(); ++i)
    perm.push_back(i);
  TRY(moved, ctx.typed(ops::transpose(indices, perm)));
  TRY(out, ctx.typed(ops::gatherND(data, moved, batchDims, indexRank)));
  return one(out);
}

/// The `reduction` of ScatterElements and ScatterND as Relay's scatter mode
/// ("none" is "update").
static Expected<std::string> scatterReduction(NodeContext &ctx) {
  TRY(reduction, ctx.getString("reduction", "none"));
  if (reduction == "none")
    return std::string("update");
  if (reduction != "add" && reduction != "mul" && reduction != "min" &&
      reduction != "max")
    return ctx.unsupported("reduction '" + reduction + "'");
  return reduction;
}

/// ScatterElements (and Scatter, its opset 9-10 name): scatter_elements.
Result convertScatterElements(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(3, 3))
    return err;
  const Value &data = ctx.input(0);
  TRY(axisAttr, ctx.getInt("axis", 0));
  TRY(axis, ctx.normalizeAxis(axisAttr, data.rank()));
  TRY(reduction, scatterReduction(ctx));
  TRY(out, ctx.typed(ops::scatterElements(data, ctx.input(1), ctx.input(2),
                                          axis, reduction)));
  return one(out);
}

/// ScatterND: the index tuples move to the first axis of the indices, as
/// Relay's scatter_nd (and gather_nd) keep them.
Result convertScatterND(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(3, 3))
    return err;
  const Value &indices = ctx.input(1);
  TRY(reduction, scatterReduction(ctx));
  if (indices.rank() < 1)
    return ctx.error("indices must have rank 1 or more");
  std::vector<int64_t> perm{indices.rank() - 1};
  for (int64_t i = 0; i + 1 < indices.rank(); ++i)
    perm.push_back(i);
  TRY(moved, ctx.typed(ops::transpose(indices, perm)));
  TRY(out,
      ctx.typed(ops::scatterND(ctx.input(0), moved, ctx.input(2), reduction)));
  return one(out);
}

/// ReverseSequence: reverse_sequence (ONNX's defaults: time_axis 0,
/// batch_axis 1).
Result convertReverseSequence(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  TRY(batchAxis, ctx.getInt("batch_axis", 1));
  TRY(timeAxis, ctx.getInt("time_axis", 0));
  TRY(out, ctx.typed(ops::reverseSequence(ctx.input(0), ctx.input(1), timeAxis,
                                          batchAxis)));
  return one(out);
}

/// Einsum: einsum over the tuple of the inputs.
Result convertEinsum(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 64))
    return err;
  TRY(equation, ctx.getString("equation", ""));
  SmallVector<Value, 4> operands;
  for (size_t i = 0; i < ctx.getNumInputs(); ++i)
    operands.push_back(ctx.input(i));
  TRY(out, ctx.typed(ops::einsum(ctx.tuple(operands), equation)));
  return one(out);
}

/// ONNX Slice's start and end on an axis of extent \p dim with \p step
/// (not 0), as strided_slice's begin and end: negative indices count from
/// the end (an index far below stays below); then starts are clamped to
/// [0, dim] for a positive step and [0, dim - 1] for a negative one, ends
/// to [0, dim] and [-1, dim - 1]; a range against its step is empty.
static std::pair<int64_t, int64_t> resolveSliceBounds(int64_t start,
                                                      int64_t end, int64_t dim,
                                                      int64_t step) {
  int64_t s = start < 0 ? std::max(start, -dim) + dim : start;
  int64_t e = end < 0 ? std::max(end, -dim - 1) + dim : end;
  if (step > 0) {
    s = std::clamp<int64_t>(s, 0, dim);
    e = std::clamp<int64_t>(e, 0, dim);
    e = std::max(e, s);
  } else {
    s = std::clamp<int64_t>(s, 0, std::max<int64_t>(dim - 1, 0));
    e = std::clamp<int64_t>(e, -1, dim - 1);
    e = std::min(e, s);
  }
  // strided_slice reads a negative index from the end, so "before element
  // 0" is -dim - 1 (canonicalised to -1 for a negative stride).
  return {s, e < 0 ? -dim - 1 : e};
}

/// ONNX Slice's start and end on an axis of `?` extent as strided_slice's
/// begin and end when strided_slice gives ONNX's answer whatever the
/// extent turns out to be; std::nullopt otherwise. strided_slice differs
/// from ONNX in two ways: a range against its stride is an error, not
/// empty, and a negative stride's begin below -n is nothing, not element
/// 0. So the accepted forms are the ranges that cannot run against their
/// step (positive: from 0, to INT64_MAX, or both bounds of one sign in
/// order; negative: from -1 or INT64_MAX, or two non-negative bounds in
/// order), and those that are empty for every extent (both bounds of one
/// sign against the step), given as begin = end.
static std::optional<std::pair<int64_t, int64_t>>
sliceOnAnyExtent(int64_t start, int64_t end, int64_t step) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  bool sameSign = (start < 0) == (end < 0);
  if (step > 0) {
    if (start == 0 || end == kMax || (sameSign && start <= end))
      return std::make_pair(start, end);
    if (sameSign)
      return std::make_pair(start, start);
    return std::nullopt;
  }
  if (start == -1 || start == kMax || (start >= 0 && end >= 0 && end <= start))
    return std::make_pair(start, end);
  if (start >= 0 && end >= 0)
    return std::make_pair(start, start);
  return std::nullopt;
}

/// ONNX Slice semantics (clamping per the sign of the step) resolved to a
/// static strided_slice of the sliced axes, or left to run time
/// (sliceAtRunTime()) when an axis of `?` extent needs its extent.
Result convertSlice(NodeContext &ctx) {
  const Value &x = ctx.input(0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.getOpset() < 10) {
    if (Error err = ctx.checkNumInputs(1, 1))
      return err;
    TRY(s, ctx.getInts("starts"));
    TRY(e, ctx.getInts("ends"));
    TRY(a, ctx.getOptInts("axes"));
    starts = s;
    ends = e;
    if (a)
      axes = *a;
  } else {
    if (Error err = ctx.checkNumInputs(3, 5))
      return err;
    if (!ctx.input(1).constant || !ctx.input(2).constant ||
        (ctx.hasInput(4) && !ctx.input(4).constant))
      return convertDynamicSlice(ctx);
    TRY(s, ctx.constantInts(1, "starts"));
    TRY(e, ctx.constantInts(2, "ends"));
    starts = s;
    ends = e;
    if (ctx.hasInput(3)) {
      TRY(a, ctx.constantInts(3, "axes"));
      axes = a;
    }
    if (ctx.hasInput(4)) {
      TRY(st, ctx.constantInts(4, "steps"));
      steps = st;
    }
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || starts.size() != axes.size() ||
      starts.size() != steps.size())
    return ctx.error("starts, ends, axes and steps must have equal lengths");
  int64_t rank = x.rank();
  OptionalIntList begin, end;
  std::vector<int64_t> sliced, strides;
  // A `?` extent whose bounds strided_slice could resolve otherwise than
  // ONNX (see onAnyExtent()) leaves the slice to run time.
  bool atRunTime = false;
  for (size_t i = 0; i < axes.size(); ++i) {
    TRY(axis, ctx.normalizeAxis(axes[i], rank));
    if (is_contained(sliced, axis))
      return ctx.error("axis " + Twine(axis) + " is sliced twice");
    if (steps[i] == 0)
      return ctx.error("step is zero");
    int64_t dim = x.shape()[axis];
    int64_t b = starts[i], e = ends[i];
    if (isAnyDim(dim)) {
      std::optional<std::pair<int64_t, int64_t>> bounds =
          sliceOnAnyExtent(b, e, steps[i]);
      atRunTime |= !bounds;
      if (bounds)
        std::tie(b, e) = *bounds;
    } else {
      std::tie(b, e) = resolveSliceBounds(b, e, dim, steps[i]);
    }
    sliced.push_back(axis);
    begin.push_back(b);
    end.push_back(e);
    strides.push_back(steps[i]);
  }
  if (atRunTime)
    return sliceAtRunTime(ctx, x, ctx.int64Vector(starts),
                          ctx.int64Vector(ends), sliced,
                          ctx.int64Vector(steps));
  if (!x.type().isDynamic()) {
    // Every axis, the others whole.
    OptionalIntList allBegin(rank, 0), allEnd(x.shape().begin(),
                                              x.shape().end());
    std::vector<int64_t> allStrides(rank, 1);
    for (size_t i = 0; i < sliced.size(); ++i) {
      allBegin[sliced[i]] = begin[i];
      allEnd[sliced[i]] = end[i];
      allStrides[sliced[i]] = strides[i];
    }
    sliced.resize(rank);
    std::iota(sliced.begin(), sliced.end(), 0);
    begin = std::move(allBegin);
    end = std::move(allEnd);
    strides = std::move(allStrides);
  }
  TRY(out, ctx.typed(ops::stridedSlice(x, begin, end, strides, sliced)));
  return one(foldKnownInts(ctx, out));
}

Result convertSplit(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 2))
    return err;
  const Value &x = ctx.input(0);
  TRY(axisAttr, ctx.getInt("axis", 0));
  TRY(axis, ctx.normalizeAxis(axisAttr, x.rank()));
  std::vector<int64_t> sizes;
  if (ctx.getOpset() < 13 && ctx.hasAttr("split")) {
    TRY(s, ctx.getInts("split"));
    sizes = s;
  } else if (ctx.hasInput(1)) {
    TRY(s, ctx.constantInts(1, "split"));
    sizes = s;
  }
  int64_t numOutputs = ctx.getNode().output_size();
  int64_t dim = x.shape()[axis];
  if (sizes.empty() && isAnyDim(dim))
    if (Error err = ctx.staticShape(0).takeError())
      return err;
  if (isAnyDim(dim) && !sizes.empty())
    dim = std::accumulate(sizes.begin(), sizes.end(), int64_t(0));
  if (sizes.empty()) {
    if (numOutputs == 0 || dim % numOutputs)
      return ctx.error(formatv("cannot split extent {0} into {1} equal parts",
                               dim, numOutputs)
                           .str());
    sizes.assign(numOutputs, dim / numOutputs);
  }
  if (static_cast<int64_t>(sizes.size()) != numOutputs ||
      std::accumulate(sizes.begin(), sizes.end(), int64_t(0)) != dim)
    return ctx.error("split sizes do not match the outputs and the extent");
  Outputs outs;
  int64_t offset = 0;
  for (int64_t size : sizes) {
    if (size < 0)
      return ctx.error("split size " + Twine(size) + " is negative");
    TRY(part, sliceAxis(ctx, x, axis, offset, offset + size));
    outs.push_back(part);
    offset += size;
  }
  return outs;
}

Result convertExpand(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  const Value &x = ctx.input(0);
  if (!ctx.input(1).constant)
    return convertDynamicExpand(ctx);
  TRY(shape, ctx.constantInts(1, "the shape"));
  TRY(target, broadcastShapes(ctx, x.shape(), shape));
  TRY(out, broadcastTo(ctx, x, target));
  return one(out);
}

Result convertTile(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  if (ctx.getNumInputs() == 3)
    return ctx.unsupported("Tile-1's tiles/axis inputs");
  if (!ctx.input(1).constant)
    return convertDynamicTile(ctx);
  TRY(reps, ctx.constantInts(1, "repeats"));
  TRY(out, ctx.typed(ops::tile(ctx.input(0), reps)));
  return one(out);
}

Result convertDropout(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 3))
    return err;
  if (ctx.hasInput(2)) {
    // training_mode is a boolean scalar; with ratio 0 it drops nothing.
    TRY(training, ctx.constantFloats(2, "training_mode"));
    if (training.size() != 1)
      return ctx.error("training_mode must have one element");
    double ratio = 0.5;
    if (ctx.hasInput(1)) {
      TRY(r, ctx.constantFloats(1, "ratio"));
      if (r.size() != 1)
        return ctx.error("ratio must have one element");
      ratio = r[0];
    }
    if (training[0] != 0 && ratio != 0)
      return ctx.unsupported(
          formatv("training_mode=true with ratio {0} (random masks)", ratio));
  }
  if (ctx.getOpset() < 7) {
    TRY(isTest, ctx.getInt("is_test", 0));
    if (!isTest && ctx.getNode().output_size() > 1)
      return ctx.unsupported("is_test=0 (random masks)");
  }
  const Value &x = ctx.input(0);
  Outputs outs{x};
  if (ctx.getNode().output_size() > 1) {
    if (Error err = ctx.staticShape(0).takeError())
      return err;
    TRY(mask, ctx.createArray(DataType::boolean(), x.shape()));
    for (int64_t i = 0, n = mask.getNumElements(); i < n; ++i)
      mask.setElementFromInt(i, 1);
    outs.push_back(ctx.constant(mask));
  }
  return outs;
}

Result convertPad(NodeContext &ctx) {
  const Value &x = ctx.input(0);
  std::vector<int64_t> pads;
  double value = 0;
  std::optional<Value> padValue;
  if (ctx.getOpset() < 11) {
    if (Error err = ctx.checkNumInputs(1, 1))
      return err;
    TRY(p, ctx.getInts(ctx.getOpset() < 2 ? "paddings" : "pads"));
    pads = p;
    TRY(v, ctx.getFloat("value", 0));
    value = v;
  } else {
    if (Error err = ctx.checkNumInputs(2, 4))
      return err;
    TRY(p, ctx.constantInts(1, "pads"));
    pads = p;
    if (ctx.hasInput(2))
      padValue = ctx.input(2);
    if (ctx.hasInput(3))
      return ctx.unsupported("the axes input of Pad");
  }
  TRY(mode, ctx.getString("mode", "constant"));
  int64_t rank = x.rank();
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    return ctx.error(formatv("pads has {0} entries, rank {1} needs {2}",
                             pads.size(), rank, 2 * rank)
                         .str());
  std::vector<IntList> width;
  for (int64_t i = 0; i < rank; ++i) {
    if (pads[i] < 0 || pads[i + rank] < 0)
      return ctx.unsupported("negative pads");
    width.push_back({pads[i], pads[i + rank]});
  }
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    return ctx.error("unknown mode '" + mode + "'");
  Value fill = padValue ? *padValue : scalarLike(ctx, x, value);
  if (fill.rank() != 0) {
    TRY(r, reshape(ctx, fill, {}));
    fill = r;
  }
  TRY(out, ctx.typed(ops::pad(x, fill, width, mode)));
  return one(out);
}

Result convertOneHot(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(3, 3))
    return err;
  const Value &indices = ctx.input(0), &values = ctx.input(2);
  TRY(depthValues, ctx.constantFloats(1, "depth"));
  if (depthValues.size() != 1)
    return ctx.error("depth must hold one value");
  if (!(depthValues[0] >= 1 && depthValues[0] <= double(int64_t(1) << 32)))
    return ctx.error("depth " + formatv("{0}", depthValues[0]).str() +
                     " is out of range");
  int64_t depth = static_cast<int64_t>(depthValues[0]);
  if (values.rank() != 1 || values.shape()[0] != 2)
    return ctx.error("values must be [off_value, on_value]");
  TRY(axisAttr, ctx.getInt("axis", -1));
  TRY(axis, ctx.normalizeAxis(axisAttr, indices.rank() + 1));
  TRY(intIndices, cast(ctx, indices, DataType::int64()));
  TRY(wrapped, wrapIndices(ctx, intIndices, depth));
  TRY(off1, sliceAxis(ctx, values, 0, 0, 1));
  TRY(on1, sliceAxis(ctx, values, 0, 1, 2));
  TRY(off, reshape(ctx, off1, {}));
  TRY(on, reshape(ctx, on1, {}));
  TRY(out,
      ctx.typed(ops::oneHot(wrapped, on, off, depth, axis, values.dtype())));
  return one(out);
}

} // namespace onnximport
} // namespace nnir
