//===- TypeRelations.h - Helpers for operator type relations ----*- C++ -*-===//
//
/// \file
/// Building blocks shared by the type relations of nnir's operator families
/// (see nnir/IR/TypeRelation.h for the contract): argument and attribute
/// access with diagnostics, numpy broadcasting, axis normalisation, checked
/// shape arithmetic, and the relations used by several families (identity,
/// broadcast). Every error is reported through the relation's context, so it
/// is located at the call and starts with the operator's name.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_TYPERELATIONS_H
#define NNIR_OPS_TYPERELATIONS_H

#include "nnir/IR/TypeRelation.h"
#include "nnir/Runtime/Shape.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace nnir {

/// Argument \p index as a tensor type; \p name names it in the error
/// ("expected a tensor for 'data', got (float32, float32)").
llvm::Expected<const TensorType *>
getTensorArg(llvm::ArrayRef<const Type *> args, unsigned index,
             llvm::StringRef name, const TypeRelationContext &ctx);

/// Argument \p index as a tensor type of rank \p rank.
llvm::Expected<const TensorType *>
getTensorArgOfRank(llvm::ArrayRef<const Type *> args, unsigned index,
                   llvm::StringRef name, unsigned rank,
                   const TypeRelationContext &ctx);

/// The attribute record as an AttrsT; an error when it is missing or of
/// another record type.
template <typename AttrsT>
llvm::Expected<const AttrsT *> getAttrs(const Attrs *attrs,
                                        const TypeRelationContext &ctx) {
  if (const auto *typed = llvm::dyn_cast_or_null<AttrsT>(attrs))
    return typed;
  return ctx.error("expected attributes of type " + AttrsT::typeKey +
                   ", got " + (attrs ? attrs->getTypeKey() : "none"));
}

/// A tensor type of \p shape and \p dtype, or an error when an extent is
/// negative or the element count overflows int64.
llvm::Expected<Ref<Type>> makeTensorType(llvm::ArrayRef<int64_t> shape,
                                         DataType dtype,
                                         const TypeRelationContext &ctx);

/// Numpy broadcasting of two shapes, aligned from the right: extents must be
/// equal or one of them 1. std::nullopt when they do not broadcast.
std::optional<Shape> broadcastShapes(llvm::ArrayRef<int64_t> lhs,
                                     llvm::ArrayRef<int64_t> rhs);

/// The broadcast of \p lhs and \p rhs. Their dtypes must match
/// ("dtype mismatch float32 vs int32"); the result has \p outDType, or the
/// operands' dtype when none is given.
llvm::Expected<Ref<Type>>
broadcastTypes(const TensorType *lhs, const TensorType *rhs,
               const TypeRelationContext &ctx,
               std::optional<DataType> outDType = std::nullopt);

/// \p axis normalised to [0, rank) (negative axes count from the end), or an
/// error naming \p what ("axis 3 is out of range for a tensor of rank 2").
llvm::Expected<unsigned> normalizeAxis(int64_t axis, unsigned rank,
                                       const TypeRelationContext &ctx,
                                       llvm::StringRef what = "axis");

/// The first argument as a tuple of at least one tensor (concatenate,
/// stack, einsum; an empty tuple's error says "cannot \p verb an empty
/// tuple"): its fields go to \p fields.
llvm::Error getTensorTuple(llvm::ArrayRef<const Type *> args,
                           llvm::StringRef verb,
                           llvm::SmallVectorImpl<const TensorType *> &fields,
                           const TypeRelationContext &ctx);

/// Prints a list of integers the way shapes print: `(1, 2)`.
std::string formatIntList(llvm::ArrayRef<int64_t> values);

/// out = data (every unary elementwise operator).
llvm::Expected<Ref<Type>> identityRelation(llvm::ArrayRef<const Type *> args,
                                           const Attrs *attrs,
                                           const TypeRelationContext &ctx);

/// Broadcasting binary operator whose result has the operands' dtype.
llvm::Expected<Ref<Type>> broadcastRelation(llvm::ArrayRef<const Type *> args,
                                            const Attrs *attrs,
                                            const TypeRelationContext &ctx);

/// Broadcasting comparison: the result is bool.
llvm::Expected<Ref<Type>>
broadcastCompareRelation(llvm::ArrayRef<const Type *> args, const Attrs *attrs,
                         const TypeRelationContext &ctx);

} // namespace nnir

#endif // NNIR_OPS_TYPERELATIONS_H
