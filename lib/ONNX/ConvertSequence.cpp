//===- ConvertSequence.cpp - Sequences and optionals as tuples ------------===//
//
/// \file
/// ONNX sequences and optionals, as Relay encodes them: tuples. A sequence
/// of n tensors is a tuple of n fields; an optional is a tuple of no field
/// (empty) or of one (its value, a tensor or a sequence). So every
/// sequence operator becomes tuple construction and projection, done at
/// import time: SequenceAt is a field, SequenceInsert and SequenceErase
/// build a new tuple of the old fields, SequenceLength is a constant,
/// SplitToSequence slices, ConcatFromSequence concatenates (or stacks) the
/// fields, OptionalHasElement is a constant. That needs the length of every
/// sequence at import time: positions and split sizes must be constants (or
/// values import can compute), and a sequence graph input's length is that
/// of the value given for it (tupleInputType); otherwise the converter says
/// the length is not known at import time. Elements may differ in dtype
/// (ONNX requires one; ConcatFromSequence, which needs it, checks). The
/// encoding forgets an empty sequence's element type (an empty tuple has
/// none) and does not tell a one-element sequence from a full optional:
/// ONNX's types keep them apart, and each operator reads its inputs as ONNX
/// declares them.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "nnir/Support/Diagnostics.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace nnir {
namespace onnximport {

//===----------------------------------------------------------------------===//
// Graph inputs
//===----------------------------------------------------------------------===//

ONNXValueKind valueKindOf(const onnx::TypeProto &type) {
  if (type.has_sequence_type())
    return ONNXValueKind::Sequence;
  if (type.has_optional_type())
    return ONNXValueKind::Optional;
  return ONNXValueKind::Tensor;
}

/// "element 2", "element 2.0": where \p path points in a given value.
static std::string describePath(StringRef path) {
  return path.empty() ? std::string("the value") : ("element " + path).str();
}

/// The type of \p value, checked against the declared \p type; \p path
/// names the element being checked ("" for the value itself). Nesting is
/// bounded by the protobuf parser's recursion limit.
static Expected<Ref<Type>> fitValue(const onnx::TypeProto &type,
                                    const RuntimeValue &value,
                                    const std::string &path) {
  auto fail = [&](const Twine &message) {
    return makeError(describePath(path) + " " + message);
  };
  switch (type.value_case()) {
  case onnx::TypeProto::kTensorType: {
    if (!value.isTensor())
      return fail("is not a tensor, the model declares one");
    const NDArray &array = value.getTensor();
    const onnx::TypeProto::Tensor &tensor = type.tensor_type();
    if (tensor.elem_type() != onnx::TensorProto::UNDEFINED) {
      Expected<DataType> dtype = dataTypeFromONNX(tensor.elem_type());
      if (!dtype)
        return dtype.takeError();
      if (array.getDType() != *dtype)
        return fail("has dtype " + array.getDType().str() +
                    ", the model declares " + dtype->str());
    }
    if (tensor.has_shape()) {
      const auto &dims = tensor.shape().dim();
      if (dims.size() != static_cast<int>(array.getRank()))
        return fail(formatv("has rank {0}, the model declares rank {1}",
                            array.getRank(), dims.size())
                        .str());
      for (int i = 0; i < dims.size(); ++i)
        if (dims[i].has_dim_value() &&
            dims[i].dim_value() != array.getShape()[i])
          return fail(formatv("has extent {0} on axis {1}, the model "
                              "declares {2}",
                              array.getShape()[i], i, dims[i].dim_value())
                          .str());
    }
    return Ref<Type>(TensorType::get(array.getShape(), array.getDType()));
  }
  case onnx::TypeProto::kSequenceType:
  case onnx::TypeProto::kOptionalType: {
    bool sequence = type.has_sequence_type();
    const onnx::TypeProto &elemType = sequence
                                          ? type.sequence_type().elem_type()
                                          : type.optional_type().elem_type();
    if (!value.isTuple() || (!sequence && value.getFields().size() > 1))
      return fail(sequence ? "is not a sequence, the model declares one"
                           : "is not an optional, the model declares one");
    SmallVector<Ref<Type>, 4> fields;
    for (size_t i = 0; i < value.getFields().size(); ++i) {
      Expected<Ref<Type>> field =
          fitValue(elemType, value.getFields()[i],
                   (path.empty() ? "" : path + ".") + std::to_string(i));
      if (!field)
        return field.takeError();
      fields.push_back(std::move(*field));
    }
    return Ref<Type>(TupleType::get(fields));
  }
  default:
    return fail("is of a kind nnir does not import (maps and sparse tensors "
                "are not supported)");
  }
}

Expected<Ref<Type>> tupleInputType(const onnx::TypeProto &type,
                                   const RuntimeValue &value) {
  return fitValue(type, value, "");
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The elements of input \p i, a sequence, or an optional when \p optional
/// (at most one element).
static Expected<SmallVector<Value, 4>>
elementsOf(NodeContext &ctx, size_t i, bool optional = false) {
  if (!ctx.hasInput(i))
    return ctx.error(formatv("input {0} is required", i).str());
  const Value &seq = ctx.input(i);
  const auto *type = dyn_cast<TupleType>(seq.expr->getCheckedType().get());
  if (!type || (optional && type->getFields().size() > 1))
    return ctx.error(formatv("input {0} ('{1}') must be {2}", i,
                             ctx.getNode().input(i),
                             optional ? "an optional" : "a sequence")
                         .str());
  SmallVector<Value, 4> elements;
  for (unsigned k = 0, n = type->getFields().size(); k < n; ++k)
    elements.push_back(ctx.getItem(seq, k));
  return elements;
}

/// Requires input \p i, when given, to be a tensor.
static Error requireTensor(NodeContext &ctx, size_t i) {
  if (ctx.hasInput(i) && !ctx.input(i).isTensor())
    return ctx.error(formatv("input {0} ('{1}') must be a tensor", i,
                             ctx.getNode().input(i))
                         .str());
  return Error::success();
}

/// The error for a length-determining input \p i (\p what) that depends on
/// a graph input.
static Error unknownLength(NodeContext &ctx, size_t i, StringRef what) {
  return ctx.unsupported(
      formatv("{0} (input {1}, '{2}') must be known at import time: a "
              "sequence is a tuple whose length import fixes (sequences of "
              "dynamic length are not supported)",
              what, i, ctx.getNode().input(i))
          .str());
}

/// The position input \p i (a single integer) normalised for a sequence of
/// \p length: ONNX accepts [-length, length - 1], and [-length, length]
/// with \p allowEnd (SequenceInsert); \p absent when the input is not
/// given.
static Expected<int64_t> positionInput(NodeContext &ctx, size_t i,
                                       int64_t length, bool allowEnd,
                                       int64_t absent = 0) {
  if (!ctx.hasInput(i))
    return absent;
  if (Error err = requireTensor(ctx, i))
    return err;
  if (!ctx.input(i).constant)
    return unknownLength(ctx, i, "the position");
  TRY(values, ctx.constantInts(i, "the position"));
  if (values.size() != 1)
    return ctx.error(formatv("the position (input {0}) must be a single "
                             "integer, it has {1} elements",
                             i, values.size())
                         .str());
  int64_t pos = values.front();
  if (pos < -length || pos > (allowEnd ? length : length - 1))
    return ctx.error(formatv("position {0} is out of range for a sequence "
                             "of length {1}",
                             pos, length)
                         .str());
  return pos < 0 ? pos + length : pos;
}

//===----------------------------------------------------------------------===//
// Sequences
//===----------------------------------------------------------------------===//

Result convertSequenceEmpty(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(0, 0))
    return err;
  // The element type is checked, then forgotten: an empty tuple has none.
  TRY(dtype, ctx.getInt("dtype", onnx::TensorProto::FLOAT));
  if (Expected<DataType> elem = dataTypeFromONNX(dtype); !elem)
    return ctx.unsupported("dtype: " + toString(elem.takeError()));
  return one(ctx.tuple({}));
}

Result convertSequenceConstruct(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, ctx.getNumInputs()))
    return err;
  SmallVector<Value, 4> elements;
  for (size_t i = 0; i < ctx.getNumInputs(); ++i) {
    if (!ctx.hasInput(i))
      return ctx.error(formatv("input {0} is missing", i).str());
    elements.push_back(ctx.input(i));
  }
  return one(ctx.tuple(elements));
}

