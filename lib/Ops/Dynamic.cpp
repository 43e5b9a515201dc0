//===- Dynamic.cpp - Operators with data-dependent shapes -----------------===//
//
/// \file
/// Registration, type relations and run-time implementations of the
/// operators of nnir/Ops/DynamicOps.h: argwhere, unique and
/// vision.all_class_non_max_suppression run as host routines; dyn.reshape,
/// dyn.broadcast_to, dyn.tile, dyn.full, dyn.strided_slice, dyn.topk and
/// arange with non-constant bounds run as their static forms, built from
/// the values of their shape-giving arguments (TVM's shape functions in
/// python/tvm/relay/op/dyn/, done as a rewrite to the static operator).
//
//===----------------------------------------------------------------------===//

#include "nnir/Ops/DynamicOps.h"

#include "nnir/IR/Op.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/IR/TypeRelation.h"
#include "nnir/Ops/AlgorithmAttrs.h"
#include "nnir/Ops/Builders.h"
#include "nnir/Ops/DataMovementAttrs.h"
#include "nnir/Ops/TypeRelations.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

using namespace llvm;
using namespace nnir;

NNIR_DEFINE_EXPLICIT_TYPE_ID(nnir::HostComputeFn)
NNIR_DEFINE_EXPLICIT_TYPE_ID(nnir::StaticFormFn)

const HostComputeFn *nnir::getHostCompute(const Op *op) {
  const OpAttrMap<HostComputeFn> *map =
      OpRegistry::instance().findAttrMap<HostComputeFn>(kHostComputeAttr);
  return map && map->has(op) ? &map->get(op) : nullptr;
}

const StaticFormFn *nnir::getStaticForm(const Op *op) {
  const OpAttrMap<StaticFormFn> *map =
      OpRegistry::instance().findAttrMap<StaticFormFn>(kStaticFormAttr);
  return map && map->has(op) ? &map->get(op) : nullptr;
}

//===----------------------------------------------------------------------===//
// Type relations
//===----------------------------------------------------------------------===//

/// A shape of \p rank dynamic extents.
static Shape anyShape(size_t rank) { return Shape(rank, kAnyDim); }

/// Argument \p index as a 1-D integer tensor of static length (a shape,
/// reps, begin, ...): its length.
static Expected<int64_t> getShapeArgLength(ArrayRef<const Type *> args,
                                           unsigned index, StringRef name,
                                           const TypeRelationContext &ctx) {
  Expected<const TensorType *> arg = getIndexTensorArg(args, index, name, ctx);
  if (!arg)
    return arg.takeError();
  if ((*arg)->getRank() != 1 || isAnyDim((*arg)->getShape()[0]))
    return ctx.error("expected a 1-D integer tensor of static length for '" +
                     name + "', got " + (*arg)->str());
  return (*arg)->getShape()[0];
}

/// argwhere(x): (?, rank) int32.
static RelationResult argwhereRelation(const TensorType *data,
                                       ArrayRef<const Type *>,
                                       const TypeRelationContext &ctx) {
  return makeTensorType({kAnyDim, int64_t(data->getRank())},
                        DataType::int32(), ctx);
}

/// unique(x): (values, first indices, inverse indices, counts); the values
/// have `?` on the axis (or are 1-D), the index tensors are int64.
static RelationResult uniqueRelation(const UniqueAttrs *params,
                                     const TensorType *data,
                                     ArrayRef<const Type *>,
                                     const TypeRelationContext &ctx) {
  Shape values = {kAnyDim};
  int64_t inverse = 1;
  if (params->axis) {
    Expected<unsigned> axis =
        normalizeAxis(*params->axis, data->getRank(), ctx);
    if (!axis)
      return axis.takeError();
    values = Shape(data->getShape());
    inverse = values[*axis];
    values[*axis] = kAnyDim;
  } else {
    for (int64_t d : data->getShape())
      inverse = isAnyDim(d) || isAnyDim(inverse) ? kAnyDim : inverse * d;
  }
  DataType i64 = DataType::int64();
  return Ref<Type>(TupleType::get(
      {TensorType::get(values, data->getDType()),
       TensorType::get({kAnyDim}, i64), TensorType::get({inverse}, i64),
       TensorType::get({kAnyDim}, i64)}));
}

