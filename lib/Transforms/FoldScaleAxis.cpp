//===- FoldScaleAxis.cpp - Fold per-channel scales into weights -----------===//
//
/// \file
/// Implements BackwardFoldScaleAxis (see FoldScaleAxis.h) in Relay's two
/// phases:
///
///  1. Prep, in post-order: every convolution and dense with a single user
///     emits a message (the channel axes of its result, and whether a scale
///     must be non-negative); relu, leaky_relu, add, subtract and bias_add
///     with a single user pass their operand's message on when legal.
///  2. Transform, an ExprMutator: a multiply whose operand carries a
///     message, and whose other operand broadcasts along exactly those axes,
///     is replaced by the operand rebuilt with the scale pushed down the
///     message path into the weights.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/FoldScaleAxis.h"

#include "PatternUtils.h"

#include "nnir/IR/ExprMutator.h"
#include "nnir/IR/ExprVisitor.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Layout.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::patterns;

namespace {

constexpr StringRef kOpNames[] = {
    "nn.conv2d", "nn.conv3d", "nn.dense", "nn.relu", "nn.leaky_relu", "add",
    "subtract", "nn.bias_add", "multiply", "expand_dims", "squeeze",
    "repeat", "reshape", "transpose"};

/// The longest path a scale is pushed along.
constexpr unsigned kMaxPathLength = 256;

/// The axes a scale may be applied to, and whether it must be non-negative.
struct Message {
  SmallVector<int64_t, 2> axes;
  bool requirePositive = false;
  /// Number of operators from the emitting consumer to this node.
  unsigned pathLength = 1;
};

/// The number of users of every node of a function (edges, not paths).
class UserCounter : public ExprVisitor {
public:
  void visitCall(Call *e) override {
    ++counts[e->getCallee().get()];
    for (const Ref<Expr> &arg : e->getArgs())
      ++counts[arg.get()];
    ExprVisitor::visitCall(e);
  }
  void visitTuple(Tuple *e) override {
    for (const Ref<Expr> &field : e->getFields())
      ++counts[field.get()];
    ExprVisitor::visitTuple(e);
  }
  void visitTupleGetItem(TupleGetItem *e) override {
    ++counts[e->getTuple().get()];
    ExprVisitor::visitTupleGetItem(e);
  }
  void visitLet(Let *e) override {
    ++counts[e->getValue().get()];
    ++counts[e->getBody().get()];
    ExprVisitor::visitLet(e);
  }
  void visitIf(If *e) override {
    ++counts[e->getCond().get()];
    ++counts[e->getThen().get()];
    ++counts[e->getElse().get()];
    ExprVisitor::visitIf(e);
  }
  void visitFunction(Function *e) override {
    ++counts[e->getBody().get()];
    ExprVisitor::visitFunction(e);
  }

