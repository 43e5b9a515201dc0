//===- InferType.cpp - Type inference of modules and expressions ----------===//
//
/// \file
/// The TypeInferencer walks expressions in post-order with an explicit stack
/// of frames (a node and how far its processing got), computes each node's
/// type from its children's and rebuilds it with that checked type unless it
/// already has it. A node hands its typed form to its user on a result
/// stack; only binders and nodes held by more than one reference (which
/// another user may reach) are memoised, so a chain costs no hash table
/// traffic. Equal result types share one object (interned per inference).
///
/// Types flow bottom-up. Where nothing is known yet (a parameter without an
/// annotation, a `_` in an annotation, the return type of a recursive
/// function) the inferencer stands a type variable in (a fresh
/// IncompleteType) and solves for it by unification, as Relay's TypeSolver
/// does: a call unifies its arguments with the callee's parameters, an `if`
/// its branches, a let its annotation with its value. An operator call whose
/// argument types are not all known yet becomes a constraint that waits for
/// the variable it is missing and runs the operator's relation when that
/// variable is bound (so does a tuple projection of an operand not yet known
/// to be a tuple). When a function needed variables, it is walked a second
/// time with its binders' solved types, which builds every node with its
/// final type; a function that needs none (every parameter annotated, the
/// common case) is walked once, without any of this machinery.
///
/// Global functions are inferred callees first. Functions that refer to each
/// other without annotated signatures (recursion) are inferred together, in
/// one solver; a reference to one of them that is not typed yet gets a
/// placeholder type that its definition is unified with.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/InferType.h"
#include "nnir/Transforms/Passes.h"

#include "TypeSolver.h"

#include "nnir/IR/ExprVisitor.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Traversal.h"
#include "nnir/IR/TypeRelation.h"
#include "nnir/Pass/Parallel.h"
#include "nnir/Support/PoolLoop.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"

using namespace llvm;
using namespace nnir;

//===----------------------------------------------------------------------===//
// Type helpers
//===----------------------------------------------------------------------===//

/// True if \p type fits the partial \p annotation, where `_` stands for any
/// type and a `?` extent for any extent (TVM's unifier).
static bool matchesAnnotation(const Type *annotation, const Type *type) {
  if (isa<IncompleteType>(annotation))
    return true;
  if (annotation->getKind() != type->getKind())
    return false;
  switch (annotation->getKind()) {
  case Type::Kind::Tensor:
  case Type::Kind::Incomplete:
    return typesCompatible(annotation, type);
  case Type::Kind::Tuple: {
    ArrayRef<Ref<Type>> a = cast<TupleType>(annotation)->getFields();
    ArrayRef<Ref<Type>> t = cast<TupleType>(type)->getFields();
    if (a.size() != t.size())
      return false;
    for (size_t i = 0, e = a.size(); i != e; ++i)
      if (!matchesAnnotation(a[i].get(), t[i].get()))
        return false;
    return true;
  }
  case Type::Kind::Func: {
    const auto *a = cast<FuncType>(annotation);
    const auto *t = cast<FuncType>(type);
    if (a->getParams().size() != t->getParams().size())
      return false;
    for (size_t i = 0, e = a->getParams().size(); i != e; ++i)
      if (!matchesAnnotation(a->getParams()[i].get(), t->getParams()[i].get()))
        return false;
    return matchesAnnotation(a->getResult(), t->getResult());
  }
  }
  return false;
}

/// True if \p e already carries \p type as its checked type.
static bool hasType(const Expr *e, const Type *type) {
  const Ref<Type> &checked = e->getCheckedType();
  return checked && typesEqual(checked.get(), type);
}

/// The FuncType a function's annotations give, when its parameters and
/// return type are all annotated with complete types; else null.
static Ref<FuncType> getAnnotatedSignature(const Function *func) {
  if (!isCompleteType(func->getRetType().get()))
    return nullptr;
  SmallVector<Ref<Type>, 4> params;
  for (const Ref<Var> &param : func->getParams()) {
    if (!param || !isCompleteType(param->getTypeAnnotation().get()))
      return nullptr;
    params.push_back(param->getTypeAnnotation());
  }
  return FuncType::get(params, func->getRetType());
}

/// `%x`, for diagnostics.
static std::string varName(const Var *var) {
  return ("%" + var->getNameHint()).str();
}

//===----------------------------------------------------------------------===//
// TypeInferencer
//===----------------------------------------------------------------------===//

namespace {

/// A global function whose type is inferred in the current group: with its
/// placeholder type once something refers to it before it is typed.
struct GroupMember {
  std::string name;
  Function *func;
  /// Its type while the group is being solved (null until first needed).
  Ref<FuncType> placeholder;
  /// Where it was first referred to through the placeholder.
  SMLoc placeholderLoc;
  /// Its type from the first walk.
  Ref<Type> walkedType;
};

/// A binder whose type the first walk stood variables in for.
struct VarBinder {
  enum class Kind : uint8_t { Param, FreeVar, LetVar };
  Var *var;
  Kind kind;
  /// For a parameter of a global function: "@name".
  std::string owner;
};

class TypeInferencer {
public:
  /// \p module resolves GlobalVars (may be null for closed expressions).
  explicit TypeInferencer(const IRModule *module) : module(module) {}
  /// An inferencer for one group of a parallel wave (inferModule): it reads
  /// the global types and typed globals \p parent has (which do not change
  /// while the wave runs) and keeps what it adds for mergeGroup().
  TypeInferencer(const IRModule *module, const TypeInferencer *parent)
      : module(module), parent(parent) {}

  /// Takes the results of \p task, which inferred the group \p members.
  void mergeGroup(const TypeInferencer &task,
                  ArrayRef<std::pair<StringRef, Function *>> members) {
    for (auto [name, func] : members)
      globalTypes[name] = task.globalTypes.lookup(name);
    for (const auto &entry : task.typedGlobals)
      typedGlobals.try_emplace(entry.getKey(), entry.getValue());
    numRebuilt += task.numRebuilt;
    numKept += task.numKept;
  }

  /// Nodes rebuilt with their type, and nodes that already had it.
  int64_t numRebuilt = 0;
  int64_t numKept = 0;

  /// Sets the type of global function \p name (before or after it is
  /// inferred).
  void setGlobalType(StringRef name, Ref<Type> type) {
    globalTypes[name] = std::move(type);
  }

  /// Infers the global functions \p group, which refer to each other (or
  /// one function), and records their types. Returns the typed functions in
  /// the order of \p group.
  Expected<SmallVector<Ref<Function>, 4>>
  inferGroup(ArrayRef<std::pair<StringRef, Function *>> group);

  /// The typed form of expression \p root (not a global function); errors
  /// at nodes without a location are located at \p fallbackLoc.
  Expected<Ref<Expr>> inferExpr(Expr *root, SMLoc fallbackLoc);

