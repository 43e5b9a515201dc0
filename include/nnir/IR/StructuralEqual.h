//===- StructuralEqual.h - Structural equality and hashing ------*- C++ -*-===//
//
/// \file
/// TVM's structural_equal / structural_hash for the graph IR: two expressions
/// are equal when they have the same shape of nodes, operators, attributes,
/// constant values (bitwise) and type annotations, up to a consistent renaming
/// of bound variables (alpha-equivalence: function parameters and let
/// binders). Free variables are equal only to themselves unless
/// mapFreeVars is set. Source locations, name hints and checked types do not
/// take part. GlobalVars compare by name. Attribute records compare with
/// attrsEqual (a null record equals an empty DictAttrs), and a null record on
/// a call of an operator that has a record type equals the operator's default
/// record, as the verifier reads it.
///
/// The shape of the graph takes part too, as in TVM: Call, Tuple (non-empty),
/// TupleGetItem, Let, If and Function nodes are matched one to one, so a
/// node shared by two users on one side is not equal to two distinct (even
/// if equal) nodes on the other. Leaves (constants, operators, global vars,
/// the empty tuple) compare by value wherever they occur. Variables are
/// matched at their binders; a Var node bound twice (ill-formed IR) is
/// matched once for the whole comparison.
///
/// Equal expressions have equal hashes (bound variables hash by the order in
/// which their binders are met; free variables by identity, or by order of
/// first use with mapFreeVars). Both walks are iterative (no recursion on
/// graph depth) and linear in the DAG size (shared nodes are visited once).
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
/// equal), for test failure messages: "kinds differ: Call vs Tuple",
/// "operators differ: add vs multiply", "attribute 'strides' differs: ...",
/// "constant values differ", ...
std::string explainStructuralDifference(const Expr *lhs, const Expr *rhs,
                                        bool mapFreeVars = false);
/// The same for modules ("function @f is missing on the right", or the
/// difference in the first unequal function, prefixed with its name).
std::string explainStructuralDifference(const IRModule &lhs,
                                        const IRModule &rhs);

} // namespace nnir

#endif // NNIR_IR_STRUCTURALEQUAL_H
