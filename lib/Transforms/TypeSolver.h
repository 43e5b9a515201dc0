//===- TypeSolver.h - Unification and relation scheduling -------*- C++ -*-===//
//
/// \file
/// The solver type inference stands behind its walk (Relay's TypeSolver,
/// type_solver.cc): type variables (IncompleteTypes) with their bindings,
/// unification with an occurs check, substitution, and the constraints that
/// wait for a variable: an operator call whose argument types are not all
/// known runs its type relation once they are, a tuple projection of an
/// operand not yet known to be a tuple projects once it is. A call of an
/// operator with argument type inference (FInferArgTypes, TypeRelation.h)
/// also proposes types for its unknown arguments each time one of its
/// variables is bound, and binds them: that is how an untyped parameter gets
/// its type from the operators that use it. Private to the
/// Transforms library; InferType.cpp walks the expressions and asks it.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_LIB_TRANSFORMS_TYPESOLVER_H
#define NNIR_LIB_TRANSFORMS_TYPESOLVER_H

#include "nnir/IR/Expr.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Type.h"
#include "nnir/IR/TypeRelation.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SMLoc.h"

#include <string>
#include <vector>

namespace nnir {

/// The deepest type inference builds. A tuple of a tuple of ... gets a type
/// as deep as the chain of bindings that builds it, while every utility on
/// types (printing, equality, hashing, the verifier) recurses on their
/// nesting, and the parser reads printed types back only up to its nesting
/// limit (1000 by default). Half that limit leaves room for the syntactic
/// nesting around a printed type.
constexpr unsigned kMaxTypeDepth = 500;

/// The deepest the solver follows types while unifying or substituting.
/// Each type it builds is at most kMaxTypeDepth deep, but substituting the
/// solution of one variable into another can nest deeper; such a solution
/// is refused (it could not be printed) rather than followed without bound.
constexpr unsigned kMaxSolverDepth = 2 * kMaxTypeDepth;

/// True if \p type is present and contains no IncompleteType.
bool isCompleteType(const Type *type);

/// An operator call whose argument types are not all known, or a tuple
/// projection of an operand not known to be a tuple: solved when the type
/// variable it waits for is bound.
struct TypeConstraint {
  /// The Call or TupleGetItem.
  Expr *expr;
  /// The call's operator's type relation (null for a projection).
  const TypeRelationFn *relation = nullptr;
  /// The call's operator's argument type inference, or null.
  const ArgTypeInferenceFn *inferArgs = nullptr;
  /// Argument types (a call) or the operand's type (a projection).
  llvm::SmallVector<Ref<Type>, 4> args;
  /// The typed arguments, for relations that read constant values.
  llvm::SmallVector<Ref<Expr>, 4> typedArgs;
  /// The variable standing for the node's type.
  Ref<Type> result;
  bool solved = false;
};

class TypeSolver {
public:
  /// Errors at nodes without a location are located at \p loc.
  void setFallbackLoc(llvm::SMLoc loc) { fallbackLoc = loc; }

  /// A new type variable.
  Ref<Type> freshVar() {
    ++numVars;
    return IncompleteType::get();
  }
  /// The number of variables made since reset(); zero means inference is
  /// plain bottom-up checking and the solver has nothing to do.
  unsigned getNumVars() const { return numVars; }
  /// \p annotation with a fresh variable for every `_` (a fresh variable for
  /// a missing annotation).
  Ref<Type> instantiate(const Ref<Type> &annotation);
  /// \p type with the variables bound at its head followed.
  Ref<Type> head(Ref<Type> type) const;
  /// Makes \p a and \p b equal, binding variables; false if they cannot be.
  /// Without variables this is typesEqual.
  bool unify(const Ref<Type> &a, const Ref<Type> &b);
  /// \p type with every bound variable substituted; null when the result
  /// would be nested deeper than kMaxSolverDepth.
  Ref<Type> resolve(const Ref<Type> &type);
  /// An unbound variable in \p type (after substitution), or null.
  const IncompleteType *findUnboundVar(const Type *type);
  /// Whether \p type (as written, bindings not followed) holds variables.
  bool mentionsVars(const Type *type) const {
    return numVars && !isCompleteType(type);
  }
  /// \p type resolved as far as possible, for a message.
  std::string describe(const Ref<Type> &type);

