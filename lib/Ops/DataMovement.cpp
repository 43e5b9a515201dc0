//===- DataMovement.cpp - Data movement operators -------------------------===//
//
/// \file
/// Relay's data movement operators (transform.cc): reshape, reshape_like,
/// transpose, expand_dims, squeeze, concatenate, split, stack, strided_slice,
/// take, gather, gather_nd, full, zeros, ones, full_like, broadcast_to,
/// broadcast_to_like, layout_transform, shape_of, ndarray_size, arange, tile,
/// repeat, reverse, one_hot, slice_like, collapse_sum_like, collapse_sum_to
/// and reverse_reshape (Relay's contrib_reverse_reshape), with their
/// attribute records, fusion patterns (Relay's TOpPattern) and type
/// relations.
///
/// The relations follow Relay's on static shapes. Where Relay leaves a shape
/// unknown (`?`) because it depends on values, nnir needs the values as
/// attributes or constants and says so otherwise. Where Relay's relation
/// would check-fail or its compute would reject the call (a stride of 0, a
/// repeat axis of None, mismatching batch dimensions), the relation reports a
/// located error at the call instead. Every extent is overflow-checked.
//
//===----------------------------------------------------------------------===//

#include "StridedSlice.h"

#include "nnir/IR/Op.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Layout.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Ops/TypeRelations.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace llvm;
using namespace nnir;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

/// \p axis for inserting dimensions into a tensor of rank \p rank: it may be
/// in [-rank-1, rank]; negative values count from the end, so -1 appends.
static Expected<unsigned> normalizeInsertAxis(int64_t axis, unsigned rank,
                                              const TypeRelationContext &ctx) {
  int64_t r = rank;
  if (axis < -r - 1 || axis > r)
    return ctx.error("axis " + Twine(axis) + " is out of range [" +
                     Twine(-r - 1) + ", " + Twine(r) +
                     "] for inserting into a tensor of rank " + Twine(rank));
  return unsigned(axis < 0 ? axis + r + 1 : axis);
}

/// An error unless \p dtype is set (not `""`): \p attrName names the field.
static Error requireDType(DataType dtype, StringRef attrName,
                          const TypeRelationContext &ctx) {
  if (!dtype.isVoid())
    return Error::success();
  return ctx.error(attrName + " is not set (write e.g. " + attrName +
                   "=\"int32\")");
}

/// A static shape attribute: \p shape must be a list (None is a dynamic
/// shape, which nnir does not support).
static Expected<ArrayRef<int64_t>>
getShapeAttr(const std::optional<IntList> &shape,
             const TypeRelationContext &ctx) {
  if (!shape)
    return ctx.error("shape=None is a dynamic shape; nnir needs static "
                     "shapes: give the shape as a list of integers");
  return ArrayRef<int64_t>(*shape);
}

//===----------------------------------------------------------------------===//
// reshape, reshape_like
//===----------------------------------------------------------------------===//

/// reshape: walks `newshape`, consuming input dimensions. A positive value
/// is that extent; 0 copies the next input dimension (a literal 0 with
/// allowzero); -1 is inferred from the element count (at most one); -2
/// copies every remaining input dimension; -3 merges the next two; `-4 a b`
/// splits the next one into a and b (one of them may be -1). The element
/// count must not change.
///
/// \p in and \p newshape are read from the front; reverse_reshape passes
/// both reversed (Relay's InferNewShape with `reverse`). \p written is the
/// attribute as written, for errors.
static Expected<Shape> inferNewShape(ArrayRef<int64_t> in,
                                     ArrayRef<int64_t> newshape,
                                     bool allowzero, StringRef written,
                                     const TensorType *data,
                                     const TypeRelationContext &ctx) {

  Shape out;
  std::optional<size_t> inferIndex;
  size_t src = 0;
  for (size_t i = 0, e = newshape.size(); i != e; ++i) {
    int64_t value = newshape[i];
    if (value > 0) {
      out.push_back(value);
      ++src;
    } else if (value == 0) {
      if (allowzero) {
        out.push_back(0);
      } else {
        if (src >= in.size())
          return ctx.error("newshape " + written + ": 0 at position " +
                           Twine(i) + " has no input dimension to copy from " +
                           data->str());
        out.push_back(in[src]);
      }
      ++src;
    } else if (value == -1) {
      if (inferIndex)
        return ctx.error("newshape " + written + " has more than one -1");
      inferIndex = out.size();
      out.push_back(-1);
      ++src;
    } else if (value == -2) {
      for (; src < in.size(); ++src)
        out.push_back(in[src]);
    } else if (value == -3) {
      if (src + 1 >= in.size())
        return ctx.error("newshape " + written + ": -3 at position " +
                         Twine(i) + " needs two more input dimensions of " +
                         data->str());
      std::optional<int64_t> merged = mulDims(in[src], in[src + 1]);
      if (!merged)
        return ctx.error("newshape " + written + ": dimension overflow");
      out.push_back(*merged);
      src += 2;
    } else if (value == -4) {
      if (i + 2 >= e)
        return ctx.error("newshape " + written + ": -4 at position " +
                         Twine(i) + " must be followed by two values");
      if (src >= in.size())
        return ctx.error("newshape " + written + ": -4 at position " +
                         Twine(i) + " has no input dimension to split in " +
                         data->str());
      int64_t whole = in[src++];
      int64_t a = newshape[++i], b = newshape[++i];
      if ((a <= 0 && a != -1) || (b <= 0 && b != -1) || (a == -1 && b == -1))
        return ctx.error("newshape " + written + ": cannot split dimension " +
                         Twine(whole) + " into (" + Twine(a) + ", " + Twine(b) +
                         ")");
      if (isAnyDim(whole)) {
        // As TVM's InferNewShape: the -1 part of a dynamic extent is `?`
        // (and -1 already spells kAnyDim).
        out.push_back(a);
        out.push_back(b);
        continue;
      }
      if (a == -1)
        a = whole / b;
      else if (b == -1)
        b = whole / a;
      int64_t product;
      if (MulOverflow(a, b, product) || product != whole)
        return ctx.error("newshape " + written + ": cannot split dimension " +
                         Twine(whole) + " into (" + Twine(newshape[i - 1]) +
                         ", " + Twine(newshape[i]) + ")");
      out.push_back(a);
      out.push_back(b);
    } else {
      return ctx.error("newshape " + written + " has the invalid value " +
                       Twine(value));
    }
  }

  // With a dynamic extent in or out, -1 is `?` and the element count is
  // checked at run time (TVM's InferNewShape).
  bool dynamicOut = false;
  for (size_t i = 0, e = out.size(); i != e; ++i)
    dynamicOut |= (!inferIndex || i != *inferIndex) && isAnyDim(out[i]);
  if (data->isDynamic() || dynamicOut) {
    if (inferIndex)
      out[*inferIndex] = kAnyDim;
    return out;
  }
  int64_t total = data->getNumElements();
  if (inferIndex) {
    int64_t others = 1;
    for (size_t i = 0, e = out.size(); i != e; ++i)
      if (i != *inferIndex && MulOverflow(others, out[i], others))
        return ctx.error("newshape " + written +
                         " has more than 2^63-1 elements");
    if (others == 0)
      return ctx.error("newshape " + written +
                       ": cannot infer the -1 dimension when another "
                       "dimension is 0");
    if (total % others != 0)
      return ctx.error("cannot reshape " + data->str() + " (" + Twine(total) +
                       " elements) to newshape " + written + ": " +
                       Twine(total) + " is not divisible by " + Twine(others));
    out[*inferIndex] = total / others;
  }
  std::optional<int64_t> count = getNumElements(out);
  if (!count)
    return ctx.error("result shape " + formatIntList(out) +
                     " has more than 2^63-1 elements");
  if (*count != total)
    return ctx.error("cannot reshape " + data->str() + " (" + Twine(total) +
                     " elements) to newshape " + written + " (" +
                     Twine(*count) + " elements)");
  return out;
}

static RelationResult reshapeRelation(const ReshapeAttrs *reshape,
                                      const TensorType *data,
                                      ArrayRef<const Type *>,
                                      const TypeRelationContext &ctx) {
  Expected<Shape> out =
      inferNewShape(data->getShape(), reshape->newshape, reshape->allowzero,
                    formatIntList(reshape->newshape), data, ctx);
  if (!out)
    return out.takeError();
  return makeTensorType(*out, data->getDType(), ctx);
}

