//===- ToANormalForm.cpp - Conversion to A-normal form --------------------===//
//
/// \file
/// Two sweeps, as in Relay: a scope analysis gives every non-atomic node the
/// least common ancestor of the scopes of its uses (scopes are function
/// bodies and if branches), then a memoised rewrite binds each node, once,
/// in its scope's list of bindings; a scope's list becomes a let chain when
/// the scope is closed (an if branch or a function body is done).
///
/// Both sweeps are iterative along dataflow edges and let chains; the
/// rewrite recurses only into if branches and nested functions (syntactic
/// nesting, bounded by the parser).
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/ToANormalForm.h"

#include "nnir/IR/ExprMutator.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Traversal.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <string>
#include <vector>

using namespace llvm;
using namespace nnir;

/// Variables, global variables and operators are never bound.
static bool isAtomic(const Expr *e) {
  return isa<Var>(e) || isa<GlobalVar>(e) || isa<Op>(e);
}

//===----------------------------------------------------------------------===//
// Scope analysis
//===----------------------------------------------------------------------===//

namespace {

/// The scope of every non-atomic node: the least common ancestor of the
/// scopes it is used in. Scope 0 holds the root; an if opens one scope per
/// branch and a function one for its body, under the scope of the if or the
/// function.
class ScopeAnalysis {
public:
  static constexpr unsigned kGlobal = 0;

  void run(Expr *root);

  /// The scope \p e is bound in.
  unsigned getScope(const Expr *e) const { return scopeOf[index.lookup(e)]; }
  /// The scope of branch \p i of an if (0: then, 1: else), or of the body of
  /// a function (\p i = 0).
  unsigned getSubScope(const Expr *e, unsigned i) const {
    return firstSubScope.lookup(e) + i;
  }
  size_t getNumScopes() const { return scopes.size(); }

private:
  struct Scope {
    unsigned parent;
    unsigned level;
  };
  static constexpr unsigned kUnset = ~0u;

  unsigned newScope(unsigned parent) {
    scopes.push_back({parent, scopes[parent].level + 1});
    return scopes.size() - 1;
  }
  unsigned leastCommonAncestor(unsigned a, unsigned b) const {
    while (a != b) {
      if (scopes[a].level > scopes[b].level)
        a = scopes[a].parent;
      else if (scopes[b].level > scopes[a].level)
        b = scopes[b].parent;
      else {
        a = scopes[a].parent;
        b = scopes[b].parent;
      }
    }
    return a;
  }

  std::vector<Scope> scopes;
  /// Non-atomic nodes in post-order, their indices and scopes.
  std::vector<Expr *> order;
  DenseMap<const Expr *, unsigned> index;
  std::vector<unsigned> scopeOf;
  DenseMap<const Expr *, unsigned> firstSubScope;
};

} // namespace

/// Calls \p fn(child, subScope) on the non-atomic children of \p e in
/// evaluation order; subScope is -1 for a child in the scope of \p e, else
/// the index of the sub-scope of \p e the child is in (an if's branches are
/// sub-scopes 0 and 1, a function's body is sub-scope 0).
template <typename Fn> static void forEachScopedChild(Expr *e, Fn &&fn) {
  if (auto *func = dyn_cast<Function>(e); func && func->isOpaque())
    return;
  forEachChild(e, [&](Expr *child, ChildRole role) {
    if (!child || isAtomic(child))
      return;
    switch (role) {
    case ChildRole::Then:
    case ChildRole::FunctionBody:
      fn(child, 0);
      return;
    case ChildRole::Else:
      fn(child, 1);
      return;
    default:
      fn(child, -1);
      return;
    }
  });
}