/// vision.all_class_non_max_suppression(boxes (B, N, 4), scores (B, C, N),
/// max_output_boxes_per_class, iou_threshold, score_threshold): (?, 3)
/// int64.
static RelationResult nmsRelation(const AllClassNonMaximumSuppressionAttrs *p,
                                  const TensorType *boxes,
                                  const TensorType *scores,
                                  ArrayRef<const Type *> args,
                                  const TypeRelationContext &ctx) {
  if (p->outputFormat != "onnx")
    return ctx.error("output_format must be \"onnx\", got \"" +
                     p->outputFormat + "\"");
  if (boxes->getRank() != 3 || boxes->getShape()[2] != 4)
    return ctx.error("expected boxes of shape (batch, boxes, 4), got " +
                     boxes->str());
  if (scores->getRank() != 3)
    return ctx.error("expected scores of shape (batch, classes, boxes), got " +
                     scores->str());
  const char *names[] = {"max_output_boxes_per_class", "iou_threshold",
                         "score_threshold"};
  for (unsigned i = 2; i != 5; ++i) {
    Expected<const TensorType *> arg = getTensorArg(args, i, names[i - 2], ctx);
    if (!arg)
      return arg.takeError();
    if ((*arg)->getNumElements() != 1)
      return ctx.error("expected one element for '" + Twine(names[i - 2]) +
                       "', got " + (*arg)->str());
  }
  return makeTensorType({kAnyDim, 3}, DataType::int64(), ctx);
}

/// dyn.reshape(data, newshape): rank = newshape's length, every extent `?`.
static RelationResult dynReshapeRelation(const ReshapeAttrs *,
                                         const TensorType *data,
                                         ArrayRef<const Type *> args,
                                         const TypeRelationContext &ctx) {
  Expected<int64_t> rank = getShapeArgLength(args, 1, "newshape", ctx);
  if (!rank)
    return rank.takeError();
  return makeTensorType(anyShape(*rank), data->getDType(), ctx);
}

/// dyn.broadcast_to(data, shape) and dyn.tile(data, reps): the longer of
/// the data's rank and the vector's length, every extent `?`.
static RelationResult dynBroadcastRelation(const TensorType *data,
                                           ArrayRef<const Type *> args,
                                           const TypeRelationContext &ctx) {
  Expected<int64_t> length = getShapeArgLength(args, 1, "shape", ctx);
  if (!length)
    return length.takeError();
  return makeTensorType(
      anyShape(std::max<int64_t>(*length, data->getRank())),
      data->getDType(), ctx);
}

/// dyn.full(fill_value, shape): rank = shape's length, of `dtype` (void:
/// the fill value's).
static RelationResult dynFullRelation(const InitOpAttrs *params,
                                      const TensorType *fill,
                                      ArrayRef<const Type *> args,
                                      const TypeRelationContext &ctx) {
  if (fill->getRank() != 0)
    return ctx.error("expected a 0-d fill value, got " + fill->str());
  Expected<int64_t> rank = getShapeArgLength(args, 1, "shape", ctx);
  if (!rank)
    return rank.takeError();
  DataType dtype = params->dtype.isVoid() ? fill->getDType() : params->dtype;
  return makeTensorType(anyShape(*rank), dtype, ctx);
}

/// dyn.strided_slice(data, begin, end, strides): the sliced axes (`axes`,
/// else the first len(begin)) become `?`.
static RelationResult dynStridedSliceRelation(const StridedSliceAttrs *params,
                                              const TensorType *data,
                                              ArrayRef<const Type *> args,
                                              const TypeRelationContext &ctx) {
  const char *names[] = {"begin", "end", "strides"};
  int64_t length = 0;
  for (unsigned i = 1; i != 4; ++i) {
    Expected<int64_t> n = getShapeArgLength(args, i, names[i - 1], ctx);
    if (!n)
      return n.takeError();
    if (i == 1)
      length = *n;
    else if (*n != length && !(i == 3 && *n == 1))
      return ctx.error("begin, end and strides have different lengths");
  }
  Shape shape(data->getShape());
  if (params->axes) {
    if (int64_t(params->axes->size()) != length)
      return ctx.error("axes and begin have different lengths");
    for (int64_t a : *params->axes) {
      Expected<unsigned> axis = normalizeAxis(a, shape.size(), ctx);
      if (!axis)
        return axis.takeError();
      shape[*axis] = kAnyDim;
    }
  } else {
    if (length > int64_t(shape.size()))
      return ctx.error("begin has more entries than the data has axes");
    for (int64_t i = 0; i != length; ++i)
      shape[i] = kAnyDim;
  }
  return makeTensorType(shape, data->getDType(), ctx);
}

