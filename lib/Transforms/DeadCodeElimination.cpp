//===- DeadCodeElimination.cpp - Drop unused let bindings -----------------===//
//
/// \file
/// Implements DeadCodeElimination (see DeadCodeElimination.h) in Relay's
/// three steps, each without recursion along dataflow edges or let chains:
///
///  1. PurityAnalysis: for every let-bound variable of the module, whether
///     evaluating its value is pure (per function, in parallel, for the
///     functions that call no other function of the module). Besides the purity of evaluating an
///     expression it tracks, for function-typed expressions, the purity of
///     calling them (Relay's rules A-F without references and ADTs).
///  2. UsageCounter, per function: how often each let variable is used by
///     live code, saturating at 2. A pure value is visited only when its
///     variable is first used, so the uses inside dead bindings are never
///     counted.
///  3. Eliminator: an ExprMutator that drops unused pure bindings and
///     replaces single-use ones by their value (with inlineOnce).
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/DeadCodeElimination.h"
#include "nnir/Transforms/Passes.h"

#include "nnir/IR/ExprMutator.h"
#include "nnir/IR/ExprVisitor.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/IR/Traversal.h"
#include "nnir/Pass/Parallel.h"
#include "nnir/Pass/PassRegistry.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"

#include <optional>

using namespace llvm;
using namespace nnir;

namespace {

//===----------------------------------------------------------------------===//
// Purity
//===----------------------------------------------------------------------===//

struct Purity {
  /// Evaluating the expression is pure.
  bool pureEval = true;
  /// Calling the (function-typed) value is pure; true for first-order values.
  bool pureCall = true;
};

/// True unless \p e is known to be a function.
bool isFirstOrder(const Expr *e) {
  return !isa_and_nonnull<FuncType>(e->getCheckedType().get());
}

/// Computes the purity of every let-bound value of a module, with a
/// PostOrderWalker.
class PurityAnalysis {
public:
  explicit PurityAnalysis(const IRModule &module) : module(module) {}

  /// Whether the module analysis starts at \p func (it is reached only
  /// through references otherwise).
  static bool isRoot(const Function &func) {
    return !func.isPrimitive() && !func.hasNonZeroAttr(attr::kExtern);
  }

  void analyzeModule() {
    for (const IRModule::Entry &entry : module.getFunctions())
      if (isRoot(*entry.func))
        evaluate(entry.var.get());
  }

  /// Analyzes \p func alone, as analyzeModule() would if \p func refers to
  /// no function of the module; returns false (and the results are not to
  /// be used) if it does.
  bool analyzeFunctionAlone(Function *func) {
    alone = true;
    evaluate(func);
    return !reachedGlobal;
  }

  /// Whether the value bound to \p var is pure (false if unknown).
  bool isPure(const Var *var) const {
    auto it = varPurity.find(var);
    return it != varPurity.end() && it->second.pureEval;
  }

private:
  /// A node whose children are being evaluated, and how many of them the
  /// walk reached.
  struct Frame {
    Expr *expr;
    unsigned childrenReached;
  };

  /// The purity of an evaluated node (variables and globals are read from
  /// their tables, which a recursive binding revises).
  Purity get(const Expr *e) const {
    if (const auto *var = dyn_cast<Var>(e)) {
      auto it = varPurity.find(var);
      if (it != varPurity.end())
        return {true, it->second.pureCall};
      return {true, isFirstOrder(var)};
    }
    if (const auto *global = dyn_cast<GlobalVar>(e)) {
      auto it = globalPurity.find(global->getName());
      return it != globalPurity.end() ? it->second : Purity{true, false};
    }
    return memo.lookup(e);
  }

  /// True if \p e needs no frame of its own (done, or read from a table).
  bool isDone(const Expr *e) const {
    if (isa<Var>(e))
      return true;
    if (const auto *global = dyn_cast<GlobalVar>(e))
      return globalPurity.count(global->getName());
    return memo.count(e);
  }

