//===- Verifier.cpp - Well-formedness of modules --------------------------===//
//
/// \file
/// One PostOrderWalker walk per function, whose enter and exit hooks open
/// and close scopes. Node checks stop at the first problem, but the walk
/// goes on to learn every binder, so that an earlier use of a variable out
/// of scope can be told apart from a free variable and the first error in
/// walk order is the one reported.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Verifier.h"

#include "nnir/IR/Expr.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Traversal.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

using namespace llvm;
using namespace nnir;

/// `%name` of a variable for messages.
static std::string varName(const Var *var) {
  return ("%" + var->getNameHint()).str();
}

namespace {
class VerifierImpl {
public:
  /// \p module is null for a standalone expression; \p funcName names the
  /// global function being verified (empty for an expression).
  VerifierImpl(const IRModule *module, StringRef funcName, bool allowFreeVars)
      : module(module), funcName(funcName), allowFreeVars(allowFreeVars) {}

  Error run(const Expr *root);

private:
  /// A variable met outside any scope that binds it.
  struct OutOfScopeUse {
    const Var *var;
    SMLoc loc;
    uint64_t seq;
  };
  struct NodeError {
    SMLoc loc;
    std::string message;
    uint64_t seq;
  };

  /// Checks \p e (used by \p user) and brings its binders into scope.
  /// Skip if its children are not to be walked (a leaf or a node seen);
  /// only a node that binds variables is exited, to end their scope.
  WalkAction enter(const Expr *e, const Expr *user);
  /// Ends the scope of the binders of the binding node entered last.
  void exit();
  /// Checks the node-local properties of \p e; records the first problem.
  void check(const Expr *e);
  void checkCall(const Call *call);
  void checkType(const Type *type, const Expr *at, StringRef what);
  /// Reports \p declared (an annotation) when \p value has a checked type
  /// that contradicts it.
  void checkAnnotation(const Type *declared, const Expr *value, const Expr *at,
                       const llvm::Twine &subject, StringRef valueName);
  /// Describes the first problem of \p type, or returns "".
  std::string describeTypeProblem(const Type *type);
  void bind(const Var *var, const Expr *binder);

  void error(const Expr *at, const Twine &message);
  void error(SMLoc loc, const Twine &message);
  SMLoc locOf(const Expr *e) const {
    return e && e->getLoc().isValid() ? e->getLoc() : fallbackLoc;
  }

  const IRModule *module;
  StringRef funcName;
  bool allowFreeVars;
  SMLoc fallbackLoc;

  DenseSet<const Expr *> visited;
  /// The variables in scope by binder, innermost last, and where the
  /// binders of each entered binding node (let, function) begin.
  SmallVector<const Var *, 16> scopeVars;
  SmallVector<unsigned, 64> scopeBegins;
  DenseMap<const Var *, unsigned> inScope;
  DenseSet<const Var *> bound;
  DenseSet<const Type *> validTypes;
  SmallVector<OutOfScopeUse, 4> outOfScope;
  DenseSet<const Var *> reportedOutOfScope;
  std::optional<NodeError> firstError;
  uint64_t seq = 0;
};
} // namespace

void VerifierImpl::error(SMLoc loc, const Twine &message) {
  if (!firstError)
    firstError = NodeError{loc, message.str(), seq};
}

void VerifierImpl::error(const Expr *at, const Twine &message) {
  error(locOf(at), message);
}

Error VerifierImpl::run(const Expr *root) {
  if (!root)
    return makeError("expression is null");
  fallbackLoc = root->getLoc();
  // The memo is ours: only shared nodes are remembered, and a variable is
  // checked at every use.
  PostOrderWalker walker(PostOrderWalker::Memo::Hooks);
  walker.walk(
      const_cast<Expr *>(root),
      [&](Expr *e, Expr *user) {
        ++seq;
        return enter(e, user);
      },
      [&](Expr *) {
        ++seq;
        exit();
      },
      [](Expr *e, SmallVectorImpl<Expr *> &children) {
        forEachChild(e, [&](Expr *child, ChildRole role) {
          if (!isBinder(role))
            children.push_back(child);
        });
      });

  // The first use out of scope that is an error, if it comes before the
  // first node error.
  for (const OutOfScopeUse &use : outOfScope) {
    if (firstError && firstError->seq < use.seq)
      break;
    if (bound.count(use.var))
      return makeError(use.loc, "variable " + varName(use.var) +
                                    " is used outside the scope of its "
                                    "binding");
    if (allowFreeVars)
      continue;
    if (funcName.empty())
      return makeError(use.loc, "free variable " + varName(use.var));
    return makeError(use.loc,
                     "free variable " + varName(use.var) + " in @" + funcName);
  }
  if (firstError)
    return makeError(firstError->loc, firstError->message);
  return Error::success();
}

