//===- FoldConstant.cpp - Constant folding through the JIT ----------------===//
//
/// \file
/// FoldConstant in three steps:
///  1. Mark. A post-order rewrite (ExprMutator) applies TVM's rules in TVM's
///     order. A call that would fold is not evaluated yet: it is marked
///     *pending* (its value is a compile-time constant). Lets of constants
///     and of pending tensors are inlined, `(x, c).0` projects, shape_of and
///     ndarray_size become constants from static types. An `if` whose
///     condition is pending evaluates the condition at once, to pick its
///     branch. As in Relay, every rule looks through one `on_device`
///     wrapper: `on_device(c)` counts as constant, a let bound to it is
///     inlined with its wrapper, and `on_device((a, b)).0` becomes
///     `on_device(a)`. The wrappers around an evaluated call's operands are
///     dropped from the evaluation; those around its uses stay.
///  2. Evaluate. The *roots* are the pending nodes that non-pending code
///     uses. All roots are evaluated together: one function returning the
///     tuple of roots, compiled by the Executor (FuseOps, InferType) and run
///     on the ExecutionEngine the caller handed in (see FoldConstant.h). Roots above the size guard are dropped
///     first (their pending operands become roots). If the evaluation fails,
///     the pending nodes under the roots are evaluated one at a time
///     (TVM's order), to find the ones that fail: those stay unfolded, with
///     a warning, and the roots are collected again.
///  3. Materialise. A rewrite replaces every evaluated root by its value.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/FoldConstant.h"
#include "nnir/Transforms/Passes.h"

#include "nnir/ExecutionEngine/Evaluator.h"
#include "nnir/ExecutionEngine/ExecutionEngine.h"
#include "nnir/IR/ExprMutator.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/IR/Traversal.h"
#include "nnir/Ops/Compute.h"
#include "nnir/Ops/DataMovementAttrs.h"
#include "nnir/Ops/DynamicOps.h"
#include "nnir/Ops/OnDevice.h"
#include "nnir/Ops/QNN.h"
#include "nnir/Pass/PassContext.h"
#include "nnir/Pass/Remark.h"
#include "nnir/Support/Diagnostics.h"
#include "nnir/Transforms/Executor.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"

#include <mutex>
#include <optional>
#include <set>

using namespace llvm;
using namespace nnir;

static constexpr StringLiteral kPassName = "FoldConstant";

//===----------------------------------------------------------------------===//
// The folder
//===----------------------------------------------------------------------===//

namespace {

/// Why a call that looked constant did not fold.
enum class SkipReason : unsigned {
  Stateful,
  NonComputational,
  DeviceCopy,
  InsidePrimitive,
  NoCompute,
  SizeGuard,
  ResourceLimit,
  EvaluationFailed,
};
constexpr unsigned kNumSkipReasons = 8;

struct SkipReasonInfo {
  StringLiteral remark;
  StringLiteral counter;
  StringLiteral description;
};
constexpr SkipReasonInfo kSkipReasons[kNumSkipReasons] = {
    {"Stateful", "num-skipped-stateful",
     "Constant calls of stateful operators not folded"},
    {"NonComputational", "num-skipped-non-computational",
     "Constant calls of non-computational operators not folded"},
    {"DeviceCopy", "num-skipped-device-copy",
     "Constant device_copy calls not folded"},
    {"InsidePrimitive", "num-skipped-inside-primitive",
     "Constant calls inside primitive functions not folded"},
    {"NoCompute", "num-skipped-no-compute",
     "Constant calls of operators without a compute not folded"},
    {"SizeGuard", "num-skipped-size-guard",
     "Constant values not materialised by the size guard"},
    {"ResourceLimit", "num-skipped-resource-limit",
     "Constant calls whose evaluation would exceed a bound"},
    {"EvaluationFailed", "num-skipped-evaluation-failed",
     "Constant calls whose evaluation failed"},
};

/// The bytes of a value of type \p type (tensors and tuples of them), or
/// nullopt when it is not statically known.
std::optional<uint64_t> getStaticBytes(const Type *type) {
  if (!type)
    return std::nullopt;
  if (const auto *tensor = dyn_cast<TensorType>(type)) {
    uint64_t bytes = tensor->getDType().getStorageBytes();
    for (int64_t dim : tensor->getShape()) {
      if (dim < 0)
        return std::nullopt;
      if (dim && bytes > UINT64_MAX / uint64_t(dim))
        return UINT64_MAX;
      bytes *= uint64_t(dim);
    }
    return bytes;
  }
  if (const auto *tuple = dyn_cast<TupleType>(type)) {
    uint64_t total = 0;
    for (const Ref<Type> &field : tuple->getFields()) {
      std::optional<uint64_t> bytes = getStaticBytes(field.get());
      if (!bytes)
        return std::nullopt;
      total = *bytes > UINT64_MAX - total ? UINT64_MAX : total + *bytes;
    }
    return total;
  }
  return std::nullopt;
}

/// The number of constants and their bytes in a folded value.
void measureValue(const Expr *value, uint64_t &numConstants, uint64_t &bytes) {
  if (const auto *constant = dyn_cast<Constant>(value)) {
    ++numConstants;
    bytes += constant->getData().getByteSize();
    return;
  }
  for (const Ref<Expr> &field : cast<Tuple>(value)->getFields())
    measureValue(field.get(), numConstants, bytes);
}

/// Converts an evaluated value into a Constant or a tuple of them, located
/// at \p loc.
Expected<Ref<Expr>> valueToExpr(const RuntimeValue &value, SMLoc loc) {
  if (value.isTensor())
    return Ref<Expr>(Constant::get(value.getTensor(), loc));
  if (!value.isTuple())
    return makeError(loc, "the value is a closure, not a constant");
  SmallVector<Ref<Expr>, 4> fields;
  for (const RuntimeValue &field : value.getFields()) {
    Expected<Ref<Expr>> expr = valueToExpr(field, loc);
    if (!expr)
      return expr.takeError();
    fields.push_back(std::move(*expr));
  }
  return Ref<Expr>(Tuple::get(fields, loc));
}

/// The evaluator's bounds for \p options.
EvaluatorOptions getEvaluatorOptions(const FoldConstantOptions &options) {
  EvaluatorOptions evaluatorOptions;
  evaluatorOptions.maxBufferBytes = options.maxBufferBytes;
  evaluatorOptions.maxWork = options.maxWork;
  return evaluatorOptions;
}

class ConstantFolder final : public ExprMutator {
public:
  ConstantFolder(const IRModule *module, PassContext &ctx,
                 const FoldConstantOptions &options, StringRef function,
                 ExecutionEngine &engine)
      : module(module), ctx(ctx), options(options), function(function.str()),
        engine(engine), shapeOf(Op::lookup("shape_of")),
        ndarraySize(Op::lookup("ndarray_size")),
        deviceCopy(Op::lookup("device_copy")),
        passedRemarks(ctx.isRemarkEnabled(RemarkKind::Passed, kPassName)),
        missedRemarks(ctx.isRemarkEnabled(RemarkKind::Missed, kPassName)) {}