/// dyn.topk(data, k): the data's shape with `?` on the axis.
static RelationResult dynTopKRelation(const TopKAttrs *params,
                                      const TensorType *data,
                                      ArrayRef<const Type *> args,
                                      const TypeRelationContext &ctx) {
  if (data->getRank() == 0)
    return ctx.error("expected a tensor of rank 1 or more, got " + data->str());
  Expected<unsigned> axis = normalizeAxis(params->axis, data->getRank(), ctx);
  if (!axis)
    return axis.takeError();
  Expected<const TensorType *> k = getIndexTensorArg(args, 1, "k", ctx);
  if (!k)
    return k.takeError();
  if ((*k)->getNumElements() != 1)
    return ctx.error("expected one element for 'k', got " + (*k)->str());
  Shape shape(data->getShape());
  shape[*axis] = kAnyDim;
  Ref<Type> values = TensorType::get(shape, data->getDType());
  Ref<Type> indices = TensorType::get(shape, params->dtype);
  if (params->retType == "values")
    return values;
  if (params->retType == "indices")
    return indices;
  if (params->retType != "both")
    return ctx.error("ret_type must be \"both\", \"values\" or \"indices\", "
                     "got \"" +
                     params->retType + "\"");
  return Ref<Type>(TupleType::get({values, indices}));
}

//===----------------------------------------------------------------------===//
// Shape functions (static forms)
//===----------------------------------------------------------------------===//

/// The integer elements of \p array.
static std::vector<int64_t> getInts(const NDArray &array) {
  std::vector<int64_t> out;
  for (int64_t i = 0, e = array.getNumElements(); i != e; ++i)
    out.push_back(array.getElementAsInt(i));
  return out;
}

/// An error at \p call unless every extent of \p shape is at least \p min
/// and their product (elements) fits: a shape function's result checked
/// before anything is allocated.
static Error checkExtents(const Call &call, ArrayRef<int64_t> shape,
                          StringRef what, int64_t min = 0) {
  StringRef op = call.getCalledOp()->getName();
  uint64_t elements = 1;
  for (int64_t d : shape) {
    if (d < min)
      return makeError(call.getLoc(), op + ": " + what + " " +
                                          formatIntList(shape) +
                                          " has the negative extent " +
                                          Twine(d));
    // 2^48 elements: far beyond any tensor the engine could allocate, and
    // small enough that byte sizes cannot overflow.
    if (d != 0 && elements > (uint64_t(1) << 48) / uint64_t(d))
      return makeError(call.getLoc(), op + ": " + what + " " +
                                          formatIntList(shape) +
                                          " exceeds the tensor-size limit");
    elements *= uint64_t(d);
  }
  return Error::success();
}

static Expected<Ref<Expr>> dynReshapeForm(const Call &call,
                                          ArrayRef<Ref<Expr>> params,
                                          ArrayRef<NDArray> values) {
  const auto *attrs = cast<ReshapeAttrs>(call.getAttrsOrDefaults());
  std::vector<int64_t> shape = getInts(values[1]);
  // -1 infers one extent (reshape's code); anything lower is no extent.
  if (Error err = checkExtents(call, shape, "newshape", -1))
    return err;
  Ref<ReshapeAttrs> record = ReshapeAttrs::create();
  record->newshape = shape;
  record->allowzero = attrs->allowzero;
  return Call::get(Ref<Expr>(Op::lookup("reshape")), {params[0]},
                   Ref<Attrs>(record), call.getLoc());
}

/// The NumPy broadcast of \p a and \p b, or an error at \p call.
static Expected<std::vector<int64_t>>
broadcastExtents(const Call &call, ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i != rank; ++i) {
    int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1)
      return makeError(call.getLoc(), call.getCalledOp()->getName() +
                                          ": cannot broadcast " +
                                          formatIntList(a) + " to " +
                                          formatIntList(b));
    out[rank - 1 - i] = x == 1 ? y : x;
  }
  return out;
}

static Expected<Ref<Expr>> dynBroadcastToForm(const Call &call,
                                              ArrayRef<Ref<Expr>> params,
                                              ArrayRef<NDArray> values) {
  std::vector<int64_t> shape = getInts(values[1]);
  if (Error err = checkExtents(call, shape, "shape"))
    return err;
  Expected<std::vector<int64_t>> out =
      broadcastExtents(call, values[0].getShape(), shape);
  if (!out)
    return out.takeError();
  if (Error err = checkExtents(call, *out, "shape"))
    return err;
  return ops::broadcastTo(params[0], *out, call.getLoc());
}