void VerifierImpl::bind(const Var *var, const Expr *binder) {
  if (!bound.insert(var).second) {
    error(binder, "variable " + varName(var) + " is bound more than once");
    return;
  }
  if (const Type *annotation = var->getTypeAnnotation().get())
    checkType(annotation, var, "type annotation of " + varName(var));
  ++inScope[var];
  scopeVars.push_back(var);
}

void VerifierImpl::exit() {
  unsigned begin = scopeBegins.pop_back_val();
  for (const Var *var : drop_begin(scopeVars, begin))
    if (--inScope[var] == 0)
      inScope.erase(var);
  scopeVars.truncate(begin);
}

WalkAction VerifierImpl::enter(const Expr *e, const Expr *user) {
  if (auto *var = dyn_cast<Var>(e)) {
    if (inScope.count(var) || !reportedOutOfScope.insert(var).second)
      return WalkAction::Skip;
    SMLoc loc = user && user->getLoc().isValid() ? user->getLoc()
                : var->getLoc().isValid()        ? var->getLoc()
                                                 : fallbackLoc;
    outOfScope.push_back({var, loc, seq});
    return WalkAction::Skip;
  }
  // One GlobalVar node stands for every use of a global (and the parser
  // gives it the location of the first mention), so an undefined global is
  // reported at the node that uses it.
  if (auto *global = dyn_cast<GlobalVar>(e)) {
    if (module && !module->contains(global->getName()))
      error(user && user->getLoc().isValid() ? user->getLoc() : locOf(global),
            "undefined global @" + global->getName());
    return WalkAction::Skip;
  }
  // A node with a single reference is reached once; only shared nodes need
  // remembering.
  if (e->getRefCount() > 1 && !visited.insert(e).second)
    return WalkAction::Skip;
  if (!firstError)
    check(e);

  // Binders first, then the null operands, last first (the walk used to
  // push them in reverse, and the first error is the one reported).
  bool binds = isa<Let, Function>(e);
  if (binds)
    scopeBegins.push_back(scopeVars.size());
  std::optional<ChildRole> lastNullOperand;
  forEachChild(e, [&](Expr *child, ChildRole role) {
    if (!isBinder(role)) {
      if (!child)
        lastNullOperand = role;
    } else if (!child) {
      error(e, Expr::getKindName(e->getKind()) + " has a null " +
                   getChildRoleName(role));
    } else {
      bind(cast<Var>(child), e);
    }
  });
  if (lastNullOperand)
    error(e, Expr::getKindName(e->getKind()) + " has a null " +
                 getChildRoleName(*lastNullOperand));
  // Only a binding node has a scope to end after its children.
  return binds ? WalkAction::Descend : WalkAction::DescendWithoutExit;
}

std::string VerifierImpl::describeTypeProblem(const Type *type) {
  if (!type)
    return "missing type";
  if (validTypes.count(type))
    return "";
  std::string problem;
  switch (type->getKind()) {
  case Type::Kind::Tensor: {
    auto *tensor = cast<TensorType>(type);
    if (Error err = TensorType::verifyShape(tensor->getShape())) {
      problem = toString(std::move(err));
      break;
    }
    DataType dtype = tensor->getDType();
    if (dtype.isVoid())
      problem = "tensor type has no dtype";
    else if (!DataType::parse(dtype.str()))
      problem = "unsupported dtype '" + dtype.str() + "'";
    break;
  }
  case Type::Kind::Tuple:
    for (const Ref<Type> &field : cast<TupleType>(type)->getFields()) {
      problem = describeTypeProblem(field.get());
      if (!problem.empty())
        break;
    }
    break;
  case Type::Kind::Func: {
    auto *func = cast<FuncType>(type);
    for (const Ref<Type> &param : func->getParams()) {
      problem = describeTypeProblem(param.get());
      if (!problem.empty())
        break;
    }
    if (problem.empty())
      problem = describeTypeProblem(func->getResult());
    break;
  }
  case Type::Kind::Incomplete:
    break;
  }
  if (problem.empty())
    validTypes.insert(type);
  return problem;
}

