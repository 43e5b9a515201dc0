//===- Reductions.cpp - The reductions nnir-reduce tries ------------------===//
//
/// \file
/// Every reduction asks its Oracle once per target, in the order of a walk
/// of the module (functions in definition order, each in post-order), so
/// that the numbering of the targets depends on the module only, not on the
/// answers: a chunk of targets means the same targets in every candidate
/// made from one module. Where a reduction needs a decision before it can
/// rewrite (remove-lets, unused-parameters, shapes), it walks once to ask,
/// then rewrites.
//
//===----------------------------------------------------------------------===//

#include "Reductions.h"

#include "nnir/IR/ExprMutator.h"
#include "nnir/IR/Traversal.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::reduce;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {

/// How each global function is used: as the callee of calls, or otherwise
/// (passed as a value, which a reduction that changes its signature or
/// removes it cannot follow).
struct GlobalUses {
  StringMap<unsigned> callee, other;

  explicit GlobalUses(const IRModule &module) {
    for (const IRModule::Entry &entry : module.getFunctions())
      walk(entry.func.get(), [&](Expr *e) {
        forEachChild(e, [&](Expr *child, ChildRole role) {
          if (auto *var = dyn_cast_or_null<GlobalVar>(child))
            ++(role == ChildRole::Callee ? callee : other)[var->getName()];
        });
      });
  }
  bool isOnlyCalled(StringRef name) const { return !other.count(name); }
  bool isUnused(StringRef name) const {
    return !callee.count(name) && !other.count(name);
  }
};

} // namespace

/// True when makeZero() makes a value of \p type.
static bool isZeroable(const Type *type) {
  if (isa_and_nonnull<TensorType>(type))
    return true;
  if (const auto *tuple = dyn_cast_or_null<TupleType>(type))
    return all_of(tuple->getFields(),
                  [](const Ref<Type> &field) { return isZeroable(field.get()); });
  return false;
}

/// Zeros of \p type: a splat constant for a tensor, a tuple of zeros for a
/// tuple; null for other types.
static Ref<Expr> makeZero(const Type *type) {
  if (const auto *tensor = dyn_cast_or_null<TensorType>(type)) {
    Expected<NDArray> zeros =
        NDArray::splat(tensor->getDType(), tensor->getShape(), 0);
    if (!zeros) {
      consumeError(zeros.takeError());
      return nullptr;
    }
    return Constant::get(std::move(*zeros));
  }
  if (const auto *tuple = dyn_cast_or_null<TupleType>(type)) {
    SmallVector<Ref<Expr>, 4> fields;
    for (const Ref<Type> &field : tuple->getFields()) {
      Ref<Expr> zero = makeZero(field.get());
      if (!zero)
        return nullptr;
      fields.push_back(std::move(zero));
    }
    return Tuple::get(fields);
  }
  return nullptr;
}

/// A module with \p module's attributes whose functions are \p fn's results
/// for \p module's (in order; null drops the function).
static Ref<IRModule>
mapFunctions(const IRModule &module,
             function_ref<Ref<Function>(const IRModule::Entry &)> fn) {
  Ref<IRModule> result = IRModule::create();
  result->setAttrs(module.getAttrs());
  for (const IRModule::Entry &entry : module.getFunctions())
    if (Ref<Function> func = fn(entry))
      cantFail(result->add(entry.var, std::move(func)));
  return result;
}

static Ref<Function>
rewriteFunction(Function *func,
                function_ref<Ref<Expr>(Expr *pre, Expr *post)> fn,
                function_ref<WalkAction(Expr *pre)> enter = nullptr) {
  return Ref<Function>(cast<Function>(rewritePostOrder(func, fn, enter).get()));
}

/// \p func with \p params and its body, return type (null: dropped) and
/// attributes; untyped.
static Ref<Function> withParams(const Function &func, ArrayRef<Ref<Var>> params,
                                Ref<Type> retType) {
  return Function::get(params, func.getBody(), std::move(retType),
                       func.getAttrs(), func.getLoc());
}

/// The expressions a reduction may replace by another of their type.
static bool isReplaceable(const Expr *e) {
  return isa<Call, Tuple, TupleGetItem, Let, If>(e);
}

