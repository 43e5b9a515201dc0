//===- Transform.cpp - Data movement operators ----------------------------===//
//
/// \file
/// reshape, transpose, concatenate, split, and their type relations (Relay's
/// ReshapeRel, TransposeRel, ConcatenateRel and SplitRel on static shapes).
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Ops/TypeRelations.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;
using namespace nnir;

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

/// reshape: walks `newshape`, consuming input dimensions. A positive value
/// is that extent; 0 copies the next input dimension (a literal 0 with
/// allowzero); -1 is inferred from the element count (at most one); -2
/// copies every remaining input dimension; -3 merges the next two; `-4 a b`
/// splits the next one into a and b (one of them may be -1). The element
/// count must not change.
static Expected<Ref<Type>> reshapeRelation(ArrayRef<const Type *> args,
                                           const Attrs *attrs,
                                           const TypeRelationContext &ctx) {
  Expected<const ReshapeAttrs *> reshape = getAttrs<ReshapeAttrs>(attrs, ctx);
  if (!reshape)
    return reshape.takeError();
  Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
  if (!data)
    return data.takeError();
  ArrayRef<int64_t> in = (*data)->getShape();
  ArrayRef<int64_t> newshape = (*reshape)->newshape;
  std::string written = formatIntList(newshape);

  Shape out;
  std::optional<size_t> inferIndex;
  size_t src = 0;
  for (size_t i = 0, e = newshape.size(); i != e; ++i) {
    int64_t value = newshape[i];
    if (value > 0) {
      out.push_back(value);
      ++src;
    } else if (value == 0) {
      if ((*reshape)->allowzero) {
        out.push_back(0);
      } else {
        if (src >= in.size())
          return ctx.error("newshape " + written + ": 0 at position " +
                           Twine(i) + " has no input dimension to copy from " +
                           (*data)->str());
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
                         (*data)->str());
      int64_t merged;
      if (MulOverflow(in[src], in[src + 1], merged))
        return ctx.error("newshape " + written + ": dimension overflow");
      out.push_back(merged);
      src += 2;
    } else if (value == -4) {
      if (i + 2 >= e)
        return ctx.error("newshape " + written + ": -4 at position " +
                         Twine(i) + " must be followed by two values");
      if (src >= in.size())
        return ctx.error("newshape " + written + ": -4 at position " +
                         Twine(i) + " has no input dimension to split in " +
                         (*data)->str());
      int64_t whole = in[src++];
      int64_t a = newshape[++i], b = newshape[++i];
      if ((a <= 0 && a != -1) || (b <= 0 && b != -1) || (a == -1 && b == -1))
        return ctx.error("newshape " + written + ": cannot split dimension " +
                         Twine(whole) + " into (" + Twine(a) + ", " + Twine(b) +
                         ")");
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

  int64_t total = (*data)->getNumElements();
  if (inferIndex) {
    int64_t others = 1;
    for (size_t i = 0, e = out.size(); i != e; ++i)
      if (i != *inferIndex && MulOverflow(others, out[i], others))
        return ctx.error("newshape " + written +
                         " has more than 2^63-1 "
                         "elements");
    if (others == 0)
      return ctx.error("newshape " + written +
                       ": cannot infer the -1 "
                       "dimension when another dimension is 0");
    if (total % others != 0)
      return ctx.error("cannot reshape " + (*data)->str() + " (" +
                       Twine(total) + " elements) to newshape " + written +
                       ": " + Twine(total) + " is not divisible by " +
                       Twine(others));
    out[*inferIndex] = total / others;
  }
  std::optional<int64_t> count = getNumElements(out);
  if (!count)
    return ctx.error("result shape " + formatIntList(out) +
                     " has more than 2^63-1 elements");
  if (*count != total)
    return ctx.error("cannot reshape " + (*data)->str() + " (" + Twine(total) +
                     " elements) to newshape " + written + " (" +
                     Twine(*count) + " elements)");
  return makeTensorType(out, (*data)->getDType(), ctx);
}

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

/// transpose: `axes` None (or empty) reverses the dimensions; otherwise it
/// must be a permutation of the axes (negative ones count from the end).
static Expected<Ref<Type>> transposeRelation(ArrayRef<const Type *> args,
                                             const Attrs *attrs,
                                             const TypeRelationContext &ctx) {
  Expected<const TransposeAttrs *> transpose =
      getAttrs<TransposeAttrs>(attrs, ctx);
  if (!transpose)
    return transpose.takeError();
  Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
  if (!data)
    return data.takeError();
  ArrayRef<int64_t> in = (*data)->getShape();
  unsigned rank = in.size();
  const std::optional<IntList> &axes = (*transpose)->axes;

  Shape out;
  if (!axes || axes->empty()) {
    out.assign(in.rbegin(), in.rend());
    return makeTensorType(out, (*data)->getDType(), ctx);
  }
  if (axes->size() != rank)
    return ctx.error("axes " + formatIntList(*axes) + " has " +
                     Twine(axes->size()) + " entries for " + (*data)->str());
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
  return makeTensorType(out, (*data)->getDType(), ctx);
}

//===----------------------------------------------------------------------===//
// concatenate
//===----------------------------------------------------------------------===//

/// concatenate: a tuple of tensors of one rank and dtype, equal on every
/// dimension but `axis`, where the extents add up.
static Expected<Ref<Type>> concatenateRelation(ArrayRef<const Type *> args,
                                               const Attrs *attrs,
                                               const TypeRelationContext &ctx) {
  Expected<const ConcatenateAttrs *> concat =
      getAttrs<ConcatenateAttrs>(attrs, ctx);
  if (!concat)
    return concat.takeError();
  const auto *tuple =
      dyn_cast_or_null<TupleType>(args.empty() ? nullptr : args[0]);
  if (!tuple)
    return ctx.error(
        "expected a tuple of tensors for 'data', got " +
        (args.empty() || !args[0] ? std::string("nothing") : args[0]->str()));
  if (tuple->size() == 0)
    return ctx.error("cannot concatenate an empty tuple");
  SmallVector<const TensorType *, 4> fields;
  for (size_t i = 0, e = tuple->size(); i != e; ++i) {
    const auto *field = dyn_cast<TensorType>(tuple->getField(i));
    if (!field)
      return ctx.error("field " + Twine(i) + " of the tuple is not a tensor: " +
                       tuple->getField(i)->str());
    fields.push_back(field);
  }
  const TensorType *first = fields.front();
  unsigned rank = first->getRank();
  if (rank == 0)
    return ctx.error("cannot concatenate 0-d tensors");
  Expected<unsigned> axis = normalizeAxis((*concat)->axis, rank, ctx);
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
    for (unsigned d = 0; d != rank; ++d)
      if (d != *axis && field->getShape()[d] != out[d])
        return ctx.error("cannot concatenate " + first->str() + " with " +
                         field->str() + " along axis " + Twine(*axis));
    if (AddOverflow(out[*axis], field->getShape()[*axis], out[*axis]))
      return ctx.error("the concatenated axis " + Twine(*axis) +
                       " has more than 2^63-1 elements");
  }
  return makeTensorType(out, first->getDType(), ctx);
}

//===----------------------------------------------------------------------===//
// split
//===----------------------------------------------------------------------===//

/// split: an integer n cuts `axis` into n equal parts (n must divide it); a
/// list [i1, ..., ik] cuts it at strictly increasing indices inside the axis,
/// into [0, i1), [i1, i2), ..., [ik, dim). The result is a tuple.
static Expected<Ref<Type>> splitRelation(ArrayRef<const Type *> args,
                                         const Attrs *attrs,
                                         const TypeRelationContext &ctx) {
  Expected<const SplitAttrs *> split = getAttrs<SplitAttrs>(attrs, ctx);
  if (!split)
    return split.takeError();
  Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
  if (!data)
    return data.takeError();
  ArrayRef<int64_t> in = (*data)->getShape();
  Expected<unsigned> axis = normalizeAxis((*split)->axis, in.size(), ctx);
  if (!axis)
    return axis.takeError();
  int64_t dim = in[*axis];
  const AttrValue &spec = (*split)->indicesOrSections;

  // Boundaries of the parts along the axis: 0 = b0 < b1 < ... < bn = dim.
  SmallVector<int64_t, 8> bounds;
  if (spec.getKind() == AttrValue::Kind::Int) {
    int64_t sections = spec.getInt();
    if (sections <= 0)
      return ctx.error("the number of sections must be positive, got " +
                       Twine(sections));
    if (dim % sections != 0)
      return ctx.error("axis " + Twine(*axis) + " of " + (*data)->str() +
                       " cannot be split into " + Twine(sections) +
                       " equal sections");
    for (int64_t i = 0; i <= sections; ++i)
      bounds.push_back(dim / sections * i);
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
      if (index <= bounds.back() || index >= dim)
        return ctx.error("indices " + formatIntList(indices) +
                         " must increase strictly within (0, " + Twine(dim) +
                         ") for axis " + Twine(*axis) + " of " +
                         (*data)->str());
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
    shape[*axis] = bounds[i + 1] - bounds[i];
    Expected<Ref<Type>> field = makeTensorType(shape, (*data)->getDType(), ctx);
    if (!field)
      return field.takeError();
    fields.push_back(std::move(*field));
  }
  return Ref<Type>(TupleType::get(fields));
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void nnir::registerTransformOps() {
  OpRegistry &registry = OpRegistry::instance();
  registry.add("reshape")
      .describe("reshape to newshape (codes 0, -1, -2, -3, -4)")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<ReshapeAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, reshapeRelation);
  registry.add("transpose")
      .describe("permute the axes")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<TransposeAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, transposeRelation);
  registry.add("concatenate")
      .describe("join a tuple of tensors along an axis")
      .setNumInputs(1)
      .addArgument("data", "Tuple of Tensors")
      .setAttrsType<ConcatenateAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, concatenateRelation);
  registry.add("split")
      .describe("split a tensor into a tuple of tensors")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<SplitAttrs>()
      .setAttr<TypeRelationFn>(kTypeRelationAttr, splitRelation);
}