  /// The one typed GlobalVar of function \p name with type \p type: the
  /// module's own if it already has that type.
  Ref<GlobalVar> getTypedGlobal(StringRef name, const Ref<Type> &type);

private:
  /// A node whose children are being typed: whether more than one
  /// reference to it exists (so that another user may reach it and its
  /// result must be memoised), and how many of its children were reached.
  struct Frame {
    Expr *expr;
    bool shared;
    unsigned childrenReached;
  };

  /// Walks \p root (global function \p globalName, or an expression when it
  /// is empty) once. Binders take their types from binderTypes when it has
  /// them; others without a complete annotation get type variables.
  Expected<Ref<Expr>> walk(Expr *root, StringRef globalName, SMLoc fallbackLoc);
  /// The walk's enter hook: types a leaf or a node typed already (\p action
  /// is Skip), or checks a node's operands before its children are typed
  /// (Descend).
  Error enterNode(Expr *e, WalkAction &action);
  /// Checks the operands of \p e and what it binds, before its children.
  Error visitOperands(Expr *e);
  /// The walk's exit hook: types \p e from its typed children.
  Error exitNode(Expr *e);
  Error visitCall(Call *call);
  Error visitOpCall(Call *call, Op *op);
  Error visitTupleGetItem(TupleGetItem *item);
  Error visitIf(If *e);
  Error visitLetBinder(Let *let);
  Error visitLetValue(Let *let);
  Error visitFunctionStart(Function *func);
  Error visitFunctionEnd(Function *func);

  Error bindVar(Var *var, Ref<Type> type);
  Error visitFreeVar(Var *var);
  Error visitGlobalVar(GlobalVar *var, const Expr *at);
  /// The type of global function \p name for a reference at \p at, or null
  /// with an error.
  Expected<Ref<Type>> getGlobalType(const GlobalVar *var, const Expr *at);

  /// \p type, or an equal type already in use: an argument's type (an
  /// elementwise chain keeps one type object, as identity relations do) or
  /// one interned before.
  Ref<Type> internType(Ref<Type> type, ArrayRef<const Type *> argTypes);

  /// The error for an operator used as a value, located at \p user.
  Error opAsValue(const Op *op, const Expr *user) {
    return error(user, "operator '" + op->getName() +
                           "' can only be called, not used as a value");
  }

  /// Nesting depth of \p type (a tensor type is 1), computed without
  /// recursion and memoised.
  unsigned getTypeDepth(const Type *type);
  /// The error for a type nested deeper than kMaxTypeDepth, at \p e (a
  /// \p what: "tuple" or "function").
  Error checkTypeDepth(const Expr *e, const Type *type, StringRef what);

  /// Records \p typed as the typed form of the node being processed,
  /// \p e (\p e itself when it already had its type): its user takes it
  /// from the result stack; a shared node's is memoised for the others.
  void finish(Expr *e, Ref<Expr> typed) {
    ++(typed.get() == e ? numKept : numRebuilt);
    if (currentShared)
      memo[e] = typed;
    results.push_back(std::move(typed));
  }
  /// Moves the last \p n results into \p out, in order.
  void takeResults(size_t n, SmallVectorImpl<Ref<Expr>> &out) {
    size_t base = results.size() - n;
    for (size_t i = base, e = results.size(); i != e; ++i)
      out.push_back(std::move(results[i]));
    results.truncate(base);
  }
  /// finish() with \p e rebuilt by \p rebuild unless it is unchanged and
  /// already has \p type.
  template <typename RebuildFn>
  void finishAs(Expr *e, bool changed, const Ref<Type> &type,
                RebuildFn rebuild) {
    if (!changed && hasFinalType(e, type))
      finish(e, e);
    else
      finish(e, rebuild());
  }
  /// Like hasType, but never true for a type that still holds variables (an
  /// original node's `_` would compare equal to them).
  bool hasFinalType(const Expr *e, const Ref<Type> &type) {
    return hasType(e, type.get()) && !solver.mentionsVars(type.get());
  }

  /// The typed form of binder \p var (memoised when it was bound).
  const Ref<Expr> &typedOf(const Var *var) const {
    return memo.find(var)->second;
  }

  /// A located error at \p e (or the enclosing function when \p e has no
  /// location).
  Error error(const Expr *e, const Twine &message) const {
    return makeError(locOf(e), message);
  }
  SMLoc locOf(const Expr *e) const {
    return e && e->getLoc().isValid() ? e->getLoc() : fallbackLoc;
  }

  /// How diagnostics name a callee: `@f`, `%f`, or "the function".
  std::string describeCallee(const Expr *callee) const;
  /// The function a callee refers to statically (a global, a literal or a
  /// let-bound literal).
  const Function *getStaticCallee(const Expr *callee) const;

  /// The errors for what the first walk left undetermined.
  Error checkSolved();
  /// Forgets the variables and their solutions.
  void resetSolver();
  /// 0-d bool, the type of an if's condition.
  Ref<Type> boolScalar = TensorType::getScalar(DataType::boolean());

  const IRModule *module;
  /// See the constructor for parallel waves; null otherwise.
  const TypeInferencer *parent = nullptr;
  StringMap<Ref<Type>> globalTypes;
  StringMap<Ref<GlobalVar>> typedGlobals;
  /// Type relations and argument type inference by operator (null: none
  /// registered).
  DenseMap<const Op *, std::pair<const TypeRelationFn *,
                                 const ArgTypeInferenceFn *>>
      relations;
  /// The tensor types relations gave, by hash: a module has few distinct
  /// types, and sharing them saves an object per call.
  DenseMap<unsigned, SmallVector<Ref<Type>, 1>> internedTypes;

  /// Original node -> node with its checked type, for binders and the
  /// nodes several users reach.
  DenseMap<const Expr *, Ref<Expr>> memo;
  /// The typed forms of the children of the nodes being processed, in
  /// order: a node's children push theirs, the node takes them.
  SmallVector<Ref<Expr>, 64> results;
  /// Whether the node being processed is shared (see Frame).
  bool currentShared = false;
  /// Memo of getTypeDepth; it holds its types, so no key is ever reused.
  DenseMap<const Type *, std::pair<Ref<const Type>, unsigned>> typeDepths;
  /// Let variables whose value is being typed and whose type is not known
  /// yet: a use in the value is a recursion that cannot be typed.
  DenseSet<const Var *> defining;
  /// Let variables bound to function literals, for diagnostics.
  DenseMap<const Var *, const Function *> letFunctions;
  /// The nodes whose children are being typed, innermost last.
  SmallVector<Frame, 64> frames;

  /// The members of the group of global functions being inferred.
  SmallVector<GroupMember, 2> group;
  /// The type of each binder (parameter, let variable or free variable) that
  /// has no complete annotation: the variables standing for them during the
  /// first walk, their solutions during the second.
  DenseMap<const Var *, Ref<Type>> binderTypes;
  /// Binders given variables in the first walk, in order.
  SmallVector<VarBinder, 8> varBinders;
  /// The type of binder \p var: its annotation when complete, else its
  /// solved type (second walk) or, in the first walk, its annotation with
  /// variables for the missing parts (recorded as a binder of \p kind).
  Ref<Type> getBinderType(Var *var, VarBinder::Kind kind, StringRef owner = "");
  /// The variables, their solutions and the constraints waiting for them.
  TypeSolver solver;

