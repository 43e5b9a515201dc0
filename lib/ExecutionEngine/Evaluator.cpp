//===- Evaluator.cpp - Running graph IR on tensors ------------------------===//
//
/// \file
/// A task-stack interpreter over one function body (a frame): a first walk
/// counts the users of every node; the second evaluates in post-order,
/// releasing each value when its last user is done. Let and If continue in
/// the same frame (no native recursion along chains); calls of non-primitive
/// functions open a new frame, except calls in tail position, which replace
/// the frame (a trampoline: a recursive loop of any trip count runs in one
/// frame). A closure bound by a let sees its own variable (recursion).
//
//===----------------------------------------------------------------------===//

#include "nnir/ExecutionEngine/Evaluator.h"
#include "nnir/ExecutionEngine/Specialize.h"
#include "nnir/Codegen/Lowering.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Traversal.h"
#include "nnir/IR/Type.h"
#include "nnir/Ops/DynamicOps.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/DenseSet.h"

#include <optional>

using namespace llvm;
using namespace nnir;

RuntimeValue RuntimeValue::tensor(NDArray array) {
  RuntimeValue v;
  v.kind = Kind::Tensor;
  v.array = std::move(array);
  return v;
}

RuntimeValue RuntimeValue::tuple(std::vector<RuntimeValue> fields) {
  RuntimeValue v;
  v.kind = Kind::Tuple;
  v.fields =
      std::make_shared<const std::vector<RuntimeValue>>(std::move(fields));
  return v;
}

ArrayRef<RuntimeValue> RuntimeValue::getFields() const {
  if (!fields)
    return {};
  return *fields;
}

void RuntimeValue::flatten(std::vector<NDArray> &out) const {
  if (kind == Kind::Tensor) {
    out.push_back(array);
    return;
  }
  for (const RuntimeValue &f : getFields())
    f.flatten(out);
}

Evaluator::Evaluator(ExecutionEngine &engine, const IRModule *module,
                     EvaluatorOptions options)
    : engine(engine), module(module), options(options) {}
Evaluator::~Evaluator() = default;

/// The children of \p e that evaluation visits (callees that are operators,
/// global variables or function literals are handled by the call itself).
static SmallVector<const Expr *, 4> getEvaluatedChildren(const Expr *e) {
  SmallVector<const Expr *, 4> out;
  if (const auto *call = dyn_cast<Call>(e)) {
    const Expr *callee = call->getCallee().get();
    if (!isa<Op>(callee) && !isa<GlobalVar>(callee) && !isa<Function>(callee))
      out.push_back(callee);
    for (const Ref<Expr> &a : call->getArgs())
      out.push_back(a.get());
  } else if (const auto *t = dyn_cast<Tuple>(e)) {
    for (const Ref<Expr> &f : t->getFields())
      out.push_back(f.get());
  } else if (const auto *item = dyn_cast<TupleGetItem>(e)) {
    out.push_back(item->getTuple().get());
  } else if (const auto *let = dyn_cast<Let>(e)) {
    out.push_back(let->getValue().get());
    out.push_back(let->getBody().get());
  } else if (const auto *i = dyn_cast<If>(e)) {
    out.push_back(i->getCond().get());
    out.push_back(i->getThen().get());
    out.push_back(i->getElse().get());
  }
  return out;
}

/// Rebuilds a value of \p type from flat tensors.
static RuntimeValue structure(const Type *type, ArrayRef<NDArray> &flat) {
  if (const auto *tuple = dyn_cast_or_null<TupleType>(type)) {
    std::vector<RuntimeValue> fields;
    for (const Ref<Type> &f : tuple->getFields())
      fields.push_back(structure(f.get(), flat));
    return RuntimeValue::tuple(std::move(fields));
  }
  RuntimeValue v = RuntimeValue::tensor(flat.front());
  flat = flat.drop_front();
  return v;
}