  void evaluate(Expr *root) {
    // The memo is ours (isDone). A global's child is its function, so a
    // function is evaluated before its first reference.
    PostOrderWalker walker(PostOrderWalker::Memo::Hooks);
    walker.walk(
        root, [&](Expr *e) { return enter(e); }, [&](Expr *e) { exit(e); },
        [&](Expr *e, SmallVectorImpl<Expr *> &children) {
          if (auto *global = dyn_cast<GlobalVar>(e)) {
            children.push_back(module.lookup(global->getName()));
            return;
          }
          forEachChild(e, [&](Expr *child, ChildRole role) {
            if (!isBinder(role))
              children.push_back(child);
          });
        });
  }

  /// Evaluates a leaf, or prepares a node for its children.
  WalkAction enter(Expr *e) {
    // A let's variable takes its value's purity when the walk reaches the
    // let's body.
    if (!frames.empty())
      if (auto *let = dyn_cast<Let>(frames.back().expr))
        if (frames.back().childrenReached++ == 1)
          varPurity[let->getVar().get()] = get(let->getValue().get());
    if (isDone(e))
      return WalkAction::Skip;
    switch (e->getKind()) {
    case Expr::Kind::Constant:
      memo[e] = {true, true};
      return WalkAction::Skip;
    case Expr::Kind::Op:
      memo[e] = {true, !isStatefulOp(cast<Op>(e))};
      return WalkAction::Skip;
    case Expr::Kind::GlobalVar: {
      auto *global = cast<GlobalVar>(e);
      Function *func = module.lookup(global->getName());
      if (!func || func->hasNonZeroAttr(attr::kExtern) || alone) {
        // Externals are assumed call-impure (rule F).
        reachedGlobal |= alone && func && !func->hasNonZeroAttr(attr::kExtern);
        globalPurity[global->getName()] = {true, false};
        return WalkAction::Skip;
      }
      // A recursive reference sees the function as pure until its body
      // says otherwise.
      globalPurity[global->getName()] = {true, true};
      break;
    }
    case Expr::Kind::Function:
      // Higher-order parameters are assumed call-impure (rule B).
      for (const Ref<Var> &param : cast<Function>(e)->getParams())
        varPurity[param.get()] = {true, isFirstOrder(param.get())};
      break;
    case Expr::Kind::Let:
      // A recursive function sees its own variable as call-pure until its
      // value says otherwise.
      varPurity[cast<Let>(e)->getVar().get()] = {true, true};
      break;
    default:
      break;
    }
    frames.push_back({e, 0});
    return WalkAction::Descend;
  }

  /// Evaluates \p e from its evaluated children.
  void exit(Expr *e) {
    frames.pop_back();
    switch (e->getKind()) {
    case Expr::Kind::GlobalVar: {
      auto *global = cast<GlobalVar>(e);
      globalPurity[global->getName()] =
          memo.lookup(module.lookup(global->getName()));
      return;
    }
    case Expr::Kind::Function: {
      Purity body = get(cast<Function>(e)->getBody().get());
      // A function value is pure; calling it is as pure as its body
      // (rule A).
      memo[e] = {true, body.pureEval && body.pureCall};
      return;
    }
    case Expr::Kind::Call: {
      auto *call = cast<Call>(e);
      Purity callee = get(call->getCallee().get());
      bool argsPure = llvm::all_of(call->getArgs(), [&](const Ref<Expr> &a) {
        return get(a.get()).pureEval;
      });
      memo[e] = {argsPure && callee.pureEval && callee.pureCall,
                 isFirstOrder(call) || callee.pureCall};
      return;
    }
    case Expr::Kind::Tuple:
      // The call purity of the fields is lost (rule C).
      memo[e] = {llvm::all_of(cast<Tuple>(e)->getFields(),
                              [&](const Ref<Expr> &f) {
                                return get(f.get()).pureEval;
                              }),
                 true};
      return;
    case Expr::Kind::TupleGetItem: {
      auto *item = cast<TupleGetItem>(e);
      memo[e] = {get(item->getTuple().get()).pureEval, isFirstOrder(item)};
      return;
    }
    case Expr::Kind::If: {
      auto *branch = cast<If>(e);
      Purity cond = get(branch->getCond().get());
      Purity thenP = get(branch->getThen().get());
      Purity elseP = get(branch->getElse().get());
      memo[e] = {cond.pureEval && thenP.pureEval && elseP.pureEval,
                 thenP.pureCall && elseP.pureCall};
      return;
    }
    case Expr::Kind::Let: {
      auto *let = cast<Let>(e);
      Purity value = varPurity[let->getVar().get()];
      Purity body = get(let->getBody().get());
      memo[e] = {value.pureEval && body.pureEval, body.pureCall};
      return;
    }
    case Expr::Kind::Constant:
    case Expr::Kind::Op:
    case Expr::Kind::Var:
      return; // Evaluated on entry.
    }
  }

