//===- OpProperties.h - Properties passes query of operators ----*- C++ -*-===//
//
/// \file
/// The per-operator properties that graph passes read (TVM's TOpPattern,
/// TOpIsStateful and TNonComputational), kept in the OpRegistry's attribute
/// maps under these keys. Each operator family sets them where it registers
/// its operators; passes query them here and never switch on operator names.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_OPPROPERTIES_H
#define NNIR_IR_OPPROPERTIES_H

#include "nnir/IR/Expr.h"
#include "nnir/Support/TypeId.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>

namespace nnir {

class Op;
class Type;

/// The form of an operator property that rewrites calls of its operator
/// (QNN's canonicalization, layout alterations): given the call (its
/// arguments as rewritten so far), the checked types of its original
/// arguments and of its result, the untyped replacement, null where the
/// property may decline, or a located error.
using CallRewriteFn = std::function<llvm::Expected<Ref<Expr>>(
    const Call &call, llvm::ArrayRef<const Type *> argTypes,
    const Type *resultType)>;

/// How an operator fuses (TVM's OpPatternKind, same numbers).
enum class OpPatternKind : int {
  /// Elementwise: out[i] = f(in[i]).
  ElemWise = 0,
  /// Broadcasting: out[i, j] = f(in[i, 0], ...).
  Broadcast = 1,
  /// Injective: each output element reads one input element (reshape, ...).
  Injective = 2,
  /// Commutative reduction (sum, max, ...).
  CommReduce = 3,
  /// Complex ops whose output elementwise ops can fuse into (conv2d, dense).
  OutEWiseFusable = 4,
  /// A tuple node (not an operator property; used by fusion).
  Tuple = 7,
  /// Never fused.
  Opaque = 8,
};

/// "ElemWise", "Broadcast", ...
llvm::StringRef getOpPatternKindName(OpPatternKind kind);

inline constexpr llvm::StringLiteral kOpPatternAttr = "TOpPattern";
inline constexpr llvm::StringLiteral kOpIsStatefulAttr = "TOpIsStateful";
inline constexpr llvm::StringLiteral kOpNonComputationalAttr =
    "TNonComputational";

/// The pattern of \p op; Opaque when the op does not declare one (as TVM's
/// FuseOps assumes).
OpPatternKind getOpPattern(const Op *op);
/// True if the op has side effects or randomness (nn.dropout): never folded.
bool isStatefulOp(const Op *op);
/// True for annotations that compute nothing (on_device, ...).
bool isNonComputationalOp(const Op *op);

} // namespace nnir

NNIR_DECLARE_EXPLICIT_TYPE_ID(nnir::OpPatternKind)

#endif // NNIR_IR_OPPROPERTIES_H