  Ref<Expr> run(Expr *expr);
  void recordStatistics();

private:
  //===--------------------------------------------------------------------===//
  // Step 1: mark
  //===--------------------------------------------------------------------===//

  bool isPending(const Expr *e) const {
    return pendingType.count(e) && !unfolded.count(e);
  }

  /// A constant, a pending node, or a tuple of those, each looked at through
  /// one on_device wrapper (TVM's IsComplexConstant, with pending nodes
  /// standing for their values).
  bool isConstantValued(const Expr *e) const {
    e = ignoreOnDevice(e);
    if (isa<Constant>(e) || isPending(e))
      return true;
    if (const auto *tuple = dyn_cast<Tuple>(e))
      return all_of(tuple->getFields(), [this](const Ref<Expr> &field) {
        return isConstantValued(field.get());
      });
    return false;
  }

  bool hasConstantArgs(const Call *call) const {
    return all_of(call->getArgs(), [this](const Ref<Expr> &arg) {
      return isConstantValued(arg.get());
    });
  }

  void markPending(Expr *post, Ref<Type> type) {
    if (pendingType.try_emplace(post, std::move(type)).second)
      pendingOrder.push_back(post);
  }

  void skip(SkipReason reason, const Expr *node, const Twine &why) {
    ++skipped[unsigned(reason)];
    if (!missedRemarks)
      return;
    const SkipReasonInfo &info = kSkipReasons[unsigned(reason)];
    ctx.emitRemark(
        Remark(RemarkKind::Missed, kPassName, info.remark, node->getLoc())
            .setFunction(function)
        << why.str());
  }

  /// shape_of / ndarray_size of a statically shaped input, as a constant.
  Ref<Expr> foldShapeQuery(const Call *pre, Op *op);

  std::optional<bool> getConstantCondition(Expr *cond);

  Ref<Expr> visitFunction(Function *func) override {
    bool saved = insidePrimitive;
    insidePrimitive |= func->isPrimitive();
    Ref<Expr> result = ExprMutator::visitFunction(func);
    insidePrimitive = saved;
    return result;
  }

  Ref<Expr> rewriteCall(Call *pre, Call *post) override;

  Ref<Expr> rewriteTupleGetItem(TupleGetItem *pre,
                                TupleGetItem *post) override {
    // Through on_device, whose wrapper goes to the field (TVM's
    // MaybeOnDeviceWithProps).
    OnDeviceProps onDevice = getOnDeviceProps(post->getTuple().get());
    Expr *tuple = onDevice ? onDevice.body : post->getTuple().get();
    auto rewrap = [&](Ref<Expr> field) {
      return onDevice ? maybeOnDeviceWithProps(std::move(field),
                                               *onDevice.attrs)
                      : field;
    };
    if (auto *literal = dyn_cast<Tuple>(tuple))
      if (pre->getIndex() < literal->getFields().size())
        return rewrap(literal->getFields()[pre->getIndex()]);
    if (!isPending(tuple))
      return post;
    if (!onDevice) {
      markPending(post, pre->getCheckedType());
      return post;
    }
    Ref<Expr> item = TupleGetItem::get(tuple, pre->getIndex(), pre->getLoc(),
                                       pre->getCheckedType());
    markPending(item.get(), pre->getCheckedType());
    return rewrap(std::move(item));
  }

