//===- AlterOpLayout.h - Replace calls by their target's forms --*- C++ -*-===//
//
/// \file
/// AlterOpLayout replaces each call of an operator that has a layout
/// alteration (the operator property kAlterOpLayoutAttr, TVM's
/// FTVMAlterOpLayout) by the expression the alteration returns for it: a
/// convolution computed in a blocked layout between two layout_transforms, a
/// weight pre-transformation, any target-specific form. Calls are visited in
/// post-order, so an alteration sees the arguments as already altered; an
/// alteration that returns null keeps its call.
///
/// nnir compiles for one target, the host CPU, and registers no alteration
/// of its own: by default the pass changes nothing. Alterations are set from
/// C++ (setAlterOpLayout(), e.g. by a plugin at load) and from Python
/// (`nnir.op.register_alter_op_layout`, TVM's
/// `tvm.relay.op.register_alter_op_layout`), with TVM's priority levels.
///
/// The difference from TVM: Relay's pass also infers the layouts around a
/// replacement (InferCorrectLayout) and inserts layout_transforms where the
/// replacement's layouts differ from its neighbours'. nnir's needs the
/// replacement to have the call's type: the alteration inserts its own
/// layout_transforms (as TVM's x86 conv2d alteration returns a call in
/// NCHWc). A replacement of another type, or one that does not type-check,
/// is an error located at the call that names the operator and both types.
/// A replacement need not be a call (TVM requires one).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TRANSFORMS_ALTEROPLAYOUT_H
#define NNIR_TRANSFORMS_ALTEROPLAYOUT_H

#include "nnir/IR/Expr.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/Pass/Pass.h"
#include "nnir/Support/TypeId.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <functional>

namespace nnir {

class Op;
class Type;

/// An operator's layout alteration. It receives the call (its attributes,
/// and its arguments as rewritten so far), the checked types of the original
/// arguments (TVM's tinfos) and of the call; it returns the replacement
/// (untyped; it must have the call's type), null to keep the call, or an
/// error, which stops the pass.
using AlterOpLayoutFn = CallRewriteFn;

/// The operator property: an alteration with its priority level.
struct AlterOpLayoutEntry {
  AlterOpLayoutFn fn;
  int level = 0;
};

inline constexpr llvm::StringLiteral kAlterOpLayoutAttr = "FTVMAlterOpLayout";

/// Sets \p fn as the alteration of \p op at priority \p level, with the rule
/// of TVM's register_op_attr: it replaces an alteration of a lower level, is
/// ignored where one of a higher level is set, and is an error where one of
/// the same level is. Set alterations before passes run (the op registry is
/// read without locks).
llvm::Error setAlterOpLayout(const Op &op, AlterOpLayoutFn fn, int level = 10);
/// Removes the alteration of \p op, whatever its level (TVM's reset_attr).
void resetAlterOpLayout(const Op &op);
/// The alteration of \p op, or null.
const AlterOpLayoutFn *getAlterOpLayout(const Op *op);

/// Replaces the calls of \p expr (whose types must have been inferred) that
/// have an alteration. \p numAltered, if given, is incremented per replaced
/// call.
llvm::Expected<Ref<Expr>> alterOpLayout(Expr *expr,
                                        int64_t *numAltered = nullptr);

/// The "AlterOpLayout" function pass (opt level 3, requires InferType).
Ref<Pass> createAlterOpLayoutPass();

} // namespace nnir

NNIR_DECLARE_EXPLICIT_TYPE_ID(nnir::AlterOpLayoutEntry)

#endif // NNIR_TRANSFORMS_ALTEROPLAYOUT_H