Result convertSequenceAt(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 2))
    return err;
  TRY(elements, elementsOf(ctx, 0));
  TRY(pos, positionInput(ctx, 1, elements.size(), /*allowEnd=*/false));
  return one(elements[pos]);
}

Result convertSequenceInsert(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 3))
    return err;
  TRY(elements, elementsOf(ctx, 0));
  if (Error err = requireTensor(ctx, 1))
    return err;
  TRY(pos, positionInput(ctx, 2, elements.size(), /*allowEnd=*/true,
                         /*absent=*/elements.size()));
  elements.insert(elements.begin() + pos, ctx.input(1));
  return one(ctx.tuple(elements));
}

Result convertSequenceErase(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 2))
    return err;
  TRY(elements, elementsOf(ctx, 0));
  if (elements.empty())
    return ctx.error("cannot erase from an empty sequence");
  TRY(pos, positionInput(ctx, 1, elements.size(), /*allowEnd=*/false,
                         /*absent=*/elements.size() - 1));
  elements.erase(elements.begin() + pos);
  return one(ctx.tuple(elements));
}

Result convertSequenceLength(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  TRY(elements, elementsOf(ctx, 0));
  return one(ctx.scalar(DataType::int64(), elements.size()));
}

Result convertSplitToSequence(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 2))
    return err;
  const Value &x = ctx.input(0);
  TRY(axisAttr, ctx.getInt("axis", 0));
  TRY(axis, ctx.normalizeAxis(axisAttr, x.rank()));
  TRY(keepDims, ctx.getInt("keepdims", 1));
  int64_t extent = x.shape()[axis];
  std::vector<int64_t> sizes;
  if (ctx.hasInput(1)) {
    if (!ctx.input(1).constant)
      return unknownLength(ctx, 1, "the split");
    TRY(split, ctx.constantInput(1, "the split"));
    if (!split.getDType().isInteger() || split.getRank() > 1)
      return ctx.error("the split must be a 0-d or 1-D integer tensor");
    if (split.getRank() == 0) {
      // Parts of that size, the last one shorter when it does not divide.
      int64_t size = split.getElementAsInt(0);
      if (size <= 0)
        return ctx.error(formatv("the split size {0} is not positive", size)
                             .str());
      for (int64_t offset = 0; offset < extent; offset += size)
        sizes.push_back(std::min(size, extent - offset));
    } else {
      int64_t total = 0;
      for (int64_t k = 0, n = split.getNumElements(); k < n; ++k) {
        sizes.push_back(split.getElementAsInt(k));
        if (sizes.back() < 0)
          return ctx.error(formatv("split size {0} is negative", sizes.back())
                               .str());
        total += sizes.back();
      }
      if (total != extent)
        return ctx.error(formatv("the split sizes add up to {0}, the extent "
                                 "of axis {1} is {2}",
                                 total, axis, extent)
                             .str());
    }
  } else {
    sizes.assign(extent, 1);
  }
  SmallVector<Value, 4> elements;
  int64_t offset = 0;
  for (int64_t size : sizes) {
    // An empty part is a zero-extent slice, which the operators' relations
    // may refuse (a located error then).
    Value part = x;
    if (size != extent) {
      TRY(slice, sliceAxis(ctx, x, axis, offset, offset + size));
      part = slice;
    }
    if (!ctx.hasInput(1) && !keepDims) {
      TRY(squeezed, ctx.typed(ops::squeeze(part, IntList{axis})));
      part = squeezed;
    }
    elements.push_back(part);
    offset += size;
  }
  return one(ctx.tuple(elements));
}