static Expected<Ref<Expr>> dynTileForm(const Call &call,
                                       ArrayRef<Ref<Expr>> params,
                                       ArrayRef<NDArray> values) {
  std::vector<int64_t> reps = getInts(values[1]);
  if (Error err = checkExtents(call, reps, "reps"))
    return err;
  return ops::tile(params[0], reps, call.getLoc());
}

static Expected<Ref<Expr>> dynFullForm(const Call &call,
                                       ArrayRef<Ref<Expr>> params,
                                       ArrayRef<NDArray> values) {
  const auto *attrs = cast<InitOpAttrs>(call.getAttrsOrDefaults());
  std::vector<int64_t> shape = getInts(values[1]);
  if (Error err = checkExtents(call, shape, "shape"))
    return err;
  DataType dtype = attrs->dtype.isVoid() ? values[0].getDType() : attrs->dtype;
  return ops::full(params[0], shape, dtype, call.getLoc());
}

static Expected<Ref<Expr>> dynStridedSliceForm(const Call &call,
                                               ArrayRef<Ref<Expr>> params,
                                               ArrayRef<NDArray> values) {
  const auto *attrs = cast<StridedSliceAttrs>(call.getAttrsOrDefaults());
  std::vector<int64_t> begin = getInts(values[1]), end = getInts(values[2]),
                       strides = getInts(values[3]);
  if (strides.size() == 1)
    strides.assign(begin.size(), strides[0]);
  if (llvm::is_contained(strides, 0))
    return makeError(call.getLoc(), "dyn.strided_slice: a stride is 0");
  if (end.size() != begin.size() || strides.size() != begin.size())
    return makeError(call.getLoc(), "dyn.strided_slice: begin, end and "
                                    "strides have different lengths");
  std::vector<int64_t> axes;
  if (attrs->axes) {
    axes = *attrs->axes;
  } else {
    axes.resize(begin.size());
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (axes.size() != begin.size())
    return makeError(call.getLoc(),
                     "dyn.strided_slice: axes and begin have different "
                     "lengths");
  // The extents are known now: each range is resolved as NumPy (and
  // strided_slice) resolve it (a negative index counts from the end, then
  // clamps to [0, n], or [-1, n - 1] for a negative stride), except that a
  // range running against its stride is empty rather than strided_slice's
  // error: run-time bounds (ONNX Slice's) may select nothing.
  ArrayRef<int64_t> shape = values[0].getShape();
  int64_t rank = shape.size();
  for (size_t i = 0; i != axes.size(); ++i) {
    int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (axis < 0 || axis >= rank)
      continue; // strided_slice's relation reports it.
    int64_t n = shape[axis], stride = strides[i];
    auto resolve = [&](int64_t index) {
      if (index < 0)
        index = index < -n ? -1 : index + n;
      return stride < 0 ? std::clamp<int64_t>(index, -1, n - 1)
                        : std::clamp<int64_t>(index, 0, n);
    };
    int64_t b = resolve(begin[i]), e = resolve(end[i]);
    if (stride < 0 ? e > b : e < b)
      e = b;
    // strided_slice reads a negative index from the end: "before element
    // 0" is -n - 1.
    begin[i] = b < 0 ? -n - 1 : b;
    end[i] = e < 0 ? -n - 1 : e;
  }
  OptionalIntList b(begin.begin(), begin.end()), e(end.begin(), end.end());
  return ops::stridedSlice(params[0], b, e, strides, axes, call.getLoc());
}

static Expected<Ref<Expr>> dynTopKForm(const Call &call,
                                       ArrayRef<Ref<Expr>> params,
                                       ArrayRef<NDArray> values) {
  const auto *attrs = cast<TopKAttrs>(call.getAttrsOrDefaults());
  int64_t k = values[1].getElementAsInt(0);
  if (k < 0)
    return makeError(call.getLoc(), "dyn.topk: k must not be negative, got " +
                                        Twine(k));
  // topk's k 0 would mean "all": a run-time k 0 is an empty result.
  if (k == 0)
    return ops::topkOfNone(params[0], attrs->axis, attrs->retType,
                           attrs->dtype, call.getLoc());
  return ops::topk(params[0], k, attrs->axis, attrs->retType, attrs->isAscend,
                   attrs->dtype, call.getLoc());
}

static Expected<Ref<Expr>> arangeForm(const Call &call, ArrayRef<Ref<Expr>>,
                                      ArrayRef<NDArray> values) {
  const auto *attrs = cast<ArangeAttrs>(call.getAttrsOrDefaults());
  return ops::arange(Constant::get(values[0]), Constant::get(values[1]),
                     Constant::get(values[2]), attrs->dtype, call.getLoc());
}

//===----------------------------------------------------------------------===//
// Host routines
//===----------------------------------------------------------------------===//

/// argwhere: the coordinates of the non-zero elements, in row-major order.
static Expected<std::vector<NDArray>>
argwhereHost(ArrayRef<NDArray> inputs, const Attrs *,
             const HostComputeContext &ctx) {
  const NDArray &data = inputs[0];
  ArrayRef<int64_t> shape = data.getShape();
  std::vector<int64_t> found;
  for (int64_t i = 0, e = data.getNumElements(); i != e; ++i)
    if (data.getElementAsDouble(i) != 0)
      found.push_back(i);
  int64_t rank = shape.size();
  Expected<NDArray> out =
      ctx.allocate(DataType::int32(), {int64_t(found.size()), rank});
  if (!out)
    return out.takeError();
  for (size_t row = 0; row != found.size(); ++row) {
    int64_t flat = found[row];
    for (int64_t d = rank - 1; d >= 0; --d) {
      out->setElementFromInt(row * rank + d, flat % shape[d]);
      flat /= shape[d];
    }
  }
  return std::vector<NDArray>{*out};
}

/// -1, 0 or 1 as element \p a of \p data compares with element \p b.
static int compareElements(const NDArray &data, int64_t a, int64_t b) {
  if (data.getDType().isInteger()) {
    int64_t x = data.getElementAsInt(a), y = data.getElementAsInt(b);
    return x < y ? -1 : x > y;
  }
  double x = data.getElementAsDouble(a), y = data.getElementAsDouble(b);
  return x < y ? -1 : x > y;
}

/// unique along an axis (slices compared lexicographically) or of the
/// flattened data: ONNX's Unique.
static Expected<std::vector<NDArray>>
uniqueHost(ArrayRef<NDArray> inputs, const Attrs *attrs,
           const HostComputeContext &ctx) {
  const auto *params = cast<UniqueAttrs>(attrs);
  const NDArray &data = inputs[0];
  ArrayRef<int64_t> shape = data.getShape();
  int64_t outer = 1, n = data.getNumElements(), inner = 1;
  unsigned axis = 0;
  if (params->axis) {
    axis = *params->axis < 0 ? *params->axis + shape.size() : *params->axis;
    n = shape[axis];
    for (unsigned d = 0; d != axis; ++d)
      outer *= shape[d];
    for (unsigned d = axis + 1; d != shape.size(); ++d)
      inner *= shape[d];
  }
  // Element j of slice i of block o.
  auto at = [&](int64_t o, int64_t i, int64_t j) {
    return (o * n + i) * inner + j;
  };
  auto compare = [&](int64_t a, int64_t b) {
    for (int64_t o = 0; o != outer; ++o)
      for (int64_t j = 0; j != inner; ++j)
        if (int c = compareElements(data, at(o, a, j), at(o, b, j)))
          return c;
    return 0;
  };
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return compare(a, b) < 0; });
  // Groups of equal slices: their first occurrence and count, in sorted
  // order; the inverse index of each slice.
  std::vector<int64_t> first, counts, groupOf(n);
  for (size_t k = 0; k != order.size(); ++k) {
    if (k == 0 || compare(order[k - 1], order[k]) != 0) {
      first.push_back(order[k]);
      counts.push_back(0);
    }
    ++counts.back();
    groupOf[order[k]] = first.size() - 1;
  }
  // Unsorted: groups in order of first occurrence.
  std::vector<int64_t> rank(first.size());
  std::iota(rank.begin(), rank.end(), 0);
  if (!params->sorted)
    llvm::sort(rank, [&](int64_t a, int64_t b) { return first[a] < first[b]; });
  std::vector<int64_t> position(first.size());
  for (size_t g = 0; g != rank.size(); ++g)
    position[rank[g]] = g;

  int64_t groups = first.size();
  Shape valuesShape = params->axis ? Shape(shape) : Shape{groups};
  valuesShape[params->axis ? axis : 0] = groups;
  DataType i64 = DataType::int64();
  Expected<NDArray> values = ctx.allocate(data.getDType(), valuesShape);
  Expected<NDArray> indices = ctx.allocate(i64, {groups});
  Expected<NDArray> inverse = ctx.allocate(i64, {n});
  Expected<NDArray> count = ctx.allocate(i64, {groups});
  for (Expected<NDArray> *a : {&values, &indices, &inverse, &count})
    if (!*a)
      return a->takeError();
  size_t elem = data.getDType().getStorageBytes();
  const auto *src = static_cast<const uint8_t *>(data.getData());
  auto *dst = static_cast<uint8_t *>(values->getMutableData());
  for (int64_t g = 0; g != groups; ++g) {
    int64_t group = rank[g], slice = first[group];
    indices->setElementFromInt(g, slice);
    count->setElementFromInt(g, counts[group]);
    for (int64_t o = 0; o != outer; ++o)
      for (int64_t j = 0; j != inner; ++j)
        std::memcpy(dst + ((o * groups + g) * inner + j) * elem,
                    src + at(o, slice, j) * elem, elem);
  }
  for (int64_t i = 0; i != n; ++i)
    inverse->setElementFromInt(i, position[groupOf[i]]);
  return std::vector<NDArray>{*values, *indices, *inverse, *count};
}