void ScopeAnalysis::run(Expr *root) {
  scopes.push_back({kGlobal, 0});
  if (isAtomic(root))
    return;
  // Post-order of the non-atomic nodes: users after what they use. The
  // index is the memo.
  PostOrderWalker walker(PostOrderWalker::Memo::Hooks);
  walker.walk(
      root,
      [&](Expr *e) {
        return index.count(e) ? WalkAction::Skip : WalkAction::Descend;
      },
      [&](Expr *e) {
        index[e] = order.size();
        order.push_back(e);
      },
      [](Expr *e, SmallVectorImpl<Expr *> &children) {
        forEachScopedChild(
            e, [&](Expr *child, int) { children.push_back(child); });
      });

  // Users come before what they use in reverse post-order, so a node's scope
  // is final when it is reached; it then passes its scopes on.
  scopeOf.assign(order.size(), kUnset);
  scopeOf[index[root]] = kGlobal;
  for (Expr *e : reverse(order)) {
    unsigned scope = scopeOf[index[e]];
    unsigned numSubScopes =
        isa<If>(e)                                                 ? 2
        : isa<Function>(e) && !cast<Function>(e)->isOpaque() ? 1
                                                                   : 0;
    if (numSubScopes) {
      firstSubScope[e] = scopes.size();
      for (unsigned i = 0; i < numSubScopes; ++i)
        newScope(scope);
    }
    forEachScopedChild(e, [&](Expr *child, int subScope) {
      unsigned useScope =
          subScope < 0 ? scope : firstSubScope.lookup(e) + subScope;
      unsigned &childScope = scopeOf[index[child]];
      childScope = childScope == kUnset
                       ? useScope
                       : leastCommonAncestor(childScope, useScope);
    });
  }
}

//===----------------------------------------------------------------------===//
// The rewrite
//===----------------------------------------------------------------------===//

namespace {

/// Binds every non-atomic node in its scope. mutate(e) returns the atom
/// that stands for e (its variable).
class ANormalizer final : public ExprMutator {
public:
  ANormalizer(Expr *root, unsigned &numFresh) : numFresh(numFresh) {
    calleeLast = true;
    scopes.run(root);
    bindings.resize(scopes.getNumScopes());
  }

  /// The converted root.
  Ref<Expr> convertRoot(Expr *root) {
    if (auto *func = dyn_cast<Function>(root))
      return convertFunction(func);
    Ref<Expr> atom = convert(root);
    return close(ScopeAnalysis::kGlobal, std::move(atom));
  }

private:
  struct Binding {
    Ref<Var> var;
    Ref<Expr> value;
  };

  /// The atom of \p root. Dataflow nodes are converted in post-order in
  /// Relay's evaluation order (calleeLast): a call's arguments, then its
  /// callee (so a fused function is bound right before its call).
  Ref<Expr> convert(Expr *root) { return mutate(root); }

  /// Binds \p now (the rewritten form of \p orig) in the scope of \p orig;
  /// the variable is the let variable \p orig is the value of, if any.
  Ref<Expr> bind(Expr *orig, Ref<Expr> now) {
    Ref<Var> var = orig == pendingValue
                       ? Ref<Var>(pendingVar)
                       : Var::get("x_" + std::to_string(numFresh++), nullptr,
                                  orig->getLoc());
    bindings[scopes.getScope(orig)].push_back({var, std::move(now)});
    return var;
  }

  /// Wraps the bindings of \p scope around \p body and clears them.
  Ref<Expr> close(unsigned scope, Ref<Expr> body) {
    std::vector<Binding> &list = bindings[scope];
    for (Binding &binding : reverse(list)) {
      SMLoc loc = binding.value->getLoc();
      body = Let::get(std::move(binding.var), std::move(binding.value),
                      std::move(body), loc);
    }
    list.clear();
    return body;
  }

  /// The body of \p func converted in its own scope.
  Ref<Expr> convertBody(Function *func) {
    Ref<Expr> body = convert(func->getBody().get());
    return close(scopes.getSubScope(func, 0), std::move(body));
  }

  Ref<Expr> convertFunction(Function *func) {
    if (func->isOpaque())
      return func;
    Ref<Expr> body = convertBody(func);
    if (body == func->getBody())
      return func;
    return Function::get(func->getParams(), std::move(body), func->getRetType(),
                         func->getAttrs(), func->getLoc());
  }

  Ref<Expr> visitConstant(Constant *e) override { return bind(e, e); }
  Ref<Expr> rewriteCall(Call *pre, Call *post) override {
    return bind(pre, post);
  }
  Ref<Expr> rewriteTuple(Tuple *pre, Tuple *post) override {
    return bind(pre, post);
  }
  Ref<Expr> rewriteTupleGetItem(TupleGetItem *pre,
                                TupleGetItem *post) override {
    return bind(pre, post);
  }