/// The type of a run-time value (tensors and tuples).
static Ref<Type> typeOfValue(const RuntimeValue &v) {
  if (v.isTensor())
    return TensorType::get(v.getTensor().getShape(), v.getTensor().getDType());
  std::vector<Ref<Type>> fields;
  for (const RuntimeValue &f : v.getFields())
    fields.push_back(typeOfValue(f));
  return TupleType::get(fields);
}

/// True for an operator the evaluator runs by its run-time implementation.
static bool hasRuntimeImpl(const Op *op) {
  return getHostCompute(op) || getStaticForm(op);
}

/// The call of \p fn's body when it is a lone call of an operator with a
/// run-time implementation on parameters of \p fn (how FuseOps wraps an
/// opaque operator), with the parameter each argument is; else null.
static const Call *getLoneDynamicCall(const Function &fn,
                                      SmallVectorImpl<unsigned> &argParams) {
  const auto *call = dyn_cast<Call>(fn.getBody().get());
  const Op *op = call ? call->getCalledOp() : nullptr;
  if (!op || !hasRuntimeImpl(op))
    return nullptr;
  for (const Ref<Expr> &a : call->getArgs()) {
    auto it = llvm::find(fn.getParams(), a);
    if (it == fn.getParams().end())
      return nullptr;
    argParams.push_back(it - fn.getParams().begin());
  }
  return call;
}

/// True if \p fn's parameters or result have a `?` extent.
static bool hasDynamicTypes(const Function &fn) {
  if (hasDynamicShape(fn.getBody()->getCheckedType().get()))
    return true;
  return any_of(fn.getParams(), [](const Ref<Var> &p) {
    return hasDynamicShape(p->getCheckedType().get());
  });
}

Expected<Ref<Function>>
Evaluator::getSpecialization(const Function &fn, ArrayRef<RuntimeValue> args) {
  std::string key;
  SmallVector<Ref<Type>, 4> types;
  for (const RuntimeValue &a : args) {
    types.push_back(typeOfValue(a));
    key += types.back()->str() + ";";
  }
  {
    std::lock_guard<std::mutex> lock(cacheMutex);
    auto it = specializations.find({&fn, key});
    if (it != specializations.end()) {
      specializationOrder.splice(specializationOrder.begin(),
                                 specializationOrder, it->second);
      return it->second->specialized;
    }
  }
  Expected<Ref<Function>> specialized = specializeFunction(fn, types);
  if (!specialized)
    return specialized.takeError();
  std::lock_guard<std::mutex> lock(cacheMutex);
  auto [it, inserted] = specializations.try_emplace({&fn, key});
  if (!inserted)
    return it->second->specialized;
  specializationOrder.push_front(
      {it->first, Ref<Expr>(const_cast<Function *>(&fn)), *specialized});
  it->second = specializationOrder.begin();
  while (specializationOrder.size() >
         std::max<size_t>(options.maxSpecializations, 1)) {
    specializations.erase(specializationOrder.back().key);
    specializationOrder.pop_back();
  }
  return *specialized;
}

size_t Evaluator::getNumSpecializations() const {
  std::lock_guard<std::mutex> lock(cacheMutex);
  return specializationOrder.size();
}

bool Evaluator::mayRunSymbolic(const Function &fn) {
  std::lock_guard<std::mutex> lock(cacheMutex);
  auto it = symbolic.find(&fn);
  if (it == symbolic.end())
    it = symbolic
             .try_emplace(&fn, Ref<Expr>(const_cast<Function *>(&fn)),
                          canLowerSymbolic(fn))
             .first;
  return it->second.second;
}