  const IRModule &module;
  /// analyzeFunctionAlone: a reference to a function of the module is not
  /// followed but recorded in reachedGlobal.
  bool alone = false;
  bool reachedGlobal = false;
  /// The nodes whose children are being evaluated, innermost last.
  SmallVector<Frame, 64> frames;
  DenseMap<const Expr *, Purity> memo;
  DenseMap<const Var *, Purity> varPurity;
  StringMap<Purity> globalPurity;
};

//===----------------------------------------------------------------------===//
// Usage
//===----------------------------------------------------------------------===//

/// Counts the live uses of every let variable of one function (saturating
/// at 2), visiting each node at most twice as Relay's UsageVisitor does.
class UsageCounter {
public:
  UsageCounter(function_ref<bool(const Var *)> isPure) : isPure(isPure) {}

  struct Binding {
    Expr *value;
    /// Number of enclosing local functions at the binding.
    unsigned level;
    /// Live uses, saturating at 2.
    unsigned uses = 0;
  };

  void count(Expr *root) {
    stack.push_back({root, 0});
    // Hand-written: a liveness count, not a memoised walk: a node is visited up
    // to twice, and a pure let value is reached through its variable's first
    // use.
    while (!stack.empty()) {
      auto [e, level] = stack.pop_back_val();
      if (++visits[e] > 2)
        continue;
      if (auto *var = dyn_cast<Var>(e)) {
        auto it = bindings.find(var);
        if (it == bindings.end())
          continue; // A parameter.
        Binding &binding = it->second;
        if (++binding.uses == 1 && isPure(var))
          // The first use makes a pure value live.
          stack.push_back({binding.value, binding.level});
        // A use inside a local function may run many times.
        if (binding.level < level)
          ++binding.uses;
        binding.uses = std::min(binding.uses, 2u);
        continue;
      }
      if (isa<Let>(e)) {
        // The whole chain: bind every variable, then visit the body and the
        // impure values (pure ones wait for their first use).
        Expr *body = e;
        SmallVector<Expr *, 8> impure;
        while (auto *let = dyn_cast<Let>(body)) {
          if (let != e)
            ++visits[let];
          bindings.try_emplace(let->getVar().get(),
                               Binding{let->getValue().get(), level});
          if (!isPure(let->getVar().get()))
            impure.push_back(let->getValue().get());
          body = let->getBody().get();
        }
        stack.push_back({body, level});
        for (Expr *value : llvm::reverse(impure))
          stack.push_back({value, level});
        continue;
      }
      // Any other node: its operands, visited in order; a function's body is
      // one level deeper.
      SmallVector<Child, 4> children = getChildren(e);
      for (const Child &child : llvm::reverse(children))
        if (!isBinder(child.role))
          stack.push_back({child.expr, child.role == ChildRole::FunctionBody
                                           ? level + 1
                                           : level});
    }
  }

