//===- TypeRelation.h - How an operator call gets its type ------*- C++ -*-===//
//
/// \file
/// The contract between operators and type inference. Every operator that
/// can be type-checked registers the property "FTypeRelation" (an OpAttrMap
/// entry, see Op.h): a function from the types of a call's arguments and its
/// attribute record to the type of the call's result.
///
/// \code
///   OpRegistry::instance().add("nn.relu")
///       ...
///       .setAttr<TypeRelationFn>(kTypeRelationAttr, identityRelation);
/// \endcode
///
/// Relay solves relations by unification over partially known types; nnir's
/// shapes are static, so a relation is a plain function: every argument type
/// is fully known when it runs, and it returns the result type or a located
/// error. The arity of the call has been checked against the operator's
/// number of inputs (when it is not variadic) before the relation runs, and
/// the record is the call's (or the operator's defaults when the call has
/// none). Everything else (argument kinds, ranks, dtypes, attribute values)
/// is the relation's to check.
///
/// A relation reports problems through TypeRelationContext::error(), which
/// locates the error at the call and prefixes the operator's name:
/// `add: dtype mismatch float32 vs int32`.
///
/// Relay's relations also assign types to arguments (`reporter->Assign`):
/// conv2d gives an untyped weight the shape that data, `channels` and
/// `kernel_size` determine. nnir keeps its relations forward and adds that
/// direction as a second, optional property, "FInferArgTypes"
/// (ArgTypeInferenceFn): given the argument types known so far (null for
/// the others) and the attribute record, it proposes types for unknown
/// arguments. Type inference binds the proposals and then runs the forward
/// relation on the complete argument types, which checks that everything
/// agrees; a proposal is a hint, never a second source of truth.
///
/// This header knows no particular operator; the relations live with the
/// operators (nnir/Ops).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_TYPERELATION_H
#define NNIR_IR_TYPERELATION_H

#include "nnir/IR/Attrs.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Type.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SMLoc.h"

#include <functional>

namespace nnir {

/// What a relation may use besides the argument types: the called operator's
/// name and the location of the call, for diagnostics.
struct TypeRelationContext {
  llvm::StringRef opName;
  llvm::SMLoc loc;
  /// The call's (typed) arguments when the caller has them (InferType does),
  /// else empty. Relations read them only for constant values a result shape
  /// depends on (arange's start, stop and step).
  llvm::ArrayRef<Ref<Expr>> args = {};

  /// A located error "<op>: <message>" at the call.
  llvm::Error error(const llvm::Twine &message) const {
    return makeError(loc, opName + ": " + message);
  }
};

/// The type of a call of an operator, from its argument types and attribute
/// record (null for operators without one).
using TypeRelationFn = std::function<llvm::Expected<Ref<Type>>(
    llvm::ArrayRef<const Type *> argTypes, const Attrs *attrs,
    const TypeRelationContext &ctx)>;

/// The key of the operator property holding a TypeRelationFn.
inline constexpr llvm::StringLiteral kTypeRelationAttr = "FTypeRelation";

/// Proposes types for the arguments of a call whose types are not known yet
/// (Relay's `reporter->Assign` on an argument). \p argTypes holds a
/// complete type for every known argument and null for the others;
/// \p proposed has one slot per argument, all null on entry. The function
/// sets the slots of unknown arguments it can determine and leaves the rest
/// null (it proposes nothing when what it needs is unknown). It reports an
/// error only for what makes the call wrong whatever the unknown types are
/// (an invalid attribute); a disagreement between known types is the forward
/// relation's to report.
using ArgTypeInferenceFn = std::function<llvm::Error(
    llvm::ArrayRef<const Type *> argTypes, const Attrs *attrs,
    const TypeRelationContext &ctx, llvm::MutableArrayRef<Ref<Type>> proposed)>;

/// The key of the operator property holding an ArgTypeInferenceFn.
inline constexpr llvm::StringLiteral kArgTypeInferenceAttr = "FInferArgTypes";

/// The argument type inference registered for \p op, or null.
const ArgTypeInferenceFn *getArgTypeInference(const Op *op);

/// The key of the operator property (bool) saying that the operator's type
/// relation reads the values of constant arguments (TypeRelationContext::args)
/// and not only their types: arange's result shape is its arguments' values.
/// Rewrites must not keep the checked type of such a call when an argument
/// changed (rebuildWithChildren() in Traversal.h).
inline constexpr llvm::StringLiteral kTypeReadsArgValuesAttr =
    "TTypeReadsArgValues";

/// True if \p op's type relation reads argument values (kTypeReadsArgValuesAttr).
bool typeDependsOnArgValues(const Op *op);

/// The key of the operator property (bool) saying that the operator's type
/// relation handles dynamic extents (kAnyDim, Relay's `Any`, written `?`) in
/// its argument types, with TVM's rules (broadcasting `?` with 1 gives `?`,
/// with n gives n; a dynamic batch passes through conv2d and dense). Type
/// inference never hands a dynamic argument type to a relation without it:
/// the call is an error that names the argument and the dynamic dimension,
/// so a relation written for static shapes never computes with `?` as if it
/// were an extent.
inline constexpr llvm::StringLiteral kDynamicShapesAttr = "TDynamicShapes";

/// True if \p op's type relation accepts dynamic extents (kDynamicShapesAttr).
bool supportsDynamicShapes(const Op *op);

/// The key of the operator property (bool) saying that the extents of the
/// operator's result depend on its arguments' values, not only on their
/// shapes (argwhere, unique, dyn.reshape, ...: Relay's dynamic operators):
/// its relation gives `?` for them even when every argument is static, and
/// the evaluator runs it by its run-time implementation (nnir/Ops/
/// DynamicOps.h) rather than as a compiled kernel of static shape.
inline constexpr llvm::StringLiteral kDataDependentShapeAttr =
    "TDataDependentShape";

/// True if \p op's result extents depend on argument values
/// (kDataDependentShapeAttr).
bool hasDataDependentShape(const Op *op);

/// The first dynamic extent in \p argTypes (searching tuple fields), as an
/// error "<op>: dimension D of <argument> (<type>) is dynamic; ..." located
/// at \p ctx; success when every extent is static. \p op names arguments.
llvm::Error checkStaticArgTypes(const Op *op,
                                llvm::ArrayRef<const Type *> argTypes,
                                const TypeRelationContext &ctx);

/// The type relation registered for \p op, or null when it has none.
inline const TypeRelationFn *getTypeRelation(const Op *op) {
  const OpAttrMap<TypeRelationFn> *map =
      OpRegistry::instance().findAttrMap<TypeRelationFn>(kTypeRelationAttr);
  if (!map || !map->has(op))
    return nullptr;
  return &map->get(op);
}

} // namespace nnir

NNIR_DECLARE_EXPLICIT_TYPE_ID(nnir::TypeRelationFn)
NNIR_DECLARE_EXPLICIT_TYPE_ID(nnir::ArgTypeInferenceFn)

#endif // NNIR_IR_TYPERELATION_H