  StringRef globalName;
  const Expr *root = nullptr;
  SMLoc fallbackLoc;
};
} // namespace

Ref<GlobalVar> TypeInferencer::getTypedGlobal(StringRef name,
                                              const Ref<Type> &type) {
  GlobalVar *entry = module ? module->getGlobalVar(name) : nullptr;
  SMLoc loc = entry ? entry->getLoc() : SMLoc();
  // Not cached while the type holds variables: the group is walked again.
  if (solver.mentionsVars(type.get()))
    return GlobalVar::get(name, loc, type);
  Ref<GlobalVar> &slot = typedGlobals[name];
  // A slot made for another type (a group's first walk) is not reused.
  if (slot && !hasType(slot.get(), type.get()))
    slot = nullptr;
  if (!slot && parent) {
    auto it = parent->typedGlobals.find(name);
    if (it != parent->typedGlobals.end() &&
        hasType(it->second.get(), type.get()))
      slot = it->second;
  }
  if (!slot) {
    if (entry && hasType(entry, type.get()))
      slot = entry;
    else
      slot = GlobalVar::get(name, loc, type);
  }
  return slot;
}

//===----------------------------------------------------------------------===//
// The walk
//===----------------------------------------------------------------------===//

Expected<Ref<Expr>> TypeInferencer::walk(Expr *e, StringRef name, SMLoc loc) {
  if (!e)
    return makeError(loc, "cannot infer the type of a null expression");
  globalName = name;
  root = e;
  fallbackLoc = loc;
  solver.setFallbackLoc(loc);
  frames.clear();
  results.clear();
  defining.clear();
  // Each hook is one step of inference; the solver then solves what the
  // step made solvable. The first error stops the walk.
  Error failure = Error::success();
  auto stepped = [&](Error err) {
    if (!err && solver.hasReady())
      err = solver.drain();
    if (!err)
      return true;
    failure = std::move(err);
    return false;
  };
  // The memo is ours (only shared nodes and binders are memoised), so the
  // enter hook is asked at every use.
  PostOrderWalker walker(PostOrderWalker::Memo::Hooks);
  walker.walk(
      e,
      [&](Expr *node) {
        WalkAction action = WalkAction::Skip;
        return stepped(enterNode(node, action)) ? action
                                                : WalkAction::Interrupt;
      },
      [&](Expr *node) {
        return stepped(exitNode(node)) ? WalkResult::advance()
                                       : WalkResult::interrupt();
      },
      // The operands; an operator callee is typed by its call.
      [](Expr *node, SmallVectorImpl<Expr *> &children) {
        forEachChild(node, [&](Expr *child, ChildRole role) {
          if (!isBinder(role) && !isa<Op>(child))
            children.push_back(child);
        });
      });
  if (failure)
    return failure;
  return results.pop_back_val();
}

Error TypeInferencer::enterNode(Expr *e, WalkAction &action) {
  // A let's body is reached once its value is typed.
  if (!frames.empty())
    if (auto *let = dyn_cast<Let>(frames.back().expr))
      if (frames.back().childrenReached++ == 1) {
        if (Error err = visitLetValue(let))
          return err;
        if (solver.hasReady())
          if (Error err = solver.drain())
            return err;
      }
  // A shared node (and every variable) may have been typed through another
  // user already. Whether a node is shared is known before the walk holds
  // references of its own to it: a node held by one reference has one
  // user, which reaches it once.
  bool shared = e->getRefCount() > 1;
  if (shared || isa<Var, GlobalVar>(e)) {
    auto it = memo.find(e);
    if (it != memo.end()) {
      results.push_back(it->second);
      return Error::success();
    }
  }
  currentShared = shared;
  switch (e->getKind()) {
  case Expr::Kind::Constant:
    finish(e, e);
    return Error::success();
  case Expr::Kind::Var:
    return visitFreeVar(cast<Var>(e));
  case Expr::Kind::GlobalVar:
    return visitGlobalVar(cast<GlobalVar>(e), e);
  case Expr::Kind::Op:
    // Only a root can get here: operands are checked by their users.
    return opAsValue(cast<Op>(e), e);
  default:
    break;
  }
  if (Error err = visitOperands(e))
    return err;
  frames.push_back({e, shared, 0});
  action = WalkAction::Descend;
  return Error::success();
}

Error TypeInferencer::visitOperands(Expr *e) {
  auto checkOperand = [&](const Ref<Expr> &operand) -> Error {
    if (!operand)
      return error(e, "a " + Expr::getKindName(e->getKind()) +
                          " has a null operand");
    // Only a call's callee may be an operator; its other operands are
    // values.
    if (auto *op = dyn_cast<Op>(operand.get()))
      return opAsValue(op, e);
    return Error::success();
  };
  switch (e->getKind()) {
  case Expr::Kind::Call: {
    auto *call = cast<Call>(e);
    const Ref<Expr> &callee = call->getCallee();
    if (!callee)
      return checkOperand(callee);
    for (const Ref<Expr> &arg : call->getArgs())
      if (Error err = checkOperand(arg))
        return err;
    // A call locates an unknown global better than the GlobalVar, which
    // the parser shares between all references.
    if (auto *global = dyn_cast<GlobalVar>(callee.get()))
      if (Expected<Ref<Type>> type = getGlobalType(global, call); !type)
        return type.takeError();
    return Error::success();
  }
  case Expr::Kind::Let: {
    auto *let = cast<Let>(e);
    if (!let->getVar())
      return error(e, "a Let has a null variable");
    if (Error err = checkOperand(let->getValue()))
      return err;
    if (Error err = checkOperand(let->getBody()))
      return err;
    return visitLetBinder(let);
  }
  case Expr::Kind::Function: {
    auto *func = cast<Function>(e);
    if (Error err = checkOperand(func->getBody()))
      return err;
    return visitFunctionStart(func);
  }
  default:
    break;
  }
  // Tuple, TupleGetItem and If: every child is an operand.
  Error err = Error::success();
  forEachChild(e, [&](Expr *child) {
    if (!err)
      err = checkOperand(child);
  });
  return err;
}