/// reverse_reshape (Relay's contrib_reverse_reshape): reshape with the
/// special values of `newshape` read from right to left, against the
/// dimensions from the last: a data shape (10, 5, 4) and newshape (-1, 0)
/// give (40, 5), where reshape gives (50, 4).
static RelationResult reverseReshapeRelation(const ReshapeAttrs *reshape,
                                             const TensorType *data,
                                             ArrayRef<const Type *>,
                                             const TypeRelationContext &ctx) {
  Shape in(data->getShape().rbegin(), data->getShape().rend());
  IntList newshape(reshape->newshape.rbegin(), reshape->newshape.rend());
  Expected<Shape> out =
      inferNewShape(in, newshape, reshape->allowzero,
                    formatIntList(reshape->newshape), data, ctx);
  if (!out)
    return out.takeError();
  std::reverse(out->begin(), out->end());
  return makeTensorType(*out, data->getDType(), ctx);
}

/// The range [begin, end) of the dimensions of \p tensor that reshape_like's
/// \p beginName / \p endName select (negative values count from the end, an
/// end of None is the rank).
static Expected<std::pair<unsigned, unsigned>>
getDimRange(int64_t begin, std::optional<int64_t> end, const TensorType *tensor,
            StringRef beginName, StringRef endName,
            const TypeRelationContext &ctx) {
  int64_t rank = tensor->getRank();
  int64_t b = begin < 0 ? begin + rank : begin;
  int64_t e = !end ? rank : (*end < 0 ? *end + rank : *end);
  if (b < 0 || b > e || e > rank)
    return ctx.error(beginName + " " + Twine(begin) + " and " + endName + " " +
                     (end ? Twine(*end).str() : std::string("None")) +
                     " do not select a range of the dimensions of " +
                     tensor->str());
  return std::make_pair(unsigned(b), unsigned(e));
}

/// reshape_like: data's dimensions [lhs_begin, lhs_end) are replaced by
/// shape_like's [rhs_begin, rhs_end); the element count must not change.
static RelationResult reshapeLikeRelation(const ReshapeLikeAttrs *params,
                                          const TensorType *data,
                                          const TensorType *like,
                                          ArrayRef<const Type *>,
                                          const TypeRelationContext &ctx) {
  auto lhs = getDimRange(params->lhsBegin, params->lhsEnd, data, "lhs_begin",
                         "lhs_end", ctx);
  if (!lhs)
    return lhs.takeError();
  auto rhs = getDimRange(params->rhsBegin, params->rhsEnd, like, "rhs_begin",
                         "rhs_end", ctx);
  if (!rhs)
    return rhs.takeError();

  ArrayRef<int64_t> in = data->getShape();
  Shape out(in.begin(), in.begin() + lhs->first);
  append_range(out,
               like->getShape().slice(rhs->first, rhs->second - rhs->first));
  append_range(out, in.drop_front(lhs->second));
  if (data->isDynamic() || !isStaticShape(out))
    return makeTensorType(out, data->getDType(), ctx);
  std::optional<int64_t> count = getNumElements(out);
  int64_t total = data->getNumElements();
  if (!count || *count != total)
    return ctx.error(
        "cannot reshape " + data->str() + " (" + Twine(total) +
        " elements) like " + like->str() + " to " + formatIntList(out) + " (" +
        (count ? Twine(*count).str() : std::string("too many")) + " elements)");
  return makeTensorType(out, data->getDType(), ctx);
}

//===----------------------------------------------------------------------===//
// transpose, expand_dims, squeeze
//===----------------------------------------------------------------------===//

/// transpose: `axes` None reverses the dimensions; otherwise it must be a
/// permutation of the axes (negative ones count from the end). As in Relay,
/// an empty list is a permutation of nothing, not None.
static RelationResult transposeRelation(const TransposeAttrs *transpose,
                                        const TensorType *data,
                                        ArrayRef<const Type *>,
                                        const TypeRelationContext &ctx) {
  ArrayRef<int64_t> in = data->getShape();
  unsigned rank = in.size();
  const std::optional<IntList> &axes = transpose->axes;

  Shape out;
  if (!axes) {
    out.assign(in.rbegin(), in.rend());
    return makeTensorType(out, data->getDType(), ctx);
  }
  if (axes->size() != rank)
    return ctx.error("axes " + formatIntList(*axes) + " has " +
                     Twine(axes->size()) + " entries for " + data->str());
  SmallBitVector seen(rank);
  for (int64_t axis : *axes) {
    Expected<unsigned> index = normalizeAxis(axis, rank, ctx);
    if (!index)
      return index.takeError();
    if (seen.test(*index))
      return ctx.error("axes " + formatIntList(*axes) +
                       " is not a permutation: axis " + Twine(*index) +
                       " is listed twice");
    seen.set(*index);
    out.push_back(in[*index]);
  }
  return makeTensorType(out, data->getDType(), ctx);
}

/// expand_dims: inserts num_newaxis dimensions of extent 1 before `axis`
/// (in [-rank-1, rank]; -1 appends).
static RelationResult expandDimsRelation(const ExpandDimsAttrs *params,
                                         const TensorType *data,
                                         ArrayRef<const Type *>,
                                         const TypeRelationContext &ctx) {
  int64_t count = params->numNewaxis;
  // The result's rank must stay a sane number of dimensions.
  if (count < 0 || count > 1024)
    return ctx.error("num_newaxis must be in [0, 1024], got " + Twine(count));
  ArrayRef<int64_t> in = data->getShape();
  Expected<unsigned> pivot = normalizeInsertAxis(params->axis, in.size(), ctx);
  if (!pivot)
    return pivot.takeError();
  Shape out(in.begin(), in.begin() + *pivot);
  out.append(count, 1);
  append_range(out, in.drop_front(*pivot));
  return makeTensorType(out, data->getDType(), ctx);
}

/// squeeze: `axis` None drops every dimension of extent 1; otherwise the
/// listed dimensions are dropped and must have extent 1.
static RelationResult squeezeRelation(const SqueezeAttrs *params,
                                      const TensorType *data,
                                      ArrayRef<const Type *>,
                                      const TypeRelationContext &ctx) {
  ArrayRef<int64_t> in = data->getShape();
  unsigned rank = in.size();

  SmallBitVector dropped(rank);
  if (!params->axis) {
    // Whether a `?` extent is 1 is known only at run time (TVM requires the
    // axis for dynamic input too).
    if (Error err = requireStaticShape(
            data, "data", "squeeze needs its axis to drop it", ctx))
      return err;
    for (unsigned i = 0; i != rank; ++i)
      dropped[i] = in[i] == 1;
  } else {
    for (int64_t axis : *params->axis) {
      Expected<unsigned> index = normalizeAxis(axis, rank, ctx);
      if (!index)
        return index.takeError();
      // A listed `?` axis is dropped (it must be 1 at run time).
      if (in[*index] != 1 && !isAnyDim(in[*index]))
        return ctx.error("cannot squeeze axis " + Twine(*index) + " of " +
                         data->str() + ": its extent is " + Twine(in[*index]) +
                         ", not 1");
      dropped.set(*index);
    }
  }
  Shape out;
  for (unsigned i = 0; i != rank; ++i)
    if (!dropped.test(i))
      out.push_back(in[i]);
  return makeTensorType(out, data->getDType(), ctx);
}

//===----------------------------------------------------------------------===//
// concatenate, split, stack
//===----------------------------------------------------------------------===//

/// concatenate: a tuple of tensors of one rank and dtype, equal on every
/// dimension but `axis`, where the extents add up.
static RelationResult concatenateRelation(const ConcatenateAttrs *concat,
                                          ArrayRef<const Type *> args,
                                          const TypeRelationContext &ctx) {
  SmallVector<const TensorType *, 4> fields;
  if (Error err = getTensorTuple(args, "concatenate", fields, ctx))
    return err;
  const TensorType *first = fields.front();
  unsigned rank = first->getRank();
  if (rank == 0)
    return ctx.error("cannot concatenate 0-d tensors");
  Expected<unsigned> axis = normalizeAxis(concat->axis, rank, ctx);
  if (!axis)
    return axis.takeError();

  Shape out(first->getShape().begin(), first->getShape().end());
  for (const TensorType *field : ArrayRef(fields).drop_front()) {
    if (field->getRank() != rank)
      return ctx.error("cannot concatenate " + first->str() + " with " +
                       field->str() + ": ranks differ");
    if (field->getDType() != first->getDType())
      return ctx.error("dtype mismatch " + first->getDType().str() + " vs " +
                       field->getDType().str());
    for (unsigned d = 0; d != rank; ++d) {
      if (d == *axis)
        continue;
      if (!dimsMatch(field->getShape()[d], out[d]))
        return ctx.error("cannot concatenate " + first->str() + " with " +
                         field->str() + " along axis " + Twine(*axis));
      out[d] = unifyDims(out[d], field->getShape()[d]);
    }
    // A `?` part makes the axis `?`.
    std::optional<int64_t> sum = addDims(out[*axis], field->getShape()[*axis]);
    if (!sum)
      return ctx.error("the concatenated axis " + Twine(*axis) +
                       " has more than 2^63-1 elements");
    out[*axis] = *sum;
  }
  return makeTensorType(out, first->getDType(), ctx);
}