  Ref<Expr> visitLet(Let *let) override {
    // Values first, so that a let bound to a constant (or to a pending
    // tensor) is substituted into its uses before they are visited.
    for (Let *cur = let;;) {
      // Inlined with its on_device wrapper, if any.
      Ref<Expr> value = mutate(cur->getValue().get());
      Expr *inner = ignoreOnDevice(value.get());
      if (isa<Constant>(inner) ||
          (isPending(inner) &&
           isa_and_nonnull<TensorType>(pendingType[inner].get())))
        memo[cur->getVar().get()] = value;
      auto *next = dyn_cast<Let>(cur->getBody().get());
      if (!next || memo.count(next))
        break;
      cur = next;
    }
    return ExprMutator::visitLet(let);
  }

  Ref<Expr> rewriteLet(Let *pre, Let *post) override {
    // A substituted binding is dropped.
    auto it = memo.find(pre->getVar().get());
    if (it != memo.end() && it->second.get() != pre->getVar().get())
      return post->getBody();
    return post;
  }

  Ref<Expr> visitIf(If *e) override {
    Ref<Expr> cond = mutate(e->getCond().get());
    if (std::optional<bool> value =
            getConstantCondition(ignoreOnDevice(cond.get())))
      return mutate(*value ? e->getThen().get() : e->getElse().get());
    return ExprMutator::visitIf(e);
  }

  //===--------------------------------------------------------------------===//
  // Step 2: evaluate
  //===--------------------------------------------------------------------===//

  /// The pending nodes that non-pending code reachable from \p top uses, in
  /// first-use order.
  std::vector<Expr *> collectRoots(Expr *top);

  /// \p node with its pending operands replaced by their values where known.
  /// Counts the pending calls it passes in \p numCalls.
  Ref<Expr> substitute(Expr *node);

  /// Evaluates \p nodes together; on success records their values.
  Error evaluate(ArrayRef<Expr *> nodes);

  /// Evaluates the pending nodes under \p roots one at a time, in post-order;
  /// those that fail (or whose operands failed) become unfolded.
  void evaluatePerCall(ArrayRef<Expr *> roots);

  /// Evaluates \p roots: together, and one at a time if that fails.
  void resolve(ArrayRef<Expr *> roots) {
    if (!options.perCall) {
      Error err = evaluate(roots);
      if (!err)
        return;
      consumeError(std::move(err));
    }
    evaluatePerCall(roots);
  }

  /// The pending nodes among the operands of \p node (through tuples).
  void getPendingOperands(Expr *node, SmallVectorImpl<Expr *> &out) const;

  /// The size guard: true if \p root must not be materialised.
  bool exceedsSizeGuard(Expr *root);

  void warn(SMLoc loc, const std::string &message) {
    if (warned.insert(std::make_pair(loc.getPointer(), message)).second)
      ctx.emitWarning(loc, message);
  }

  //===--------------------------------------------------------------------===//
  // State
  //===--------------------------------------------------------------------===//

  const IRModule *module;
  PassContext &ctx;
  const FoldConstantOptions &options;
  std::string function;
  ExecutionEngine &engine;
  Op *shapeOf, *ndarraySize, *deviceCopy;
  bool passedRemarks, missedRemarks;
  bool insidePrimitive = false;

  /// Pending nodes and their static types (null when unknown).
  DenseMap<const Expr *, Ref<Type>> pendingType;
  std::vector<Ref<Expr>> pendingOrder;
  /// Evaluated pending nodes: a Constant or a tuple of them.
  DenseMap<const Expr *, Ref<Expr>> values;
  /// Pending nodes that stay as they are (failed, guarded, or over failed
  /// operands).
  DenseSet<const Expr *> unfolded;
  std::set<std::pair<const char *, std::string>> warned;

  /// The context evaluations run under (entered for each).
  Ref<PassContext> evalContext;
  /// The evaluation of the module at hand, as a pass (ConstEvaluate).
  Ref<Pass> evalPass;
  RuntimeValue evalResult;

public:
  uint64_t skipped[kNumSkipReasons] = {};
  uint64_t numCallsFolded = 0, numConstants = 0, numBytes = 0,
           numEvaluations = 0;
};

} // namespace