  const Binding *lookup(const Var *var) const {
    auto it = bindings.find(var);
    return it == bindings.end() ? nullptr : &it->second;
  }

private:
  function_ref<bool(const Var *)> isPure;
  SmallVector<std::pair<Expr *, unsigned>, 64> stack;
  DenseMap<const Expr *, unsigned> visits;
  DenseMap<const Var *, Binding> bindings;
};

//===----------------------------------------------------------------------===//
// Elimination
//===----------------------------------------------------------------------===//

class Eliminator : public ExprMutator {
public:
  Eliminator(const UsageCounter &usage, function_ref<bool(const Var *)> isPure,
             bool inlineOnce)
      : usage(usage), isPure(isPure), inlineOnce(inlineOnce) {}

  Ref<Expr> visitVar(Var *var) override {
    if (actionFor(var) == Action::Inline)
      return mutate(usage.lookup(var)->value);
    return var;
  }

  Ref<Expr> rewriteLet(Let *pre, Let *post) override {
    switch (actionFor(pre->getVar().get())) {
    case Action::Elide:
      ++numRemoved;
      return post->getBody();
    case Action::Inline:
      ++numInlined; // Already substituted at its use.
      return post->getBody();
    case Action::Keep:
      break;
    }
    return post;
  }

  int64_t numRemoved = 0;
  int64_t numInlined = 0;

private:
  enum class Action { Elide, Inline, Keep };

  Action actionFor(const Var *var) const {
    const UsageCounter::Binding *binding = usage.lookup(var);
    if (!binding || !isPure(var))
      return Action::Keep;
    if (binding->uses == 0)
      return Action::Elide;
    if (binding->uses == 1 && inlineOnce)
      return Action::Inline;
    return Action::Keep;
  }

  const UsageCounter &usage;
  function_ref<bool(const Var *)> isPure;
  bool inlineOnce;
};

/// The global functions \p entries reach through references, iteratively.
class ReachableFunctions : public ExprVisitor {
public:
  explicit ReachableFunctions(const IRModule &module) : module(module) {}

  void visitGlobalVar(GlobalVar *global) override {
    if (reached.insert(global->getName()).second)
      worklist.push_back(global->getName().str());
  }

  void run(ArrayRef<std::string> entries) {
    for (const std::string &name : entries)
      if (reached.insert(name).second)
        worklist.push_back(name);
    // Hand-written: a worklist of function names; each function is walked by
    // the ExprVisitor.
    while (!worklist.empty()) {
      std::string name = worklist.pop_back_val();
      if (Function *func = module.lookup(name))
        visit(func);
    }
  }

  StringSet<> reached;

private:
  const IRModule &module;
  SmallVector<std::string, 8> worklist;
};

} // namespace

