//===- TypeSolver.cpp - Unification and relation scheduling ---------------===//
//
/// \file
/// Type variables and their bindings, unification, substitution, and the
/// constraints that run a type relation once the types they wait for are
/// known. Types are DAGs of bounded depth: every walk over them stops at
/// kMaxSolverDepth.
//
//===----------------------------------------------------------------------===//

#include "TypeSolver.h"

#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace nnir;

bool nnir::isCompleteType(const Type *type) {
  if (!type)
    return false;
  switch (type->getKind()) {
  case Type::Kind::Tensor:
    return true;
  case Type::Kind::Incomplete:
    return false;
  case Type::Kind::Tuple:
    for (const Ref<Type> &field : cast<TupleType>(type)->getFields())
      if (!isCompleteType(field.get()))
        return false;
    return true;
  case Type::Kind::Func: {
    const auto *func = cast<FuncType>(type);
    for (const Ref<Type> &param : func->getParams())
      if (!isCompleteType(param.get()))
        return false;
    return isCompleteType(func->getResult());
  }
  }
  return false;
}

Error TypeSolver::error(const Expr *e, const Twine &message) const {
  return makeError(e && e->getLoc().isValid() ? e->getLoc() : fallbackLoc,
                   message);
}

std::string TypeSolver::describe(const Ref<Type> &type) {
  Ref<Type> resolved = numVars ? resolve(type) : type;
  return (resolved ? resolved : type)->str();
}

const Attrs *TypeSolver::getRelationAttrs(const Call *call) {
  Op *op = call->getCalledOp();
  const Attrs *attrs = call->getAttrs().get();
  if (attrs && attrs->isDictAttrs() && cast<DictAttrs>(attrs)->empty())
    attrs = nullptr;
  if (!attrs && op->hasAttrsType()) {
    Ref<Attrs> &defaults = defaultAttrs[op];
    if (!defaults)
      defaults = op->createDefaultAttrs();
    attrs = defaults.get();
  }
  return attrs;
}

TypeRelationContext
TypeSolver::getRelationContext(const Call *call,
                               ArrayRef<Ref<Expr>> typedArgs) {
  SMLoc loc = call->getLoc().isValid() ? call->getLoc() : fallbackLoc;
  return TypeRelationContext{call->getCalledOp()->getName(), loc, typedArgs};
}

/// The shape of the first dynamic tensor in \p type, with -1 for `?`.
static std::string describeDynamicResult(const Type *type) {
  if (const auto *tuple = dyn_cast<TupleType>(type)) {
    for (const Ref<Type> &field : tuple->getFields())
      if (hasDynamicShape(field.get()))
        return describeDynamicResult(field.get());
    return type->str();
  }
  const auto *tensor = dyn_cast<TensorType>(type);
  if (!tensor)
    return type->str();
  std::string text;
  raw_string_ostream os(text);
  printIntList(os, tensor->getShape());
  return text;
}

Expected<Ref<Type>> TypeSolver::runRelation(const Call *call,
                                            const TypeRelationFn &relation,
                                            ArrayRef<const Type *> argTypes,
                                            ArrayRef<Ref<Expr>> typedArgs) {
  TypeRelationContext ctx = getRelationContext(call, typedArgs);
  // A relation written for static shapes never sees a `?` extent.
  const Op *op = call->getCalledOp();
  if (!supportsDynamicShapes(op))
    if (Error err = checkStaticArgTypes(op, argTypes, ctx))
      return err;
  Expected<Ref<Type>> result = relation(argTypes, getRelationAttrs(call), ctx);
  if (result && !*result)
    return ctx.error("the type relation gave no type");
  // Static arguments give a static result: a `?` there is an attribute's
  // -1 (kAnyDim) taken for an extent (unless the extents depend on values).
  if (result && hasDynamicShape(result->get()) && !hasDataDependentShape(op) &&
      none_of(argTypes, [](const Type *t) { return hasDynamicShape(t); }))
    return ctx.error("result shape " + describeDynamicResult(result->get()) +
                     " has a negative dimension");
  return result;
}