void VerifierImpl::checkType(const Type *type, const Expr *at, StringRef what) {
  std::string problem = describeTypeProblem(type);
  if (!problem.empty())
    error(at, "invalid " + what + ": " + problem);
}

void VerifierImpl::checkCall(const Call *call) {
  const Expr *callee = call->getCallee().get();
  if (!callee)
    return;
  size_t numArgs = call->getNumArgs();
  if (auto *op = dyn_cast<Op>(callee)) {
    if (Error err = op->checkNumArgs(numArgs)) {
      error(call, toString(std::move(err)));
      return;
    }
    // A null record (or an empty DictAttrs) stands for the defaults.
    const Attrs *attrs = call->getAttrsOrDefaults();
    if (!attrs)
      return;
    if (!op->hasAttrsType()) {
      error(call, "operator '" + op->getName() + "' takes no attributes, got " +
                      attrs->getTypeKey());
      return;
    }
    if (attrs->getTypeId() != op->getAttrsTypeId())
      error(call, "operator '" + op->getName() +
                      "' expects attributes of type " + op->getAttrsTypeKey() +
                      ", got " + attrs->getTypeKey());
    return;
  }
  const Function *target = dyn_cast<Function>(callee);
  std::string targetName = "function";
  if (auto *global = dyn_cast<GlobalVar>(callee)) {
    target = module ? module->lookup(global->getName()) : nullptr;
    targetName = ("@" + global->getName()).str();
  }
  if (target && target->getNumParams() != numArgs)
    error(call, toString(makeArityError(targetName, target->getNumParams(),
                                        numArgs)));
}

/// Structural type equality in which `_` (IncompleteType) matches anything
/// and a `?` extent any extent (an annotation `Tensor[(?, 3), float32]`
/// accepts a value of type `Tensor[(4, 3), float32]`, as TVM's unifier).
static bool typesAgree(const Type *a, const Type *b) {
  if (isa<IncompleteType>(a) || isa<IncompleteType>(b))
    return true;
  if (a->getKind() != b->getKind())
    return false;
  if (auto *ta = dyn_cast<TupleType>(a)) {
    auto *tb = cast<TupleType>(b);
    if (ta->size() != tb->size())
      return false;
    for (size_t i = 0, e = ta->size(); i != e; ++i)
      if (!typesAgree(ta->getField(i), tb->getField(i)))
        return false;
    return true;
  }
  if (auto *fa = dyn_cast<FuncType>(a)) {
    auto *fb = cast<FuncType>(b);
    if (fa->getParams().size() != fb->getParams().size())
      return false;
    for (size_t i = 0, e = fa->getParams().size(); i != e; ++i)
      if (!typesAgree(fa->getParams()[i].get(), fb->getParams()[i].get()))
        return false;
    return typesAgree(fa->getResult(), fb->getResult());
  }
  return typesCompatible(a, b);
}

void VerifierImpl::checkAnnotation(const Type *declared, const Expr *value,
                                   const Expr *at, const Twine &subject,
                                   StringRef valueName) {
  const Type *actual = value ? value->getCheckedType().get() : nullptr;
  if (!declared || !actual || typesAgree(declared, actual))
    return;
  error(at, subject + " " + declared->str() + " but its " + valueName +
                " has type " + actual->str());
}

