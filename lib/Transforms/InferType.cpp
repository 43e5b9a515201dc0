//===- InferType.cpp - Type inference of modules and expressions ----------===//
//
/// \file
/// The TypeInferencer walks expressions in post-order with an explicit stack
/// of frames (a node and how far its processing got), computes each node's
/// type from its children's and rebuilds it with that checked type unless it
/// already has it. Global functions are ordered callees first by an
/// iterative depth-first search over the functions whose type is not fully
/// annotated.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/InferType.h"

#include "nnir/IR/ExprVisitor.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/TypeRelation.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"

using namespace llvm;
using namespace nnir;

//===----------------------------------------------------------------------===//
// Type helpers
//===----------------------------------------------------------------------===//

/// True if \p type is present and contains no IncompleteType.
static bool isComplete(const Type *type) {
  if (!type)
    return false;
  switch (type->getKind()) {
  case Type::Kind::Tensor:
    return true;
  case Type::Kind::Incomplete:
    return false;
  case Type::Kind::Tuple:
    for (const Ref<Type> &field : cast<TupleType>(type)->getFields())
      if (!isComplete(field.get()))
        return false;
    return true;
  case Type::Kind::Func: {
    const auto *func = cast<FuncType>(type);
    for (const Ref<Type> &param : func->getParams())
      if (!isComplete(param.get()))
        return false;
    return isComplete(func->getResult());
  }
  }
  return false;
}