Ref<Expr> ConstantFolder::foldShapeQuery(const Call *pre, Op *op) {
  if (pre->getArgs().size() != 1)
    return nullptr;
  const auto *input =
      dyn_cast_or_null<TensorType>(pre->getArg(0)->getCheckedType().get());
  if (!input)
    return nullptr;
  // Attribute records have no RTTI of their own: check the type key.
  const Attrs *attrs = pre->getAttrs().get();
  DataType dtype;
  if (!attrs)
    return nullptr;
  if (attrs->getTypeKey() == ShapeOfAttrs::typeKey)
    dtype = static_cast<const ShapeOfAttrs *>(attrs)->dtype;
  else if (attrs->getTypeKey() == NdarraySizeAttrs::typeKey)
    dtype = static_cast<const NdarraySizeAttrs *>(attrs)->dtype;
  else
    return nullptr;
  ArrayRef<int64_t> dims = input->getShape();
  // A `?` extent is known at run time only: TVM leaves the query too.
  if (!isStaticShape(dims))
    return nullptr;
  bool isFloat = dtype.isFloatingPoint();
  if (op == shapeOf) {
    // The relation types shape_of of a 0-d tensor as 0-d (as TVM's), and
    // there is no value to fold it to (TVM folds uninitialised memory).
    if (dims.empty())
      return nullptr;
    Expected<NDArray> array = NDArray::create(dtype, {int64_t(dims.size())});
    if (!array) {
      consumeError(array.takeError());
      return nullptr;
    }
    for (size_t i = 0; i < dims.size(); ++i) {
      if (isFloat)
        array->setElementFromDouble(i, double(dims[i]));
      else
        array->setElementFromInt(i, dims[i]);
    }
    return Constant::get(std::move(*array), pre->getLoc());
  }
  int64_t size = 1;
  for (int64_t dim : dims)
    size *= dim;
  Expected<NDArray> array = NDArray::create(dtype, {});
  if (!array) {
    consumeError(array.takeError());
    return nullptr;
  }
  if (isFloat)
    array->setElementFromDouble(0, double(size));
  else
    array->setElementFromInt(0, size);
  return Constant::get(std::move(*array), pre->getLoc());
}

Ref<Expr> ConstantFolder::rewriteCall(Call *pre, Call *post) {
  Op *op = post->getCalledOp();
  // The rules, in TVM's order.
  if (insidePrimitive) {
    if (op && !post->getArgs().empty() && hasConstantArgs(post))
      skip(SkipReason::InsidePrimitive, pre,
           "not folded: " + op->getName() + " is inside a primitive function");
    return pre;
  }
  if (post->getArgs().empty() || !op)
    return post;
  if (isStatefulOp(op)) {
    if (hasConstantArgs(post))
      skip(SkipReason::Stateful, pre,
           "not folded: " + op->getName() + " is stateful");
    return post;
  }
  if (op == shapeOf || op == ndarraySize) {
    if (Ref<Expr> folded = foldShapeQuery(pre, op)) {
      ++numCallsFolded;
      ++numConstants;
      numBytes += cast<Constant>(folded.get())->getData().getByteSize();
      if (passedRemarks)
        ctx.emitRemark(
            Remark(RemarkKind::Passed, kPassName, "Folded", pre->getLoc())
                .setFunction(function)
            << "folded " << op->getName()
            << " from the static type of its input");
      return folded;
    }
    return post;
  }
  if (isNonComputationalOp(op)) {
    if (hasConstantArgs(post))
      skip(SkipReason::NonComputational, pre,
           "not folded: " + op->getName() + " is not computational");
    return post;
  }
  if (op == deviceCopy) {
    if (hasConstantArgs(post))
      skip(SkipReason::DeviceCopy, pre, "not folded: device_copy never folds");
    return post;
  }
  if (!hasConstantArgs(post))
    return post;
  if (getQnnCanonicalization(op)) {
    // A QNN call folds through its canonicalization (the Executor's
    // QnnCanonicalize), and only when asked to (TVM's fold_qnn).
    if (!options.foldQnn) {
      skip(SkipReason::NonComputational, pre,
           "not folded: " + op->getName() + " is a QNN operator (fold_qnn)");
      return post;
    }
    markPending(post, pre->getCheckedType());
    return post;
  }
  // An operator with data-dependent extents folds through its run-time
  // implementation (its result becomes a constant of static type).
  if (!getOpCompute(op) && !getHostCompute(op) && !getStaticForm(op)) {
    std::string message =
        "cannot fold this call: " + op->getName().str() + " has no compute";
    skip(SkipReason::NoCompute, pre,
         "not folded: " + op->getName() + " has no compute");
    warn(pre->getLoc(), message);
    return post;
  }
  markPending(post, pre->getCheckedType());
  return post;
}

std::optional<bool> ConstantFolder::getConstantCondition(Expr *cond) {
  if (!isa<Constant>(cond)) {
    if (!isPending(cond))
      return std::nullopt;
    if (!values.count(cond))
      resolve({cond});
    auto it = values.find(cond);
    if (it == values.end())
      return std::nullopt;
    cond = it->second.get();
  }
  const auto *constant = dyn_cast<Constant>(cond);
  if (!constant)
    return std::nullopt;
  const NDArray &data = constant->getData();
  // The bool's value (not the first byte of some other dtype).
  if (!data.getDType().isBool() || data.getNumElements() != 1)
    return std::nullopt;
  return data.getElementAsInt(0) != 0;
}

