//===- TypeRelations.cpp - Helpers for operator type relations -----------===//
//
/// \file
/// Argument access, broadcasting, axis normalisation and the shared
/// identity / broadcast relations used by several operator families.
//
//===----------------------------------------------------------------------===//

#include "nnir/Ops/TypeRelations.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace nnir;

Expected<const TensorType *>
nnir::getTensorArg(ArrayRef<const Type *> args, unsigned index, StringRef name,
                   const TypeRelationContext &ctx) {
  if (index >= args.size())
    return ctx.error("missing argument '" + name + "'");
  if (const auto *tensor = dyn_cast_or_null<TensorType>(args[index]))
    return tensor;
  return ctx.error("expected a tensor for '" + name + "', got " +
                   (args[index] ? args[index]->str() : "nothing"));
}

Expected<const TensorType *>
nnir::getTensorArgOfRank(ArrayRef<const Type *> args, unsigned index,
                         StringRef name, unsigned rank,
                         const TypeRelationContext &ctx) {
  Expected<const TensorType *> tensor = getTensorArg(args, index, name, ctx);
  if (!tensor)
    return tensor.takeError();
  if ((*tensor)->getRank() != rank)
    return ctx.error("expected a " + Twine(rank) + "-d tensor for '" + name +
                     "', got " + (*tensor)->str());
  return tensor;
}

Expected<const TensorType *>
nnir::getIndexTensorArg(ArrayRef<const Type *> args, unsigned index,
                        StringRef name, const TypeRelationContext &ctx) {
  Expected<const TensorType *> tensor = getTensorArg(args, index, name, ctx);
  if (!tensor)
    return tensor.takeError();
  if (!(*tensor)->getDType().isInteger())
    return ctx.error("expected an integer tensor for '" + name + "', got " +
                     (*tensor)->str());
  return tensor;
}

Expected<const TensorType *>
nnir::getSpecifiedTensorArg(ArrayRef<const Type *> args, unsigned index,
                            const TensorArgSpec &spec,
                            const TypeRelationContext &ctx) {
  if (spec.rank)
    return getTensorArgOfRank(args, index, spec.name, *spec.rank, ctx);
  if (spec.integer)
    return getIndexTensorArg(args, index, spec.name, ctx);
  return getTensorArg(args, index, spec.name, ctx);
}

Expected<Ref<Type>> nnir::makeTensorType(ArrayRef<int64_t> shape,
                                         DataType dtype,
                                         const TypeRelationContext &ctx) {
  Shape known;
  for (int64_t dim : shape) {
    if (isAnyDim(dim))
      continue;
    if (dim < 0)
      return ctx.error("result shape " + formatIntList(shape) +
                       " has a negative dimension");
    known.push_back(dim);
  }
  if (!getNumElements(known))
    return ctx.error("result shape " + formatIntList(shape) +
                     " has more than 2^63-1 elements");
  return Ref<Type>(TensorType::get(shape, dtype));
}

std::optional<Shape> nnir::broadcastShapes(ArrayRef<int64_t> lhs,
                                           ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  Shape out(rank);
  for (size_t i = 0; i != rank; ++i) {
    // Position i counted from the right.
    int64_t l = i < lhs.size() ? lhs[lhs.size() - 1 - i] : 1;
    int64_t r = i < rhs.size() ? rhs[rhs.size() - 1 - i] : 1;
    int64_t dim;
    if (l == 1)
      dim = r;
    else if (r == 1)
      dim = l;
    else if (isAnyDim(l))
      dim = r;
    else if (isAnyDim(r) || l == r)
      dim = l;
    else
      return std::nullopt;
    out[rank - 1 - i] = dim;
  }
  return out;
}

Expected<Ref<Type>> nnir::broadcastTypes(const TensorType *lhs,
                                         const TensorType *rhs,
                                         const TypeRelationContext &ctx,
                                         std::optional<DataType> outDType) {
  if (lhs->getDType() != rhs->getDType())
    return ctx.error("dtype mismatch " + lhs->getDType().str() + " vs " +
                     rhs->getDType().str());
  std::optional<Shape> shape =
      broadcastShapes(lhs->getShape(), rhs->getShape());
  if (!shape)
    return ctx.error("cannot broadcast " + lhs->str() + " with " + rhs->str());
  DataType dtype = outDType.value_or(lhs->getDType());
  // The result is most often an operand's type (`add(%x, 1f)`): reuse it
  // rather than look it up in the process-wide table.
  for (const TensorType *operand : {lhs, rhs})
    if (operand->getDType() == dtype && operand->getShape() == ArrayRef(*shape))
      return Ref<Type>(const_cast<TensorType *>(operand));
  return makeTensorType(*shape, dtype, ctx);
}