/// split: an integer n cuts `axis` into n equal parts (n must divide it); a
/// list [i1, ..., ik] cuts it at strictly increasing indices inside the axis,
/// into [0, i1), [i1, i2), ..., [ik, dim). The result is a tuple.
static RelationResult splitRelation(const SplitAttrs *split,
                                    const TensorType *data,
                                    ArrayRef<const Type *>,
                                    const TypeRelationContext &ctx) {
  ArrayRef<int64_t> in = data->getShape();
  Expected<unsigned> axis = normalizeAxis(split->axis, in.size(), ctx);
  if (!axis)
    return axis.takeError();
  int64_t dim = in[*axis];
  const AttrValue &spec = split->indicesOrSections;

  // Boundaries of the parts along the axis: 0 = b0 < b1 < ... < bn = dim.
  SmallVector<int64_t, 8> bounds;
  if (spec.getKind() == AttrValue::Kind::Int) {
    int64_t sections = spec.getInt();
    if (sections <= 0)
      return ctx.error("the number of sections must be positive, got " +
                       Twine(sections));
    if (!isAnyDim(dim) && dim % sections != 0)
      return ctx.error("axis " + Twine(*axis) + " of " + data->str() +
                       " cannot be split into " + Twine(sections) +
                       " equal sections");
    // Every part is a type in the result: keep the tuple a sane size.
    if (sections > (1 << 16))
      return ctx.error("cannot split into " + Twine(sections) +
                       " sections (at most 65536)");
    for (int64_t i = 0; i <= sections; ++i)
      bounds.push_back(isAnyDim(dim) ? 0 : dim / sections * i);
  } else if (spec.getKind() == AttrValue::Kind::Array) {
    SmallVector<int64_t, 8> indices;
    for (const AttrValue &index : spec.getArray()) {
      if (index.getKind() != AttrValue::Kind::Int)
        return ctx.error("indices_or_sections must be an integer or a list of "
                         "integers, got a list with " +
                         index.describe());
      indices.push_back(index.getInt());
    }
    bounds.push_back(0);
    for (int64_t index : indices) {
      if (index <= bounds.back() || (!isAnyDim(dim) && index >= dim))
        return ctx.error("indices " + formatIntList(indices) +
                         " must increase strictly within (0, " + Twine(dim) +
                         ") for axis " + Twine(*axis) + " of " + data->str());
      bounds.push_back(index);
    }
    bounds.push_back(dim);
  } else {
    return ctx.error("indices_or_sections must be an integer or a list of "
                     "integers, got " +
                     spec.describe());
  }

  SmallVector<Ref<Type>, 8> fields;
  Shape shape(in.begin(), in.end());
  for (size_t i = 0, e = bounds.size() - 1; i != e; ++i) {
    // Of a `?` axis, every section and the last of the indexed parts are `?`
    // (TVM's SplitRel).
    bool dynamicPart =
        isAnyDim(dim) &&
        (spec.getKind() == AttrValue::Kind::Int || i + 1 == e);
    shape[*axis] = dynamicPart ? kAnyDim : bounds[i + 1] - bounds[i];
    Expected<Ref<Type>> field = makeTensorType(shape, data->getDType(), ctx);
    if (!field)
      return field.takeError();
    fields.push_back(std::move(*field));
  }
  return Ref<Type>(TupleType::get(fields));
}

/// stack: a tuple of n tensors of one shape and dtype; a new dimension of
/// extent n is inserted at `axis` (in [-rank-1, rank]).
static RelationResult stackRelation(const StackAttrs *params,
                                    ArrayRef<const Type *> args,
                                    const TypeRelationContext &ctx) {
  SmallVector<const TensorType *, 4> fields;
  if (Error err = getTensorTuple(args, "stack", fields, ctx))
    return err;
  const TensorType *first = fields.front();
  for (const TensorType *field : ArrayRef(fields).drop_front()) {
    if (field->getDType() != first->getDType())
      return ctx.error("dtype mismatch " + first->getDType().str() + " vs " +
                       field->getDType().str());
    if (!typesCompatible(field, first))
      return ctx.error("cannot stack " + first->str() + " with " +
                       field->str() + ": shapes differ");
  }
  // The fields' extents, static where one of them is.
  Shape in(first->getShape().begin(), first->getShape().end());
  for (const TensorType *field : ArrayRef(fields).drop_front())
    for (unsigned d = 0, e = in.size(); d != e; ++d)
      in[d] = unifyDims(in[d], field->getShape()[d]);
  Expected<unsigned> pivot = normalizeInsertAxis(params->axis, in.size(), ctx);
  if (!pivot)
    return pivot.takeError();
  Shape out(in.begin(), in.begin() + *pivot);
  out.push_back(fields.size());
  append_range(out, ArrayRef(in).drop_front(*pivot));
  return makeTensorType(out, first->getDType(), ctx);
}

//===----------------------------------------------------------------------===//
// strided_slice
//===----------------------------------------------------------------------===//

/// Relay's CanonicalizeIndex: a negative index counts from the end; the
/// result is clamped to [0, extent], or [-1, extent-1] for a negative stride.
static int64_t canonicalizeIndex(int64_t index, int64_t extent,
                                 int64_t stride) {
  int64_t low = stride < 0 ? -1 : 0;
  int64_t high = stride < 0 ? extent - 1 : extent;
  if (index < 0)
    index += extent;
  return std::min(std::max(index, low), high);
}

/// Without `axes`, missing strides are 1 and missing begins / ends are None;
/// with `axes`, begin, end and strides give exactly those axes. In
/// slice_mode "size" the strides are 1 and `end` holds sizes (negative: to
/// the end of the axis). As in Relay, a None (or missing) end with a
/// negative stride is 0, so element 0 is left out; an end of -n-1 or below
/// runs through it.
Expected<SmallVector<SlicedAxis, 4>>
nnir::resolveStridedSlice(const StridedSliceAttrs &p, ArrayRef<int64_t> in,
                          StringRef dataText,
                          const TypeRelationContext &ctx) {
  unsigned rank = in.size();
  for (auto [name, isSet] : {std::make_pair("begin", p.begin.has_value()),
                             std::make_pair("end", p.end.has_value()),
                             std::make_pair("strides", p.strides.has_value())})
    if (!isSet)
      return ctx.error(Twine(name) +
                       "=None is a dynamic slice; nnir needs static shapes: "
                       "give begin, end and strides as lists of integers");
  bool sizeMode;
  if (p.sliceMode == "end")
    sizeMode = false;
  else if (p.sliceMode == "size")
    sizeMode = true;
  else
    return ctx.error("slice_mode must be \"end\" or \"size\", got \"" +
                     p.sliceMode + "\"");
  OptionalIntList begin = *p.begin, end = *p.end;
  IntList strides = *p.strides;
  for (int64_t stride : strides)
    if (stride == 0 && !sizeMode)
      return ctx.error("strides " + formatIntList(strides) +
                       " has a zero stride");

  SmallVector<unsigned, 4> axes;
  if (p.axes) {
    if (begin.size() != p.axes->size() || end.size() != p.axes->size() ||
        strides.size() != p.axes->size())
      return ctx.error("axes, begin, end and strides must have the same "
                       "length, got " +
                       Twine(p.axes->size()) + ", " + Twine(begin.size()) +
                       ", " + Twine(end.size()) + " and " +
                       Twine(strides.size()));
    SmallBitVector seen(rank);
    for (int64_t axis : *p.axes) {
      Expected<unsigned> index = normalizeAxis(axis, rank, ctx);
      if (!index)
        return index.takeError();
      if (seen.test(*index))
        return ctx.error("axes " + formatIntList(*p.axes) + " lists axis " +
                         Twine(*index) + " twice");
      seen.set(*index);
      axes.push_back(*index);
    }
  } else {
    for (auto [name, size] : {std::make_pair("begin", begin.size()),
                              std::make_pair("end", end.size()),
                              std::make_pair("strides", strides.size())})
      if (size > rank)
        return ctx.error(Twine(name) + " has " + Twine(size) + " entries for " +
                         dataText);
    for (unsigned i = 0; i != rank; ++i)
      axes.push_back(i);
    strides.resize(rank, 1);
    begin.resize(rank, std::nullopt);
    end.resize(rank, std::nullopt);
  }

  constexpr int64_t maxRange = std::numeric_limits<int64_t>::max();
  SmallVector<SlicedAxis, 4> sliced;
  for (size_t i = 0, e = axes.size(); i != e; ++i) {
    // Relay's ConvertToVec: "size" mode ignores the strides.
    int64_t stride = sizeMode ? 1 : strides[i];
    int64_t extent = in[axes[i]];
    int64_t b = begin[i] ? *begin[i] : (stride > 0 ? 0 : maxRange);
    if (isAnyDim(extent)) {
      // Where the slice clamps is known at run time (TVM's relation gives
      // `?` for a dynamic input extent too).
      sliced.push_back({axes[i], 0, stride, kAnyDim});
      continue;
    }
    int64_t cb = canonicalizeIndex(b, extent, stride);
    int64_t ce;
    if (!end[i]) {
      ce = stride < 0 ? 0 : extent;
    } else {
      int64_t en = *end[i];
      if (sizeMode && (en < 0 || AddOverflow(b, *end[i], en)))
        en = maxRange;
      ce = canonicalizeIndex(en, extent, stride);
    }
    if (stride < 0 ? ce > cb : cb > ce)
      return ctx.error("begin " + Twine(b) + " and end " +
                       (end[i] ? Twine(*end[i]) : Twine("None")) +
                       " select nothing on axis " + Twine(axes[i]) + " of " +
                       dataText + " with stride " + Twine(stride));
    uint64_t interval = stride < 0 ? cb - ce : ce - cb;
    uint64_t step = stride < 0 ? 0 - uint64_t(stride) : uint64_t(stride);
    sliced.push_back({axes[i], cb, stride,
                      interval == 0 ? 0 : int64_t((interval - 1) / step + 1)});
  }
  return sliced;
}