void ConstantFolder::getPendingOperands(Expr *node,
                                        SmallVectorImpl<Expr *> &out) const {
  // The operands, through tuple literals; a pending node is not entered.
  PostOrderWalker walker;
  forEachOperand(node, [&](Expr *operand) {
    walker.walk(
        operand,
        [&](Expr *e) {
          if (pendingType.count(e)) {
            out.push_back(e);
            return WalkAction::SkipChildren;
          }
          return isa<Tuple>(e) || getOnDeviceProps(e)
                     ? WalkAction::Descend
                     : WalkAction::SkipChildren;
        },
        nullptr, [](Expr *e, SmallVectorImpl<Expr *> &children) {
          forEachOperand(e, [&](Expr *child) { children.push_back(child); });
        });
  });
}

std::vector<Expr *> ConstantFolder::collectRoots(Expr *top) {
  // Hand-written rather than a PostOrderWalker: a root is recorded when it
  // is first *reached* (all children of a node before any grandchild), and
  // that order is the order of the evaluation's tuple, of the remarks and
  // of the warnings; a walker's depth-first entry order would change it.
  std::vector<Expr *> roots;
  DenseSet<const Expr *> seen;
  SmallVector<Expr *, 64> stack;
  auto use = [&](Expr *e) {
    if (!e || !seen.insert(e).second)
      return;
    if (isPending(e))
      roots.push_back(e);
    else
      stack.push_back(e);
  };
  use(top);
  while (!stack.empty()) {
    Expr *e = stack.pop_back_val();
    // Every child but binders: a root may sit in any scope.
    forEachChild(e, [&use](Expr *child, ChildRole role) {
      if (!isBinder(role))
        use(child);
    });
  }
  return roots;
}

Ref<Expr> ConstantFolder::substitute(Expr *node) {
  // Post-order over the pending subgraph; values and constants are leaves.
  DenseMap<const Expr *, Ref<Expr>> done;
  auto leaf = [&](Expr *e) -> Ref<Expr> {
    if (e != node) {
      auto it = values.find(e);
      if (it != values.end())
        return it->second;
    }
    if (isa<Constant>(e) || isa<Op>(e))
      return e;
    return nullptr;
  };
  auto children = [](Expr *e, SmallVectorImpl<Expr *> &out) {
    forEachOperand(e, [&out](Expr *child) { out.push_back(child); });
  };
  SmallVector<Expr *, 4> kids;
  walkPostOrder(
      node,
      [&](Expr *e) {
        Ref<Expr> value = leaf(e);
        if (!value)
          return WalkAction::Descend;
        done[e] = std::move(value);
        return WalkAction::Skip;
      },
      [&](Expr *e) {
        kids.clear();
        children(e, kids);
        bool changed = false;
        SmallVector<Ref<Expr>, 4> newKids;
        for (Expr *kid : kids) {
          newKids.push_back(done[kid]);
          changed |= newKids.back().get() != kid;
        }
        Ref<Expr> result = e;
        if (e != node && getOnDeviceProps(e)) {
          // The evaluation needs no placement (TVM drops these too).
          done[e] = newKids[0];
          return;
        }
        if (changed) {
          if (auto *call = dyn_cast<Call>(e))
            result = Call::get(call->getCallee(), newKids, call->getAttrs(),
                               call->getLoc());
          else if (auto *tuple = dyn_cast<Tuple>(e))
            result = Tuple::get(newKids, tuple->getLoc());
          else
            result = TupleGetItem::get(
                newKids[0], cast<TupleGetItem>(e)->getIndex(), e->getLoc());
        }
        done[e] = result;
      },
      children);
  return done[node];
}

Error ConstantFolder::evaluate(ArrayRef<Expr *> nodes) {
  if (!evalPass) {
    // A nested context: the user's disabled passes, config and printing
    // instruments do not apply; timing sees the passes under ours.
    evalContext = ctx.createNestedContext();
    PassInfo info("ConstEvaluate", /*optLevel=*/0);
    info.description = "compile and run FoldConstant's evaluation";
    evalPass = createModulePass(
        [this](Ref<IRModule> mod, PassContext &pc) -> Expected<Ref<IRModule>> {
          ExecutorOptions executorOptions;
          executorOptions.fuseOptLevel = 2;
          executorOptions.evaluator = getEvaluatorOptions(options);
          Expected<std::unique_ptr<Executor>> executor =
              Executor::create(mod, engine, executorOptions, &pc);
          if (!executor)
            return executor.takeError();
          PassInfo runInfo("JITRun", /*optLevel=*/0);
          runInfo.description = "run main through the JIT";
          Ref<Pass> run = createModulePass(
              [&](Ref<IRModule> m, PassContext &) -> Expected<Ref<IRModule>> {
                Expected<RuntimeValue> result = (*executor)->call("main", {});
                if (!result)
                  return result.takeError();
                evalResult = std::move(*result);
                return m;
              },
              std::move(runInfo));
          if (Expected<Ref<IRModule>> ran = run->run(mod, pc); !ran)
            return ran.takeError();
          return mod;
        },
        std::move(info));
  }
  SmallVector<Ref<Expr>, 4> exprs;
  for (Expr *node : nodes)
    exprs.push_back(substitute(node));
  Ref<Expr> body = exprs.size() == 1 ? exprs[0] : Ref<Expr>(Tuple::get(exprs));
  Ref<IRModule> mod = IRModule::fromExpr(
      Function::get({}, std::move(body), nullptr, nullptr, nodes[0]->getLoc()));
  ++numEvaluations;
  Expected<PassContextScope> scope = PassContext::enter(evalContext);
  if (!scope)
    return scope.takeError();
  Expected<Ref<IRModule>> result = evalPass->run(std::move(mod), *evalContext);
  Error exitError = scope->exit();
  if (!result)
    return joinErrors(result.takeError(), std::move(exitError));
  if (exitError)
    return exitError;
  RuntimeValue value = std::move(evalResult);
  evalResult = RuntimeValue();
  if (nodes.size() == 1) {
    Expected<Ref<Expr>> expr = valueToExpr(value, nodes[0]->getLoc());
    if (!expr)
      return expr.takeError();
    values[nodes[0]] = std::move(*expr);
    return Error::success();
  }
  ArrayRef<RuntimeValue> fields = value.getFields();
  for (size_t i = 0; i < nodes.size(); ++i) {
    Expected<Ref<Expr>> expr = valueToExpr(fields[i], nodes[i]->getLoc());
    if (!expr)
      return expr.takeError();
    values[nodes[i]] = std::move(*expr);
  }
  return Error::success();
}