  DenseMap<const Expr *, unsigned> counts;
};

/// Relay's MatchBroadcastToLeftAxes: \p rhs broadcasts against \p lhs only
/// along \p axes (its other extents are 1). With \p rhsValue, replaces it by
/// a value of the axes' shape (squeezed, or a scalar repeated).
bool matchBroadcastToLeftAxes(const TensorType &lhs, const TensorType &rhs,
                              ArrayRef<int64_t> axes, const OpSet &ops,
                              Ref<Expr> *rhsValue = nullptr) {
  ArrayRef<int64_t> lshape = lhs.getShape(), rshape = rhs.getShape();
  if (lshape.size() < rshape.size())
    return false;
  if (rshape.empty() && rhsValue && !axes.empty()) {
    Ref<Expr> value = makeExpandDims(ops, *rhsValue, 0, axes.size());
    for (size_t i = 0; i < axes.size(); ++i) {
      Ref<RepeatAttrs> attrs = RepeatAttrs::create();
      attrs->repeats = lshape[axes[i]];
      attrs->axis = static_cast<int64_t>(i);
      value = makeCall(ops["repeat"], {value}, attrs);
    }
    *rhsValue = value;
    return true;
  }
  size_t base = lshape.size() - rshape.size();
  size_t j = 0;
  std::vector<int64_t> squeezed;
  for (size_t i = 0; i < lshape.size(); ++i) {
    if (j < axes.size() && static_cast<int64_t>(i) == axes[j]) {
      if (i < base || lshape[i] != rshape[i - base] || lshape[i] < 0)
        return false;
      ++j;
    } else if (i >= base) {
      if (rshape[i - base] != 1)
        return false;
      squeezed.push_back(static_cast<int64_t>(i - base));
    }
  }
  if (j != axes.size())
    return false;
  if (rhsValue && !squeezed.empty()) {
    Ref<SqueezeAttrs> attrs = SqueezeAttrs::create();
    attrs->axis = std::move(squeezed);
    *rhsValue = makeCall(ops["squeeze"], {*rhsValue}, attrs);
  }
  return true;
}

/// Relay's IsAllPositiveConstant: a constant without negative elements,
/// possibly under expand_dims, reshape, transpose, squeeze or repeat.
bool isAllNonNegativeConstant(const Expr *e, const OpSet &ops) {
  while (const auto *call = dyn_cast<Call>(e)) {
    Op *op = call->getCalledOp();
    if (call->getNumArgs() == 0 ||
        !(op == ops["expand_dims"] || op == ops["reshape"] ||
          op == ops["transpose"] || op == ops["squeeze"] ||
          op == ops["repeat"]))
      return false;
    e = call->getArg(0).get();
  }
  const auto *constant = dyn_cast<Constant>(e);
  if (!constant)
    return false;
  const NDArray &data = constant->getData();
  for (int64_t i = 0, n = data.getNumElements(); i < n; ++i)
    if (!(data.getElementAsDouble(i) >= 0))
      return false;
  return true;
}

/// The layouts of a convolution: the position of the output channel axis in
/// the result and of 'O' in the kernel, for simple layouts with groups == 1
/// or depthwise; nothing otherwise.
struct ConvAxes {
  int64_t outChannel;
  int64_t kernelOut;
};

template <typename AttrsT>
std::optional<ConvAxes> getConvAxes(const AttrsT &attrs,
                                    const TensorType &weight) {
  Expected<Layout> kernel = Layout::parse(attrs.kernelLayout);
  Expected<Layout> out = Layout::parse(
      attrs.outLayout.empty() ? attrs.dataLayout : attrs.outLayout);
  if (!kernel || !out) {
    consumeError(kernel.takeError());
    consumeError(out.takeError());
    return std::nullopt;
  }
  int big = out->find('C');
  int kernelO = kernel->find('O'), kernelI = kernel->find('I');
  if (big < 0 || kernelO < 0 || kernelI < 0 || out->contains('c') ||
      kernel->contains('o') || kernel->contains('i') ||
      static_cast<size_t>(kernel->getRank()) != weight.getRank())
    return std::nullopt;
  bool depthwise = weight.getShape()[kernelO] == attrs.groups &&
                   weight.getShape()[kernelI] == 1;
  if (attrs.groups != 1 && !depthwise)
    return std::nullopt;
  return ConvAxes{big, kernelO};
}

class BackwardFolder : public ExprMutator {
public:
  explicit BackwardFolder(OpSet ops) : ops(std::move(ops)) {}

  /// Phase 1: the messages of every node of \p root.
  void prepare(Expr *root) {
    UserCounter users;
    users.visit(root);
    struct Prep : ExprVisitor {
      BackwardFolder &folder;
      const DenseMap<const Expr *, unsigned> &users;
      Prep(BackwardFolder &folder, const DenseMap<const Expr *, unsigned> &users)
          : folder(folder), users(users) {}
      void visitCall(Call *call) override {
        ExprVisitor::visitCall(call);
        if (users.lookup(call) != 1)
          return;
        if (std::optional<Message> message = folder.prep(*call))
          if (message->pathLength <= kMaxPathLength)
            folder.messages[call] = std::move(*message);
      }
    } prep(*this, users.counts);
    prep.visit(root);
  }

  bool hasMessages() const { return !messages.empty(); }

