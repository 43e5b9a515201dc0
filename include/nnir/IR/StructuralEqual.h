//===- StructuralEqual.h - Structural equality and hashing ------*- C++ -*-===//
//
/// \file
/// TVM's structural_equal / structural_hash for the graph IR: two expressions
/// are equal when they have the same shape of nodes, operators, attributes,
/// constant values (bitwise) and type annotations, up to a consistent renaming
/// of bound variables (alpha-equivalence: function parameters and let
/// binders). Free variables are equal only to themselves unless
/// mapFreeVars is set. Source locations, name hints and checked types do not
/// take part. GlobalVars compare by name.
///
/// Equal expressions have equal hashes. Both walks are iterative (no recursion
/// on graph depth) and linear in the DAG size (shared nodes are visited once).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_STRUCTURALEQUAL_H
#define NNIR_IR_STRUCTURALEQUAL_H

#include "llvm/ADT/Hashing.h"

#include <string>

namespace nnir {

class Expr;
class IRModule;

bool structuralEqual(const Expr *lhs, const Expr *rhs,
                     bool mapFreeVars = false);
/// Modules are equal when they define the same function names with
/// structurally equal functions (order does not matter) and equal module
/// attributes.
bool structuralEqual(const IRModule &lhs, const IRModule &rhs);

llvm::hash_code structuralHash(const Expr *expr, bool mapFreeVars = false);
llvm::hash_code structuralHash(const IRModule &module);

/// Explains the first difference between \p lhs and \p rhs ("" if they are
/// equal), for test failure messages.
std::string explainStructuralDifference(const Expr *lhs, const Expr *rhs);

} // namespace nnir

#endif // NNIR_IR_STRUCTURALEQUAL_H