//===----------------------------------------------------------------------===//
// remove-functions
//===----------------------------------------------------------------------===//

static Ref<IRModule> removeFunctions(const IRModule &module, Oracle &oracle) {
  GlobalUses uses(module);
  StringSet<> removed;
  for (const IRModule::Entry &entry : module.getFunctions()) {
    StringRef name = entry.var->getName();
    const auto *type =
        dyn_cast_or_null<FuncType>(entry.func->getCheckedType().get());
    bool removable =
        uses.isUnused(name) ||
        (uses.isOnlyCalled(name) && type && isZeroable(type->getResult()));
    if (removable && oracle.shouldReduce())
      removed.insert(name);
  }
  if (removed.empty())
    return Ref<IRModule>(const_cast<IRModule *>(&module));
  return mapFunctions(module, [&](const IRModule::Entry &entry) {
    if (removed.count(entry.var->getName()))
      return Ref<Function>();
    return rewriteFunction(entry.func.get(), [&](Expr *pre, Expr *post) {
      auto *call = dyn_cast<Call>(pre);
      auto *callee = call ? dyn_cast<GlobalVar>(call->getCallee().get())
                          : nullptr;
      if (callee && removed.count(callee->getName()))
        if (Ref<Expr> zero = makeZero(call->getCheckedType().get()))
          return zero;
      return Ref<Expr>(post);
    });
  });
}

//===----------------------------------------------------------------------===//
// remove-lets
//===----------------------------------------------------------------------===//

namespace {
/// Drops the lets in `removed`, substituting their values for their vars.
struct LetRemover : ExprMutator {
  DenseMap<const Var *, Let *> removed;

  Ref<Expr> visitVar(Var *var) override {
    auto it = removed.find(var);
    if (it == removed.end())
      return ExprMutator::visitVar(var);
    return mutate(it->second->getValue());
  }
  Ref<Expr> rewriteLet(Let *pre, Let *post) override {
    if (removed.count(pre->getVar().get()))
      return post->getBody();
    return post;
  }
};
} // namespace

static Ref<IRModule> removeLets(const IRModule &module, Oracle &oracle) {
  bool any = false;
  std::vector<LetRemover> removers(module.size());
  for (auto [entry, remover] : zip(module.getFunctions(), removers))
    walk(entry.func.get(), [&](Expr *e) {
      if (auto *let = dyn_cast<Let>(e))
        if (oracle.shouldReduce()) {
          remover.removed[let->getVar().get()] = let;
          any = true;
        }
    });
  if (!any)
    return Ref<IRModule>(const_cast<IRModule *>(&module));
  size_t i = 0;
  return mapFunctions(module, [&](const IRModule::Entry &entry) {
    LetRemover &remover = removers[i++];
    if (remover.removed.empty())
      return entry.func;
    return Ref<Function>(
        cast<Function>(remover.mutate(entry.func.get()).get()));
  });
}

//===----------------------------------------------------------------------===//
// operand, parameter, zero
//===----------------------------------------------------------------------===//

/// The first operand of \p pre (a call's argument, an if's branch) of
/// \p pre's type, as an index into its children; -1 when none.
static int findSameTypedOperand(const Expr *pre) {
  const Type *type = pre->getCheckedType().get();
  if (!type || !isa<Call, If>(pre))
    return -1;
  int found = -1;
  unsigned i = 0;
  forEachChild(pre, [&](Expr *child, ChildRole role) {
    if (found < 0 && child &&
        (role == ChildRole::Argument || role == ChildRole::Then ||
         role == ChildRole::Else) &&
        child->getCheckedType() &&
        typesEqual(child->getCheckedType().get(), type))
      found = i;
    ++i;
  });
  return found;
}

static Ref<IRModule> replaceByOperand(const IRModule &module, Oracle &oracle) {
  return mapFunctions(module, [&](const IRModule::Entry &entry) {
    return rewriteFunction(entry.func.get(), [&](Expr *pre, Expr *post) {
      int operand = findSameTypedOperand(pre);
      if (operand >= 0 && oracle.shouldReduce())
        return Ref<Expr>(getChild(post, operand));
      return Ref<Expr>(post);
    });
  });
}