namespace {
/// A box as corners, lower first.
struct Box {
  double y1, x1, y2, x2;
};
} // namespace

/// Box \p i of batch \p b of ONNX's boxes tensor, as corners.
static Box getBox(const NDArray &boxes, int64_t b, int64_t i, int64_t count,
                  bool centerPointBox) {
  int64_t base = (b * count + i) * 4;
  double v[4];
  for (int k = 0; k != 4; ++k)
    v[k] = boxes.getElementAsDouble(base + k);
  if (centerPointBox) // x_center, y_center, width, height
    return {v[1] - v[3] / 2, v[0] - v[2] / 2, v[1] + v[3] / 2,
            v[0] + v[2] / 2};
  return {std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]),
          std::max(v[1], v[3])};
}

/// Intersection over union of \p a and \p b (0 for empty boxes).
static double iou(const Box &a, const Box &b) {
  double areaA = (a.y2 - a.y1) * (a.x2 - a.x1);
  double areaB = (b.y2 - b.y1) * (b.x2 - b.x1);
  if (areaA <= 0 || areaB <= 0)
    return 0;
  double h = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  double w = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  if (h <= 0 || w <= 0)
    return 0;
  double inter = h * w;
  return inter / (areaA + areaB - inter);
}

/// ONNX's NonMaxSuppression, per batch and class: boxes scoring above the
/// threshold, best first (ties by index), kept unless their IoU with a kept
/// box exceeds the threshold, at most max_output_boxes_per_class.
static Expected<std::vector<NDArray>>
nmsHost(ArrayRef<NDArray> inputs, const Attrs *attrs,
        const HostComputeContext &ctx) {
  const auto *params = cast<AllClassNonMaximumSuppressionAttrs>(attrs);
  const NDArray &boxes = inputs[0], &scores = inputs[1];
  int64_t batches = boxes.getShape()[0], count = boxes.getShape()[1];
  int64_t classes = scores.getShape()[1];
  if (scores.getShape()[0] != batches || scores.getShape()[2] != count)
    return makeError(ctx.loc,
                     "vision.all_class_non_max_suppression: boxes " +
                         formatIntList(boxes.getShape()) +
                         " and scores " + formatIntList(scores.getShape()) +
                         " disagree");
  int64_t maxOut = inputs[2].getElementAsInt(0);
  double iouThreshold = inputs[3].getElementAsDouble(0);
  double scoreThreshold = inputs[4].getElementAsDouble(0);
  std::vector<std::array<int64_t, 3>> selected;
  for (int64_t b = 0; b != batches; ++b)
    for (int64_t c = 0; c != classes && maxOut > 0; ++c) {
      std::vector<std::pair<double, int64_t>> candidates;
      for (int64_t i = 0; i != count; ++i) {
        double s = scores.getElementAsDouble((b * classes + c) * count + i);
        if (s > scoreThreshold)
          candidates.push_back({s, i});
      }
      std::stable_sort(candidates.begin(), candidates.end(),
                       [](const auto &x, const auto &y) {
                         return x.first > y.first;
                       });
      std::vector<Box> kept;
      for (const auto &[score, i] : candidates) {
        if (int64_t(kept.size()) >= maxOut)
          break;
        Box box = getBox(boxes, b, i, count, params->centerPointBox);
        if (llvm::any_of(kept, [&](const Box &k) {
              return iou(k, box) > iouThreshold;
            }))
          continue;
        kept.push_back(box);
        selected.push_back({b, c, i});
      }
    }
  Expected<NDArray> out =
      ctx.allocate(DataType::int64(), {int64_t(selected.size()), 3});
  if (!out)
    return out.takeError();
  for (size_t r = 0; r != selected.size(); ++r)
    for (int k = 0; k != 3; ++k)
      out->setElementFromInt(r * 3 + k, selected[r][k]);
  return std::vector<NDArray>{*out};
}

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