/// strided_slice (Relay's StridedSliceRel and topi's StridedSliceOutputShape):
/// each sliced axis gets ceil(|end - begin| / |stride|) elements of the
/// canonical begin and end (resolveStridedSlice).
static RelationResult stridedSliceRelation(const StridedSliceAttrs *params,
                                           const TensorType *data,
                                           ArrayRef<const Type *>,
                                           const TypeRelationContext &ctx) {
  ArrayRef<int64_t> in = data->getShape();
  Expected<SmallVector<SlicedAxis, 4>> sliced =
      resolveStridedSlice(*params, in, data->str(), ctx);
  if (!sliced)
    return sliced.takeError();
  Shape out(in.begin(), in.end());
  for (const SlicedAxis &axis : *sliced)
    out[axis.axis] = axis.extent;
  return makeTensorType(out, data->getDType(), ctx);
}

//===----------------------------------------------------------------------===//
// take, gather, gather_nd
//===----------------------------------------------------------------------===//

/// take: `axis` None indexes the flattened data (the result has the indices'
/// shape); otherwise data[:axis] ++ indices[batch_dims:] ++ data[axis+1:].
/// The first batch_dims dimensions of data and indices must agree.
static RelationResult takeRelation(const TakeAttrs *params,
                                   const TensorType *data,
                                   const TensorType *indices,
                                   ArrayRef<const Type *>,
                                   const TypeRelationContext &ctx) {
  StringRef mode = params->mode;
  if (mode != "clip" && mode != "wrap" && mode != "fast")
    return ctx.error("mode must be \"clip\", \"wrap\" or \"fast\", got \"" +
                     mode + "\"");
  if (!params->axis)
    return makeTensorType(indices->getShape(), data->getDType(), ctx);

  ArrayRef<int64_t> in = data->getShape();
  ArrayRef<int64_t> idx = indices->getShape();
  Expected<unsigned> axis = normalizeAxis(*params->axis, in.size(), ctx);
  if (!axis)
    return axis.takeError();
  int64_t batchDims = params->batchDims;
  if (batchDims < 0)
    batchDims += idx.size();
  if (batchDims < 0 || batchDims > int64_t(idx.size()) || batchDims > *axis)
    return ctx.error(
        "batch_dims " + Twine(params->batchDims) + " must be in [0, " +
        Twine(std::min<size_t>(idx.size(), *axis)) + "] for axis " +
        Twine(*axis) + " of " + data->str() + " and indices " + indices->str());
  for (int64_t d = 0; d != batchDims; ++d)
    if (!dimsMatch(in[d], idx[d]))
      return ctx.error("the first " + Twine(batchDims) +
                       " (batch) dimensions of " + data->str() +
                       " and indices " + indices->str() + " differ");
  Shape out(in.begin(), in.begin() + *axis);
  append_range(out, idx.drop_front(batchDims));
  append_range(out, in.drop_front(*axis + 1));
  return makeTensorType(out, data->getDType(), ctx);
}

/// gather: data and indices have one rank and agree off `axis`, where
/// indices has at least one element; the result has the indices' shape.
static RelationResult gatherRelation(const GatherAttrs *params,
                                     const TensorType *data,
                                     const TensorType *indices,
                                     ArrayRef<const Type *>,
                                     const TypeRelationContext &ctx) {
  if (!params->axis)
    return ctx.error("axis must be set");
  ArrayRef<int64_t> in = data->getShape();
  ArrayRef<int64_t> idx = indices->getShape();
  if (in.size() != idx.size())
    return ctx.error("data " + data->str() + " and indices " + indices->str() +
                     " must have the same rank");
  Expected<unsigned> axis = normalizeAxis(*params->axis, in.size(), ctx);
  if (!axis)
    return axis.takeError();
  for (unsigned d = 0, e = in.size(); d != e; ++d) {
    if (d == *axis ? idx[d] < 1 && !isAnyDim(idx[d])
                   : !dimsMatch(idx[d], in[d]))
      return ctx.error("cannot gather from " + data->str() + " with indices " +
                       indices->str() + " along axis " + Twine(*axis) +
                       ": dimension " + Twine(d) + " differs");
  }
  return makeTensorType(idx, data->getDType(), ctx);
}

/// gather_nd: indices has shape (M, Y...) where the first M (after
/// batch_dims) dimensions of data are indexed; the result is
/// indices.shape[1:] ++ data.shape[batch_dims + M:]. With batch_dims B, the
/// first B dimensions of data are batch dimensions, indices.shape[1:B+1].
static RelationResult gatherNDRelation(const GatherNDAttrs *params,
                                       const TensorType *data,
                                       const TensorType *indices,
                                       ArrayRef<const Type *>,
                                       const TypeRelationContext &ctx) {
  ArrayRef<int64_t> in = data->getShape();
  ArrayRef<int64_t> idx = indices->getShape();
  if (idx.empty())
    return ctx.error("expected indices of rank at least 1, got " +
                     indices->str());
  if (Error err = requireStaticDim(
          indices, 0, "indices",
          "gather_nd needs the number of indexed dimensions", ctx))
    return err;
  int64_t m = idx[0];
  int64_t batchDims = params->batchDims;
  if (batchDims < 0 || batchDims + 1 > int64_t(idx.size()))
    return ctx.error("batch_dims " + Twine(batchDims) +
                     " is out of range for indices " + indices->str());
  if (std::optional<int64_t> indexRank = params->indexRank;
      indexRank && *indexRank != m)
    return ctx.error("index_rank " + Twine(*indexRank) +
                     " differs from the first dimension of indices " +
                     indices->str());
  if (m > int64_t(in.size()) - batchDims)
    return ctx.error("indices " + indices->str() + " index " + Twine(m) +
                     " dimensions of " + data->str() + " after " +
                     Twine(batchDims) + " batch dimensions");
  for (int64_t d = 0; d != batchDims; ++d)
    if (!dimsMatch(in[d], idx[1 + d]))
      return ctx.error("the " + Twine(batchDims) + " batch dimensions of " +
                       data->str() + " and indices " + indices->str() +
                       " differ");
  Shape out(idx.begin() + 1, idx.end());
  append_range(out, in.drop_front(batchDims + m));
  return makeTensorType(out, data->getDType(), ctx);
}

//===----------------------------------------------------------------------===//
// full, zeros, ones, full_like, broadcast_to, broadcast_to_like
//===----------------------------------------------------------------------===//

/// full: a 0-d fill value; the result has the `shape` attribute and `dtype`
/// (the fill value's when unset).
static RelationResult fullRelation(const InitOpAttrs *params,
                                   const TensorType *fill,
                                   ArrayRef<const Type *>,
                                   const TypeRelationContext &ctx) {
  Expected<ArrayRef<int64_t>> shape = getShapeAttr(params->shape, ctx);
  if (!shape)
    return shape.takeError();
  DataType dtype = params->dtype;
  return makeTensorType(*shape, dtype.isVoid() ? fill->getDType() : dtype, ctx);
}

