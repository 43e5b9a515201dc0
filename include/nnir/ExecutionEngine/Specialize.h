//===- Specialize.h - Primitive functions at concrete shapes -----*- C++ -*-===//
//
/// \file
/// Run-time shape specialisation (how nnir runs what Relay's VM runs with
/// shape functions). A primitive function downstream of an operator whose
/// result extents depend on values (nnir/Ops/DynamicOps.h) has `?` extents
/// in its types; before it runs, the evaluator gives its parameters the
/// concrete types of the arguments and types its body again, bottom-up,
/// with each operator's relation (ops::typeCheck), so no `?` reaches the
/// kernel compiler. The engine's kernel caches are keyed by the concrete
/// types, so each distinct shape compiles once.
///
/// This is not InferType (which lives above the engine, in Transforms): a
/// primitive function's body is dataflow only (operator calls, tuples,
/// projections, constants and the parameters), whose types follow from the
/// leaves in one post-order walk.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_EXECUTIONENGINE_SPECIALIZE_H
#define NNIR_EXECUTIONENGINE_SPECIALIZE_H

#include "nnir/IR/Expr.h"
#include "nnir/IR/Type.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

namespace nnir {

/// \p fn with parameters of types \p paramTypes (one per parameter) and its
/// body typed for them; its attributes (Primitive) are kept. A relation's
/// error (a shape the concrete extents make invalid) is located at the
/// call; a body that is not dataflow is an error at \p fn.
llvm::Expected<Ref<Function>>
specializeFunction(const Function &fn, llvm::ArrayRef<Ref<Type>> paramTypes);

/// Types the dataflow expression \p expr bottom-up from its leaves: typed
/// variables, constants, and nodes that already have a checked type and
/// none of whose children were retyped.
llvm::Expected<Ref<Expr>> typeDataflow(const Ref<Expr> &expr);

} // namespace nnir

#endif // NNIR_EXECUTIONENGINE_SPECIALIZE_H