Expected<RuntimeValue> Evaluator::runPrimitive(const Function &fn,
                                               ArrayRef<RuntimeValue> args,
                                               SMLoc loc, RunBudget &budget) {
  std::vector<NDArray> flat;
  for (const RuntimeValue &a : args) {
    if (a.getKind() == RuntimeValue::Kind::Closure)
      return makeError(loc, "cannot pass a function to a primitive function");
    a.flatten(flat);
  }
  SmallVector<unsigned, 4> argParams;
  if (const Call *call = getLoneDynamicCall(fn, argParams)) {
    std::vector<RuntimeValue> callArgs;
    for (unsigned p : argParams)
      callArgs.push_back(args[p]);
    return runDynamicOp(*call, callArgs, budget);
  }
  if (hasDynamicTypes(fn)) {
    // The shape function: the relations give the results' types for these
    // arguments.
    Expected<Ref<Function>> specialized = getSpecialization(fn, args);
    if (!specialized)
      return specialized.takeError();
    const Type *resultType = (*specialized)->getBody()->getCheckedType().get();
    if (mayRunSymbolic(fn)) {
      Expected<std::vector<NDArray>> results =
          engine.run(fn, flat, &budget, resultType);
      if (results) {
        ArrayRef<NDArray> rest = *results;
        return structure(resultType, rest);
      }
      Error error = results.takeError();
      if (error.isA<ResourceLimitError>())
        return error;
      // Arguments that disagree on an extent the kernel shares: this call is
      // specialised. A compute that needs static shapes: this function is
      // specialised from now on.
      bool refused = !error.isA<SharedExtentError>();
      consumeError(std::move(error));
      if (refused) {
        std::lock_guard<std::mutex> lock(cacheMutex);
        symbolic[&fn].second = false;
      }
    }
    return runPrimitive(**specialized, args, loc, budget);
  }
  Expected<std::vector<NDArray>> results = engine.run(fn, flat, &budget);
  if (!results)
    return results.takeError();
  ArrayRef<NDArray> rest = *results;
  return structure(fn.getBody()->getCheckedType().get(), rest);
}

Expected<RuntimeValue> Evaluator::runDynamicOp(const Call &call,
                                               ArrayRef<RuntimeValue> args,
                                               RunBudget &budget) {
  const Op *op = call.getCalledOp();
  std::vector<NDArray> values;
  for (const RuntimeValue &a : args) {
    if (!a.isTensor())
      return makeError(call.getLoc(), op->getName() + ": expected tensor "
                                                      "arguments");
    values.push_back(a.getTensor());
  }
  if (const HostComputeFn *host = getHostCompute(op)) {
    HostComputeContext ctx;
    ctx.loc = call.getLoc();
    ctx.allocate = [&](DataType dtype,
                       ArrayRef<int64_t> shape) -> Expected<NDArray> {
      uint64_t bytes = dtype.getStorageBytes();
      for (int64_t d : shape)
        bytes *= uint64_t(d);
      if (bytes > budget.maxBufferBytes)
        return make_error<ResourceLimitError>(
            call.getLoc(), (op->getName() + ": a result of " + Twine(bytes) +
                            " bytes exceeds the limit of " +
                            Twine(budget.maxBufferBytes) + " bytes")
                               .str());
      return engine.allocate(dtype, shape, call.getLoc());
    };
    Expected<std::vector<NDArray>> results =
        (*host)(values, call.getAttrsOrDefaults(), ctx);
    if (!results)
      return results.takeError();
    ArrayRef<NDArray> rest = *results;
    return structure(call.getCheckedType().get(), rest);
  }
  // The static form: typed for the arguments' shapes, run as a kernel
  // (compiled once per distinct form, through the engine's caches).
  const StaticFormFn &form = *getStaticForm(op);
  std::vector<Ref<Expr>> params;
  for (size_t i = 0, e = values.size(); i != e; ++i) {
    Ref<Type> type = typeOfValue(args[i]);
    params.push_back(
        Var::get(("p" + Twine(i)).str(), type, call.getLoc(), type));
  }
  Expected<Ref<Expr>> body = form(call, params, values);
  if (!body)
    return body.takeError();
  Expected<Ref<Expr>> typed = typeDataflow(*body);
  if (!typed)
    return typed.takeError();
  // The kernel's parameters: those the static form reads.
  std::vector<Ref<Var>> used;
  std::vector<RuntimeValue> usedArgs;
  DenseSet<const Expr *> reached;
  walk((*typed).get(), [&](Expr *e) { reached.insert(e); });
  for (size_t i = 0, e = params.size(); i != e; ++i)
    if (reached.count(params[i].get())) {
      used.push_back(cast<Var>(params[i]));
      usedArgs.push_back(args[i]);
    }
  Ref<DictAttrs> attrs = DictAttrs::get({NamedAttrValue{
      attr::kPrimitive.str(), AttrValue::integer(1), SMLoc()}});
  Ref<Function> fn = Function::get(used, *typed, (*typed)->getCheckedType(),
                                   attrs, call.getLoc());
  return runPrimitive(*fn, usedArgs, call.getLoc(), budget);
}