Expected<unsigned> nnir::normalizeAxis(int64_t axis, unsigned rank,
                                       const TypeRelationContext &ctx,
                                       StringRef what) {
  int64_t r = rank;
  if (axis < -r || axis >= r)
    return ctx.error(what + " " + Twine(axis) +
                     " is out of range for a tensor of rank " + Twine(rank));
  return unsigned(axis < 0 ? axis + r : axis);
}

std::optional<int64_t> nnir::addDims(int64_t a, int64_t b) {
  if (isAnyDim(a) || isAnyDim(b))
    return kAnyDim;
  int64_t sum;
  if (AddOverflow(a, b, sum))
    return std::nullopt;
  return sum;
}

std::optional<int64_t> nnir::mulDims(int64_t a, int64_t b) {
  if (a == 0 || b == 0)
    return 0;
  if (isAnyDim(a) || isAnyDim(b))
    return kAnyDim;
  int64_t product;
  if (MulOverflow(a, b, product))
    return std::nullopt;
  return product;
}

Error nnir::requireStaticDim(const TensorType *tensor, unsigned axis,
                             StringRef name, const Twine &why,
                             const TypeRelationContext &ctx) {
  if (axis >= tensor->getRank() || !isAnyDim(tensor->getShape()[axis]))
    return Error::success();
  return ctx.error("dimension " + Twine(axis) + " of '" + name + "' (" +
                   tensor->str() + ") is dynamic; " + why);
}

Error nnir::requireStaticShape(const TensorType *tensor, StringRef name,
                               const Twine &why,
                               const TypeRelationContext &ctx) {
  for (unsigned i = 0, e = tensor->getRank(); i != e; ++i)
    if (Error err = requireStaticDim(tensor, i, name, why, ctx))
      return err;
  return Error::success();
}

void nnir::markDynamicShapeRelations(ArrayRef<StringRef> names) {
  for (StringRef name : names) {
    Op *op = OpRegistry::instance().lookup(name);
    assert(op && "marking an operator that is not registered");
    OpBuilder(op).setAttr<bool>(kDynamicShapesAttr, true);
  }
}

std::string nnir::formatIntList(ArrayRef<int64_t> values) {
  std::string text;
  raw_string_ostream os(text);
  printIntList(os, values);
  return text;
}

Expected<Ref<Type>> nnir::identityRelation(ArrayRef<const Type *> args,
                                           const Attrs *,
                                           const TypeRelationContext &ctx) {
  Expected<const TensorType *> data = getTensorArg(args, 0, "data", ctx);
  if (!data)
    return data.takeError();
  return Ref<Type>(const_cast<TensorType *>(*data));
}

/// The broadcast of the operands lhs and rhs, of \p outDType if given.
static Expected<Ref<Type>>
broadcastOperands(ArrayRef<const Type *> args, const TypeRelationContext &ctx,
                  std::optional<DataType> outDType) {
  Expected<const TensorType *> lhs = getTensorArg(args, 0, "lhs", ctx);
  if (!lhs)
    return lhs.takeError();
  Expected<const TensorType *> rhs = getTensorArg(args, 1, "rhs", ctx);
  if (!rhs)
    return rhs.takeError();
  return broadcastTypes(*lhs, *rhs, ctx, outDType);
}

Expected<Ref<Type>> nnir::broadcastRelation(ArrayRef<const Type *> args,
                                            const Attrs *,
                                            const TypeRelationContext &ctx) {
  return broadcastOperands(args, ctx, std::nullopt);
}

Expected<Ref<Type>>
nnir::broadcastCompareRelation(ArrayRef<const Type *> args, const Attrs *,
                               const TypeRelationContext &ctx) {
  return broadcastOperands(args, ctx, DataType::boolean());
}

Error nnir::getTensorTuple(ArrayRef<const Type *> args, StringRef verb,
                            SmallVectorImpl<const TensorType *> &fields,
                            const TypeRelationContext &ctx) {
  const auto *tuple =
      dyn_cast_or_null<TupleType>(args.empty() ? nullptr : args[0]);
  if (!tuple)
    return ctx.error(
        "expected a tuple of tensors for 'data', got " +
        (args.empty() || !args[0] ? std::string("nothing") : args[0]->str()));
  if (tuple->size() == 0)
    return ctx.error("cannot " + verb + " an empty tuple");
  for (size_t i = 0, e = tuple->size(); i != e; ++i) {
    const auto *field = dyn_cast<TensorType>(tuple->getField(i));
    if (!field)
      return ctx.error("field " + Twine(i) + " of the tuple is not a tensor: " +
                       tuple->getField(i)->str());
    fields.push_back(field);
  }
  return Error::success();
}