  /// Phase 2: a multiply that can push its scale into its operand's path.
  Ref<Expr> rewriteCall(Call *pre, Call *post) override {
    if (pre->getCalledOp() != ops["multiply"] || pre->getNumArgs() != 2)
      return post;
    for (unsigned side = 0; side < 2; ++side) {
      const Expr *operand = pre->getArg(side).get();
      const Message *message = getMessage(operand);
      if (!message)
        continue;
      const TensorType *operandType = getTensorType(operand);
      const TensorType *scaleType = getTensorType(pre->getArg(1 - side).get());
      if (!operandType || !scaleType)
        return post;
      Ref<Expr> scale = post->getArg(1 - side);
      if (!matchBroadcastToLeftAxes(*operandType, *scaleType, message->axes,
                                    ops, &scale) ||
          (message->requirePositive &&
           !isAllNonNegativeConstant(scale.get(), ops)))
        return post;
      ++numFolded;
      return transform(pre->getArg(side).get(), *message, scale);
    }
    return post;
  }

  int64_t numFolded = 0;

private:
  const Message *getMessage(const Expr *e) const {
    auto it = messages.find(e);
    return it == messages.end() ? nullptr : &it->second;
  }

  /// The message \p call emits or passes on, given its operands' messages.
  std::optional<Message> prep(const Call &call) {
    Op *op = call.getCalledOp();
    const TensorType *type = getTensorType(&call);
    if (!op || !type || call.getNumArgs() == 0)
      return std::nullopt;
    auto operandMessage = [&](unsigned i) {
      return i < call.getNumArgs() ? getMessage(call.getArg(i).get())
                                   : nullptr;
    };
    auto passOn = [](const Message &m, bool positive) {
      Message result = m;
      result.requirePositive |= positive;
      ++result.pathLength;
      return result;
    };
    if (op == ops["nn.conv2d"] || op == ops["nn.conv3d"]) {
      if (std::optional<ConvAxes> axes = convAxes(call))
        return Message{{axes->outChannel}, false, 1};
      return std::nullopt;
    }
    if (op == ops["nn.dense"])
      return Message{{static_cast<int64_t>(type->getRank()) - 1}, false, 1};
    if (op == ops["nn.relu"] || op == ops["nn.leaky_relu"]) {
      if (const Message *in = operandMessage(0))
        return passOn(*in, true);
      return std::nullopt;
    }
    if ((op == ops["add"] || op == ops["subtract"]) && call.getNumArgs() == 2) {
      const TensorType *lhs = getTensorType(call.getArg(0).get());
      const TensorType *rhs = getTensorType(call.getArg(1).get());
      const Message *lm = operandMessage(0), *rm = operandMessage(1);
      if (!lhs || !rhs)
        return std::nullopt;
      if (lm && matchBroadcastToLeftAxes(*lhs, *rhs, lm->axes, ops))
        return passOn(*lm, false);
      if (rm && matchBroadcastToLeftAxes(*rhs, *lhs, rm->axes, ops))
        return passOn(*rm, false);
      if (lm && rm && lm->axes == rm->axes &&
          lhs->getShape() == rhs->getShape())
        return passOn(lm->pathLength >= rm->pathLength ? *lm : *rm,
                      rm->requirePositive);
      return std::nullopt;
    }
    if (op == ops["nn.bias_add"]) {
      const auto *attrs = getAttrsAs<BiasAddAttrs>(call);
      const Message *in = operandMessage(0);
      if (!attrs || !in || in->axes.size() != 1)
        return std::nullopt;
      int64_t axis = attrs->axis < 0 ? attrs->axis + type->getRank()
                                     : attrs->axis;
      if (axis == in->axes[0])
        return passOn(*in, false);
    }
    return std::nullopt;
  }

  std::optional<ConvAxes> convAxes(const Call &call) const {
    if (call.getNumArgs() != 2)
      return std::nullopt;
    const TensorType *weight = getTensorType(call.getArg(1).get());
    if (!weight)
      return std::nullopt;
    if (const auto *attrs = getAttrsAs<Conv2DAttrs>(call))
      return getConvAxes(*attrs, *weight);
    if (const auto *attrs = getAttrsAs<Conv3DAttrs>(call))
      return getConvAxes(*attrs, *weight);
    return std::nullopt;
  }