void ConstantFolder::evaluatePerCall(ArrayRef<Expr *> roots) {
  // Post-order over the pending nodes under the roots. Hand-written rather
  // than a PostOrderWalker: it visits operands last to first, and that is
  // the order of the evaluations and of their warnings (TVM's); the
  // walker's left-to-right order would change the diagnostics' order.
  DenseSet<const Expr *> visited;
  SmallVector<std::pair<Expr *, bool>, 64> stack;
  for (Expr *root : llvm::reverse(roots))
    stack.push_back({root, false});
  SmallVector<Expr *, 4> operands;
  while (!stack.empty()) {
    auto [node, expanded] = stack.back();
    if (!expanded) {
      if (!visited.insert(node).second || values.count(node) ||
          unfolded.count(node)) {
        stack.pop_back();
        continue;
      }
      stack.back().second = true;
      operands.clear();
      getPendingOperands(node, operands);
      for (Expr *operand : operands)
        if (!visited.count(operand))
          stack.push_back({operand, false});
      continue;
    }
    stack.pop_back();
    operands.clear();
    getPendingOperands(node, operands);
    // Over an operand that stays unfolded, the node is not constant.
    if (any_of(operands, [this](Expr *e) { return unfolded.count(e); })) {
      unfolded.insert(node);
      continue;
    }
    // A projection of an evaluated tuple needs no evaluation.
    if (auto *item = dyn_cast<TupleGetItem>(node)) {
      auto it = values.find(item->getTuple().get());
      if (it != values.end())
        if (auto *tuple = dyn_cast<Tuple>(it->second.get())) {
          values[node] = tuple->getFields()[item->getIndex()];
          continue;
        }
    }
    Error err = evaluate({node});
    if (!err)
      continue;
    unfolded.insert(node);
    // A bound is not an error of the program: a remark, not a warning.
    bool limited = false;
    err = handleErrors(std::move(err), [&](const ResourceLimitError &limit) {
      limited = true;
      skip(SkipReason::ResourceLimit, node,
           "not folded: " + limit.getMessage() + " (" +
               kFoldConstantMaxBufferBytesConfig + " is " +
               Twine(options.maxBufferBytes) + ", " +
               kFoldConstantMaxWorkConfig + " is " + Twine(options.maxWork) +
               ")");
    });
    if (limited) {
      consumeError(std::move(err));
      continue;
    }
    std::string message = toString(std::move(err));
    // The error is located at the call that failed, usually this one.
    warn(node->getLoc(), "cannot fold this call: " + message);
    skip(SkipReason::EvaluationFailed, node,
         "not folded: evaluation failed: " + message);
  }
}

bool ConstantFolder::exceedsSizeGuard(Expr *root) {
  std::optional<uint64_t> bytes = getStaticBytes(pendingType[root].get());
  if (auto it = values.find(root); it != values.end()) {
    uint64_t count = 0, measured = 0;
    measureValue(it->second.get(), count, measured);
    bytes = measured;
  }
  if (!bytes || *bytes <= options.maxBytes)
    return false;
  // The constants it is computed from, each counted once.
  uint64_t inputs = 0;
  walkPostOrder(
      root,
      [&](Expr *e) {
        if (auto *constant = dyn_cast<Constant>(e))
          inputs += constant->getData().getByteSize();
      },
      nullptr, [](Expr *e, SmallVectorImpl<Expr *> &out) {
        forEachOperand(e, [&out](Expr *child) { out.push_back(child); });
      });
  if (*bytes <= inputs)
    return false;
  skip(SkipReason::SizeGuard, root,
       "not folded: the value would take " + Twine(*bytes) +
           " bytes, more than FoldConstant.max_bytes (" +
           Twine(options.maxBytes) + ") and than its constant inputs (" +
           Twine(inputs) + " bytes)");
  return true;
}