static Ref<IRModule> replaceByParameter(const IRModule &module,
                                        Oracle &oracle) {
  GlobalUses uses(module);
  return mapFunctions(module, [&](const IRModule::Entry &entry) {
    Function *func = entry.func.get();
    // Only a function nothing refers to may take new parameters.
    if (!uses.isUnused(entry.var->getName()))
      return entry.func;
    SmallVector<Ref<Var>, 4> added;
    Ref<Function> result = rewriteFunction(
        func,
        [&](Expr *pre, Expr *post) {
          if (pre == func || !isReplaceable(pre) || !pre->getCheckedType() ||
              isa<FuncType>(pre->getCheckedType().get()) ||
              !oracle.shouldReduce())
            return Ref<Expr>(post);
          Ref<Var> param =
              Var::get("p" + std::to_string(func->getNumParams() +
                                            added.size()),
                       pre->getCheckedType());
          added.push_back(param);
          return Ref<Expr>(param);
        },
        // Not inside nested functions: a primitive function stays closed.
        [&](Expr *pre) {
          return isa<Function>(pre) && pre != func ? WalkAction::SkipChildren
                                                   : WalkAction::Descend;
        });
    if (added.empty())
      return result;
    SmallVector<Ref<Var>, 8> params(result->getParams());
    params.append(added.begin(), added.end());
    return withParams(*result, params, result->getRetType());
  });
}

static Ref<IRModule> replaceByZero(const IRModule &module, Oracle &oracle) {
  return mapFunctions(module, [&](const IRModule::Entry &entry) {
    return rewriteFunction(entry.func.get(), [&](Expr *pre, Expr *post) {
      if (!isReplaceable(pre) || !isZeroable(pre->getCheckedType().get()))
        return Ref<Expr>(post);
      // A tuple of constants is zeros already, or about to be made so by
      // `constants`.
      if (auto *tuple = dyn_cast<Tuple>(pre))
        if (all_of(tuple->getFields(),
                   [](const Ref<Expr> &f) { return isa<Constant>(f.get()); }))
          return Ref<Expr>(post);
      if (!oracle.shouldReduce())
        return Ref<Expr>(post);
      Ref<Expr> zero = makeZero(pre->getCheckedType().get());
      return zero ? zero : Ref<Expr>(post);
    });
  });
}

//===----------------------------------------------------------------------===//
// unused-parameters
//===----------------------------------------------------------------------===//

static Ref<IRModule> removeUnusedParameters(const IRModule &module,
                                            Oracle &oracle) {
  GlobalUses uses(module);
  // Function name -> which of its parameters go.
  StringMap<SmallVector<bool, 8>> dropped;
  for (const IRModule::Entry &entry : module.getFunctions()) {
    if (!uses.isOnlyCalled(entry.var->getName()))
      continue;
    DenseSet<const Expr *> used;
    walk(entry.func->getBody().get(), [&](Expr *e) {
      if (isa<Var>(e))
        used.insert(e);
    });
    SmallVector<bool, 8> drop;
    bool any = false;
    for (const Ref<Var> &param : entry.func->getParams()) {
      drop.push_back(!used.count(param.get()) && oracle.shouldReduce());
      any |= drop.back();
    }
    if (any)
      dropped[entry.var->getName()] = std::move(drop);
  }
  if (dropped.empty())
    return Ref<IRModule>(const_cast<IRModule *>(&module));
  return mapFunctions(module, [&](const IRModule::Entry &entry) {
    Ref<Function> func = rewriteFunction(
        entry.func.get(), [&](Expr *pre, Expr *post) {
          auto *call = dyn_cast<Call>(post);
          auto *callee = call ? dyn_cast<GlobalVar>(call->getCallee().get())
                              : nullptr;
          auto it = callee ? dropped.find(callee->getName()) : dropped.end();
          if (it == dropped.end() || it->second.size() != call->getNumArgs())
            return Ref<Expr>(post);
          SmallVector<Ref<Expr>, 8> args;
          for (auto [arg, drop] : zip(call->getArgs(), it->second))
            if (!drop)
              args.push_back(arg);
          return Ref<Expr>(Call::get(call->getCallee(), args,
                                     call->getAttrs(), call->getLoc(),
                                     pre->getCheckedType()));
        });
    auto it = dropped.find(entry.var->getName());
    if (it == dropped.end())
      return func;
    SmallVector<Ref<Var>, 8> params;
    for (auto [param, drop] : zip(func->getParams(), it->second))
      if (!drop)
        params.push_back(param);
    return withParams(*func, params, func->getRetType());
  });
}