  /// \p e (an original node carrying \p message) rebuilt with \p scale (of
  /// the message axes' shape) applied along the axes. Recursion follows the
  /// message path, at most kMaxPathLength deep.
  Ref<Expr> transform(Expr *e, const Message &message, Ref<Expr> scale) {
    auto *call = cast<Call>(e);
    Op *op = call->getCalledOp();
    SMLoc loc = call->getLoc();
    auto rebuild = [&](SmallVector<Ref<Expr>, 2> args) -> Ref<Expr> {
      return Call::get(call->getCallee(), args, call->getAttrs(), loc);
    };
    auto scaled = [&](Expr *arg) {
      return getMessage(arg) ? transform(arg, message, scale) : nullptr;
    };
    if (op == ops["nn.relu"] || op == ops["nn.leaky_relu"])
      return rebuild({transform(call->getArg(0).get(), message, scale)});
    if (op == ops["add"] || op == ops["subtract"]) {
      Expr *lhs = call->getArg(0).get(), *rhs = call->getArg(1).get();
      Ref<Expr> newLhs = scaled(lhs), newRhs = scaled(rhs);
      // The operand without the message is multiplied by the scale,
      // expanded to broadcast along the axes of the one with it.
      const TensorType *withMessage =
          getTensorType(newLhs ? lhs : rhs);
      auto expanded = [&] {
        return expandBiasToMatchAxis(ops, scale, withMessage->getRank(),
                                     message.axes, loc);
      };
      if (!newLhs)
        newLhs = makeBinary(ops, "multiply", mutate(lhs), expanded(), loc);
      if (!newRhs)
        newRhs = makeBinary(ops, "multiply", mutate(rhs), expanded(), loc);
      return rebuild({newLhs, newRhs});
    }
    if (op == ops["nn.bias_add"])
      return rebuild(
          {transform(call->getArg(0).get(), message, scale),
           makeBinary(ops, "multiply", mutate(call->getArg(1)), scale, loc)});
    // A consumer: the weight takes the scale along its output axis.
    int64_t weightRank = 2, weightAxis = 0;
    if (op != ops["nn.dense"]) {
      std::optional<ConvAxes> axes = convAxes(*call);
      assert(axes && "a convolution with a message has simple layouts");
      weightRank = getTensorType(call->getArg(1).get())->getRank();
      weightAxis = axes->kernelOut;
    }
    Ref<Expr> weight = makeBinary(
        ops, "multiply", mutate(call->getArg(1)),
        expandBiasToMatchAxis(ops, scale, weightRank, {weightAxis}, loc), loc);
    return rebuild({mutate(call->getArg(0)), weight});
  }

  OpSet ops;
  DenseMap<const Expr *, Message> messages;
};

} // namespace

Expected<Ref<Expr>> nnir::backwardFoldScaleAxis(Expr *expr,
                                                int64_t *numFolded) {
  Expected<OpSet> ops = OpSet::get(kOpNames);
  if (!ops)
    return ops.takeError();
  BackwardFolder folder(std::move(*ops));
  folder.prepare(expr);
  if (!folder.hasMessages())
    return Ref<Expr>(expr);
  Ref<Expr> result = folder.mutate(expr);
  if (numFolded)
    *numFolded += folder.numFolded;
  return result;
}

Ref<Pass> nnir::createBackwardFoldScaleAxisPass() {
  PassInfo info("BackwardFoldScaleAxis", /*optLevel=*/3, {"InferType"});
  info.description = "fold a per-channel multiply after conv2d/conv3d/dense "
                     "into the weights";
  return createFunctionPass(
      [](Ref<Function> func, const IRModule &,
         PassContext &ctx) -> Expected<Ref<Function>> {
        int64_t count = 0;
        Expected<Ref<Expr>> result = backwardFoldScaleAxis(func.get(), &count);
        if (!result)
          return result.takeError();
        ctx.getStatistics().add("BackwardFoldScaleAxis", "num-folded", count,
                                "Number of scales folded into weights");
        return Ref<Function>(cast<Function>(result->get()));
      },
      std::move(info));
}