Expected<RuntimeValue> Evaluator::runOp(const Call &call,
                                        ArrayRef<RuntimeValue> args,
                                        RunBudget &budget) {
  if (hasRuntimeImpl(call.getCalledOp()))
    return runDynamicOp(call, args, budget);
  std::unique_lock<std::mutex> lock(cacheMutex);
  auto it = wrappers.find(&call);
  if (it == wrappers.end()) {
    if (!call.getCheckedType())
      return makeError(call.getLoc(), "cannot evaluate a call without an "
                                      "inferred type (run InferType first)");
    std::vector<Ref<Var>> params;
    std::vector<Ref<Expr>> refs;
    for (unsigned i = 0; i < args.size(); ++i) {
      // A `?` argument type stays: the wrapper is then specialised to each
      // run's shapes (runPrimitive).
      Ref<Type> type = call.getArgs()[i]->getCheckedType();
      if (!type || !hasDynamicShape(type.get()))
        type = typeOfValue(args[i]);
      params.push_back(
          Var::get(("p" + Twine(i)).str(), type, call.getLoc(), type));
      refs.push_back(params.back());
    }
    Ref<Call> body = Call::get(call.getCallee(), refs, call.getAttrs(),
                               call.getLoc(), call.getCheckedType());
    Ref<DictAttrs> attrs = DictAttrs::get({NamedAttrValue{
        attr::kPrimitive.str(), AttrValue::integer(1), SMLoc()}});
    Ref<Function> fn = Function::get(params, body, call.getCheckedType(), attrs,
                                     call.getLoc());
    it = wrappers.try_emplace(&call, Ref<Call>(const_cast<Call *>(&call)), fn)
             .first;
  }
  Ref<Function> fn = it->second.second;
  lock.unlock();
  return runPrimitive(*fn, args, call.getLoc(), budget);
}

Expected<RuntimeValue> Evaluator::callFunction(const Function &fn,
                                               ArrayRef<RuntimeValue> args,
                                               const RuntimeValue *closure,
                                               unsigned depth, SMLoc loc,
                                               RunBudget &budget) {
  if (fn.getNumParams() != args.size())
    return makeArityError("function", fn.getNumParams(), args.size(), loc);
  if (fn.isPrimitive())
    return runPrimitive(fn, args, loc, budget);
  if (depth + 1 > options.maxCallDepth)
    return makeError(loc, "calls nest deeper than " +
                              Twine(options.maxCallDepth) + " levels");
  return evaluateIn(*fn.getBody(), bindArgs(fn, args, closure), depth + 1,
                    budget);
}

DenseMap<const Var *, RuntimeValue>
Evaluator::bindArgs(const Function &fn, ArrayRef<RuntimeValue> args,
                    const RuntimeValue *closure) {
  DenseMap<const Var *, RuntimeValue> env;
  if (closure && closure->captured)
    env = *closure->captured;
  // A closure bound by a let sees itself (held here, not in its captured
  // bindings, so no closure owns itself).
  if (closure && closure->self)
    env[closure->self] = *closure;
  for (unsigned i = 0; i < args.size(); ++i)
    env[fn.getParam(i).get()] = args[i];
  return env;
}