Ref<Expr> ConstantFolder::run(Expr *expr) {
  Ref<Expr> marked = mutate(expr);
  if (pendingType.empty())
    return marked;

  // Evaluate the roots until none fails or is guarded.
  std::vector<Expr *> roots;
  for (;;) {
    roots = collectRoots(marked.get());
    bool changed = false;
    for (Expr *root : roots)
      if (exceedsSizeGuard(root)) {
        unfolded.insert(root);
        changed = true;
      }
    if (changed)
      continue;
    SmallVector<Expr *, 8> needed;
    for (Expr *root : roots)
      if (!values.count(root))
        needed.push_back(root);
    if (needed.empty())
      break;
    size_t numUnfolded = unfolded.size();
    resolve(needed);
    if (unfolded.size() == numUnfolded)
      break;
  }

  // Count what the materialised roots absorb (each call once: one walker
  // remembers the pending nodes walked from every root).
  PostOrderWalker counted;
  auto operands = [](Expr *e, SmallVectorImpl<Expr *> &out) {
    forEachOperand(e, [&out](Expr *child) { out.push_back(child); });
  };
  for (Expr *root : roots) {
    uint64_t calls = 0;
    counted.walk(
        root,
        [&](Expr *e) {
          if (getOnDeviceProps(e))
            return WalkAction::Descend;
          if (!pendingType.count(e))
            return WalkAction::SkipChildren;
          calls += isa<Call>(e);
          return WalkAction::Descend;
        },
        nullptr, operands);
    uint64_t constants = 0, bytes = 0;
    measureValue(values[root].get(), constants, bytes);
    numCallsFolded += calls;
    numConstants += constants;
    numBytes += bytes;
    if (passedRemarks)
      ctx.emitRemark(
          Remark(RemarkKind::Passed, kPassName, "Folded", root->getLoc())
              .setFunction(function)
          << "folded " << RemarkArg("NumCalls", calls)
          << (calls == 1 ? " call" : " calls") << " into "
          << (constants == 1 ? "a constant"
                             : Twine(constants).str() + " constants")
          << " of " << RemarkArg("Bytes", bytes) << " bytes");
  }
  if (roots.empty())
    return marked;

  // Materialise.
  struct Materializer final : ExprMutator {
    void seed(const Expr *e, Ref<Expr> value) { memo[e] = std::move(value); }
  } rewrite;
  for (Expr *root : roots)
    rewrite.seed(root, values[root]);
  return rewrite.mutate(marked.get());
}

/// The counters every run of the pass reports.
static void addRunCounters(PassStatistics &stats, uint64_t calls,
                           uint64_t constants, uint64_t bytes,
                           uint64_t evaluations) {
  stats.add(kPassName, "num-calls-folded", calls,
            "Calls folded into constants");
  stats.add(kPassName, "num-constants-created", constants,
            "Constants created");
  stats.add(kPassName, "num-bytes-materialized", bytes,
            "Bytes of constants created");
  stats.add(kPassName, "num-evaluations", evaluations,
            "Evaluations run through the JIT");
}

static void addKernelCounters(PassStatistics &stats, uint64_t compiled,
                              uint64_t hits) {
  stats.add(kPassName, "num-kernels-compiled", compiled,
            "Kernels compiled for evaluation");
  stats.add(kPassName, "num-kernel-cache-hits", hits,
            "Kernels found in the engine's caches");
}

void ConstantFolder::recordStatistics() {
  PassStatistics &stats = ctx.getStatistics();
  addRunCounters(stats, numCallsFolded, numConstants, numBytes,
                 numEvaluations);
  for (unsigned i = 0; i < kNumSkipReasons; ++i)
    if (skipped[i])
      stats.add(kPassName, kSkipReasons[i].counter, skipped[i],
                kSkipReasons[i].description);
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

/// A constant or a tuple of them, looked at through on_device (TVM's
/// IsComplexConstant).
static bool isComplexConstant(const Expr *e) {
  e = ignoreOnDevice(e);
  if (isa<Constant>(e))
    return true;
  if (const auto *tuple = dyn_cast<Tuple>(e))
    return all_of(tuple->getFields(), [](const Ref<Expr> &field) {
      return field && isComplexConstant(field.get());
    });
  return false;
}

/// False when no rule of the pass can act on \p expr: no call of an operator
/// whose arguments are all constants (which folds, or is skipped with a
/// remark), no shape_of or ndarray_size, no projection of a tuple literal,
/// no let bound to a constant and no if on a constant. Every fold starts at
/// one of these, so the pass returns such an expression unchanged without
/// its rewriting walk (a 1,000,000-call graph: 0.1 s instead of 1.2 s).
static bool mayFold(Expr *expr) {
  const Op *shapeOf = Op::lookup("shape_of");
  const Op *ndarraySize = Op::lookup("ndarray_size");
  return walk(
             expr,
             [&](Expr *e) {
               bool found = false;
               if (const auto *call = dyn_cast<Call>(e)) {
                 const Op *op = call->getCalledOp();
                 found = op && (op == shapeOf || op == ndarraySize ||
                                (!call->getArgs().empty() &&
                                 all_of(call->getArgs(),
                                        [](const Ref<Expr> &arg) {
                                          return arg &&
                                                 isComplexConstant(arg.get());
                                        })));
               } else if (const auto *item = dyn_cast<TupleGetItem>(e)) {
                 found = isa_and_nonnull<Tuple>(
                     ignoreOnDevice(item->getTuple().get()));
               } else if (const auto *let = dyn_cast<Let>(e)) {
                 found = isa_and_nonnull<Constant>(
                     ignoreOnDevice(let->getValue().get()));
               } else if (const auto *cond = dyn_cast<If>(e)) {
                 found = isa_and_nonnull<Constant>(
                     ignoreOnDevice(cond->getCond().get()));
               }
               return found ? WalkResult::interrupt() : WalkResult::advance();
             },
             WalkOrder::PreOrder)
      .wasInterrupted();
}

namespace {
/// A default engine (EngineOptions{}: no disk cache) made on first need, for
/// runs that were handed none.
class PrivateEngine {
public:
  Expected<std::shared_ptr<ExecutionEngine>> get() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!engine) {
      Expected<std::unique_ptr<ExecutionEngine>> created =
          ExecutionEngine::create();
      if (!created)
        return makeError("cannot create the constant-evaluation engine: " +
                         toString(created.takeError()));
      engine = std::move(*created);
    }
    return engine;
  }

private:
  std::mutex mutex;
  std::shared_ptr<ExecutionEngine> engine;
};
} // namespace