Error TypeSolver::runArgInference(const Call *call,
                                  const ArgTypeInferenceFn &infer,
                                  ArrayRef<const Type *> argTypes,
                                  ArrayRef<Ref<Expr>> typedArgs,
                                  SmallVectorImpl<Ref<Type>> &proposed) {
  proposed.assign(argTypes.size(), nullptr);
  return infer(argTypes, getRelationAttrs(call),
               getRelationContext(call, typedArgs), proposed);
}

Ref<Type> TypeSolver::instantiate(const Ref<Type> &annotation) {
  if (!annotation || isa<IncompleteType>(annotation.get()))
    return freshVar();
  if (isCompleteType(annotation.get()))
    return annotation;
  if (const auto *tuple = dyn_cast<TupleType>(annotation.get())) {
    SmallVector<Ref<Type>, 4> fields;
    for (const Ref<Type> &field : tuple->getFields())
      fields.push_back(instantiate(field));
    return TupleType::get(fields, tuple->getLoc());
  }
  const auto *func = cast<FuncType>(annotation.get());
  SmallVector<Ref<Type>, 4> params;
  for (const Ref<Type> &param : func->getParams())
    params.push_back(instantiate(param));
  return FuncType::get(params, instantiate(func->getResultRef()),
                       func->getLoc());
}

Ref<Type> TypeSolver::head(Ref<Type> type) const {
  while (type && isa<IncompleteType>(type.get())) {
    auto it = bindings.find(type.get());
    if (it == bindings.end())
      break;
    type = it->second;
  }
  return type;
}

bool TypeSolver::unify(const Ref<Type> &a, const Ref<Type> &b) {
  if (a == b)
    return true;
  if (!numVars)
    return typesCompatible(a.get(), b.get());
  unifying.clear();
  return unifyRec(a, b, 0);
}

bool TypeSolver::unifyRec(const Ref<Type> &a, const Ref<Type> &b,
                              unsigned depth) {
  Ref<Type> x = head(a), y = head(b);
  if (x == y)
    return true;
  if (!x || !y || depth > kMaxSolverDepth)
    return false;
  if (const auto *var = dyn_cast<IncompleteType>(x.get()))
    return bindTypeVar(var, y);
  if (const auto *var = dyn_cast<IncompleteType>(y.get()))
    return bindTypeVar(var, x);
  if (x->getKind() != y->getKind())
    return false;
  if (!unifying.insert({x.get(), y.get()}).second)
    return true;
  switch (x->getKind()) {
  case Type::Kind::Tensor:
  case Type::Kind::Incomplete:
    // As TVM's unifier, a `?` extent unifies with any extent.
    return typesCompatible(x.get(), y.get());
  case Type::Kind::Tuple: {
    ArrayRef<Ref<Type>> xs = cast<TupleType>(x.get())->getFields();
    ArrayRef<Ref<Type>> ys = cast<TupleType>(y.get())->getFields();
    if (xs.size() != ys.size())
      return false;
    for (size_t i = 0, e = xs.size(); i != e; ++i)
      if (!unifyRec(xs[i], ys[i], depth + 1))
        return false;
    return true;
  }
  case Type::Kind::Func: {
    const auto *fx = cast<FuncType>(x.get());
    const auto *fy = cast<FuncType>(y.get());
    if (fx->getParams().size() != fy->getParams().size())
      return false;
    for (size_t i = 0, e = fx->getParams().size(); i != e; ++i)
      if (!unifyRec(fx->getParams()[i], fy->getParams()[i], depth + 1))
        return false;
    return unifyRec(fx->getResultRef(), fy->getResultRef(), depth + 1);
  }
  }
  return false;
}

bool TypeSolver::occurs(const Type *var, const Type *type) {
  SmallVector<std::pair<const Type *, unsigned>, 16> work{{type, 0}};
  DenseSet<const Type *> seen;
  // Hand-written: a walk of the type DAG, not the expression graph.
  while (!work.empty()) {
    auto [t, depth] = work.pop_back_val();
    if (!t || !seen.insert(t).second)
      continue;
    if (t == var || depth > kMaxSolverDepth)
      return true;
    if (isa<IncompleteType>(t)) {
      auto it = bindings.find(t);
      if (it != bindings.end())
        work.push_back({it->second.get(), depth});
    } else if (const auto *tuple = dyn_cast<TupleType>(t)) {
      for (const Ref<Type> &field : tuple->getFields())
        work.push_back({field.get(), depth + 1});
    } else if (const auto *func = dyn_cast<FuncType>(t)) {
      for (const Ref<Type> &param : func->getParams())
        work.push_back({param.get(), depth + 1});
      work.push_back({func->getResult(), depth + 1});
    }
  }
  return false;
}