/// The function a call of \p call's callee runs: a function literal, a
/// global function of \p module, or a closure's function (null when there is
/// none, or for operators).
static const Function *resolveCallee(const Call &call,
                                     const RuntimeValue *callee,
                                     const IRModule *module) {
  const Expr *target = call.getCallee().get();
  if (const auto *fn = dyn_cast<Function>(target))
    return fn;
  if (const auto *gv = dyn_cast<GlobalVar>(target))
    return module ? module->lookup(gv) : nullptr;
  if (callee && callee->getKind() == RuntimeValue::Kind::Closure)
    return callee->getFunction();
  return nullptr;
}

/// The nodes in tail position of \p root: their value is the frame's value
/// (the root; a let's body, and its value when the body is its variable, as
/// ToANormalForm writes `let %v = f(...); %v`; both branches of an if).
static DenseSet<const Expr *> getTailPositions(const Expr &root) {
  DenseSet<const Expr *> tail;
  SmallVector<const Expr *, 8> work{&root};
  while (!work.empty()) {
    const Expr *e = work.pop_back_val();
    if (!tail.insert(e).second)
      continue;
    if (const auto *let = dyn_cast<Let>(e)) {
      work.push_back(let->getBody().get());
      if (let->getBody() == let->getVar())
        work.push_back(let->getValue().get());
    } else if (const auto *i = dyn_cast<If>(e)) {
      work.push_back(i->getThen().get());
      work.push_back(i->getElse().get());
    }
  }
  return tail;
}

Expected<RuntimeValue> Evaluator::callValue(const Call &call,
                                            const RuntimeValue *callee,
                                            ArrayRef<RuntimeValue> args,
                                            unsigned depth,
                                            RunBudget &budget) {
  const Expr *target = call.getCallee().get();
  if (isa<Op>(target))
    return runOp(call, args, budget);
  if (const auto *fn = dyn_cast<Function>(target))
    return callFunction(*fn, args, nullptr, depth, call.getLoc(), budget);
  if (const auto *gv = dyn_cast<GlobalVar>(target)) {
    const Function *fn = module ? module->lookup(gv) : nullptr;
    if (!fn)
      return makeError(call.getLoc(), "no global function @" + gv->getName());
    return callFunction(*fn, args, nullptr, depth, call.getLoc(), budget);
  }
  if (!callee || callee->getKind() != RuntimeValue::Kind::Closure)
    return makeError(call.getLoc(), "cannot call a value that is not a "
                                    "function");
  return callFunction(*callee->function, args, callee, depth, call.getLoc(),
                      budget);
}

RuntimeValue
Evaluator::makeClosure(const Function &fn,
                       const DenseMap<const Expr *, RuntimeValue> &values,
                       const Var *self) {
  RuntimeValue closure;
  closure.kind = RuntimeValue::Kind::Closure;
  closure.function = Ref<Function>(const_cast<Function *>(&fn));
  closure.self = self;
  auto captured = std::make_shared<DenseMap<const Var *, RuntimeValue>>();
  for (auto &[node, value] : values)
    if (const auto *var = dyn_cast<Var>(node))
      (*captured)[var] = value;
  closure.captured = std::move(captured);
  return closure;
}