static Ref<Expr> build(StringRef name, ArrayRef<Ref<Expr>> args,
                       Ref<Attrs> attrs, SMLoc loc) {
  Op *op = Op::lookup(name);
  if (!op)
    report_fatal_error("operator '" + name +
                       "' is not registered (call registerAllOps())");
  return Call::get(Ref<Expr>(op), args, std::move(attrs), loc);
}

Ref<Expr> ops::argwhere(Ref<Expr> x, SMLoc loc) {
  return build("argwhere", {std::move(x)}, nullptr, loc);
}

Ref<Expr> ops::unique(Ref<Expr> x, bool sorted, std::optional<int64_t> axis,
                      SMLoc loc) {
  Ref<UniqueAttrs> attrs = UniqueAttrs::create();
  attrs->sorted = sorted;
  attrs->axis = axis;
  return build("unique", {std::move(x)}, attrs, loc);
}

Ref<Expr> ops::allClassNonMaxSuppression(Ref<Expr> boxes, Ref<Expr> scores,
                                         Ref<Expr> maxOutput, Ref<Expr> iou,
                                         Ref<Expr> scoreThreshold,
                                         bool centerPointBox, SMLoc loc) {
  Ref<AllClassNonMaximumSuppressionAttrs> attrs =
      AllClassNonMaximumSuppressionAttrs::create();
  attrs->centerPointBox = centerPointBox;
  return build("vision.all_class_non_max_suppression",
               {boxes, scores, maxOutput, iou, scoreThreshold}, attrs, loc);
}