Error TypeInferencer::exitNode(Expr *e) {
  currentShared = frames.pop_back_val().shared;
  switch (e->getKind()) {
  case Expr::Kind::Call:
    return visitCall(cast<Call>(e));
  case Expr::Kind::TupleGetItem:
    return visitTupleGetItem(cast<TupleGetItem>(e));
  case Expr::Kind::If:
    return visitIf(cast<If>(e));
  case Expr::Kind::Function:
    return visitFunctionEnd(cast<Function>(e));
  case Expr::Kind::Tuple: {
    auto *tuple = cast<Tuple>(e);
    SmallVector<Ref<Expr>, 4> fields;
    takeResults(tuple->size(), fields);
    SmallVector<Ref<Type>, 4> types;
    bool changed = false;
    for (size_t i = 0, n = fields.size(); i != n; ++i) {
      types.push_back(fields[i]->getCheckedType());
      changed |= fields[i] != tuple->getField(i);
    }
    Ref<Type> type = TupleType::get(types);
    if (Error err = checkTypeDepth(tuple, type.get(), "tuple"))
      return err;
    finishAs(e, changed, type,
             [&] { return Tuple::get(fields, tuple->getLoc(), type); });
    return Error::success();
  }
  case Expr::Kind::Let: {
    auto *let = cast<Let>(e);
    Ref<Expr> newVar = typedOf(let->getVar().get());
    Ref<Expr> body = results.pop_back_val();
    Ref<Expr> value = results.pop_back_val();
    const Ref<Type> &type = body->getCheckedType();
    bool changed = newVar != let->getVar() || value != let->getValue() ||
                   body != let->getBody();
    finishAs(e, changed, type, [&] {
      return Let::get(cast<Var>(newVar.get()), value, body, let->getLoc(),
                      type);
    });
    return Error::success();
  }
  default:
    break;
  }
  return error(e, "unknown expression kind");
}

unsigned TypeInferencer::getTypeDepth(const Type *root) {
  // Post-order over the type DAG: a type is expanded once, then finished
  // when its children are.
  SmallVector<std::pair<const Type *, bool>, 16> work{{root, false}};
  SmallVector<const Type *, 8> children;
  // Hand-written: a walk of the type DAG, not the expression graph.
  while (!work.empty()) {
    auto [type, expanded] = work.pop_back_val();
    if (!type || typeDepths.count(type))
      continue;
    children.clear();
    if (const auto *tuple = dyn_cast<TupleType>(type)) {
      for (const Ref<Type> &field : tuple->getFields())
        children.push_back(field.get());
    } else if (const auto *func = dyn_cast<FuncType>(type)) {
      for (const Ref<Type> &param : func->getParams())
        children.push_back(param.get());
      children.push_back(func->getResult());
    }
    if (!expanded) {
      work.push_back({type, true});
      for (const Type *child : children)
        work.push_back({child, false});
      continue;
    }
    unsigned depth = 0;
    for (const Type *child : children)
      if (child)
        depth = std::max(depth, typeDepths.find(child)->second.second);
    typeDepths[type] = {Ref<const Type>(type), depth + 1};
  }
  return root ? typeDepths.find(root)->second.second : 0;
}

Error TypeInferencer::checkTypeDepth(const Expr *e, const Type *type,
                                     StringRef what) {
  if (getTypeDepth(type) <= kMaxTypeDepth)
    return Error::success();
  return error(e, "the type of this " + what + " is nested deeper than " +
                      Twine(kMaxTypeDepth) + " levels");
}

Error TypeInferencer::bindVar(Var *var, Ref<Type> type) {
  // As in Relay, a missing (or `_`) annotation is filled in with the type.
  // Binders are memoised for their uses, not taken by a user.
  Ref<Type> annotation = var->getTypeAnnotation();
  bool annotated = isCompleteType(annotation.get());
  Ref<Expr> typed;
  if (annotated && hasFinalType(var, type))
    typed = var;
  else
    typed = Var::get(var->getNameHint(), annotated ? annotation : type,
                     var->getLoc(), type, var->getVirtualDevice());
  ++(typed.get() == var ? numKept : numRebuilt);
  memo[var] = std::move(typed);
  return Error::success();
}

Ref<Type> TypeInferencer::getBinderType(Var *var, VarBinder::Kind kind,
                                        StringRef owner) {
  const Ref<Type> &annotation = var->getTypeAnnotation();
  if (isCompleteType(annotation.get()))
    return annotation;
  auto [it, inserted] = binderTypes.try_emplace(var, nullptr);
  if (inserted) {
    it->second = solver.instantiate(annotation);
    varBinders.push_back({var, kind, owner.str()});
  }
  return it->second;
}

Error TypeInferencer::visitFreeVar(Var *var) {
  if (defining.count(var))
    return error(var, "cannot infer the type of " + varName(var) +
                          ", which is used in its own definition; annotate "
                          "its type");
  if (Error err = bindVar(var, getBinderType(var, VarBinder::Kind::FreeVar)))
    return err;
  results.push_back(typedOf(var));
  return Error::success();
}

Expected<Ref<Type>> TypeInferencer::getGlobalType(const GlobalVar *var,
                                                  const Expr *at) {
  StringRef name = var->getName();
  auto it = globalTypes.find(name);
  if (it != globalTypes.end())
    return it->second;
  if (parent) {
    auto inParent = parent->globalTypes.find(name);
    if (inParent != parent->globalTypes.end())
      return inParent->second;
  }
  auto member = llvm::find_if(
      group, [&](const GroupMember &m) { return m.name == name; });
  if (member == group.end()) {
    if (!module || !module->lookup(name))
      return error(at, "use of undefined global function @" + name);
    return error(at, "cannot infer the return type of recursive function @" +
                         name + "; annotate it");
  }
  // A recursive reference: the function's type is solved with the group.
  member->placeholderLoc = at->getLoc().isValid() ? at->getLoc() : fallbackLoc;
  if (member->walkedType) {
    // Already walked: its type holds the variables to solve.
    member->placeholder = cast<FuncType>(member->walkedType.get());
    globalTypes[name] = member->walkedType;
    return member->walkedType;
  }
  // Not walked yet: its parameters share their types with the function's
  // own binders, and its definition will be unified with the placeholder.
  SmallVector<Ref<Type>, 4> params;
  for (const Ref<Var> &param : member->func->getParams()) {
    if (!param)
      return error(member->func, "a Function has a null parameter");
    params.push_back(
        getBinderType(param.get(), VarBinder::Kind::Param, "@" + member->name));
  }
  member->placeholder =
      FuncType::get(params, solver.instantiate(member->func->getRetType()));
  globalTypes[name] = member->placeholder;
  return Ref<Type>(member->placeholder);
}

Error TypeInferencer::visitGlobalVar(GlobalVar *var, const Expr *at) {
  Expected<Ref<Type>> type = getGlobalType(var, at);
  if (!type)
    return type.takeError();
  // Memoised for every reference, whatever its reference count.
  currentShared = true;
  if (hasFinalType(var, *type))
    finish(var, var);
  else
    finish(var, getTypedGlobal(var->getName(), *type));
  return Error::success();
}

std::string TypeInferencer::describeCallee(const Expr *callee) const {
  if (const auto *global = dyn_cast<GlobalVar>(callee))
    return ("@" + global->getName()).str();
  if (const auto *var = dyn_cast<Var>(callee))
    return varName(var);
  return "the function";
}

const Function *TypeInferencer::getStaticCallee(const Expr *callee) const {
  if (const auto *func = dyn_cast<Function>(callee))
    return func;
  if (const auto *global = dyn_cast<GlobalVar>(callee))
    return module ? module->lookup(global->getName()) : nullptr;
  if (const auto *var = dyn_cast<Var>(callee))
    return letFunctions.lookup(var);
  return nullptr;
}