Expected<RuntimeValue>
Evaluator::evaluateIn(const Expr &start, DenseMap<const Var *, RuntimeValue> env,
                      unsigned depth, RunBudget &budget) {
  // The frame's expression: the start, then the body of each function called
  // in tail position (the trampoline). Its tables are computed once per
  // distinct body, so a self-recursive loop computes them once.
  const Expr *root = &start;
  const Expr *analysed = nullptr;
  DenseMap<const Expr *, unsigned> rootUses;
  DenseSet<const Expr *> tail;
  Ref<Function> current;
  for (;;) {
    if (root != analysed) {
      // Users of every node reachable without entering functions (each
      // node's edges counted once, when the walker first enters it).
      rootUses.clear();
      walkPostOrder(
          const_cast<Expr *>(root),
          [&](Expr *e) {
            for (const Expr *c : getEvaluatedChildren(e))
              ++rootUses[c];
          },
          nullptr, [](Expr *e, SmallVectorImpl<Expr *> &children) {
            for (const Expr *c : getEvaluatedChildren(e))
              children.push_back(const_cast<Expr *>(c));
          });
      tail = getTailPositions(*root);
      analysed = root;
    }
    std::optional<TailCall> next;
    Expected<RuntimeValue> result =
        runFrame(*root, std::move(env), rootUses, tail, depth, next, budget);
    if (!result || !next)
      return result;
    // Replace the frame by the callee's (the values of this one are gone).
    root = next->function->getBody().get();
    env = std::move(next->env);
    // Keep the function alive while its body is evaluated.
    current = std::move(next->function);
  }
}

