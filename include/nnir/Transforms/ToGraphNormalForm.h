//===- ToGraphNormalForm.h - Conversion to graph normal form ----*- C++ -*-===//
//
/// \file
/// ToGraphNormalForm turns let chains back into dataflow (Relay's
/// ToGraphNormalForm): every use of a let variable is replaced by the
/// variable's (converted) value and the binding disappears, so a value used
/// twice becomes a shared node. A let whose value refers to its own variable
/// (a recursive function) is kept as `let %f = value; %f` at the uses.
///
/// The inverse of ToANormalForm up to the names of variables. Values are
/// not evaluated by a program in graph form in any particular order: do not
/// use it on programs whose let order matters (the operators nnir knows have
/// no side effects, except the randomness of stateful ones like nn.dropout).
/// Iterative along let chains and dataflow edges.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TRANSFORMS_TOGRAPHNORMALFORM_H
#define NNIR_TRANSFORMS_TOGRAPHNORMALFORM_H

#include "nnir/IR/Expr.h"
#include "nnir/Pass/Pass.h"

namespace nnir {

/// Converts \p expr; returns \p expr itself when it has no let.
Ref<Expr> toGraphNormalForm(Expr *expr);

/// The "ToGraphNormalForm" function pass (opt level 1).
Ref<Pass> createToGraphNormalFormPass();

} // namespace nnir

#endif // NNIR_TRANSFORMS_TOGRAPHNORMALFORM_H