Result convertConcatFromSequence(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  TRY(elements, elementsOf(ctx, 0));
  if (elements.empty())
    return ctx.error("cannot concatenate an empty sequence");
  for (size_t k = 0; k < elements.size(); ++k) {
    if (!elements[k].isTensor())
      return ctx.error(formatv("element {0} of the sequence is not a tensor",
                               k)
                           .str());
    if (elements[k].dtype() != elements[0].dtype())
      return ctx.error(formatv("element {0} of the sequence is {1}, element "
                               "0 is {2}: the elements to concatenate must "
                               "have one dtype",
                               k, elements[k].dtype().str(),
                               elements[0].dtype().str())
                           .str());
  }
  TRY(axisAttr, ctx.getOptInt("axis"));
  if (!axisAttr)
    return ctx.error("attribute 'axis' is required");
  TRY(newAxis, ctx.getInt("new_axis", 0));
  if (newAxis != 0 && newAxis != 1)
    return ctx.error(formatv("new_axis must be 0 or 1, got {0}", newAxis)
                         .str());
  int64_t rank = elements[0].rank();
  TRY(axis, ctx.normalizeAxis(*axisAttr, rank + newAxis));
  Value seq = ctx.tuple(elements);
  if (newAxis) {
    TRY(out, ctx.typed(ops::stack(seq, axis)));
    return one(out);
  }
  if (elements.size() == 1)
    return one(elements[0]);
  TRY(out, ctx.typed(ops::concatenate(seq, axis)));
  return one(out);
}

//===----------------------------------------------------------------------===//
// Optionals
//===----------------------------------------------------------------------===//

Result convertOptional(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(0, 1))
    return err;
  if (ctx.hasInput(0))
    return one(ctx.tuple({ctx.input(0)}));
  if (!ctx.hasAttr("type"))
    return ctx.error("attribute 'type' is required when there is no input");
  return one(ctx.tuple({}));
}

Result convertOptionalHasElement(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  TRY(elements, elementsOf(ctx, 0, /*optional=*/true));
  return one(ctx.scalar(DataType::boolean(), elements.size()));
}

Result convertOptionalGetElement(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  TRY(elements, elementsOf(ctx, 0, /*optional=*/true));
  if (elements.empty())
    return ctx.error(formatv("the optional (input 0, '{0}') is empty",
                             ctx.getNode().input(0))
                         .str());
  return one(elements.front());
}

} // namespace onnximport
} // namespace nnir