  /// Runs \p relation for \p call (of an operator) on arguments of
  /// \p argTypes, with the call's attributes or the operator's defaults.
  llvm::Expected<Ref<Type>> runRelation(const Call *call,
                                        const TypeRelationFn &relation,
                                        llvm::ArrayRef<const Type *> argTypes,
                                        llvm::ArrayRef<Ref<Expr>> typedArgs);

  /// Runs \p infer for \p call on \p argTypes (null for unknown arguments),
  /// with the attributes runRelation() uses; \p proposed gets a slot per
  /// argument.
  llvm::Error runArgInference(const Call *call,
                              const ArgTypeInferenceFn &infer,
                              llvm::ArrayRef<const Type *> argTypes,
                              llvm::ArrayRef<Ref<Expr>> typedArgs,
                              llvm::SmallVectorImpl<Ref<Type>> &proposed);

  /// Adds a constraint and solves it now if its variables are bound, else
  /// when they are.
  llvm::Error addConstraint(TypeConstraint constraint);
  /// True if a variable some constraint waits for was bound.
  bool hasReady() const { return !ready.empty(); }
  /// Solves the constraints whose variables were bound.
  llvm::Error drain();
  /// A constraint never solved (a variable it waits for is unbound), or
  /// null.
  const TypeConstraint *findUnsolved() const;
  /// Forgets the variables, their solutions and the constraints.
  void reset();

private:
  bool unifyRec(const Ref<Type> &a, const Ref<Type> &b, unsigned depth);
  bool bindTypeVar(const IncompleteType *var, const Ref<Type> &type);
  bool occurs(const Type *var, const Type *type);
  Ref<Type> resolveRec(const Ref<Type> &type, unsigned depth,
                       llvm::DenseMap<const Type *, Ref<Type>> &done);
  /// Solves constraint \p id, or makes it wait for a variable.
  llvm::Error solve(unsigned id);
  /// Binds the argument types constraint \p id's operator proposes for its
  /// unknown arguments.
  llvm::Error inferArgTypes(unsigned id);
  /// Calls \p fn on each unbound variable in \p type (after substitution),
  /// in order, until it returns false.
  void forEachUnboundVar(const Type *type,
                         llvm::function_ref<bool(const IncompleteType *)> fn);
  /// The attribute record a relation of \p call sees: the call's, or its
  /// operator's defaults.
  const Attrs *getRelationAttrs(const Call *call);
  /// The context a relation of \p call runs in.
  TypeRelationContext getRelationContext(const Call *call,
                                         llvm::ArrayRef<Ref<Expr>> typedArgs);
  /// A located error at \p e.
  llvm::Error error(const Expr *e, const llvm::Twine &message) const;

  unsigned numVars = 0;
  llvm::SMLoc fallbackLoc;
  /// Bound variables (IncompleteType -> its type).
  llvm::DenseMap<const Type *, Ref<Type>> bindings;
  std::vector<TypeConstraint> constraints;
  /// Constraints waiting for a variable to be bound.
  llvm::DenseMap<const Type *, llvm::SmallVector<unsigned, 2>> waiters;
  /// The (variable, constraint) pairs in waiters, so that a constraint
  /// waiting for several variables is listed once for each.
  llvm::DenseSet<std::pair<const Type *, unsigned>> waiting;
  /// Constraints whose variable was bound.
  llvm::SmallVector<unsigned, 8> ready;
  /// Pairs already being unified (types may be DAGs).
  llvm::DenseSet<std::pair<const Type *, const Type *>> unifying;
  /// Default attribute records of operators whose calls carry none.
  llvm::DenseMap<const Op *, Ref<Attrs>> defaultAttrs;
};

} // namespace nnir

#endif // NNIR_LIB_TRANSFORMS_TYPESOLVER_H