/// True if \p type fits the partial \p annotation, where `_` stands for any
/// type.
static bool matchesAnnotation(const Type *annotation, const Type *type) {
  if (isa<IncompleteType>(annotation))
    return true;
  if (annotation->getKind() != type->getKind())
    return false;
  switch (annotation->getKind()) {
  case Type::Kind::Tensor:
  case Type::Kind::Incomplete:
    return typesEqual(annotation, type);
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
  if (!isComplete(func->getRetType().get()))
    return nullptr;
  SmallVector<Ref<Type>, 4> params;
  for (const Ref<Var> &param : func->getParams()) {
    if (!param || !isComplete(param->getTypeAnnotation().get()))
      return nullptr;
    params.push_back(param->getTypeAnnotation());
  }
  return FuncType::get(params, func->getRetType());
}

/// The deepest type inference builds. A tuple of a tuple of ... gets a type
/// as deep as the chain of bindings that builds it, while every utility on
/// types (printing, equality, hashing, the verifier) recurses on their
/// nesting, and the parser reads printed types back only up to its nesting
/// limit (1000 by default). Half that limit leaves room for the syntactic
/// nesting around a printed type.
static constexpr unsigned kMaxTypeDepth = 500;

/// `%x`, for diagnostics.
static std::string varName(const Var *var) {
  return ("%" + var->getNameHint()).str();
}

//===----------------------------------------------------------------------===//
// TypeInferencer
//===----------------------------------------------------------------------===//

namespace {
class TypeInferencer {
public:
  /// \p module resolves GlobalVars (may be null for closed expressions).
  explicit TypeInferencer(const IRModule *module) : module(module) {}

  /// Nodes rebuilt with their type, and nodes that already had it.
  int64_t numRebuilt = 0;
  int64_t numKept = 0;

  /// Sets the type of global function \p name (before or after it is
  /// inferred).
  void setGlobalType(StringRef name, Ref<Type> type) {
    globalTypes[name] = std::move(type);
  }
  const Type *getGlobalType(StringRef name) const {
    auto it = globalTypes.find(name);
    return it == globalTypes.end() ? nullptr : it->second.get();
  }

  /// The typed form of \p root. \p globalName names the global function
  /// \p root is (empty for other expressions); \p fallbackLoc locates errors
  /// at nodes without a location.
  Expected<Ref<Expr>> infer(Expr *root, StringRef globalName,
                            SMLoc fallbackLoc);

  /// The one typed GlobalVar of function \p name with type \p type: the
  /// module's own if it already has that type.
  Ref<GlobalVar> getTypedGlobal(StringRef name, const Ref<Type> &type);

private:
  struct Frame {
    Expr *expr;
    unsigned stage;
  };

  /// Advances the frame at stack position \p index by one stage.
  Error step(size_t index);
  Error visitCall(Call *call);
  Error visitTupleGetItem(TupleGetItem *item);
  Error visitIf(If *e);
  Error visitFunctionEnd(Function *func);

  Error bindVar(Var *var, Ref<Type> type);
  Error visitFreeVar(Var *var);
  Error visitGlobalVar(GlobalVar *var);
  /// The error for a reference to a global function of unknown type, located
  /// at \p at.
  Error unknownGlobal(const GlobalVar *var, const Expr *at);

  /// Nesting depth of \p type (a tensor type is 1), computed without
  /// recursion and memoised.
  unsigned getTypeDepth(const Type *type);
  /// The error for a type nested deeper than kMaxTypeDepth, at \p e (a
  /// \p what: "tuple" or "function").
  Error checkTypeDepth(const Expr *e, const Type *type, StringRef what);

  /// Pushes \p e for processing unless it is done already.
  void push(Expr *e) {
    if (!memo.count(e))
      stack.push_back({e, 0});
  }
  /// Records \p typed as the typed form of \p e (\p e itself when it
  /// already had its type).
  void finish(Expr *e, Ref<Expr> typed) {
    ++(typed.get() == e ? numKept : numRebuilt);
    memo[e] = std::move(typed);
  }

  const Ref<Expr> &typedOf(const Expr *e) const { return memo.find(e)->second; }
  const Ref<Type> &typeOf(const Expr *e) const {
    return typedOf(e)->getCheckedType();
  }

  /// A located error at \p e (or the enclosing function when \p e has no
  /// location).
  Error error(const Expr *e, const Twine &message) const {
    SMLoc loc = e && e->getLoc().isValid() ? e->getLoc() : fallbackLoc;
    return makeError(loc, message);
  }

  /// How diagnostics name a callee: `@f`, `%f`, or "the function".
  std::string describeCallee(const Expr *callee) const;
  /// The function a callee refers to statically (a global or a literal).
  const Function *getStaticCallee(const Expr *callee) const;

  const IRModule *module;
  StringMap<Ref<Type>> globalTypes;
  StringMap<Ref<GlobalVar>> typedGlobals;
  /// Default attribute records of operators whose calls carry none.
  DenseMap<const Op *, Ref<Attrs>> defaultAttrs;
  /// Type relations by operator (null: none registered).
  DenseMap<const Op *, const TypeRelationFn *> relations;

  /// Original node -> node with its checked type.
  DenseMap<const Expr *, Ref<Expr>> memo;
  /// Memo of getTypeDepth; it holds its types, so no key is ever reused.
  DenseMap<const Type *, std::pair<Ref<const Type>, unsigned>> typeDepths;
  /// Let variables whose value is being typed and whose type is not known
  /// yet: a use in the value is a recursion that cannot be typed.
  DenseSet<const Var *> defining;
  SmallVector<Frame, 64> stack;

  StringRef globalName;
  const Expr *root = nullptr;
  SMLoc fallbackLoc;
};
} // namespace

Ref<GlobalVar> TypeInferencer::getTypedGlobal(StringRef name,
                                              const Ref<Type> &type) {
  Ref<GlobalVar> &slot = typedGlobals[name];
  if (!slot) {
    GlobalVar *entry = module ? module->getGlobalVar(name) : nullptr;
    if (entry && hasType(entry, type.get()))
      slot = entry;
    else
      slot = GlobalVar::get(name, entry ? entry->getLoc() : SMLoc(), type);
  }
  return slot;
}

Expected<Ref<Expr>> TypeInferencer::infer(Expr *e, StringRef name, SMLoc loc) {
  if (!e)
    return makeError(loc, "cannot infer the type of a null expression");
  globalName = name;
  root = e;
  fallbackLoc = loc;
  stack.clear();
  defining.clear();
  push(e);
  while (!stack.empty()) {
    // A frame reached for the second time is a node already typed through
    // another path.
    if (stack.back().stage == 0 && memo.count(stack.back().expr)) {
      stack.pop_back();
      continue;
    }
    if (Error err = step(stack.size() - 1))
      return err;
  }
  return typedOf(e);
}

Error TypeInferencer::step(size_t index) {
  Expr *e = stack[index].expr;
  unsigned stage = stack[index].stage++;
  auto checkOperand = [&](const Ref<Expr> &operand) -> Error {
    if (!operand)
      return error(e, "a " + Expr::getKindName(e->getKind()) +
                          " has a null operand");
    return Error::success();
  };

  switch (e->getKind()) {
  case Expr::Kind::Constant:
    stack.pop_back();
    finish(e, e);
    return Error::success();
  case Expr::Kind::Var:
    stack.pop_back();
    return visitFreeVar(cast<Var>(e));
  case Expr::Kind::GlobalVar:
    stack.pop_back();
    return visitGlobalVar(cast<GlobalVar>(e));
  case Expr::Kind::Op:
    return error(e, "operator '" + cast<Op>(e)->getName() +
                        "' can only be called, not used as a value");

  case Expr::Kind::Call: {
    auto *call = cast<Call>(e);
    if (stage == 0) {
      if (Error err = checkOperand(call->getCallee()))
        return err;
      for (const Ref<Expr> &arg : call->getArgs())
        if (Error err = checkOperand(arg))
          return err;
      // Reversed, so that the callee and then the arguments are typed in
      // order (errors are reported in source order).
      for (size_t i = call->getNumArgs(); i-- > 0;)
        push(call->getArg(i).get());
      // A call locates an unknown global better than the GlobalVar, which
      // the parser shares between all references.
      if (auto *global = dyn_cast<GlobalVar>(call->getCallee().get());
          global && !globalTypes.count(global->getName()))
        return unknownGlobal(global, call);
      if (!isa<Op>(call->getCallee().get()))
        push(call->getCallee().get());
      return Error::success();
    }
    stack.pop_back();
    return visitCall(call);
  }

  case Expr::Kind::Tuple: {
    auto *tuple = cast<Tuple>(e);
    if (stage == 0) {
      for (const Ref<Expr> &field : tuple->getFields())
        if (Error err = checkOperand(field))
          return err;
      for (size_t i = tuple->size(); i-- > 0;)
        push(tuple->getField(i).get());
      return Error::success();
    }
    stack.pop_back();
    SmallVector<Ref<Expr>, 4> fields;
    SmallVector<Ref<Type>, 4> types;
    bool changed = false;
    for (const Ref<Expr> &field : tuple->getFields()) {
      fields.push_back(typedOf(field.get()));
      types.push_back(fields.back()->getCheckedType());
      changed |= fields.back() != field;
    }
    Ref<Type> type = TupleType::get(types);
    if (Error err = checkTypeDepth(tuple, type.get(), "tuple"))
      return err;
    if (!changed && hasType(tuple, type.get()))
      finish(e, e);
    else
      finish(e, Tuple::get(fields, tuple->getLoc(), type));
    return Error::success();
  }

  case Expr::Kind::TupleGetItem: {
    auto *item = cast<TupleGetItem>(e);
    if (stage == 0) {
      if (Error err = checkOperand(item->getTuple()))
        return err;
      push(item->getTuple().get());
      return Error::success();
    }
    stack.pop_back();
    return visitTupleGetItem(item);
  }

  case Expr::Kind::Let: {
    auto *let = cast<Let>(e);
    Var *var = let->getVar().get();
    if (stage == 0) {
      if (!var)
        return error(e, "a Let has a null variable");
      if (Error err = checkOperand(let->getValue()))
        return err;
      if (Error err = checkOperand(let->getBody()))
        return err;
      // Bind the variable before its value when its type is known, so that
      // a let-bound function may call itself.
      if (isComplete(var->getTypeAnnotation().get())) {
        if (Error err = bindVar(var, var->getTypeAnnotation()))
          return err;
      } else if (auto *fn = dyn_cast<Function>(let->getValue().get());
                 fn && getAnnotatedSignature(fn)) {
        if (Error err = bindVar(var, getAnnotatedSignature(fn)))
          return err;
      } else {
        defining.insert(var);
      }
      push(let->getValue().get());
      return Error::success();
    }
    if (stage == 1) {
      const Ref<Type> &valueType = typeOf(let->getValue().get());
      if (defining.erase(var)) {
        // A partial annotation (`(T, _)`) must fit the value's type.
        const Type *annotation = var->getTypeAnnotation().get();
        if (annotation && !matchesAnnotation(annotation, valueType.get()))
          return error(var, varName(var) + " is annotated " +
                                annotation->str() + " but its value has type " +
                                valueType->str());
        if (Error err = bindVar(var, valueType))
          return err;
      } else if (!typesEqual(typeOf(var).get(), valueType.get())) {
        return error(var, varName(var) + " is annotated " + typeOf(var)->str() +
                              " but its value has type " + valueType->str());
      }
      push(let->getBody().get());
      return Error::success();
    }
    stack.pop_back();
    Ref<Expr> newVar = typedOf(var);
    const Ref<Expr> &value = typedOf(let->getValue().get());
    const Ref<Expr> &body = typedOf(let->getBody().get());
    const Ref<Type> &type = body->getCheckedType();
    if (newVar == let->getVar() && value == let->getValue() &&
        body == let->getBody() && hasType(let, type.get()))
      finish(e, e);
    else
      finish(e, Let::get(cast<Var>(newVar.get()), value, body, let->getLoc(),
                         type));
    return Error::success();
  }

  case Expr::Kind::If: {
    auto *ifExpr = cast<If>(e);
    if (stage == 0) {
      for (const Ref<Expr> *operand :
           {&ifExpr->getCond(), &ifExpr->getThen(), &ifExpr->getElse()})
        if (Error err = checkOperand(*operand))
          return err;
      push(ifExpr->getElse().get());
      push(ifExpr->getThen().get());
      push(ifExpr->getCond().get());
      return Error::success();
    }
    stack.pop_back();
    return visitIf(ifExpr);
  }

  case Expr::Kind::Function: {
    auto *func = cast<Function>(e);
    if (stage == 0) {
      if (Error err = checkOperand(func->getBody()))
        return err;
      for (const Ref<Var> &param : func->getParams()) {
        if (!param)
          return error(e, "a Function has a null parameter");
        const Type *annotation = param->getTypeAnnotation().get();
        if (!isComplete(annotation)) {
          std::string owner = e == root && !globalName.empty()
                                  ? (" of @" + globalName).str()
                                  : std::string();
          return error(param.get(),
                       "parameter " + varName(param.get()) + owner +
                           (annotation
                                ? " has an incomplete type annotation " +
                                      annotation->str()
                                : std::string(" has no type annotation")));
        }
        if (Error err = bindVar(param.get(), param->getTypeAnnotation()))
          return err;
      }
      push(func->getBody().get());
      return Error::success();
    }
    stack.pop_back();
    return visitFunctionEnd(func);
  }
  }
  return error(e, "unknown expression kind");
}

unsigned TypeInferencer::getTypeDepth(const Type *root) {
  // Post-order over the type DAG: a type is expanded once, then finished
  // when its children are.
  SmallVector<std::pair<const Type *, bool>, 16> work{{root, false}};
  SmallVector<const Type *, 8> children;
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
  Ref<Type> annotation = var->getTypeAnnotation();
  bool annotated = isComplete(annotation.get());
  if (annotated && hasType(var, type.get()))
    finish(var, var);
  else
    finish(var, Var::get(var->getNameHint(), annotated ? annotation : type,
                         var->getLoc(), type));
  return Error::success();
}

Error TypeInferencer::visitFreeVar(Var *var) {
  if (defining.count(var))
    return error(var, "cannot infer the type of " + varName(var) +
                          ", which is used in its own definition; annotate "
                          "its type");
  if (!isComplete(var->getTypeAnnotation().get()))
    return error(var, "cannot infer the type of free variable " + varName(var) +
                          " without a type annotation");
  return bindVar(var, var->getTypeAnnotation());
}

Error TypeInferencer::unknownGlobal(const GlobalVar *var, const Expr *at) {
  if (!module || !module->lookup(var->getName()))
    return error(at, "use of undefined global function @" + var->getName());
  return error(at, "cannot infer the return type of recursive function @" +
                       var->getName() + "; annotate it");
}

Error TypeInferencer::visitGlobalVar(GlobalVar *var) {
  auto it = globalTypes.find(var->getName());
  if (it == globalTypes.end())
    return unknownGlobal(var, var);
  if (hasType(var, it->second.get()))
    finish(var, var);
  else
    finish(var, getTypedGlobal(var->getName(), it->second));
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
  return nullptr;
}

Error TypeInferencer::visitCall(Call *call) {
  Expr *callee = call->getCallee().get();
  SmallVector<Ref<Expr>, 4> args;
  SmallVector<const Type *, 4> argTypes;
  bool changed = false;
  for (const Ref<Expr> &arg : call->getArgs()) {
    args.push_back(typedOf(arg.get()));
    argTypes.push_back(args.back()->getCheckedType().get());
    changed |= args.back() != arg;
  }

  Ref<Expr> newCallee;
  Ref<Type> type;
  if (auto *op = dyn_cast<Op>(callee)) {
    newCallee = op;
    int numInputs = op->getNumInputs();
    if (numInputs >= 0 && size_t(numInputs) != args.size())
      return error(call, op->getName() + ": expected " + Twine(numInputs) +
                             (numInputs == 1 ? " argument" : " arguments") +
                             ", got " + Twine(args.size()));
    auto [cached, inserted] = relations.try_emplace(op, nullptr);
    if (inserted)
      cached->second = getTypeRelation(op);
    const TypeRelationFn *relation = cached->second;
    if (!relation)
      return error(call,
                   "operator '" + op->getName() + "' has no type relation");
    const Attrs *attrs = call->getAttrs().get();
    if (attrs && attrs->isDictAttrs() && cast<DictAttrs>(attrs)->empty())
      attrs = nullptr;
    if (!attrs && op->hasAttrsType()) {
      Ref<Attrs> &defaults = defaultAttrs[op];
      if (!defaults)
        defaults = op->createDefaultAttrs();
      attrs = defaults.get();
    }
    SMLoc loc = call->getLoc().isValid() ? call->getLoc() : fallbackLoc;
    TypeRelationContext ctx{op->getName(), loc, args};
    Expected<Ref<Type>> result = (*relation)(argTypes, attrs, ctx);
    if (!result)
      return result.takeError();
    if (!*result)
      return error(call, op->getName() + ": the type relation gave no type");
    type = std::move(*result);
  } else {
    newCallee = typedOf(callee);
    changed |= newCallee != call->getCallee();
    const Type *calleeType = newCallee->getCheckedType().get();
    const auto *funcType = dyn_cast<FuncType>(calleeType);
    if (!funcType)
      return error(call, "cannot call " + describeCallee(callee) +
                             " of non-function type " + calleeType->str());
    std::string name = describeCallee(callee);
    if (funcType->getParams().size() != args.size())
      return error(
          call,
          name + " expects " + Twine(funcType->getParams().size()) +
              (funcType->getParams().size() == 1 ? " argument" : " arguments") +
              ", got " + Twine(args.size()));
    const Function *staticCallee = getStaticCallee(callee);
    for (size_t i = 0, e = args.size(); i != e; ++i) {
      const Type *paramType = funcType->getParams()[i].get();
      if (typesEqual(argTypes[i], paramType))
        continue;
      std::string param;
      if (staticCallee && i < staticCallee->getNumParams())
        param = " (parameter " + varName(staticCallee->getParam(i).get()) + ")";
      return error(call, "argument #" + Twine(i) + " of " + name + param +
                             " has type " + argTypes[i]->str() + ", expected " +
                             paramType->str());
    }
    type = funcType->getResultRef();
  }

  if (!changed && hasType(call, type.get()))
    finish(call, call);
  else
    finish(call, Call::get(newCallee, args, call->getAttrs(), call->getLoc(),
                           std::move(type)));
  return Error::success();
}

Error TypeInferencer::visitTupleGetItem(TupleGetItem *item) {
  const Ref<Expr> &tuple = typedOf(item->getTuple().get());
  const Type *tupleType = tuple->getCheckedType().get();
  const auto *fields = dyn_cast<TupleType>(tupleType);
  if (!fields)
    return error(item, "tuple index applied to an operand of non-tuple type " +
                           tupleType->str());
  if (item->getIndex() >= fields->size())
    return error(item, "tuple index " + Twine(item->getIndex()) +
                           " is out of range for a tuple of type " +
                           tupleType->str());
  const Ref<Type> &type = fields->getFields()[item->getIndex()];
  if (tuple == item->getTuple() && hasType(item, type.get()))
    finish(item, item);
  else
    finish(item,
           TupleGetItem::get(tuple, item->getIndex(), item->getLoc(), type));
  return Error::success();
}

Error TypeInferencer::visitIf(If *e) {
  const Ref<Expr> &cond = typedOf(e->getCond().get());
  const Ref<Expr> &thenBranch = typedOf(e->getThen().get());
  const Ref<Expr> &elseBranch = typedOf(e->getElse().get());
  const Type *condType = cond->getCheckedType().get();
  const auto *condTensor = dyn_cast<TensorType>(condType);
  if (!condTensor || condTensor->getRank() != 0 ||
      !condTensor->getDType().isBool())
    return error(e, "the condition of an if must be a 0-d bool tensor, got " +
                        condType->str());
  const Ref<Type> &type = thenBranch->getCheckedType();
  const Type *elseType = elseBranch->getCheckedType().get();
  if (!typesEqual(type.get(), elseType))
    return error(e, "the branches of an if have different types: " +
                        type->str() + " vs " + elseType->str());
  if (cond == e->getCond() && thenBranch == e->getThen() &&
      elseBranch == e->getElse() && hasType(e, type.get()))
    finish(e, e);
  else
    finish(e, If::get(cond, thenBranch, elseBranch, e->getLoc(), type));
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
  const Ref<Expr> &body = typedOf(func->getBody().get());
  changed |= body != func->getBody();
  Ref<Type> resultType = body->getCheckedType();
  const Ref<Type> &retType = func->getRetType();
  bool annotated = isComplete(retType.get());
  changed |= !annotated;
  if (retType && !matchesAnnotation(retType.get(), resultType.get())) {
    std::string owner = func == root && !globalName.empty()
                            ? ("@" + globalName).str()
                            : std::string("the function");
    return error(func, owner + " is annotated to return " + retType->str() +
                           " but its body has type " + resultType->str());
  }
  if (annotated)
    resultType = retType;
  Ref<Type> type = FuncType::get(paramTypes, std::move(resultType));
  if (Error err = checkTypeDepth(func, type.get(), "function"))
    return err;
  if (!changed && hasType(func, type.get()))
    finish(func, func);
  else
    finish(func, Function::get(params, body,
                               cast<FuncType>(type.get())->getResultRef(),
                               func->getAttrs(), func->getLoc(), type));
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Module inference
//===----------------------------------------------------------------------===//

namespace {
/// The global functions a function refers to, each with the location of its
/// first call (or reference).
class GlobalRefCollector final : public ExprVisitor {
public:
  struct GlobalRef {
    std::string name;
    SMLoc loc;
  };
  SmallVector<GlobalRef, 4> refs;

  void visitGlobalVar(GlobalVar *var) override { note(var->getName(), var); }
  void visitCall(Call *call) override {
    if (auto *callee = dyn_cast_or_null<GlobalVar>(call->getCallee().get()))
      note(callee->getName(), call, /*isCall=*/true);
    ExprVisitor::visitCall(call);
  }

private:
  void note(StringRef name, const Expr *at, bool isCall = false) {
    auto [it, inserted] = index.try_emplace(name, refs.size());
    if (inserted) {
      refs.push_back({name.str(), at->getLoc()});
      fromCall.push_back(isCall);
    } else if (isCall && !fromCall[it->second] && at->getLoc().isValid()) {
      // A call locates a recursion better than the shared GlobalVar node.
      refs[it->second].loc = at->getLoc();
      fromCall[it->second] = true;
    }
  }
  StringMap<size_t> index;
  SmallVector<bool, 4> fromCall;
};
} // namespace

/// The order in which to infer the functions of \p module: every function
/// after the functions without an annotated signature that it refers to.
/// Iterative depth-first search; a cycle among such functions is an error.
static Expected<SmallVector<size_t, 8>>
orderFunctions(const IRModule &module, ArrayRef<bool> hasSignature) {
  ArrayRef<IRModule::Entry> entries = module.getFunctions();
  size_t n = entries.size();
  SmallVector<size_t, 8> order;
  // With every type annotated, or a single function (whose recursion is
  // found when it is typed), the order does not matter.
  bool allAnnotated = llvm::all_of(hasSignature, [](bool b) { return b; });
  if (allAnnotated || n == 1) {
    for (size_t i = 0; i != n; ++i)
      order.push_back(i);
    return order;
  }

  StringMap<size_t> position;
  for (size_t i = 0; i != n; ++i)
    position[entries[i].var->getName()] = i;
  // Edges to functions whose type must be inferred first, with the location
  // of the reference.
  std::vector<SmallVector<std::pair<size_t, SMLoc>, 2>> deps(n);
  for (size_t i = 0; i != n; ++i) {
    GlobalRefCollector collector;
    collector.visit(entries[i].func.get());
    for (const auto &ref : collector.refs) {
      auto it = position.find(ref.name);
      if (it != position.end() && !hasSignature[it->second])
        deps[i].push_back({it->second, ref.loc});
    }
  }

  enum class State : uint8_t { New, Active, Done };
  SmallVector<State, 8> state(n, State::New);
  SmallVector<std::pair<size_t, size_t>, 8> stack; // function, next edge
  for (size_t start = 0; start != n; ++start) {
    if (state[start] != State::New)
      continue;
    state[start] = State::Active;
    stack.push_back({start, 0});
    while (!stack.empty()) {
      auto &[f, next] = stack.back();
      if (next == deps[f].size()) {
        state[f] = State::Done;
        order.push_back(f);
        stack.pop_back();
        continue;
      }
      auto [g, loc] = deps[f][next++];
      if (state[g] == State::Active) {
        SMLoc at = loc.isValid() ? loc : entries[f].func->getLoc();
        return makeError(at, "cannot infer the return type of recursive "
                             "function @" +
                                 entries[g].var->getName() + "; annotate it");
      }
      if (state[g] == State::New) {
        state[g] = State::Active;
        stack.push_back({g, 0});
      }
    }
  }
  return order;
}

/// Infers the types of \p module with \p inferencer (which counts what it
/// did).
static Expected<Ref<IRModule>> inferModule(Ref<IRModule> module,
                                           TypeInferencer &inferencer) {
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
  Expected<SmallVector<size_t, 8>> order =
      orderFunctions(*module, hasSignature);
  if (!order)
    return order.takeError();

  SmallVector<Ref<Function>, 8> typed(n);
  for (size_t i : *order) {
    Function *func = entries[i].func.get();
    Expected<Ref<Expr>> result =
        inferencer.infer(func, entries[i].var->getName(), func->getLoc());
    if (!result)
      return result.takeError();
    typed[i] = cast<Function>(result->get());
    inferencer.setGlobalType(entries[i].var->getName(),
                             typed[i]->getCheckedType());
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
  return inferModule(std::move(module), inferencer);
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
  return inferencer.infer(expr.get(), "", loc);
}

Ref<Pass> nnir::createInferTypePass() {
  PassInfo info("InferType", /*optLevel=*/0);
  info.description = "infer and record the type of every expression";
  info.establishesTypes = true;
  info.preservesTypes = true;
  return createModulePass(
      [](Ref<IRModule> module, PassContext &ctx) -> Expected<Ref<IRModule>> {
        if (!module)
          return makeError("cannot infer the types of a null module");
        TypeInferencer inferencer(module.get());
        Expected<Ref<IRModule>> result = inferModule(module, inferencer);
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