Error TypeInferencer::visitOpCall(Call *call, Op *op) {
  SmallVector<Ref<Expr>, 4> args;
  takeResults(call->getNumArgs(), args);
  SmallVector<const Type *, 4> argTypes;
  bool changed = false;
  for (size_t i = 0, n = args.size(); i != n; ++i) {
    argTypes.push_back(args[i]->getCheckedType().get());
    changed |= args[i] != call->getArg(i);
  }
  if (Error err = op->checkNumArgs(args.size(), locOf(call)))
    return err;
  auto [cached, inserted] = relations.try_emplace(op);
  if (inserted)
    cached->second = {getTypeRelation(op), getArgTypeInference(op)};
  auto [relation, inferArgs] = cached->second;
  if (!relation)
    return error(call, "operator '" + op->getName() + "' has no type relation");

  Ref<Type> type;
  if (solver.getNumVars() &&
      llvm::any_of(argTypes,
                   [&](const Type *t) { return solver.mentionsVars(t); })) {
    // Some argument type involves variables: the relation runs once they
    // are solved (now, if they already are). An operator that infers
    // argument types may determine the unknown ones.
    TypeConstraint constraint;
    constraint.expr = call;
    constraint.relation = relation;
    constraint.inferArgs = inferArgs;
    for (const Ref<Expr> &arg : args)
      constraint.args.push_back(arg->getCheckedType());
    constraint.typedArgs = args;
    constraint.result = type = solver.freshVar();
    if (Error err = solver.addConstraint(std::move(constraint)))
      return err;
  } else {
    Expected<Ref<Type>> result =
        solver.runRelation(call, *relation, argTypes, args);
    if (!result)
      return result.takeError();
    type = internType(std::move(*result), argTypes);
  }
  finishAs(call, changed, type, [&] {
    return Call::get(op, args, call->getAttrs(), call->getLoc(), type);
  });
  return Error::success();
}

Ref<Type> TypeInferencer::internType(Ref<Type> type,
                                     ArrayRef<const Type *> argTypes) {
  if (!isa<TensorType>(type.get()))
    return type;
  for (const Type *arg : argTypes)
    if (typesEqual(arg, type.get()))
      return Ref<Type>(const_cast<Type *>(arg));
  SmallVector<Ref<Type>, 1> &bucket =
      internedTypes[static_cast<unsigned>(hashType(type.get()))];
  for (const Ref<Type> &existing : bucket)
    if (typesEqual(existing.get(), type.get()))
      return existing;
  bucket.push_back(type);
  return type;
}

Error TypeInferencer::visitCall(Call *call) {
  Expr *callee = call->getCallee().get();
  if (auto *op = dyn_cast<Op>(callee))
    return visitOpCall(call, op);

  // The callee's result comes first, then the arguments'.
  SmallVector<Ref<Expr>, 4> args;
  takeResults(call->getNumArgs(), args);
  Ref<Expr> newCallee = results.pop_back_val();
  SmallVector<Ref<Type>, 4> argTypes;
  bool changed = newCallee != call->getCallee();
  for (size_t i = 0, n = args.size(); i != n; ++i) {
    argTypes.push_back(args[i]->getCheckedType());
    changed |= args[i] != call->getArg(i);
  }
  Ref<Type> calleeType = newCallee->getCheckedType();
  if (solver.getNumVars()) {
    calleeType = solver.head(calleeType);
    if (isa<IncompleteType>(calleeType.get())) {
      // Calling something of unknown type: it is a function of the
      // argument types.
      Ref<Type> funcType = FuncType::get(argTypes, solver.freshVar());
      // It is fresh: only the occurs check can refuse it.
      if (!solver.unify(calleeType, funcType)) {
        std::string types;
        for (const Ref<Type> &argType : argTypes)
          types += (types.empty() ? "" : ", ") + solver.describe(argType);
        return error(call, "cannot call " + describeCallee(callee) +
                               " with arguments of types (" + types +
                               "): its type would contain itself");
      }
      calleeType = funcType;
    }
  }
  const auto *funcType = dyn_cast<FuncType>(calleeType.get());
  if (!funcType)
    return error(call, "cannot call " + describeCallee(callee) +
                           " of non-function type " +
                           solver.describe(calleeType));
  std::string name = describeCallee(callee);
  if (funcType->getParams().size() != args.size())
    return makeArityError(name, funcType->getParams().size(), args.size(),
                          locOf(call));
  const Function *staticCallee = getStaticCallee(callee);
  for (size_t i = 0, e = args.size(); i != e; ++i) {
    const Ref<Type> &paramType = funcType->getParams()[i];
    if (solver.unify(argTypes[i], paramType))
      continue;
    std::string param;
    if (staticCallee && i < staticCallee->getNumParams())
      param = " (parameter " + varName(staticCallee->getParam(i).get()) + ")";
    return error(call, "argument #" + Twine(i) + " of " + name + param +
                           " has type " + solver.describe(argTypes[i]) +
                           ", expected " + solver.describe(paramType));
  }
  const Ref<Type> &type = funcType->getResultRef();
  finishAs(call, changed, type, [&] {
    return Call::get(newCallee, args, call->getAttrs(), call->getLoc(), type);
  });
  return Error::success();
}

Error TypeInferencer::visitTupleGetItem(TupleGetItem *item) {
  Ref<Expr> tuple = results.pop_back_val();
  Ref<Type> tupleType = tuple->getCheckedType();
  Ref<Type> type;
  if (solver.getNumVars() &&
      isa<IncompleteType>(solver.head(tupleType).get())) {
    TypeConstraint constraint;
    constraint.expr = item;
    constraint.args.push_back(tupleType);
    constraint.result = type = solver.freshVar();
    if (Error err = solver.addConstraint(std::move(constraint)))
      return err;
  } else {
    if (solver.getNumVars())
      tupleType = solver.head(tupleType);
    const auto *fields = dyn_cast<TupleType>(tupleType.get());
    if (!fields)
      return error(item,
                   "tuple index applied to an operand of non-tuple type " +
                       solver.describe(tupleType));
    if (item->getIndex() >= fields->size())
      return error(item, "tuple index " + Twine(item->getIndex()) +
                             " is out of range for a tuple of type " +
                             solver.describe(tupleType));
    type = fields->getFields()[item->getIndex()];
  }
  finishAs(item, tuple != item->getTuple(), type, [&] {
    return TupleGetItem::get(tuple, item->getIndex(), item->getLoc(), type);
  });
  return Error::success();
}

Error TypeInferencer::visitIf(If *e) {
  Ref<Expr> elseBranch = results.pop_back_val();
  Ref<Expr> thenBranch = results.pop_back_val();
  Ref<Expr> cond = results.pop_back_val();
  const Ref<Type> &condType = cond->getCheckedType();
  if (!solver.unify(condType, boolScalar))
    return error(e, "the condition of an if must be a 0-d bool tensor, got " +
                        solver.describe(condType));
  const Ref<Type> &type = thenBranch->getCheckedType();
  const Ref<Type> &elseType = elseBranch->getCheckedType();
  if (!solver.unify(type, elseType))
    return error(e, "the branches of an if have different types: " +
                        solver.describe(type) + " vs " +
                        solver.describe(elseType));
  bool changed = cond != e->getCond() || thenBranch != e->getThen() ||
                 elseBranch != e->getElse();
  finishAs(e, changed, type, [&] {
    return If::get(cond, thenBranch, elseBranch, e->getLoc(), type);
  });
  return Error::success();
}