/// The engine of a run (see FoldConstant.h): the options', else the
/// context's, else \p fallback's.
static Expected<std::shared_ptr<ExecutionEngine>>
getEngine(const FoldConstantOptions &options, PassContext &ctx,
          PrivateEngine &fallback) {
  if (options.engine)
    return options.engine;
  Expected<std::shared_ptr<ExecutionEngine>> handed =
      ctx.getResource<ExecutionEngine>();
  if (!handed || *handed)
    return handed;
  return fallback.get();
}

/// Runs the folder on \p expr and records its statistics (and the engine's
/// compiles and cache hits during the run) in \p ctx.
static Expected<Ref<Expr>> runFolder(Expr *expr, const IRModule *module,
                                     PassContext &ctx,
                                     const FoldConstantOptions &options,
                                     StringRef function,
                                     PrivateEngine &fallback) {
  if (!mayFold(expr)) {
    addRunCounters(ctx.getStatistics(), 0, 0, 0, 0);
    addKernelCounters(ctx.getStatistics(), 0, 0);
    return Ref<Expr>(expr);
  }
  Expected<std::shared_ptr<ExecutionEngine>> engine =
      getEngine(options, ctx, fallback);
  if (!engine)
    return engine.takeError();
  const EngineStats &engineStats = (*engine)->getStats();
  uint64_t compiledBefore = engineStats.kernelsCompiled;
  uint64_t hitsBefore = engineStats.memoryHits + engineStats.diskHits;
  Ref<Expr> result;
  {
    ConstantFolder folder(module, ctx, options, function, **engine);
    result = folder.run(expr);
    folder.recordStatistics();
  }
  addKernelCounters(ctx.getStatistics(),
                    engineStats.kernelsCompiled - compiledBefore,
                    engineStats.memoryHits + engineStats.diskHits - hitsBefore);
  return result;
}

Expected<Ref<Expr>> nnir::foldConstant(Expr *expr, const IRModule *module,
                                       PassContext &ctx,
                                       const FoldConstantOptions &options) {
  PrivateEngine fallback;
  return runFolder(expr, module, ctx, options, "", fallback);
}

Ref<Pass> nnir::createFoldConstantPass(bool perCall, bool foldQnn) {
  PassInfo info = getBuiltinPassInfo(BuiltinPass::FoldConstant, {"InferType"});
  // The pass's runs share one private engine when the context hands in
  // none.
  auto fallback = std::make_shared<PrivateEngine>();
  return createFunctionPass(
      [perCall, foldQnn, fallback](Ref<Function> func, const IRModule &module,
                          PassContext &ctx) -> Expected<Ref<Function>> {
        FoldConstantOptions options;
        options.perCall = perCall;
        options.foldQnn = foldQnn;
        for (auto [key, field] :
             {std::make_pair(kFoldConstantMaxBytesConfig, &options.maxBytes),
              std::make_pair(kFoldConstantMaxBufferBytesConfig,
                             &options.maxBufferBytes),
              std::make_pair(kFoldConstantMaxWorkConfig, &options.maxWork)}) {
          int64_t value = ctx.getConfigInt(key, int64_t(*field));
          if (value < 0)
            return makeError(Twine(key) + " must not be negative, got " +
                             Twine(value));
          *field = uint64_t(value);
        }
        StringRef name;
        if (ctx.isRemarkEnabled(RemarkKind::Passed, kPassName) ||
            ctx.isRemarkEnabled(RemarkKind::Missed, kPassName))
          for (const IRModule::Entry &entry : module.getFunctions())
            if (entry.func == func)
              name = entry.var->getName();
        Expected<Ref<Expr>> result =
            runFolder(func.get(), &module, ctx, options, name, *fallback);
        if (!result)
          return result.takeError();
        return Ref<Function>(cast<Function>(result->get()));
      },
      std::move(info));
}