/// zeros, ones: no arguments; the result has the `shape` and `dtype`
/// attributes.
static RelationResult initRelation(const InitOpAttrs *params,
                                   ArrayRef<const Type *>,
                                   const TypeRelationContext &ctx) {
  Expected<ArrayRef<int64_t>> shape = getShapeAttr(params->shape, ctx);
  if (!shape)
    return shape.takeError();
  if (Error err = requireDType(params->dtype, "dtype", ctx))
    return err;
  return makeTensorType(*shape, params->dtype, ctx);
}

/// full_like: a 0-d fill value; the result has the data's type.
static RelationResult fullLikeRelation(const TensorType *data,
                                       const TensorType *fill,
                                       ArrayRef<const Type *>,
                                       const TypeRelationContext &ctx) {
  return Ref<Type>(const_cast<TensorType *>(data));
}

/// The type of \p data broadcast to \p shape: numpy broadcasting of the two
/// must give \p shape itself. \p target describes the shape in errors.
static RelationResult broadcastTo(const TensorType *data,
                                  ArrayRef<int64_t> shape, const Twine &target,
                                  const TypeRelationContext &ctx) {
  std::optional<Shape> result = broadcastShapes(data->getShape(), shape);
  bool fits = result && result->size() == shape.size();
  for (size_t i = 0; fits && i != shape.size(); ++i)
    fits = dimsMatch((*result)[i], shape[i]);
  if (!fits)
    return ctx.error("cannot broadcast " + data->str() + " to " + target);
  return makeTensorType(shape, data->getDType(), ctx);
}

/// broadcast_to: data broadcast to the `shape` attribute, keeping its dtype.
static RelationResult broadcastToRelation(const InitOpAttrs *params,
                                          const TensorType *data,
                                          ArrayRef<const Type *>,
                                          const TypeRelationContext &ctx) {
  Expected<ArrayRef<int64_t>> shape = getShapeAttr(params->shape, ctx);
  if (!shape)
    return shape.takeError();
  for (int64_t dim : *shape)
    if (dim < 0)
      return ctx.error("shape " + formatIntList(*shape) +
                       " has a negative dimension");
  return broadcastTo(data, *shape, "shape " + formatIntList(*shape), ctx);
}

/// broadcast_to_like: data broadcast to the shape of the second argument,
/// keeping its dtype.
static RelationResult broadcastToLikeRelation(const TensorType *data,
                                              const TensorType *like,
                                              ArrayRef<const Type *>,
                                              const TypeRelationContext &ctx) {
  return broadcastTo(data, like->getShape(), "the shape of " + like->str(),
                     ctx);
}

//===----------------------------------------------------------------------===//
// layout_transform
//===----------------------------------------------------------------------===//

/// layout_transform: the data's shape read in src_layout and written in
/// dst_layout (NCHW -> NHWC permutes; NCHW -> NCHW4c splits C into
/// ceil(C/4) and 4, padding as TVM's BijectiveLayout::ForwardShape does;
/// NCHW4c -> NCHW merges them). Both layouts must have the same primal
/// axes.
static RelationResult
layoutTransformRelation(const LayoutTransformAttrs *params,
                        const TensorType *data, ArrayRef<const Type *>,
                        const TypeRelationContext &ctx) {
  StringRef srcName = params->srcLayout, dstName = params->dstLayout;
  Expected<Layout> src = parseLayoutAttr(srcName, "src_layout", ctx);
  if (!src)
    return src.takeError();
  Expected<Layout> dst = parseLayoutAttr(dstName, "dst_layout", ctx);
  if (!dst)
    return dst.takeError();
  std::string srcPrimal = src->getPrimalAxes();
  std::string dstPrimal = dst->getPrimalAxes();
  llvm::sort(srcPrimal);
  llvm::sort(dstPrimal);
  if (srcPrimal != dstPrimal)
    return ctx.error("cannot convert from src_layout '" + srcName +
                     "' to dst_layout '" + dstName +
                     "': their primal axes differ");
  ArrayRef<int64_t> in = data->getShape();
  if (in.size() != src->getRank())
    return ctx.error("src_layout '" + srcName + "' has " +
                     Twine(src->getRank()) + " axes but the data is " +
                     data->str());

  // The full extent of every primal axis.
  int64_t full[26] = {};
  for (unsigned i = 0, e = src->getRank(); i != e; ++i) {
    const LayoutAxis &axis = (*src)[i];
    if (!axis.isPrimal()) {
      if (in[i] != axis.factor)
        return ctx.error("dimension " + Twine(i) + " of " + data->str() +
                         " is " + Twine(in[i]) + " but src_layout '" + srcName +
                         "' gives its sub-axis '" + Twine(axis.name) +
                         "' the factor " + Twine(axis.factor));
      continue;
    }
    // A `?` primal axis stays `?` in the other layout (TVM's Any).
    int64_t extent = in[i];
    if (!isAnyDim(extent) &&
        MulOverflow(extent, src->getSplitFactor(axis.name), extent))
      return ctx.error("dimension overflow in " + data->str());
    full[axis.name - 'A'] = extent;
  }
  Shape out;
  for (const LayoutAxis &axis : dst->getAxes()) {
    if (!axis.isPrimal()) {
      out.push_back(axis.factor);
      continue;
    }
    // TVM's shape rule for a split axis is shapediv, a division rounded up:
    // NCHW -> NCHW2c on 3 channels gives 2 x 2 (the last block padded).
    int64_t extent = full[axis.name - 'A'];
    out.push_back(isAnyDim(extent)
                      ? kAnyDim
                      : divideCeil(extent, dst->getSplitFactor(axis.name)));
  }
  return makeTensorType(out, data->getDType(), ctx);
}

//===----------------------------------------------------------------------===//
// shape_of, ndarray_size, arange
//===----------------------------------------------------------------------===//

/// shape_of: a 1-d tensor of the data's rank (0-d for a 0-d input) of the
/// `dtype` attribute.
static RelationResult shapeOfRelation(const ShapeOfAttrs *params,
                                      const TensorType *data,
                                      ArrayRef<const Type *>,
                                      const TypeRelationContext &ctx) {
  if (Error err = requireDType(params->dtype, "dtype", ctx))
    return err;
  Shape out;
  if (unsigned rank = data->getRank())
    out.push_back(rank);
  return makeTensorType(out, params->dtype, ctx);
}

/// ndarray_size: a 0-d tensor of the `dtype` attribute.
static RelationResult ndarraySizeRelation(const NdarraySizeAttrs *params,
                                          const TensorType *data,
                                          ArrayRef<const Type *>,
                                          const TypeRelationContext &ctx) {
  if (Error err = requireDType(params->dtype, "dtype", ctx))
    return err;
  return makeTensorType({}, params->dtype, ctx);
}

Error AttrFieldTraits<ExprAttr>::fromValue(const AttrValue &v, ExprAttr &out) {
  switch (v.getKind()) {
  case AttrValue::Kind::None:
  case AttrValue::Kind::Expr:
    out.value = v;
    return Error::success();
  case AttrValue::Kind::Int: {
    NDArray data = NDArray::scalar(v.getDType(), 0);
    data.setElementFromInt(0, v.getInt());
    out.value =
        AttrValue::expr(Constant::get(std::move(data), v.getLoc()), v.getLoc());
    return Error::success();
  }
  case AttrValue::Kind::Float:
    out.value = AttrValue::expr(
        Constant::getScalar(v.getDType(), v.getFloat(), v.getLoc()),
        v.getLoc());
    return Error::success();
  case AttrValue::Kind::Bool:
    out.value = AttrValue::expr(
        Constant::getScalar(DataType::boolean(), v.getBool(), v.getLoc()),
        v.getLoc());
    return Error::success();
  default:
    return makeAttrTypeError("an expression", v);
  }
}

/// The number held by \p expr when it is a constant with one element.
static std::optional<double> getConstantNumber(const Expr *expr) {
  if (const auto *constant = dyn_cast_or_null<Constant>(expr))
    if (constant->getData().getNumElements() == 1)
      return constant->getData().getElementAsDouble(0);
  return std::nullopt;
}

