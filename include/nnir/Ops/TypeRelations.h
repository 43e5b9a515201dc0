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
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cassert>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace nnir {

/// What a relation returns: the call's type, or a located error.
using RelationResult = llvm::Expected<Ref<Type>>;

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

/// Argument \p index as a tensor of an integer (signed or unsigned) dtype,
/// as Relay requires of indices ("expected an integer tensor for 'indices',
/// got Tensor[(2), float32]").
llvm::Expected<const TensorType *>
getIndexTensorArg(llvm::ArrayRef<const Type *> args, unsigned index,
                  llvm::StringRef name, const TypeRelationContext &ctx);

//===----------------------------------------------------------------------===//
// The relation adaptor
//===----------------------------------------------------------------------===//

/// How makeRelation() fetches one leading tensor argument: by the name its
/// errors use, optionally of a fixed rank or of an integer dtype.
struct TensorArgSpec {
  TensorArgSpec(const char *name) : name(name) {}
  llvm::StringRef name;
  std::optional<unsigned> rank;
  bool integer = false;
};

/// A tensor argument of rank \p rank (getTensorArgOfRank()).
inline TensorArgSpec rankedArg(const char *name, unsigned rank) {
  TensorArgSpec spec(name);
  spec.rank = rank;
  return spec;
}

/// A tensor argument of an integer dtype (getIndexTensorArg()).
inline TensorArgSpec indexArg(const char *name) {
  TensorArgSpec spec(name);
  spec.integer = true;
  return spec;
}

/// Argument \p index as \p spec says, with its standard error.
llvm::Expected<const TensorType *>
getSpecifiedTensorArg(llvm::ArrayRef<const Type *> args, unsigned index,
                      const TensorArgSpec &spec,
                      const TypeRelationContext &ctx);

/// Adapts a typed relation to a TypeRelationFn, so the relation itself
/// starts with what it computes: the adaptor fetches the attribute record
/// as AttrsT (none when AttrsT is void) and the leading arguments as tensors
/// by \p specs, in that order, and reports the standard errors (getAttrs(),
/// getTensorArg()) once for every operator. \p fn is called as
///   fn(const AttrsT *attrs, const TensorType *t0, ..., args, ctx)
/// (without `attrs` when AttrsT is void); it still sees every argument type
/// in `args` for arguments that are not leading tensors.
///
/// \code
///   static RelationResult takeRelation(const TakeAttrs *params,
///                                      const TensorType *data,
///                                      const TensorType *indices,
///                                      ArrayRef<const Type *> args,
///                                      const TypeRelationContext &ctx);
///   ... makeRelation<TakeAttrs>(takeRelation, "data", indexArg("indices"))
/// \endcode
template <typename AttrsT = void, typename Fn, typename... Specs>
TypeRelationFn makeRelation(Fn fn, Specs... specs) {
  constexpr size_t numTensors = sizeof...(Specs);
  std::array<TensorArgSpec, numTensors> specList{TensorArgSpec(specs)...};
  return [fn, specList](
             llvm::ArrayRef<const Type *> args, const Attrs *attrs,
             const TypeRelationContext &ctx) -> llvm::Expected<Ref<Type>> {
    const AttrsT *typed = nullptr;
    if constexpr (!std::is_void_v<AttrsT>) {
      llvm::Expected<const AttrsT *> record = getAttrs<AttrsT>(attrs, ctx);
      if (!record)
        return record.takeError();
      typed = *record;
    }
    std::array<const TensorType *, numTensors> tensors{};
    for (size_t i = 0; i != numTensors; ++i) {
      llvm::Expected<const TensorType *> tensor =
          getSpecifiedTensorArg(args, i, specList[i], ctx);
      if (!tensor)
        return tensor.takeError();
      tensors[i] = *tensor;
    }
    return std::apply(
        [&](auto... t) -> llvm::Expected<Ref<Type>> {
          if constexpr (std::is_void_v<AttrsT>)
            return fn(t..., args, ctx);
          else
            return fn(typed, t..., args, ctx);
        },
        tensors);
  };
}

namespace detail {
/// The number of `const TensorType *` parameters of a typed relation.
template <typename T> struct NumTensorParams;
template <typename R, typename... Params> struct NumTensorParams<R (*)(Params...)> {
  static constexpr size_t value =
      (size_t(0) + ... +
       size_t(std::is_same_v<Params, const TensorType *>));
};
template <typename AttrsT, typename Fn, size_t... I>
TypeRelationFn makeRelationByName(Fn fn,
                                  llvm::ArrayRef<llvm::StringLiteral> names,
                                  std::index_sequence<I...>) {
  assert(names.size() >= sizeof...(I) && "a tensor argument without a name");
  return makeRelation<AttrsT>(fn, TensorArgSpec(names[I].data())...);
}
} // namespace detail

/// makeRelation() for a table of operators whose rows list their argument
/// names: the leading tensor arguments of the typed relation \p fn (one per
/// `const TensorType *` parameter) are fetched by the first of \p names.
template <typename AttrsT = void, typename Fn>
TypeRelationFn makeRelationForArgs(Fn *fn,
                                   llvm::ArrayRef<llvm::StringLiteral> names) {
  constexpr size_t numTensors = detail::NumTensorParams<Fn *>::value;
  return detail::makeRelationByName<AttrsT>(
      fn, names, std::make_index_sequence<numTensors>());
}

/// A tensor type of \p shape and \p dtype, or an error when an extent is
/// negative (other than kAnyDim, `?`) or the static element count overflows
/// int64.
llvm::Expected<Ref<Type>> makeTensorType(llvm::ArrayRef<int64_t> shape,
                                         DataType dtype,
                                         const TypeRelationContext &ctx);

/// Numpy broadcasting of two shapes, aligned from the right: extents must be
/// equal or one of them 1. With TVM's rules for `?` (ConcreteBroadcast):
/// 1 with anything gives the other, `?` with n gives n (the `?` must be 1 or
/// n at run time), `?` with `?` gives `?`. std::nullopt when they do not
/// broadcast.
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

//===----------------------------------------------------------------------===//
// Dynamic extents (`?`, kAnyDim)
//===----------------------------------------------------------------------===//

/// True if extents \p a and \p b may be equal: equal, or either is `?`.
inline bool dimsMatch(int64_t a, int64_t b) {
  return a == b || isAnyDim(a) || isAnyDim(b);
}

/// The extent two matching extents stand for: the static one if either is
/// (TVM's relations prefer the known extent), else `?`.
inline int64_t unifyDims(int64_t a, int64_t b) {
  return isAnyDim(a) ? b : a;
}

/// a + b, `?` if either is; std::nullopt on overflow.
std::optional<int64_t> addDims(int64_t a, int64_t b);
/// a * b, `?` if either is (a static 0 times `?` is 0); std::nullopt on
/// overflow.
std::optional<int64_t> mulDims(int64_t a, int64_t b);

/// An error unless dimension \p axis of \p tensor (the argument \p name) is
/// static: "<op>: dimension 1 of 'weight' (Tensor[(4, ?), float32]) is
/// dynamic; <why>". A relation that needs a static extent calls it.
llvm::Error requireStaticDim(const TensorType *tensor, unsigned axis,
                             llvm::StringRef name, const llvm::Twine &why,
                             const TypeRelationContext &ctx);
/// requireStaticDim for every dimension of \p tensor.
llvm::Error requireStaticShape(const TensorType *tensor, llvm::StringRef name,
                               const llvm::Twine &why,
                               const TypeRelationContext &ctx);

/// Sets kDynamicShapesAttr on the registered operators \p names: their
/// relations keep `?` extents with TVM's rules.
void markDynamicShapeRelations(llvm::ArrayRef<llvm::StringRef> names);

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