  Ref<Expr> visitIf(If *e) override {
    Ref<Expr> cond = convert(e->getCond().get());
    Ref<Expr> thenBranch =
        close(scopes.getSubScope(e, 0), convert(e->getThen().get()));
    Ref<Expr> elseBranch =
        close(scopes.getSubScope(e, 1), convert(e->getElse().get()));
    return bind(e, If::get(std::move(cond), std::move(thenBranch),
                           std::move(elseBranch), e->getLoc()));
  }

  Ref<Expr> visitFunction(Function *func) override {
    return bind(func, convertFunction(func));
  }

  /// A chain of lets is flattened: each value is bound to its own variable
  /// (in the value's scope), and the chain stands for the atom of its body.
  Ref<Expr> visitLet(Let *let) override {
    // When this chain is itself the value of a let, its body is bound to
    // that let's variable directly.
    const Expr *outerValue = pendingValue;
    Var *outerVar = pendingVar;
    SmallVector<Let *, 8> chain;
    Let *cur = let;
    for (;;) {
      chain.push_back(cur);
      Var *var = cur->getVar().get();
      Expr *value = cur->getValue().get();
      const Expr *savedValue = pendingValue;
      Var *savedVar = pendingVar;
      pendingValue = value;
      pendingVar = var;
      Ref<Expr> atom = convert(value);
      pendingValue = savedValue;
      pendingVar = savedVar;
      // A value bound elsewhere already, an atom, or a let: copy its atom.
      if (atom != var)
        bindings[scopes.getScope(cur)].push_back({var, std::move(atom)});
      auto *next = dyn_cast<Let>(cur->getBody().get());
      if (!next || memo.count(next))
        break;
      cur = next;
    }
    if (outerValue == let) {
      pendingValue = cur->getBody().get();
      pendingVar = outerVar;
    }
    Ref<Expr> body = convert(cur->getBody().get());
    pendingValue = outerValue;
    pendingVar = outerVar;
    for (Let *l : chain)
      if (l != let)
        memo[l] = body;
    return body;
  }

  ScopeAnalysis scopes;
  std::vector<std::vector<Binding>> bindings;
  /// The value of the let being converted and its variable.
  const Expr *pendingValue = nullptr;
  Var *pendingVar = nullptr;
  /// The number of fresh variables made so far (they are numbered).
  unsigned &numFresh;
};

} // namespace

Ref<Expr> nnir::toANormalForm(Expr *expr, unsigned &numFresh) {
  if (!expr || isAtomic(expr))
    return expr;
  ANormalizer normalizer(expr, numFresh);
  return normalizer.convertRoot(expr);
}

Ref<Expr> nnir::toANormalForm(Expr *expr) {
  unsigned numFresh = 0;
  return toANormalForm(expr, numFresh);
}

Ref<Pass> nnir::createToANormalFormPass() {
  PassInfo info("ToANormalForm", /*optLevel=*/1);
  info.description = "bind every non-atomic expression to a let variable, "
                     "once, in the innermost scope covering its uses";
  return createModulePass(
      [](Ref<IRModule> module, PassContext &) -> Expected<Ref<IRModule>> {
        std::vector<IRModule::Entry> updates;
        // One numbering for the module, so fresh names are unique in it.
        unsigned numFresh = 0;
        for (const IRModule::Entry &entry : module->getFunctions()) {
          if (entry.func->getAttr(attr::kCompiler))
            continue;
          Ref<Expr> converted = toANormalForm(entry.func.get(), numFresh);
          if (converted != entry.func)
            updates.push_back(
                {entry.var, Ref<Function>(cast<Function>(converted.get()))});
        }
        if (updates.empty())
          return module;
        Ref<IRModule> result = module->shallowCopy();
        for (IRModule::Entry &update : updates)
          if (Error err = result->add(update.var, std::move(update.func),
                                      /*update=*/true))
            return err;
        return result;
      },
      std::move(info));
}