/// arange(start, stop, step): three 0-d arguments of the `dtype` attribute;
/// the result is [max(ceil((stop - start) / step), 0)] of that dtype. The values come
/// from the start/stop/step attributes (literals or constants, as TVM prints
/// them), else from constant arguments; otherwise the extent is `?`.
static RelationResult arangeRelation(const ArangeAttrs *params,
                                     ArrayRef<const Type *> args,
                                     const TypeRelationContext &ctx) {
  DataType dtype = params->dtype;
  if (Error err = requireDType(dtype, "dtype", ctx))
    return err;
  const char *names[] = {"start", "stop", "step"};
  const AttrValue *values[] = {&params->start.value, &params->stop.value,
                               &params->step.value};
  double numbers[3];
  bool dynamic = false;
  for (unsigned i = 0; i != 3; ++i) {
    Expected<const TensorType *> arg = getTensorArg(args, i, names[i], ctx);
    if (!arg)
      return arg.takeError();
    if ((*arg)->getRank() != 0 || (*arg)->getDType() != dtype)
      return ctx.error("expected a 0-d " + dtype.str() + " tensor for '" +
                       names[i] + "', got " + (*arg)->str());
    std::optional<double> number = getConstantNumber(
        values[i]->getKind() == AttrValue::Kind::Expr ? values[i]->getExpr()
                                                      : nullptr);
    if (!number && i < ctx.args.size())
      number = getConstantNumber(ctx.args[i].get());
    // Bounds known only at run time: a dynamic extent (the evaluator runs
    // the call as arange of their values, nnir/Ops/DynamicOps.h).
    if (!number)
      dynamic = true;
    else
      numbers[i] = *number;
  }
  if (dynamic)
    return makeTensorType({kAnyDim}, dtype, ctx);
  if (numbers[2] == 0)
    return ctx.error("step must not be 0");
  double count = std::ceil((numbers[1] - numbers[0]) / numbers[2]);
  if (std::isnan(count))
    return ctx.error("start " + formatDouble(numbers[0]) + ", stop " +
                     formatDouble(numbers[1]) + " and step " +
                     formatDouble(numbers[2]) + " give no count of elements");
  // A stop behind the start (in the step's direction) is an empty range
  // (NumPy's and ONNX Range's): a zero extent.
  if (count < 0)
    count = 0;
  if (count >= 0x1p63)
    return ctx.error("start " + formatDouble(numbers[0]) + ", stop " +
                     formatDouble(numbers[1]) + " and step " +
                     formatDouble(numbers[2]) +
                     " give more than 2^63-1 elements");
  return makeTensorType({int64_t(count)}, dtype, ctx);
}

//===----------------------------------------------------------------------===//
// tile, repeat, reverse
//===----------------------------------------------------------------------===//

/// tile: the shorter of the data's shape and `reps` is padded with 1s on the
/// left; the result is their elementwise product. Every rep is positive.
static RelationResult tileRelation(const TileAttrs *params,
                                   const TensorType *data,
                                   ArrayRef<const Type *>,
                                   const TypeRelationContext &ctx) {
  ArrayRef<int64_t> reps = params->reps;
  for (int64_t rep : reps)
    if (rep <= 0)
      return ctx.error("reps " + formatIntList(reps) + " must be positive");
  ArrayRef<int64_t> in = data->getShape();
  size_t rank = std::max(in.size(), reps.size());
  Shape out(rank);
  for (size_t i = 0; i != rank; ++i) {
    // Position i counted from the right.
    int64_t dim = i < in.size() ? in[in.size() - 1 - i] : 1;
    int64_t rep = i < reps.size() ? reps[reps.size() - 1 - i] : 1;
    std::optional<int64_t> tiled = mulDims(dim, rep);
    if (tiled)
      out[rank - 1 - i] = *tiled;
    else
      return ctx.error("tiling " + data->str() + " by reps " +
                       formatIntList(reps) + " overflows");
  }
  return makeTensorType(out, data->getDType(), ctx);
}

/// repeat: the extent of `axis` (which must be set) times `repeats` (>= 1).
static RelationResult repeatRelation(const RepeatAttrs *params,
                                     const TensorType *data,
                                     ArrayRef<const Type *>,
                                     const TypeRelationContext &ctx) {
  int64_t repeats = params->repeats;
  if (repeats < 1)
    return ctx.error("repeats must be at least 1, got " + Twine(repeats));
  if (!params->axis)
    return ctx.error("axis must be set");
  Expected<unsigned> axis = normalizeAxis(*params->axis, data->getRank(), ctx);
  if (!axis)
    return axis.takeError();
  Shape out(data->getShape().begin(), data->getShape().end());
  std::optional<int64_t> repeated = mulDims(out[*axis], repeats);
  if (repeated)
    out[*axis] = *repeated;
  else
    return ctx.error("repeating axis " + Twine(*axis) + " of " + data->str() +
                     " " + Twine(repeats) + " times overflows");
  return makeTensorType(out, data->getDType(), ctx);
}

/// reverse: the data's type; `axis` must be set and in range.
static RelationResult reverseRelation(const ReverseAttrs *params,
                                      const TensorType *data,
                                      ArrayRef<const Type *>,
                                      const TypeRelationContext &ctx) {
  if (!params->axis)
    return ctx.error("axis must be set");
  Expected<unsigned> axis = normalizeAxis(*params->axis, data->getRank(), ctx);
  if (!axis)
    return axis.takeError();
  return Ref<Type>(const_cast<TensorType *>(data));
}

//===----------------------------------------------------------------------===//
// scatter_elements, scatter_nd, reverse_sequence
//===----------------------------------------------------------------------===//

/// The (data, indices, updates) arguments of a scatter: integer indices,
/// updates of the data's dtype.
static Error getScatterArgs(ArrayRef<const Type *> args,
                            const TensorType *&data, const TensorType *&indices,
                            const TensorType *&updates,
                            const TypeRelationContext &ctx) {
  Expected<const TensorType *> d = getTensorArg(args, 0, "data", ctx);
  if (!d)
    return d.takeError();
  Expected<const TensorType *> i = getIndexTensorArg(args, 1, "indices", ctx);
  if (!i)
    return i.takeError();
  Expected<const TensorType *> u = getTensorArg(args, 2, "updates", ctx);
  if (!u)
    return u.takeError();
  if ((*u)->getDType() != (*d)->getDType())
    return ctx.error("dtype mismatch " + (*d)->getDType().str() + " vs " +
                     (*u)->getDType().str());
  data = *d;
  indices = *i;
  updates = *u;
  return Error::success();
}

/// scatter_elements(data, indices, updates): indices and updates have one
/// shape and the data's rank, within the data's extents off the axis; the
/// result is the data's type.
static RelationResult
scatterElementsRelation(const ScatterElementsAttrs *params,
                        ArrayRef<const Type *> args,
                        const TypeRelationContext &ctx) {
  const TensorType *data, *indices, *updates;
  if (Error err = getScatterArgs(args, data, indices, updates, ctx))
    return err;
  StringRef reduction = params->reduction;
  if (!is_contained({"update", "add", "mul", "min", "max"}, reduction))
    return ctx.error("reduction must be \"update\", \"add\", \"mul\", "
                     "\"min\" or \"max\", got \"" +
                     reduction + "\"");
  Expected<unsigned> axis = normalizeAxis(params->axis, data->getRank(), ctx);
  if (!axis)
    return axis.takeError();
  ArrayRef<int64_t> in = data->getShape();
  ArrayRef<int64_t> idx = indices->getShape();
  if (idx != updates->getShape() || idx.size() != in.size())
    return ctx.error("indices " + indices->str() + " and updates " +
                     updates->str() + " must have one shape of the rank of " +
                     data->str());
  for (unsigned d = 0, e = in.size(); d != e; ++d)
    if (d != *axis && idx[d] > in[d])
      return ctx.error("indices " + indices->str() + " exceed " +
                       data->str() + " on axis " + Twine(d));
  return Ref<Type>(const_cast<TensorType *>(data));
}

/// scatter_nd(data, indices, updates): indices (M, Y...) address the first
/// M axes of the data; updates are Y... ++ data.shape[M:].
static RelationResult scatterNDRelation(const ScatterNDAttrs *params,
                                        ArrayRef<const Type *> args,
                                        const TypeRelationContext &ctx) {
  const TensorType *data, *indices, *updates;
  if (Error err = getScatterArgs(args, data, indices, updates, ctx))
    return err;
  StringRef mode = params->mode;
  if (!is_contained({"update", "add", "sub", "mul", "min", "max"}, mode))
    return ctx.error("mode must be \"update\", \"add\", \"sub\", \"mul\", "
                     "\"min\" or \"max\", got \"" +
                     mode + "\"");
  ArrayRef<int64_t> in = data->getShape();
  ArrayRef<int64_t> idx = indices->getShape();
  if (idx.empty() || idx[0] < 1 || idx[0] > (int64_t)in.size())
    return ctx.error("indices " + indices->str() +
                     " must be (M, ...) with 1 <= M <= the rank of " +
                     data->str());
  SmallVector<int64_t, 4> want(idx.begin() + 1, idx.end());
  want.append(in.begin() + idx[0], in.end());
  if (updates->getShape() != ArrayRef<int64_t>(want))
    return ctx.error("updates " + updates->str() + " must have shape " +
                     formatIntList(want));
  return Ref<Type>(const_cast<TensorType *>(data));
}