Error TypeInferencer::visitLetBinder(Let *let) {
  Var *var = let->getVar().get();
  // Bind the variable before its value when its type is known, so that a
  // let-bound function may call itself.
  if (isCompleteType(var->getTypeAnnotation().get()))
    return bindVar(var, var->getTypeAnnotation());
  auto *fn = dyn_cast<Function>(let->getValue().get());
  if (!fn) {
    defining.insert(var);
    return Error::success();
  }
  letFunctions[var] = fn;
  if (Ref<FuncType> signature = getAnnotatedSignature(fn))
    return bindVar(var, signature);
  // As in Relay, a let-bound function literal may call itself: its type is
  // a variable until the literal is typed.
  return bindVar(var, getBinderType(var, VarBinder::Kind::LetVar));
}

Error TypeInferencer::visitLetValue(Let *let) {
  Var *var = let->getVar().get();
  // The value's result stays on the stack until the let is rebuilt.
  const Ref<Type> &valueType = results.back()->getCheckedType();
  if (defining.erase(var)) {
    // A partial annotation (`(T, _)`) must fit the value's type.
    const Ref<Type> &annotation = var->getTypeAnnotation();
    if (annotation &&
        !(solver.mentionsVars(valueType.get())
              ? solver.unify(solver.instantiate(annotation), valueType)
              : matchesAnnotation(annotation.get(), valueType.get())))
      return error(var, varName(var) + " is annotated " + annotation->str() +
                            " but its value has type " +
                            solver.describe(valueType));
    return bindVar(var, valueType);
  }
  const Ref<Type> &varType = typedOf(var)->getCheckedType();
  if (solver.unify(varType, valueType))
    return Error::success();
  if (!var->getTypeAnnotation())
    return error(var, "cannot infer the type of " + varName(var) +
                          ": its value's type " + solver.describe(valueType) +
                          " would contain itself");
  return error(var, varName(var) + " is annotated " +
                        var->getTypeAnnotation()->str() +
                        " but its value has type " +
                        solver.describe(valueType));
}

Error TypeInferencer::visitFunctionStart(Function *func) {
  for (const Ref<Var> &param : func->getParams()) {
    if (!param)
      return error(func, "a Function has a null parameter");
    std::string owner =
        func == root && !globalName.empty() ? ("@" + globalName).str() : "";
    Ref<Type> type = getBinderType(param.get(), VarBinder::Kind::Param, owner);
    if (Error err = bindVar(param.get(), std::move(type)))
      return err;
  }
  return Error::success();
}

Error TypeInferencer::visitFunctionEnd(Function *func) {
  SmallVector<Ref<Var>, 4> params;
  SmallVector<Ref<Type>, 4> paramTypes;
  bool changed = false;
  for (const Ref<Var> &param : func->getParams()) {
    params.push_back(cast<Var>(typedOf(param.get()).get()));
    paramTypes.push_back(params.back()->getCheckedType());
    changed |= params.back() != param;
  }
  Ref<Expr> body = results.pop_back_val();
  changed |= body != func->getBody();
  Ref<Type> resultType = body->getCheckedType();
  const Ref<Type> &retType = func->getRetType();
  bool annotated = isCompleteType(retType.get());
  changed |= !annotated;
  if (retType &&
      !(annotated || solver.mentionsVars(resultType.get())
            ? solver.unify(annotated ? retType : solver.instantiate(retType),
                           resultType)
            : matchesAnnotation(retType.get(), resultType.get()))) {
    std::string owner = func == root && !globalName.empty()
                            ? ("@" + globalName).str()
                            : std::string("the function");
    return error(func, owner + " is annotated to return " + retType->str() +
                           " but its body has type " +
                           solver.describe(resultType));
  }
  if (annotated)
    resultType = retType;
  Ref<Type> type = FuncType::get(paramTypes, std::move(resultType));
  if (Error err = checkTypeDepth(func, type.get(), "function"))
    return err;
  // The definition of a function referred to recursively fixes the type
  // those references assumed.
  if (func == root && !globalName.empty() && solver.getNumVars())
    for (GroupMember &member : group)
      if (member.name == globalName && member.placeholder &&
          !solver.unify(member.placeholder, type))
        return error(func, "cannot infer the return type of recursive "
                           "function @" +
                               globalName + ": it would contain itself");
  finishAs(func, changed, type, [&] {
    return Function::get(params, body,
                         cast<FuncType>(type.get())->getResultRef(),
                         func->getAttrs(), func->getLoc(), type);
  });
  return Error::success();
}

//===----------------------------------------------------------------------===//
// What the solver left
//===----------------------------------------------------------------------===//

Error TypeInferencer::checkSolved() {
  if (Error err = solver.drain())
    return err;
  // Parameters and free variables first: a let-bound function is left
  // undetermined by its parameters.
  for (bool letVars : {false, true})
    for (const VarBinder &binder : varBinders) {
      if ((binder.kind == VarBinder::Kind::LetVar) != letVars)
        continue;
      Var *var = binder.var;
      Ref<Type> type = solver.resolve(binderTypes.lookup(var));
      if (!type)
        return error(var, "the type of " + varName(var) +
                              " is nested deeper than " +
                              Twine(kMaxSolverDepth) + " levels");
      if (isCompleteType(type.get()))
        continue;
      std::string message;
      const Ref<Type> &annotation = var->getTypeAnnotation();
      switch (binder.kind) {
      case VarBinder::Kind::Param:
        message = "parameter " + varName(var) +
                  (binder.owner.empty() ? "" : " of " + binder.owner) +
                  (annotation ? " has an incomplete type annotation " +
                                    annotation->str()
                              : std::string(" has no type annotation"));
        break;
      case VarBinder::Kind::FreeVar:
        message = "cannot infer the type of free variable " + varName(var) +
                  " without a type annotation";
        break;
      case VarBinder::Kind::LetVar:
        // Its parameters are known (checked first), so the function's own
        // result is what nothing determines: it calls itself.
        return error(var, "cannot infer the return type of " + varName(var) +
                              ", which calls itself; annotate it");
      }
      // typesEqual takes `_` for equal to `_`.
      if (isa<IncompleteType>(type.get())) {
        if (binder.kind != VarBinder::Kind::FreeVar)
          message += " and nothing determines its type";
      } else if (annotation && typesEqual(type.get(), annotation.get())) {
        message += " and nothing determines the rest";
      } else {
        message += "; its uses determine only " + type->str();
      }
      return error(var, message);
    }
  for (const GroupMember &member : group) {
    if (!member.placeholder)
      continue;
    Ref<Type> type = solver.resolve(member.placeholder);
    if (type && isCompleteType(type.get()))
      continue;
    return makeError(member.placeholderLoc,
                     "cannot infer the return type of recursive function @" +
                         member.name + "; annotate it");
  }
  // Every variable stems from a binder or a placeholder checked above; a
  // constraint still waiting would be a bug, reported rather than hidden.
  if (const TypeConstraint *constraint = solver.findUnsolved())
    return error(constraint->expr, "cannot infer the type of this expression");
  return Error::success();
}