Expected<RuntimeValue>
Evaluator::runFrame(const Expr &root, DenseMap<const Var *, RuntimeValue> env,
                    DenseMap<const Expr *, unsigned> uses,
                    const DenseSet<const Expr *> &tail, unsigned depth,
                    std::optional<TailCall> &next, RunBudget &budget) {
  DenseMap<const Expr *, RuntimeValue> values;
  for (auto &[var, value] : env)
    values[var] = value;
  env.clear();
  auto release = [&](const Expr *e) {
    auto it = uses.find(e);
    if (it != uses.end() && --it->second == 0 && e != &root)
      values.erase(e);
  };

  enum class Task : uint8_t { Visit, Finish, LetBody, IfBranch, Alias };
  struct Item {
    Task task;
    const Expr *e;
    const Expr *from = nullptr;
  };
  // Hand-written rather than a PostOrderWalker: an interpreter's task
  // stack. Let and If decide what to visit next from values computed on the
  // way (an If visits only the branch taken), which no fixed child list can.
  SmallVector<Item, 64> stack{{Task::Visit, &root}};
  while (!stack.empty()) {
    Item item = stack.pop_back_val();
    const Expr *e = item.e;
    switch (item.task) {
    case Task::Visit: {
      if (values.count(e))
        break;
      if (const auto *c = dyn_cast<Constant>(e)) {
        values[e] = RuntimeValue::tensor(c->getData());
        break;
      }
      if (const auto *v = dyn_cast<Var>(e))
        return makeError(v->getLoc(),
                         "variable '%" + v->getNameHint() + "' is not bound");
      if (const auto *fn = dyn_cast<Function>(e)) {
        values[e] = makeClosure(*fn, values, nullptr);
        break;
      }
      if (isa<Op>(e) || isa<GlobalVar>(e))
        return makeError(e->getLoc(), "cannot evaluate an operator or a "
                                      "global function as a value");
      if (const auto *let = dyn_cast<Let>(e)) {
        stack.push_back({Task::LetBody, e});
        // A let-bound function literal sees its own variable (Relay's
        // recursive let).
        if (const auto *fn = dyn_cast<Function>(let->getValue().get())) {
          if (!values.count(fn))
            values[fn] = makeClosure(*fn, values, let->getVar().get());
          break;
        }
        stack.push_back({Task::Visit, let->getValue().get()});
        break;
      }
      if (const auto *i = dyn_cast<If>(e)) {
        stack.push_back({Task::IfBranch, e});
        stack.push_back({Task::Visit, i->getCond().get()});
        break;
      }
      stack.push_back({Task::Finish, e});
      SmallVector<const Expr *, 4> children = getEvaluatedChildren(e);
      for (const Expr *c : llvm::reverse(children))
        stack.push_back({Task::Visit, c});
      break;
    }
    case Task::LetBody: {
      const auto *let = cast<Let>(e);
      // Copy first: inserting may move the map's storage.
      RuntimeValue value = values[let->getValue().get()];
      values[let->getVar().get()] = std::move(value);
      release(let->getValue().get());
      stack.push_back({Task::Alias, e, let->getBody().get()});
      stack.push_back({Task::Visit, let->getBody().get()});
      break;
    }
    case Task::IfBranch: {
      const auto *i = cast<If>(e);
      RuntimeValue cond = values[i->getCond().get()];
      if (!cond.isTensor() || cond.getTensor().getNumElements() != 1)
        return makeError(i->getCond()->getLoc(),
                         "the condition of an if must be a scalar tensor");
      bool taken = cond.getTensor().getElementAsDouble(0) != 0;
      release(i->getCond().get());
      const Expr *branch = taken ? i->getThen().get() : i->getElse().get();
      stack.push_back({Task::Alias, e, branch});
      stack.push_back({Task::Visit, branch});
      break;
    }
    case Task::Alias: {
      RuntimeValue value = values[item.from];
      values[e] = std::move(value);
      release(item.from);
      break;
    }
    case Task::Finish: {
      if (const auto *t = dyn_cast<Tuple>(e)) {
        std::vector<RuntimeValue> fields;
        for (const Ref<Expr> &f : t->getFields())
          fields.push_back(values[f.get()]);
        values[e] = RuntimeValue::tuple(std::move(fields));
      } else if (const auto *get = dyn_cast<TupleGetItem>(e)) {
        RuntimeValue tuple = values[get->getTuple().get()];
        if (!tuple.isTuple() || get->getIndex() >= tuple.getFields().size())
          return makeError(e->getLoc(), "projection of a non-tuple value or "
                                        "an index out of range");
        values[e] = tuple.getFields()[get->getIndex()];
      } else {
        const auto *call = cast<Call>(e);
        std::vector<RuntimeValue> args;
        for (const Ref<Expr> &a : call->getArgs())
          args.push_back(values[a.get()]);
        const Expr *callee = call->getCallee().get();
        std::optional<RuntimeValue> calleeValue;
        if (values.count(callee))
          calleeValue = values[callee];
        const RuntimeValue *calleePtr = calleeValue ? &*calleeValue : nullptr;
        // A call in tail position of a non-primitive function replaces this
        // frame: the caller's trampoline continues with the callee's body.
        if (tail.count(e)) {
          const Function *fn = resolveCallee(*call, calleePtr, module);
          if (fn && !fn->isPrimitive()) {
            if (fn->getNumParams() != args.size())
              return makeArityError("function", fn->getNumParams(),
                                    args.size(), call->getLoc());
            next = TailCall{Ref<Function>(const_cast<Function *>(fn)),
                            bindArgs(*fn, args, calleePtr)};
            return RuntimeValue();
          }
        }
        Expected<RuntimeValue> result =
            callValue(*call, calleePtr, args, depth, budget);
        if (!result)
          return result.takeError();
        values[e] = std::move(*result);
      }
      for (const Expr *c : getEvaluatedChildren(e))
        release(c);
      break;
    }
    }
  }
  return values[&root];
}

RunBudget Evaluator::makeBudget() const {
  RunBudget budget;
  budget.maxBufferBytes = options.maxBufferBytes;
  budget.maxWork = options.maxWork;
  return budget;
}

Expected<RuntimeValue>
Evaluator::evaluate(const Expr &expr,
                    const DenseMap<const Var *, RuntimeValue> &bindings) {
  RunBudget budget = makeBudget();
  return evaluateIn(expr, bindings, 0, budget);
}

Expected<RuntimeValue> Evaluator::evaluate(const Expr &expr) {
  RunBudget budget = makeBudget();
  return evaluateIn(expr, DenseMap<const Var *, RuntimeValue>(), 0, budget);
}

Expected<RuntimeValue> Evaluator::call(const Function &fn,
                                       ArrayRef<RuntimeValue> args) {
  RunBudget budget = makeBudget();
  return callFunction(fn, args, nullptr, 0, fn.getLoc(), budget);
}