/// reverse_sequence(data, seq_lengths): seq_lengths is a 1-D integer tensor
/// with one length per batch entry; the result is the data's type.
static RelationResult
reverseSequenceRelation(const ReverseSequenceAttrs *params,
                        const TensorType *data, const TensorType *lengths,
                        ArrayRef<const Type *>,
                        const TypeRelationContext &ctx) {
  unsigned rank = data->getRank();
  Expected<unsigned> seqAxis =
      normalizeAxis(params->seqAxis, rank, ctx, "seq_axis");
  if (!seqAxis)
    return seqAxis.takeError();
  Expected<unsigned> batchAxis =
      normalizeAxis(params->batchAxis, rank, ctx, "batch_axis");
  if (!batchAxis)
    return batchAxis.takeError();
  if (*seqAxis == *batchAxis)
    return ctx.error("seq_axis and batch_axis must differ");
  int64_t batch = data->getShape()[*batchAxis];
  if (lengths->getShape() != ArrayRef<int64_t>(batch))
    return ctx.error("seq_lengths " + lengths->str() + " must have shape (" +
                     Twine(batch) + ")");
  return Ref<Type>(const_cast<TensorType *>(data));
}

//===----------------------------------------------------------------------===//
// one_hot, slice_like, collapse_sum_like
//===----------------------------------------------------------------------===//

/// one_hot(indices, on_value, off_value): a dimension of extent `depth` is
/// inserted into the indices' shape at `axis` (-1 appends); the result has
/// the `dtype` attribute. As in TVM's OneHotRel, the indices may have any
/// dtype and on_value and off_value are only required to be tensors: their
/// dtype and rank are not checked (TVM's compute casts them to `dtype`).
static RelationResult oneHotRelation(const OneHotAttrs *params,
                                     const TensorType *indices,
                                     ArrayRef<const Type *> args,
                                     const TypeRelationContext &ctx) {
  DataType dtype = params->dtype;
  if (Error err = requireDType(dtype, "dtype", ctx))
    return err;
  for (unsigned i : {1u, 2u})
    if (Expected<const TensorType *> value =
            getTensorArg(args, i, i == 1 ? "on_value" : "off_value", ctx);
        !value)
      return value.takeError();
  if (params->depth <= 0)
    return ctx.error("depth must be positive, got " + Twine(params->depth));
  ArrayRef<int64_t> in = indices->getShape();
  Expected<unsigned> pivot = normalizeInsertAxis(params->axis, in.size(), ctx);
  if (!pivot)
    return pivot.takeError();
  Shape out(in.begin(), in.begin() + *pivot);
  out.push_back(params->depth);
  append_range(out, in.drop_front(*pivot));
  return makeTensorType(out, dtype, ctx);
}

/// slice_like: the dimensions on `axes` (None: every dimension shape_like
/// has) take shape_like's extents, which must not exceed the data's.
static RelationResult sliceLikeRelation(const SliceLikeAttrs *params,
                                        const TensorType *data,
                                        const TensorType *like,
                                        ArrayRef<const Type *>,
                                        const TypeRelationContext &ctx) {
  ArrayRef<int64_t> in = data->getShape();
  ArrayRef<int64_t> target = like->getShape();

  SmallVector<unsigned, 4> axes;
  if (!params->axes) {
    for (unsigned i = 0, e = std::min(in.size(), target.size()); i != e; ++i)
      axes.push_back(i);
  } else {
    if (params->axes->empty())
      return ctx.error("axes must not be empty");
    for (int64_t axis : *params->axes) {
      Expected<unsigned> index = normalizeAxis(axis, in.size(), ctx);
      if (!index)
        return index.takeError();
      if (*index >= target.size())
        return ctx.error("axis " + Twine(*index) +
                         " is out of range for shape_like " + like->str());
      axes.push_back(*index);
    }
  }
  Shape out(in.begin(), in.end());
  for (unsigned axis : axes) {
    if (target[axis] > in[axis])
      return ctx.error("cannot slice " + data->str() + " like " + like->str() +
                       ": axis " + Twine(axis) + " would grow from " +
                       Twine(in[axis]) + " to " + Twine(target[axis]));
    out[axis] = target[axis];
  }
  return makeTensorType(out, data->getDType(), ctx);
}

/// collapse_sum_like: sums data down to the type of the second argument,
/// which must broadcast to the data's shape and share its dtype.
static RelationResult collapseSumLikeRelation(const TensorType *data,
                                              const TensorType *like,
                                              ArrayRef<const Type *>,
                                              const TypeRelationContext &ctx) {
  if (data->getDType() != like->getDType())
    return ctx.error("dtype mismatch " + data->getDType().str() + " vs " +
                     like->getDType().str());
  std::optional<Shape> shape =
      broadcastShapes(data->getShape(), like->getShape());
  if (!shape || ArrayRef<int64_t>(*shape) != data->getShape())
    return ctx.error("cannot collapse " + data->str() + " to " + like->str() +
                     ": the latter does not broadcast to "
                     "the former");
  return Ref<Type>(const_cast<TensorType *>(like));
}