Ref<Expr> ops::dynReshape(Ref<Expr> x, Ref<Expr> newShape, bool allowZero,
                          SMLoc loc) {
  Ref<ReshapeAttrs> attrs = ReshapeAttrs::create();
  attrs->allowzero = allowZero;
  return build("dyn.reshape", {x, newShape}, attrs, loc);
}

Ref<Expr> ops::dynBroadcastTo(Ref<Expr> x, Ref<Expr> shape, SMLoc loc) {
  return build("dyn.broadcast_to", {x, shape}, nullptr, loc);
}

Ref<Expr> ops::dynTile(Ref<Expr> x, Ref<Expr> reps, SMLoc loc) {
  return build("dyn.tile", {x, reps}, nullptr, loc);
}

Ref<Expr> ops::dynFull(Ref<Expr> fill, Ref<Expr> shape, DataType dtype,
                       SMLoc loc) {
  Ref<InitOpAttrs> attrs = InitOpAttrs::create();
  attrs->dtype = dtype;
  return build("dyn.full", {fill, shape}, attrs, loc);
}

Ref<Expr> ops::dynStridedSlice(Ref<Expr> x, Ref<Expr> begin, Ref<Expr> end,
                               Ref<Expr> strides, std::vector<int64_t> axes,
                               SMLoc loc) {
  Ref<StridedSliceAttrs> attrs = StridedSliceAttrs::create();
  if (!axes.empty())
    attrs->axes = std::move(axes);
  return build("dyn.strided_slice", {x, begin, end, strides}, attrs, loc);
}

Ref<Expr> ops::dynTopK(Ref<Expr> x, Ref<Expr> k, int64_t axis,
                       StringRef retType, bool isAscend, DataType indexType,
                       SMLoc loc) {
  Ref<TopKAttrs> attrs = TopKAttrs::create();
  attrs->axis = axis;
  attrs->retType = retType.str();
  attrs->isAscend = isAscend;
  attrs->dtype = indexType;
  return build("dyn.topk", {x, k}, attrs, loc);
}

Ref<Expr> ops::topkOfNone(Ref<Expr> x, int64_t axis, StringRef retType,
                          DataType indexType, SMLoc loc) {
  Ref<Expr> values = stridedSlice(x, {0}, {0}, {1}, {axis}, loc);
  if (retType == "values")
    return values;
  Ref<Expr> indices = cast(values, indexType, loc);
  if (retType == "indices")
    return indices;
  return Tuple::get({values, indices}, loc);
}