void TypeInferencer::resetSolver() {
  memo.clear();
  varBinders.clear();
  solver.reset();
}

//===----------------------------------------------------------------------===//
// Groups and expressions
//===----------------------------------------------------------------------===//

Expected<SmallVector<Ref<Function>, 4>> TypeInferencer::inferGroup(
    ArrayRef<std::pair<StringRef, Function *>> functions) {
  group.clear();
  for (auto [name, func] : functions)
    group.push_back({name.str(), func, nullptr, SMLoc(), nullptr});
  solver.reset();
  int64_t rebuiltBefore = numRebuilt, keptBefore = numKept;

  SmallVector<Ref<Function>, 4> typed;
  for (GroupMember &member : group) {
    Expected<Ref<Expr>> result =
        walk(member.func, member.name, member.func->getLoc());
    if (!result)
      return result.takeError();
    typed.push_back(cast<Function>(result->get()));
    member.walkedType = typed.back()->getCheckedType();
  }

  if (solver.getNumVars()) {
    // The first walk stood variables in: solve them, then walk again with
    // the solutions, which builds every node with its final type.
    if (Error err = checkSolved())
      return err;
    for (auto &[var, type] : binderTypes)
      type = solver.resolve(type);
    for (GroupMember &member : group) {
      globalTypes[member.name] = solver.resolve(member.walkedType);
      typedGlobals.erase(member.name);
    }
    resetSolver();
    numRebuilt = rebuiltBefore;
    numKept = keptBefore;
    typed.clear();
    for (GroupMember &member : group) {
      Expected<Ref<Expr>> result =
          walk(member.func, member.name, member.func->getLoc());
      if (!result)
        return result.takeError();
      typed.push_back(cast<Function>(result->get()));
    }
    binderTypes.clear();
    if (solver.getNumVars())
      return makeError(group.front().func->getLoc(),
                       "internal error: type inference did not converge");
  }
  for (size_t i = 0, e = group.size(); i != e; ++i)
    globalTypes[group[i].name] = typed[i]->getCheckedType();
  group.clear();
  return typed;
}

Expected<Ref<Expr>> TypeInferencer::inferExpr(Expr *e, SMLoc loc) {
  solver.reset();
  Expected<Ref<Expr>> result = walk(e, "", loc);
  if (!result || !solver.getNumVars())
    return result;
  if (Error err = checkSolved())
    return err;
  for (auto &[var, type] : binderTypes)
    type = solver.resolve(type);
  resetSolver();
  result = walk(e, "", loc);
  binderTypes.clear();
  return result;
}

//===----------------------------------------------------------------------===//
// Module inference
//===----------------------------------------------------------------------===//

namespace {
/// The global functions a function refers to, each with the location of its
/// first call (or reference).
class GlobalRefCollector final : public ExprVisitor {
public:
  SmallVector<std::string, 4> refs;

  void visitGlobalVar(GlobalVar *var) override {
    if (seen.insert(var->getName()).second)
      refs.push_back(var->getName().str());
  }

private:
  StringSet<> seen;
};
} // namespace

/// The groups in which to infer the functions of \p module: the strongly
/// connected components of the graph of references to functions without an
/// annotated signature, callees first (Tarjan's algorithm, iterative).
/// Within a group, functions keep their definition order. \p deps is set to
/// the edges: the functions each function needs typed first.
static SmallVector<SmallVector<size_t, 1>, 8>
orderFunctions(const IRModule &module, ArrayRef<bool> hasSignature,
               std::vector<SmallVector<size_t, 2>> &deps) {
  ArrayRef<IRModule::Entry> entries = module.getFunctions();
  size_t n = entries.size();
  SmallVector<SmallVector<size_t, 1>, 8> groups;
  // With every type annotated the order does not matter; a single function
  // is its own group (its recursion is found when it is typed).
  bool allAnnotated = llvm::all_of(hasSignature, [](bool b) { return b; });
  deps.assign(n, {});
  if (allAnnotated || n == 1) {
    for (size_t i = 0; i != n; ++i)
      groups.push_back({i});
    return groups;
  }

  StringMap<size_t> position;
  for (size_t i = 0; i != n; ++i)
    position[entries[i].var->getName()] = i;
  for (size_t i = 0; i != n; ++i) {
    GlobalRefCollector collector;
    collector.visit(entries[i].func.get());
    for (const std::string &ref : collector.refs) {
      auto it = position.find(ref);
      if (it != position.end() && !hasSignature[it->second])
        deps[i].push_back(it->second);
    }
  }

  constexpr size_t kUnvisited = ~size_t(0);
  SmallVector<size_t, 8> indexOf(n, kUnvisited), lowLink(n, 0);
  SmallVector<bool, 8> onStack(n, false);
  SmallVector<size_t, 8> sccStack;
  SmallVector<std::pair<size_t, size_t>, 8> callStack; // function, next edge
  size_t counter = 0;
  for (size_t start = 0; start != n; ++start) {
    if (indexOf[start] != kUnvisited)
      continue;
    auto open = [&](size_t f) {
      indexOf[f] = lowLink[f] = counter++;
      sccStack.push_back(f);
      onStack[f] = true;
      callStack.push_back({f, 0});
    };
    open(start);
    // Hand-written: Tarjan's SCC over the module's call graph of global
    // functions.
    while (!callStack.empty()) {
      auto &[f, next] = callStack.back();
      if (next < deps[f].size()) {
        size_t g = deps[f][next++];
        if (indexOf[g] == kUnvisited)
          open(g);
        else if (onStack[g])
          lowLink[f] = std::min(lowLink[f], indexOf[g]);
        continue;
      }
      size_t done = f;
      callStack.pop_back();
      if (!callStack.empty())
        lowLink[callStack.back().first] =
            std::min(lowLink[callStack.back().first], lowLink[done]);
      if (lowLink[done] != indexOf[done])
        continue;
      SmallVector<size_t, 1> scc;
      size_t member;
      do {
        member = sccStack.pop_back_val();
        onStack[member] = false;
        scc.push_back(member);
      } while (member != done);
      llvm::sort(scc);
      groups.push_back(std::move(scc));
    }
  }
  return groups;
}