/// collapse_sum_to: sums data down to the `shape` attribute, which must
/// broadcast to the data's shape; the second argument is the same shape as
/// a 1-d integer tensor (Relay's builder fills the attribute from it when
/// it is a constant). nnir needs the attribute: a shape known only at run
/// time is a dynamic shape.
static RelationResult collapseSumToRelation(const InitOpAttrs *params,
                                            const TensorType *data,
                                            const TensorType *shapeArg,
                                            ArrayRef<const Type *>,
                                            const TypeRelationContext &ctx) {
  if (!params->shape)
    return ctx.error("the target shape is not known: nnir needs it as the "
                     "`shape` attribute (give a constant shape)");
  ArrayRef<int64_t> shape = *params->shape;
  if (!shapeArg->getDType().isInteger())
    return ctx.error("the shape argument must be an integer tensor, got " +
                     shapeArg->str());
  if (shapeArg->getRank() != 1 ||
      shapeArg->getShape()[0] != static_cast<int64_t>(shape.size()))
    return ctx.error("the shape argument " + shapeArg->str() +
                     " does not hold the " + Twine(shape.size()) +
                     " dimensions of shape=" + formatIntList(shape));
  if (!params->dtype.isVoid() && params->dtype != data->getDType())
    return ctx.error("dtype=" + params->dtype.str() + " differs from the " +
                     "data's " + data->getDType().str());
  std::optional<Shape> broadcast = broadcastShapes(data->getShape(), shape);
  if (!broadcast || ArrayRef<int64_t>(*broadcast) != data->getShape())
    return ctx.error("cannot collapse " + data->str() + " to shape " +
                     formatIntList(shape) +
                     ": the latter does not broadcast to the former");
  return makeTensorType(shape, data->getDType(), ctx);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// Registers \p name with \p numInputs arguments (their names and type
/// descriptions), the \p pattern of Relay's TOpPattern and \p relation.
static OpBuilder
addOp(StringRef name, StringRef description,
      std::initializer_list<std::pair<const char *, const char *>> arguments,
      OpPatternKind pattern, TypeRelationFn relation) {
  OpBuilder builder = OpRegistry::instance().add(name);
  builder.describe(description).setNumInputs(arguments.size());
  for (const auto &[argName, typeInfo] : arguments)
    builder.addArgument(argName, typeInfo);
  builder.setAttr<OpPatternKind>(kOpPatternAttr, pattern)
      .setAttr<TypeRelationFn>(kTypeRelationAttr, std::move(relation));
  return builder;
}

void nnir::registerDataMovementOps() {
  using P = OpPatternKind;
  auto data = std::make_pair("data", "Tensor");

  addOp("reshape", "reshape to newshape (codes 0, -1, -2, -3, -4)", {data},
        P::Injective, makeRelation<ReshapeAttrs>(reshapeRelation, "data"))
      .setAttrsType<ReshapeAttrs>();
  addOp(
      "reshape_like", "reshape like the dimensions of another tensor",
      {data, {"shape_like", "Tensor"}}, P::Injective,
      makeRelation<ReshapeLikeAttrs>(reshapeLikeRelation, "data", "shape_like"))
      .setAttrsType<ReshapeLikeAttrs>();
  addOp("transpose", "permute the axes", {data}, P::Injective,
        makeRelation<TransposeAttrs>(transposeRelation, "data"))
      .setAttrsType<TransposeAttrs>();
  addOp("expand_dims", "insert axes of extent 1", {data}, P::Broadcast,
        makeRelation<ExpandDimsAttrs>(expandDimsRelation, "data"))
      .setAttrsType<ExpandDimsAttrs>();
  addOp("squeeze", "drop axes of extent 1", {data}, P::Injective,
        makeRelation<SqueezeAttrs>(squeezeRelation, "data"))
      .setAttrsType<SqueezeAttrs>();
  addOp("concatenate", "join a tuple of tensors along an axis",
        {{"data", "Tuple of Tensors"}}, P::Injective,
        makeRelation<ConcatenateAttrs>(concatenateRelation))
      .setAttrsType<ConcatenateAttrs>();
  addOp("split", "split a tensor into a tuple of tensors", {data}, P::Injective,
        makeRelation<SplitAttrs>(splitRelation, "data"))
      .setAttrsType<SplitAttrs>();
  addOp("stack", "stack a tuple of tensors along a new axis",
        {{"data", "Tuple of Tensors"}}, P::Injective,
        makeRelation<StackAttrs>(stackRelation))
      .setAttrsType<StackAttrs>();
  addOp("strided_slice", "slice with begin, end and strides", {data},
        P::Injective,
        makeRelation<StridedSliceAttrs>(stridedSliceRelation, "data"))
      .setAttrsType<StridedSliceAttrs>();
  addOp("take", "take elements along an axis", {data, {"indices", "Tensor"}},
        P::Injective,
        makeRelation<TakeAttrs>(takeRelation, "data", indexArg("indices")))
      .setAttrsType<TakeAttrs>();
  addOp("gather", "gather elements along an axis",
        {data, {"indices", "Tensor"}}, P::Injective,
        makeRelation<GatherAttrs>(gatherRelation, "data", indexArg("indices")))
      .setAttrsType<GatherAttrs>();
  addOp("gather_nd", "gather slices by multi-dimensional indices",
        {data, {"indices", "Tensor"}}, P::Injective,
        makeRelation<GatherNDAttrs>(gatherNDRelation, "data",
                                    indexArg("indices")))
      .setAttrsType<GatherNDAttrs>();
  addOp("full", "a tensor filled with a 0-d value", {{"fill_value", "Tensor"}},
        P::ElemWise,
        makeRelation<InitOpAttrs>(fullRelation, rankedArg("fill_value", 0)))
      .setAttrsType<InitOpAttrs>();
  addOp("zeros", "a tensor of zeros", {}, P::ElemWise,
        makeRelation<InitOpAttrs>(initRelation))
      .setAttrsType<InitOpAttrs>();
  addOp("ones", "a tensor of ones", {}, P::ElemWise,
        makeRelation<InitOpAttrs>(initRelation))
      .setAttrsType<InitOpAttrs>();
  addOp("full_like", "a tensor like data filled with a 0-d value",
        {data, {"fill_value", "Tensor"}}, P::ElemWise,
        makeRelation(fullLikeRelation, "data", rankedArg("fill_value", 0)));
  addOp("broadcast_to", "broadcast to a shape", {data}, P::Broadcast,
        makeRelation<InitOpAttrs>(broadcastToRelation, "data"))
      .setAttrsType<InitOpAttrs>();
  addOp("broadcast_to_like", "broadcast to the shape of another tensor",
        {data, {"broadcast_type", "Tensor"}}, P::Broadcast,
        makeRelation(broadcastToLikeRelation, "data", "broadcast_type"));
  addOp("layout_transform", "change the layout (NCHW, NHWC, NCHW4c, ...)",
        {data}, P::Injective,
        makeRelation<LayoutTransformAttrs>(layoutTransformRelation, "data"))
      .setAttrsType<LayoutTransformAttrs>();
  addOp("shape_of", "the shape of a tensor", {data}, P::Opaque,
        makeRelation<ShapeOfAttrs>(shapeOfRelation, "data"))
      .setAttrsType<ShapeOfAttrs>()
      .setAttr<bool>(kOpIsStatefulAttr, false);
  addOp("ndarray_size", "the number of elements of a tensor", {data},
        P::Injective,
        makeRelation<NdarraySizeAttrs>(ndarraySizeRelation, "data"))
      .setAttrsType<NdarraySizeAttrs>()
      .setAttr<bool>(kOpIsStatefulAttr, false);
  addOp("arange", "evenly spaced values in [start, stop)",
        {{"start", "Expr"}, {"stop", "Expr"}, {"step", "Expr"}}, P::Opaque,
        makeRelation<ArangeAttrs>(arangeRelation))
      .setAttrsType<ArangeAttrs>()
      .setAttr<bool>(kTypeReadsArgValuesAttr, true);
  addOp("tile", "repeat the whole tensor along each axis", {data}, P::Broadcast,
        makeRelation<TileAttrs>(tileRelation, "data"))
      .setAttrsType<TileAttrs>();
  addOp("repeat", "repeat each element along an axis", {data}, P::Broadcast,
        makeRelation<RepeatAttrs>(repeatRelation, "data"))
      .setAttrsType<RepeatAttrs>();
  addOp("reverse", "reverse the order along an axis", {data}, P::Injective,
        makeRelation<ReverseAttrs>(reverseRelation, "data"))
      .setAttrsType<ReverseAttrs>();
  addOp("scatter_elements", "scatter updates into a copy of data along an axis",
        {data, {"indices", "Tensor"}, {"updates", "Tensor"}}, P::Opaque,
        makeRelation<ScatterElementsAttrs>(scatterElementsRelation))
      .setAttrsType<ScatterElementsAttrs>();
  addOp("scatter_nd", "scatter updates into a copy of data at index tuples",
        {data, {"indices", "Tensor"}, {"updates", "Tensor"}}, P::Opaque,
        makeRelation<ScatterNDAttrs>(scatterNDRelation))
      .setAttrsType<ScatterNDAttrs>();
  addOp("reverse_sequence",
        "reverse the first seq_lengths[b] elements of each batch entry",
        {data, {"seq_lengths", "Tensor"}}, P::Injective,
        makeRelation<ReverseSequenceAttrs>(reverseSequenceRelation, "data",
                                           indexArg("seq_lengths")))
      .setAttrsType<ReverseSequenceAttrs>();
  addOp("one_hot", "one-hot encode integer indices",
        {{"indices", "Tensor"}, {"on_value", "Expr"}, {"off_value", "Expr"}},
        P::OutEWiseFusable,
        makeRelation<OneHotAttrs>(oneHotRelation, "indices"))
      .setAttrsType<OneHotAttrs>();
  addOp("slice_like", "slice to the shape of another tensor",
        {data, {"shape_like", "Tensor"}}, P::Injective,
        makeRelation<SliceLikeAttrs>(sliceLikeRelation, "data", "shape_like"))
      .setAttrsType<SliceLikeAttrs>();
  addOp("collapse_sum_like", "sum down to the shape of another tensor",
        {data, {"collapse_type", "Tensor"}}, P::CommReduce,
        makeRelation(collapseSumLikeRelation, "data", "collapse_type"));
  addOp("collapse_sum_to", "sum down to a shape that broadcasts to data's",
        {data, {"shape", "Tensor"}}, P::CommReduce,
        makeRelation<InitOpAttrs>(collapseSumToRelation, "data", "shape"))
      .setAttrsType<InitOpAttrs>();
  addOp("reverse_reshape",
        "reshape with the special values of newshape read from the right",
        {data}, P::Injective,
        makeRelation<ReshapeAttrs>(reverseReshapeRelation, "data"))
      .setAttrsType<ReshapeAttrs>();

  // The relations that keep `?` extents with TVM's rules; the others
  // (scatters, reverse_sequence, slice_like, the
  // collapse_sums) need static argument shapes.
  markDynamicShapeRelations(
      {"reshape", "reshape_like", "transpose", "expand_dims", "squeeze",
       "concatenate", "split", "stack", "strided_slice", "take", "gather",
       "gather_nd", "full", "full_like", "broadcast_to", "broadcast_to_like",
       "shape_of", "ndarray_size", "tile", "repeat", "reverse", "one_hot",
       "reverse_reshape", "layout_transform"});
  // Their checks compare `?` extents only with `?` ones (a mismatch is an
  // error, never a guess).
  markDynamicShapeRelations({"scatter_elements", "scatter_nd",
                             "reverse_sequence", "slice_like",
                             "collapse_sum_like", "collapse_sum_to"});
}