Ref<Expr> ops::arange(Ref<Expr> start, Ref<Expr> stop, Ref<Expr> step,
                      DataType dtype, SMLoc loc) {
  Ref<ArangeAttrs> attrs = ArangeAttrs::create();
  attrs->dtype = dtype;
  return build("arange", {start, stop, step}, attrs, loc);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// Registers \p name: opaque, with `?`-aware relation \p relation and
/// data-dependent extents.
static OpBuilder
addDynamicOp(StringRef name, StringRef description,
             std::initializer_list<std::pair<const char *, const char *>> args,
             TypeRelationFn relation) {
  OpBuilder builder = OpRegistry::instance().add(name);
  builder.describe(description).setNumInputs(args.size());
  for (const auto &[argName, typeInfo] : args)
    builder.addArgument(argName, typeInfo);
  builder.setAttr<OpPatternKind>(kOpPatternAttr, OpPatternKind::Opaque)
      .setAttr<TypeRelationFn>(kTypeRelationAttr, std::move(relation))
      .setAttr<bool>(kDynamicShapesAttr, true)
      .setAttr<bool>(kDataDependentShapeAttr, true);
  return builder;
}

void nnir::registerDynamicOps() {
  auto data = std::make_pair("data", "Tensor");
  addDynamicOp("argwhere", "the coordinates of the non-zero elements", {data},
               makeRelation(argwhereRelation, "data"))
      .setAttr<HostComputeFn>(kHostComputeAttr, argwhereHost);
  addDynamicOp("unique", "the distinct elements (or slices along an axis)",
               {data}, makeRelation<UniqueAttrs>(uniqueRelation, "data"))
      .setAttrsType<UniqueAttrs>()
      .setAttr<HostComputeFn>(kHostComputeAttr, uniqueHost);
  addDynamicOp("vision.all_class_non_max_suppression",
               "greedy non-maximum suppression per batch and class",
               {{"boxes", "Tensor"},
                {"scores", "Tensor"},
                {"max_output_boxes_per_class", "Tensor"},
                {"iou_threshold", "Tensor"},
                {"score_threshold", "Tensor"}},
               makeRelation<AllClassNonMaximumSuppressionAttrs>(
                   nmsRelation, "boxes", "scores"))
      .setAttrsType<AllClassNonMaximumSuppressionAttrs>()
      .setAttr<HostComputeFn>(kHostComputeAttr, nmsHost);
  addDynamicOp("dyn.reshape", "reshape to a shape given as a tensor",
               {data, {"newshape", "Tensor"}},
               makeRelation<ReshapeAttrs>(dynReshapeRelation, "data"))
      .setAttrsType<ReshapeAttrs>()
      .setAttr<StaticFormFn>(kStaticFormAttr, dynReshapeForm);
  addDynamicOp("dyn.broadcast_to", "broadcast to a shape given as a tensor",
               {data, {"shape", "Tensor"}},
               makeRelation(dynBroadcastRelation, "data"))
      .setAttr<StaticFormFn>(kStaticFormAttr, dynBroadcastToForm);
  addDynamicOp("dyn.tile", "tile by repetitions given as a tensor",
               {data, {"reps", "Tensor"}},
               makeRelation(dynBroadcastRelation, "data"))
      .setAttr<StaticFormFn>(kStaticFormAttr, dynTileForm);
  addDynamicOp("dyn.full", "a tensor of a shape given as a tensor, filled",
               {{"fill_value", "Tensor"}, {"shape", "Tensor"}},
               makeRelation<InitOpAttrs>(dynFullRelation, "fill_value"))
      .setAttrsType<InitOpAttrs>()
      .setAttr<StaticFormFn>(kStaticFormAttr, dynFullForm);
  addDynamicOp("dyn.strided_slice", "strided slice with tensor bounds",
               {data, {"begin", "Tensor"}, {"end", "Tensor"},
                {"strides", "Tensor"}},
               makeRelation<StridedSliceAttrs>(dynStridedSliceRelation, "data"))
      .setAttrsType<StridedSliceAttrs>()
      .setAttr<StaticFormFn>(kStaticFormAttr, dynStridedSliceForm);
  addDynamicOp("dyn.topk", "the k largest (or smallest) elements, k a tensor",
               {data, {"k", "Tensor"}},
               makeRelation<TopKAttrs>(dynTopKRelation, "data"))
      .setAttrsType<TopKAttrs>()
      .setAttr<StaticFormFn>(kStaticFormAttr, dynTopKForm);
  // arange with bounds that are not constants: `?` (its relation), run as
  // arange of the bounds' values.
  OpBuilder(Op::lookup("arange"))
      .setAttr<bool>(kDataDependentShapeAttr, true)
      .setAttr<StaticFormFn>(kStaticFormAttr, arangeForm);
}