bool TypeSolver::bindTypeVar(const IncompleteType *var,
                                 const Ref<Type> &type) {
  // A variable cannot stand for a type that contains it (or one nested
  // without bound).
  if (occurs(var, type.get()))
    return false;
  bindings[var] = type;
  auto it = waiters.find(var);
  if (it != waiters.end()) {
    append_range(ready, it->second);
    waiters.erase(it);
  }
  return true;
}

Ref<Type> TypeSolver::resolve(const Ref<Type> &type) {
  DenseMap<const Type *, Ref<Type>> done;
  return resolveRec(type, 0, done);
}

Ref<Type> TypeSolver::resolveRec(const Ref<Type> &type, unsigned depth,
                                     DenseMap<const Type *, Ref<Type>> &done) {
  Ref<Type> t = head(type);
  if (!t || isa<TensorType, IncompleteType>(t.get()))
    return t;
  if (depth > kMaxSolverDepth)
    return nullptr;
  auto it = done.find(t.get());
  if (it != done.end())
    return it->second;
  Ref<Type> result;
  if (const auto *tuple = dyn_cast<TupleType>(t.get())) {
    SmallVector<Ref<Type>, 4> fields;
    bool changed = false;
    for (const Ref<Type> &field : tuple->getFields()) {
      fields.push_back(resolveRec(field, depth + 1, done));
      if (!fields.back())
        return nullptr;
      changed |= fields.back() != field;
    }
    result = changed ? Ref<Type>(TupleType::get(fields, tuple->getLoc())) : t;
  } else {
    const auto *func = cast<FuncType>(t.get());
    SmallVector<Ref<Type>, 4> params;
    bool changed = false;
    for (const Ref<Type> &param : func->getParams()) {
      params.push_back(resolveRec(param, depth + 1, done));
      if (!params.back())
        return nullptr;
      changed |= params.back() != param;
    }
    Ref<Type> ret = resolveRec(func->getResultRef(), depth + 1, done);
    if (!ret)
      return nullptr;
    changed |= ret != func->getResultRef();
    result =
        changed ? Ref<Type>(FuncType::get(params, ret, func->getLoc())) : t;
  }
  done[t.get()] = result;
  return result;
}

void TypeSolver::forEachUnboundVar(
    const Type *type, function_ref<bool(const IncompleteType *)> fn) {
  SmallVector<const Type *, 16> work{type};
  DenseSet<const Type *> seen;
  // Hand-written: a walk of the type DAG, not the expression graph.
  while (!work.empty()) {
    const Type *t = work.pop_back_val();
    if (!t || !seen.insert(t).second)
      continue;
    if (isa<IncompleteType>(t)) {
      auto it = bindings.find(t);
      if (it == bindings.end()) {
        if (!fn(cast<IncompleteType>(t)))
          return;
        continue;
      }
      work.push_back(it->second.get());
    } else if (const auto *tuple = dyn_cast<TupleType>(t)) {
      for (const Ref<Type> &field : reverse(tuple->getFields()))
        work.push_back(field.get());
    } else if (const auto *func = dyn_cast<FuncType>(t)) {
      work.push_back(func->getResult());
      for (const Ref<Type> &param : reverse(func->getParams()))
        work.push_back(param.get());
    }
  }
}

const IncompleteType *TypeSolver::findUnboundVar(const Type *type) {
  const IncompleteType *found = nullptr;
  forEachUnboundVar(type, [&](const IncompleteType *var) {
    found = var;
    return false;
  });
  return found;
}

Error TypeSolver::addConstraint(TypeConstraint constraint) {
  constraints.push_back(std::move(constraint));
  return solve(constraints.size() - 1);
}