void VerifierImpl::check(const Expr *e) {
  if (const Type *checked = e->getCheckedType().get()) {
    checkType(checked, e,
              ("checked type of " + Expr::getKindName(e->getKind())).str());
    if (firstError)
      return;
  }
  switch (e->getKind()) {
  case Expr::Kind::Var:
  case Expr::Kind::Op:
    return;
  case Expr::Kind::GlobalVar:
    return; // Checked where it is used (see enter()).
  case Expr::Kind::Constant: {
    auto *constant = cast<Constant>(e);
    const NDArray &data = constant->getData();
    if (!data) {
      error(constant, "constant has no data");
      return;
    }
    auto *type = dyn_cast_or_null<TensorType>(constant->getCheckedType().get());
    if (!type || type->getDType() != data.getDType() ||
        type->getShape() != data.getShape()) {
      Ref<TensorType> dataType =
          TensorType::get(data.getShape(), data.getDType());
      error(constant, "checked type of constant " +
                          (type ? type->str() : std::string("<none>")) +
                          " does not match its data " + dataType->str());
    }
    return;
  }
  case Expr::Kind::Call:
    checkCall(cast<Call>(e));
    return;
  case Expr::Kind::Tuple: {
    auto *tuple = cast<Tuple>(e);
    const Type *type = tuple->getCheckedType().get();
    if (!type || isa<IncompleteType>(type))
      return;
    auto *tupleType = dyn_cast<TupleType>(type);
    if (!tupleType)
      error(tuple, "checked type of tuple is not a tuple type: " + type->str());
    else if (tupleType->size() != tuple->size())
      error(tuple, "tuple has " + Twine(tuple->size()) +
                       " fields but its checked type has " +
                       Twine(tupleType->size()));
    return;
  }
  case Expr::Kind::TupleGetItem: {
    auto *item = cast<TupleGetItem>(e);
    const Expr *operand = item->getTuple().get();
    const Type *type = operand ? operand->getCheckedType().get() : nullptr;
    if (!type || isa<IncompleteType>(type))
      return;
    auto *tupleType = dyn_cast<TupleType>(type);
    if (!tupleType)
      error(item, "tuple index applied to an operand of non-tuple type " +
                      type->str());
    else if (item->getIndex() >= tupleType->size())
      error(item, "tuple index " + Twine(item->getIndex()) +
                      " out of range for a tuple of " +
                      Twine(tupleType->size()) + " field" +
                      (tupleType->size() == 1 ? "" : "s"));
    return;
  }
  case Expr::Kind::Let: {
    auto *let = cast<Let>(e);
    const Var *var = let->getVar().get();
    checkAnnotation(var->getTypeAnnotation().get(), let->getValue().get(), var,
                    varName(var) + " is annotated", "value");
    return;
  }
  case Expr::Kind::If:
    return;
  case Expr::Kind::Function: {
    auto *func = cast<Function>(e);
    if (const Type *ret = func->getRetType().get()) {
      checkType(ret, func, "return type of function");
      if (!firstError)
        checkAnnotation(ret, func->getBody().get(), func,
                        "the function is annotated to return", "body");
    }
    const Type *type = func->getCheckedType().get();
    if (firstError || !type || isa<IncompleteType>(type))
      return;
    auto *funcType = dyn_cast<FuncType>(type);
    if (!funcType)
      error(func,
            "checked type of function is not a function type: " + type->str());
    else if (funcType->getParams().size() != func->getNumParams())
      error(func, "function has " + Twine(func->getNumParams()) + " parameter" +
                      (func->getNumParams() == 1 ? "" : "s") +
                      " but its checked type has " +
                      Twine(funcType->getParams().size()));
    return;
  }
  }
}

Error nnir::verifyModule(const IRModule &module) {
  for (const IRModule::Entry &entry : module.getFunctions()) {
    if (!entry.func)
      return makeError(entry.var->getLoc(),
                       "global @" + entry.var->getName() + " has no function");
    VerifierImpl verifier(&module, entry.var->getName(),
                          /*allowFreeVars=*/false);
    if (Error err = verifier.run(entry.func.get()))
      return err;
  }
  return Error::success();
}

Error nnir::verifyExpr(const Expr *expr, bool allowFreeVars) {
  return VerifierImpl(nullptr, "", allowFreeVars).run(expr);
}