/// Infers the types of \p module with \p inferencer (which counts what it
/// did), on \p ctx's thread pool when it has one.
static Expected<Ref<IRModule>> inferModule(Ref<IRModule> module,
                                           TypeInferencer &inferencer,
                                           PassContext *ctx) {
  ArrayRef<IRModule::Entry> entries = module->getFunctions();
  size_t n = entries.size();

  SmallVector<bool, 8> hasSignature(n, false);
  for (size_t i = 0; i != n; ++i) {
    if (!entries[i].func)
      return makeError(entries[i].var->getLoc(), "global function @" +
                                                     entries[i].var->getName() +
                                                     " is null");
    if (Ref<FuncType> signature =
            getAnnotatedSignature(entries[i].func.get())) {
      hasSignature[i] = true;
      inferencer.setGlobalType(entries[i].var->getName(), signature);
    }
  }

  std::vector<SmallVector<size_t, 2>> deps;
  SmallVector<SmallVector<size_t, 1>, 8> groups =
      orderFunctions(*module, hasSignature, deps);
  auto membersOf = [&](ArrayRef<size_t> indices) {
    SmallVector<std::pair<StringRef, Function *>, 4> members;
    for (size_t i : indices)
      members.push_back({entries[i].var->getName(), entries[i].func.get()});
    return members;
  };
  SmallVector<Ref<Function>, 8> typed(n);
  auto record = [&](ArrayRef<size_t> indices,
                    ArrayRef<Ref<Function>> functions) {
    for (size_t k = 0, e = indices.size(); k != e; ++k)
      typed[indices[k]] = functions[k];
  };

  // With a thread pool, the groups are typed in waves: a group whose
  // callees were typed in earlier waves runs in the first wave after them,
  // in parallel with the other groups of its wave, on an inferencer of its
  // own that reads the types known so far; the results are merged in the
  // order of the groups. A failure is reported as one thread would: the
  // module is typed again one group after the other.
  bool parallel = ctx && ctx->getNumThreads() > 1 && groups.size() > 1;
  if (parallel) {
    SmallVector<size_t, 8> groupOf(n), level(groups.size(), 0);
    for (size_t g = 0, e = groups.size(); g != e; ++g)
      for (size_t i : groups[g])
        groupOf[i] = g;
    size_t numLevels = 0;
    for (size_t g = 0, e = groups.size(); g != e; ++g) {
      for (size_t i : groups[g])
        for (size_t d : deps[i])
          if (groupOf[d] != g) // Callees come first (Tarjan's order).
            level[g] = std::max(level[g], level[groupOf[d]] + 1);
      numLevels = std::max(numLevels, level[g] + 1);
    }
    std::vector<SmallVector<size_t, 4>> waves(numLevels);
    for (size_t g = 0, e = groups.size(); g != e; ++g)
      waves[level[g]].push_back(g);
    for (ArrayRef<size_t> wave : waves) {
      std::vector<std::unique_ptr<TypeInferencer>> tasks(wave.size());
      std::vector<SmallVector<Ref<Function>, 4>> results(wave.size());
      Error err = parallelForEach(
          *ctx, wave.size(), [&](size_t k, PassContext &) -> Error {
            tasks[k] = std::make_unique<TypeInferencer>(module.get(),
                                                        &inferencer);
            Expected<SmallVector<Ref<Function>, 4>> result =
                tasks[k]->inferGroup(membersOf(groups[wave[k]]));
            if (!result)
              return result.takeError();
            results[k] = std::move(*result);
            return Error::success();
          });
      if (err) {
        consumeError(std::move(err));
        parallel = false;
        break;
      }
      for (size_t k = 0, e = wave.size(); k != e; ++k) {
        inferencer.mergeGroup(*tasks[k], membersOf(groups[wave[k]]));
        record(groups[wave[k]], results[k]);
      }
      // What the tasks' inferencers hold is freed on the pool too.
      if (ThreadPoolInterface *pool = ctx->getThreadPool())
        runPoolLoop(*pool, ctx->getNumThreads(), tasks.size(),
                    [&](size_t k) { tasks[k].reset(); });
    }
    if (!parallel) {
      // Start over on one thread, for the error one thread reports.
      TypeInferencer serial(module.get());
      return inferModule(std::move(module), serial, nullptr);
    }
  } else {
    for (const SmallVector<size_t, 1> &indices : groups) {
      Expected<SmallVector<Ref<Function>, 4>> result =
          inferencer.inferGroup(membersOf(indices));
      if (!result)
        return result.takeError();
      record(indices, *result);
    }
  }

  SmallVector<Ref<GlobalVar>, 8> vars(n);
  bool changed = false;
  for (size_t i = 0; i != n; ++i) {
    vars[i] = inferencer.getTypedGlobal(entries[i].var->getName(),
                                        typed[i]->getCheckedType());
    changed |= vars[i] != entries[i].var || typed[i] != entries[i].func;
  }
  if (!changed) {
    if (module->hasValidTypes())
      return module;
    // Every node had its type but the module did not say so. Passes must not
    // change their input, not even this flag: record it on a copy.
    Ref<IRModule> copy = module->shallowCopy();
    copy->setValidTypes(true);
    return copy;
  }

  // A GlobalVar may have been replaced, which IRModule::add cannot do in
  // place: rebuild the table in order.
  Ref<IRModule> result = IRModule::create();
  result->setAttrs(module->getAttrs());
  for (size_t i = 0; i != n; ++i)
    if (Error err = result->add(vars[i], typed[i]))
      return err;
  result->setValidTypes(true);
  return result;
}

Expected<Ref<IRModule>> nnir::inferTypes(Ref<IRModule> module) {
  if (!module)
    return makeError("cannot infer the types of a null module");
  TypeInferencer inferencer(module.get());
  return inferModule(std::move(module), inferencer, nullptr);
}

Expected<Ref<Expr>> nnir::inferExprTypes(Ref<Expr> expr,
                                         const IRModule *module) {
  TypeInferencer inferencer(module);
  if (module)
    for (const IRModule::Entry &entry : module->getFunctions()) {
      if (!entry.func)
        continue;
      if (isa_and_nonnull<FuncType>(entry.func->getCheckedType().get()))
        inferencer.setGlobalType(entry.var->getName(),
                                 entry.func->getCheckedType());
      else if (Ref<FuncType> signature =
                   getAnnotatedSignature(entry.func.get()))
        inferencer.setGlobalType(entry.var->getName(), signature);
    }
  SMLoc loc = expr ? expr->getLoc() : SMLoc();
  return inferencer.inferExpr(expr.get(), loc);
}

Ref<Pass> nnir::createInferTypePass() {
  PassInfo info = getBuiltinPassInfo(BuiltinPass::InferType);
  info.establishesTypes = true;
  info.preservesTypes = true;
  return createModulePass(
      [](Ref<IRModule> module, PassContext &ctx) -> Expected<Ref<IRModule>> {
        if (!module)
          return makeError("cannot infer the types of a null module");
        TypeInferencer inferencer(module.get());
        Expected<Ref<IRModule>> result =
            inferModule(module, inferencer, &ctx);
        PassStatistics &stats = ctx.getStatistics();
        if (inferencer.numRebuilt)
          stats.add("InferType", "num-rebuilt", inferencer.numRebuilt,
                    "Number of expressions rebuilt with their type");
        if (inferencer.numKept)
          stats.add("InferType", "num-kept", inferencer.numKept,
                    "Number of expressions that already had their type");
        return result;
      },
      std::move(info));
}