Error TypeSolver::solve(unsigned id) {
  if (constraints[id].solved)
    return Error::success();
  if (constraints[id].inferArgs)
    if (Error err = inferArgTypes(id))
      return err;
  // A constraint that proposes argument types tries again whenever any of
  // its variables is bound (the one an argument's type needs may be bound
  // last); the others wait for the first.
  bool retryOnAny = constraints[id].inferArgs != nullptr;
  bool unbound = false;
  for (const Ref<Type> &arg : constraints[id].args) {
    forEachUnboundVar(arg.get(), [&](const IncompleteType *var) {
      unbound = true;
      if (waiting.insert({var, id}).second)
        waiters[var].push_back(id);
      return retryOnAny;
    });
    if (unbound && !retryOnAny)
      break;
  }
  if (unbound)
    return Error::success();
  constraints[id].solved = true;
  // Copied: solving may add constraints.
  Expr *e = constraints[id].expr;
  Ref<Type> resultVar = constraints[id].result;
  SmallVector<Ref<Type>, 4> args;
  for (const Ref<Type> &arg : constraints[id].args) {
    args.push_back(resolve(arg));
    if (!args.back())
      return error(e, "the type of an operand of this expression is nested "
                      "deeper than " +
                          Twine(kMaxSolverDepth) + " levels");
  }

  Ref<Type> type;
  if (auto *item = dyn_cast<TupleGetItem>(e)) {
    const auto *fields = dyn_cast<TupleType>(args[0].get());
    if (!fields)
      return error(item,
                   "tuple index applied to an operand of non-tuple type " +
                       args[0]->str());
    if (item->getIndex() >= fields->size())
      return error(item, "tuple index " + Twine(item->getIndex()) +
                             " is out of range for a tuple of type " +
                             args[0]->str());
    type = fields->getFields()[item->getIndex()];
  } else {
    SmallVector<const Type *, 4> argTypes;
    for (const Ref<Type> &arg : args)
      argTypes.push_back(arg.get());
    Expected<Ref<Type>> result =
        runRelation(cast<Call>(e), *constraints[id].relation, argTypes,
                    constraints[id].typedArgs);
    if (!result)
      return result.takeError();
    type = std::move(*result);
  }
  if (!unify(resultVar, type))
    return error(e, "this expression has type " + type->str() +
                        " but its uses need " + describe(resultVar));
  return Error::success();
}

Error TypeSolver::inferArgTypes(unsigned id) {
  size_t numArgs = constraints[id].args.size();
  SmallVector<Ref<Type>, 4> known;
  SmallVector<const Type *, 4> argTypes;
  for (const Ref<Type> &arg : constraints[id].args) {
    Ref<Type> type = resolve(arg);
    if (!type || !isCompleteType(type.get()))
      type = nullptr;
    argTypes.push_back(type.get());
    known.push_back(std::move(type));
  }
  if (llvm::all_of(argTypes, [](const Type *t) { return t != nullptr; }))
    return Error::success();
  // Copied: binding a proposal may grow the constraint list's waiters.
  auto *call = cast<Call>(constraints[id].expr);
  SmallVector<Ref<Expr>, 4> typedArgs = constraints[id].typedArgs;
  SmallVector<Ref<Type>, 4> proposed;
  if (Error err = runArgInference(call, *constraints[id].inferArgs, argTypes,
                                  typedArgs, proposed))
    return err;
  for (size_t i = 0; i != numArgs; ++i) {
    if (argTypes[i] || !proposed[i])
      continue;
    Ref<Type> arg = constraints[id].args[i];
    if (!unify(arg, proposed[i]))
      return getRelationContext(call, typedArgs)
          .error("argument #" + Twine(i) + " has type " + describe(arg) +
                 ", but the other arguments and the attributes give it " +
                 proposed[i]->str());
  }
  return Error::success();
}

Error TypeSolver::drain() {
  // Hand-written: a queue of constraints, not a walk.
  while (!ready.empty()) {
    unsigned id = ready.pop_back_val();
    if (Error err = solve(id))
      return err;
  }
  return Error::success();
}

const TypeConstraint *TypeSolver::findUnsolved() const {
  for (const TypeConstraint &constraint : constraints)
    if (!constraint.solved)
      return &constraint;
  return nullptr;
}

void TypeSolver::reset() {
  bindings.clear();
  constraints.clear();
  waiters.clear();
  waiting.clear();
  ready.clear();
  numVars = 0;
}