//===----------------------------------------------------------------------===//
// constants
//===----------------------------------------------------------------------===//

bool reduce::isZeroConstant(const Constant &constant) {
  const NDArray &data = constant.getData();
  int64_t n = data.getNumElements();
  if (n == 0)
    return true;
  if (n > 1 && !data.isRepeated())
    return false;
  return data.getElementBits(0) == 0;
}

static Ref<IRModule> shrinkConstants(const IRModule &module, Oracle &oracle) {
  return mapFunctions(module, [&](const IRModule::Entry &entry) {
    return rewriteFunction(entry.func.get(), [&](Expr *pre, Expr *post) {
      auto *constant = dyn_cast<Constant>(pre);
      if (!constant || isZeroConstant(*constant) || !oracle.shouldReduce())
        return Ref<Expr>(post);
      const NDArray &data = constant->getData();
      // Not a splat yet: a splat of the first element; else zeros.
      uint64_t bits = data.getNumElements() > 1 && !data.isRepeated()
                          ? data.getElementBits(0)
                          : 0;
      Expected<NDArray> smaller =
          NDArray::splat(data.getDType(), data.getShape(), bits);
      if (!smaller) {
        consumeError(smaller.takeError());
        return Ref<Expr>(post);
      }
      return Ref<Expr>(Constant::get(std::move(*smaller), pre->getLoc()));
    });
  });
}

//===----------------------------------------------------------------------===//
// shapes
//===----------------------------------------------------------------------===//

namespace {
/// Gives the parameters in `params` their new types and drops the
/// annotations that may no longer hold: let binders', return types.
struct Retyper : ExprMutator {
  DenseMap<const Var *, Ref<Type>> params;
  DenseSet<const Var *> letVars;

  Ref<Expr> visitVar(Var *var) override {
    auto it = params.find(var);
    if (it != params.end())
      return Var::get(var->getNameHint(), it->second, var->getLoc());
    if (letVars.count(var) && var->getTypeAnnotation())
      return Var::get(var->getNameHint(), nullptr, var->getLoc());
    return ExprMutator::visitVar(var);
  }
  Ref<Expr> rewriteFunction(Function *pre, Function *post) override {
    return Function::get(post->getParams(), post->getBody(), nullptr,
                         post->getAttrs(), post->getLoc());
  }
};
} // namespace

static Ref<IRModule> shrinkShapes(const IRModule &module, Oracle &oracle) {
  GlobalUses uses(module);
  return mapFunctions(module, [&](const IRModule::Entry &entry) {
    Function *func = entry.func.get();
    if (!uses.isUnused(entry.var->getName()))
      return entry.func;
    Retyper retyper;
    for (const Ref<Var> &param : func->getParams()) {
      const auto *type =
          dyn_cast_or_null<TensorType>(param->getCheckedType().get());
      if (!type)
        continue;
      SmallVector<int64_t, 4> shape(type->getShape());
      bool changed = false;
      for (int64_t &extent : shape)
        if (extent > 1 && oracle.shouldReduce()) {
          extent /= 2;
          changed = true;
        }
      if (changed)
        retyper.params[param.get()] =
            TensorType::get(shape, type->getDType());
    }
    if (retyper.params.empty())
      return entry.func;
    walk(func, [&](Expr *e) {
      if (auto *let = dyn_cast<Let>(e))
        retyper.letVars.insert(let->getVar().get());
    });
    return Ref<Function>(cast<Function>(retyper.mutate(func).get()));
  });
}

ArrayRef<Reduction> reduce::getReductions() {
  static const Reduction reductions[] = {
      {"remove-functions", removeFunctions},
      {"remove-lets", removeLets},
      {"operand", replaceByOperand},
      {"parameter", replaceByParameter},
      {"zero", replaceByZero},
      {"unused-parameters", removeUnusedParameters},
      {"constants", shrinkConstants},
      {"shapes", shrinkShapes},
  };
  return reductions;
}
