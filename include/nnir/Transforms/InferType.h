//===- InferType.h - Type inference of modules and expressions --*- C++ -*-===//
//
/// \file
/// InferType computes the type of every expression of a module and records
/// it as the node's checked type (Relay's InferType). Types flow bottom-up
/// from the annotations of binders, constants and operator type relations
/// (nnir/IR/TypeRelation.h); where nothing is written, a type variable is
/// solved for by unification with the uses, as Relay's TypeSolver does.
///
///  - Constants have their tensor type; a variable has its annotation, or
///    the type its uses determine (a let variable without one takes its
///    value's type); an operator call has the type its FTypeRelation
///    computes (an operator without one is an error; a relation whose
///    argument types are not known yet waits until they are); a call of a
///    function or closure has the callee's result type, and each argument
///    is unified with its parameter; tuples, tuple projections (the index
///    must be in range), lets, ifs (the condition is a 0-d bool tensor, both
///    branches have one type) and functions (FuncType; an annotated return
///    type must agree with the body's type) as in Relay.
///  - A parameter without an annotation (or with `_` in it) gets its type
///    from its uses: `let %f = fn (%x) { %x }; %f(1f)` types %x as float32.
///    A binder that nothing determines is an error located at it. A global
///    function's parameters are determined by its own body only.
///  - Global functions are inferred callees first; functions that refer to
///    each other (recursion) are inferred together, and their return types
///    may be left out when a non-recursive branch determines them. A
///    let-bound function may call itself.
///  - Nodes are rebuilt with their checked type, keeping their location,
///    attributes and annotations. As in Relay, missing annotations are
///    filled in: a binder without one (or with `_`) is annotated with its
///    type, and a function without a return type gets its body's type (so
///    the printed module reads back to the same module). Nodes that already
///    carry the right type are kept, so inferring a typed module returns the
///    very same module object. A GlobalVar is typed too: every reference to
///    a function and its module entry share one typed GlobalVar node.
///  - Errors are located at the offending expression and show both sides of
///    a mismatch; the first error stops inference.
///
/// The walk is iterative (an explicit stack), linear in the size of the
/// module: a chain of 1,000,000 calls or lets type-checks on the default
/// stack, with or without annotations. Only the types themselves are
/// compared recursively. docs/Passes.md ("InferType") lists the
/// differences from TVM.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TRANSFORMS_INFERTYPE_H
#define NNIR_TRANSFORMS_INFERTYPE_H

#include "nnir/IR/Module.h"
#include "nnir/Pass/Pass.h"

#include "llvm/Support/Error.h"

namespace nnir {

/// Infers the types of every function of \p module. Returns \p module itself
/// when it is marked hasValidTypes() and every node already had its type;
/// otherwise a new module with hasValidTypes() set. \p module is never
/// changed.
llvm::Expected<Ref<IRModule>> inferTypes(Ref<IRModule> module);

/// Infers the types of a standalone expression (e.g. one about to be
/// evaluated). Free variables must be annotated. GlobalVars are typed from
/// \p module: the checked type of the function, or its annotated signature.
llvm::Expected<Ref<Expr>> inferExprTypes(Ref<Expr> expr,
                                         const IRModule *module = nullptr);

/// The "InferType" module pass (opt level 0; it establishes and preserves
/// types, so a Sequential skips it while the module's types are valid).
Ref<Pass> createInferTypePass();

} // namespace nnir

#endif // NNIR_TRANSFORMS_INFERTYPE_H