Expected<Ref<IRModule>> nnir::eliminateDeadCode(
    Ref<IRModule> module, const DeadCodeEliminationOptions &options,
    int64_t *numRemoved, int64_t *numInlined, int64_t *numFunctionsRemoved,
    PassContext *ctx) {
  if (options.removeUnusedFunctions)
    for (const std::string &name : options.entryFunctions)
      if (!module->contains(name))
        return makeError("DeadCodeElimination: entry function @" + name +
                         " is not in the module");

  // Each function on its own, in parallel when \p ctx has a thread pool. A
  // root that refers to no function of the module has its purity analyzed
  // in its own task (what the module analysis would find for it); the
  // others, and the functions only references reach, wait for the module
  // analysis, run once and only when some root refers to a function.
  ArrayRef<IRModule::Entry> entries = module->getFunctions();
  size_t n = entries.size();
  std::vector<Ref<Expr>> rewritten(n);
  std::vector<std::pair<int64_t, int64_t>> counts(n);
  // Why function i waits for the module analysis (None: it is done).
  enum Deferred : char { None, NotRoot, RefersToFunction };
  std::vector<Deferred> deferred(n, None);
  auto eliminate = [&](size_t i, const PurityAnalysis *purity) {
    auto isPure = [&](const Var *var) {
      return options.ignoreImpurity || (purity && purity->isPure(var));
    };
    UsageCounter usage(isPure);
    usage.count(entries[i].func.get());
    Eliminator eliminator(usage, isPure, options.inlineOnce);
    rewritten[i] = eliminator.mutate(entries[i].func.get());
    counts[i] = {eliminator.numRemoved, eliminator.numInlined};
  };
  auto forEach = [&](function_ref<void(size_t)> body) -> Error {
    if (!ctx) {
      for (size_t i = 0; i != n; ++i)
        body(i);
      return Error::success();
    }
    return parallelForEach(*ctx, n, [&](size_t i, PassContext &) {
      body(i);
      return Error::success();
    });
  };
  if (Error err = forEach([&](size_t i) {
        if (options.ignoreImpurity)
          return eliminate(i, nullptr);
        if (!PurityAnalysis::isRoot(*entries[i].func)) {
          deferred[i] = NotRoot;
          return;
        }
        PurityAnalysis purity(*module);
        if (purity.analyzeFunctionAlone(entries[i].func.get()))
          eliminate(i, &purity);
        else
          deferred[i] = RefersToFunction;
      }))
    return err;
  if (llvm::any_of(deferred, [](Deferred d) { return d != None; })) {
    std::optional<PurityAnalysis> purity;
    if (llvm::is_contained(deferred, RefersToFunction)) {
      purity.emplace(*module);
      purity->analyzeModule();
    }
    if (Error err = forEach([&](size_t i) {
          if (deferred[i] != None)
            eliminate(i, purity ? &*purity : nullptr);
        }))
      return err;
  }

  Ref<IRModule> result;
  for (size_t i = 0, e = entries.size(); i != e; ++i) {
    if (numRemoved)
      *numRemoved += counts[i].first;
    if (numInlined)
      *numInlined += counts[i].second;
    if (rewritten[i] == entries[i].func)
      continue;
    if (!result)
      result = module->shallowCopy();
    if (Error err = result->add(entries[i].var,
                                cast<Function>(rewritten[i].get()),
                                /*update=*/true))
      return err;
  }

  if (options.removeUnusedFunctions) {
    const IRModule &current = result ? *result : *module;
    ReachableFunctions reachable(current);
    reachable.run(options.entryFunctions);
    SmallVector<std::string, 4> unused;
    for (const IRModule::Entry &entry : current.getFunctions())
      if (!reachable.reached.count(entry.var->getName()))
        unused.push_back(entry.var->getName().str());
    if (!unused.empty() && !result)
      result = module->shallowCopy();
    for (const std::string &name : unused)
      result->remove(name);
    if (numFunctionsRemoved)
      *numFunctionsRemoved += unused.size();
  }
  return result ? result : module;
}

Ref<Pass>
nnir::createDeadCodeEliminationPass(DeadCodeEliminationOptions options) {
  PassInfo info =
      getBuiltinPassInfo(BuiltinPass::DeadCodeElimination, {"InferType"});
  return createModulePass(
      [options](Ref<IRModule> module,
                PassContext &ctx) -> Expected<Ref<IRModule>> {
        int64_t removed = 0, inlined = 0, functions = 0;
        Expected<Ref<IRModule>> result =
            eliminateDeadCode(std::move(module), options, &removed, &inlined,
                              &functions, &ctx);
        if (!result)
          return result.takeError();
        PassStatistics &stats = ctx.getStatistics();
        stats.add("DeadCodeElimination", "num-removed", removed,
                  "Number of let bindings removed");
        stats.add("DeadCodeElimination", "num-inlined", inlined,
                  "Number of let bindings inlined");
        stats.add("DeadCodeElimination", "num-functions-removed", functions,
                  "Number of unreachable functions removed");
        return result;
      },
      std::move(info));
}
