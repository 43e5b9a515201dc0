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
#include "nnir/Transforms/Passes.h"

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
    "nn.conv2d", "nn.conv3d", "nn.dense",    "nn.relu",   "nn.leaky_relu",
    "add",       "subtract",  "nn.bias_add", "multiply",  "expand_dims",
    "squeeze",   "repeat",    "reshape",     "transpose", "divide"};

/// The longest path a scale is pushed along.
constexpr unsigned kMaxPathLength = 256;

/// The axes a scale may be applied to, and whether it must be non-negative.
struct Message {
  SmallVector<int64_t, 2> axes;
  bool requirePositive = false;
  /// The scale must be a constant without zeros (forward folding divides
  /// by it).
  bool requireNonZero = false;
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
                              ArrayRef<int64_t> axes,
                              Ref<Expr> *rhsValue = nullptr) {
  ArrayRef<int64_t> lshape = lhs.getShape(), rshape = rhs.getShape();
  if (lshape.size() < rshape.size())
    return false;
  if (rshape.empty() && rhsValue && !axes.empty()) {
    Ref<Expr> value = ops::expandDims(*rhsValue, 0, axes.size());
    for (size_t i = 0; i < axes.size(); ++i)
      value = ops::repeat(value, lshape[axes[i]], static_cast<int64_t>(i));
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
  if (rhsValue && !squeezed.empty())
    *rhsValue = ops::squeeze(*rhsValue, std::move(squeezed));
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

/// True if \p e is a constant without zero elements, possibly under
/// expand_dims or squeeze (what matchBroadcastToLeftAxes builds).
bool isAllNonZeroConstant(const Expr *e) {
  while (const auto *call = dyn_cast<Call>(e)) {
    if (call->getNumArgs() != 1)
      return false;
    e = call->getArg(0).get();
  }
  const auto *constant = dyn_cast<Constant>(e);
  if (!constant)
    return false;
  const NDArray &data = constant->getData();
  for (int64_t i = 0, n = data.getNumElements(); i < n; ++i)
    if (data.getElementAsDouble(i) == 0)
      return false;
  return true;
}

/// Relay's ReshapeToMatchAxis: \p scale (of the \p axes' extents) reshaped
/// to broadcast against a tensor of \p shape: the axes keep their extents,
/// every other one is 1.
Ref<Expr> reshapeToMatchAxis(Ref<Expr> scale, ArrayRef<int64_t> shape,
                             ArrayRef<int64_t> axes, SMLoc loc) {
  IntList newShape;
  for (size_t i = 0; i < shape.size(); ++i)
    newShape.push_back(
        llvm::is_contained(axes, static_cast<int64_t>(i)) ? shape[i] : 1);
  return ops::reshape(std::move(scale), std::move(newShape), loc);
}

/// Relay's ReshapeOrExpandToMatchAxis: expand_dims for one axis, a reshape
/// for several (a blocked layout's C and c).
Ref<Expr> reshapeOrExpandToMatchAxis(Ref<Expr> scale, ArrayRef<int64_t> shape,
                                     ArrayRef<int64_t> axes, SMLoc loc) {
  if (axes.size() > 1)
    return reshapeToMatchAxis(std::move(scale), shape, axes, loc);
  return expandBiasToMatchAxis(std::move(scale), shape.size(), axes, loc);
}

/// Where a convolution takes a scale, in one direction: the channel axes of
/// its data (forward) or of its result (backward), C and, in a blocked
/// layout (NCHW4c), c; and the kernel axes the scale goes to: I (and i)
/// forward, O (and o) backward and for a depthwise kernel, which holds the
/// input channels on O. As in Relay, only full (groups = 1) and depthwise
/// convolutions, in simple layouts or in blocked layouts that split the
/// channels of both the data and the kernel.
struct ConvAxes {
  SmallVector<int64_t, 2> channel;
  SmallVector<int64_t, 2> kernel;
  bool blocked;
};

template <typename AttrsT>
std::optional<ConvAxes> getConvAxes(const AttrsT &attrs,
                                    const TensorType &weight, bool forward) {
  StringRef dataText = forward || attrs.outLayout.empty()
                           ? StringRef(attrs.dataLayout)
                           : StringRef(attrs.outLayout);
  Expected<Layout> kernel = Layout::parse(attrs.kernelLayout);
  Expected<Layout> data = Layout::parse(dataText);
  if (!kernel || !data) {
    consumeError(kernel.takeError());
    consumeError(data.takeError());
    return std::nullopt;
  }
  int bigC = data->find('C'), smallC = data->find('c');
  int bigO = kernel->find('O'), smallO = kernel->find('o');
  int bigI = kernel->find('I'), smallI = kernel->find('i');
  bool simple = smallO < 0 && smallI < 0 && smallC < 0;
  bool blocked = smallO >= 0 && smallI >= 0 && smallC >= 0;
  StringRef canonical = AttrsT::defaultKernelLayout;
  if (bigC < 0 || bigI < 0 || bigO < 0 || (!simple && !blocked) ||
      kernel->getRank() != weight.getRank() ||
      !kernel->isOrderingOf(canonical))
    return std::nullopt;
  // Relay's IsDepthwiseConv: the kernel, in OIHW, is [groups, 1, ...].
  Shape oi = kernel->toCanonicalShape(weight.getShape(), canonical);
  bool depthwise = oi[0] == attrs.groups && oi[1] == 1;
  if (attrs.groups != 1 && !depthwise)
    return std::nullopt;
  ConvAxes axes;
  axes.blocked = blocked;
  axes.channel.push_back(bigC);
  bool onO = !forward || depthwise;
  axes.kernel.push_back(onO ? bigO : bigI);
  if (blocked) {
    axes.channel.push_back(smallC);
    axes.kernel.push_back(onO ? smallO : smallI);
  }
  return axes;
}

/// getConvAxes of a conv2d or conv3d call.
std::optional<ConvAxes> getCallConvAxes(const Call &call, bool forward) {
  if (call.getNumArgs() != 2)
    return std::nullopt;
  const TensorType *weight = getTensorType(call.getArg(1).get());
  if (!weight)
    return std::nullopt;
  if (const auto *attrs = getAttrsAs<Conv2DAttrs>(call))
    return getConvAxes(*attrs, *weight, forward);
  if (const auto *attrs = getAttrsAs<Conv3DAttrs>(call))
    return getConvAxes(*attrs, *weight, forward);
  return std::nullopt;
}

/// The scale of a convolution's channel axes, shaped to multiply its
/// weight along \p axes (Relay: expand_dims for a simple layout, a reshape
/// for a blocked one).
Ref<Expr> scaleWeight(const Call &conv, const ConvAxes &axes, Ref<Expr> weight,
                      Ref<Expr> scale, SMLoc loc) {
  ArrayRef<int64_t> shape = getTensorType(conv.getArg(1).get())->getShape();
  Ref<Expr> shaped =
      axes.blocked
          ? reshapeToMatchAxis(std::move(scale), shape, axes.kernel, loc)
          : expandBiasToMatchAxis(std::move(scale), shape.size(), axes.kernel,
                                  loc);
  return ops::multiply(std::move(weight), shaped, loc);
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
      Prep(BackwardFolder &folder,
           const DenseMap<const Expr *, unsigned> &users)
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
                                    &scale) ||
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
      return i < call.getNumArgs() ? getMessage(call.getArg(i).get()) : nullptr;
    };
    auto passOn = [](const Message &m, bool positive) {
      Message result = m;
      result.requirePositive |= positive;
      ++result.pathLength;
      return result;
    };
    if (op == ops["nn.conv2d"] || op == ops["nn.conv3d"]) {
      if (std::optional<ConvAxes> axes = getCallConvAxes(call, false))
        return Message{axes->channel, false, false, 1};
      return std::nullopt;
    }
    if (op == ops["nn.dense"])
      return Message{
          {static_cast<int64_t>(type->getRank()) - 1}, false, false, 1};
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
      if (lm && matchBroadcastToLeftAxes(*lhs, *rhs, lm->axes))
        return passOn(*lm, false);
      if (rm && matchBroadcastToLeftAxes(*rhs, *lhs, rm->axes))
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
      int64_t axis =
          attrs->axis < 0 ? attrs->axis + type->getRank() : attrs->axis;
      if (axis == in->axes[0])
        return passOn(*in, false);
    }
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
    // An operand of add/subtract takes the scale down its own path when its
    // message is for the same axes of a result of the same shape.
    const TensorType *resultType = getTensorType(call);
    auto scaled = [&](Expr *arg) -> Ref<Expr> {
      const Message *own = getMessage(arg);
      const TensorType *argType = getTensorType(arg);
      if (!own || own->axes != message.axes || !argType || !resultType ||
          argType->getShape() != resultType->getShape())
        return nullptr;
      return transform(arg, message, scale);
    };
    if (op == ops["nn.relu"] || op == ops["nn.leaky_relu"])
      return rebuild({transform(call->getArg(0).get(), message, scale)});
    if (op == ops["add"] || op == ops["subtract"]) {
      Expr *lhs = call->getArg(0).get(), *rhs = call->getArg(1).get();
      Ref<Expr> newLhs = scaled(lhs), newRhs = scaled(rhs);
      // The operand without the message is multiplied by the scale,
      // expanded to broadcast along the axes of the one with it.
      const TensorType *withMessage = getTensorType(newLhs ? lhs : rhs);
      auto expanded = [&] {
        return reshapeOrExpandToMatchAxis(scale, withMessage->getShape(),
                                          message.axes, loc);
      };
      if (!newLhs)
        newLhs = ops::multiply(mutate(lhs), expanded(), loc);
      if (!newRhs)
        newRhs = ops::multiply(mutate(rhs), expanded(), loc);
      return rebuild({newLhs, newRhs});
    }
    if (op == ops["nn.bias_add"])
      return rebuild({transform(call->getArg(0).get(), message, scale),
                      ops::multiply(mutate(call->getArg(1)), scale, loc)});
    // A consumer: the weight takes the scale along its output axes.
    Ref<Expr> weight;
    if (op == ops["nn.dense"]) {
      weight = ops::multiply(mutate(call->getArg(1)),
                             expandBiasToMatchAxis(scale, 2, {0}, loc), loc);
    } else {
      std::optional<ConvAxes> axes = getCallConvAxes(*call, false);
      assert(axes && "a convolution with a message has supported layouts");
      weight = scaleWeight(*call, *axes, mutate(call->getArg(1)), scale, loc);
    }
    return rebuild({mutate(call->getArg(0)), weight});
  }

  OpSet ops;
  DenseMap<const Expr *, Message> messages;
};

//===----------------------------------------------------------------------===//
// Forward
//===----------------------------------------------------------------------===//

/// The axes both messages allow; requirements add up. Null if either is.
std::optional<Message> intersect(const std::optional<Message> &a,
                                 const std::optional<Message> &b) {
  if (!a || !b)
    return std::nullopt;
  Message result;
  for (int64_t axis : a->axes)
    if (llvm::is_contained(b->axes, axis))
      result.axes.push_back(axis);
  result.requirePositive = a->requirePositive || b->requirePositive;
  result.requireNonZero = a->requireNonZero || b->requireNonZero;
  if (result.axes.empty())
    return std::nullopt;
  return result;
}

/// Relay's ForwardFoldScaleAxis: a per-channel multiply whose every user can
/// absorb the scale is carried forward (through relu, add, subtract) into
/// the input channels of the convolution or dense that consumes it.
class ForwardFolder : public ExprMutator {
public:
  explicit ForwardFolder(OpSet ops) : ops(std::move(ops)) {}

  /// Phase 1: the scale each node's users can absorb, consumers first.
  void prepare(Expr *root) {
    struct Order : ExprVisitor {
      std::vector<Expr *> nodes;
      void visitCall(Call *e) override {
        ExprVisitor::visitCall(e);
        nodes.push_back(e);
      }
      void visitTuple(Tuple *e) override {
        ExprVisitor::visitTuple(e);
        nodes.push_back(e);
      }
      void visitLet(Let *e) override {
        ExprVisitor::visitLet(e);
        nodes.push_back(e);
      }
      void visitIf(If *e) override {
        ExprVisitor::visitIf(e);
        nodes.push_back(e);
      }
      void visitFunction(Function *e) override {
        ExprVisitor::visitFunction(e);
        nodes.push_back(e);
      }
    } order;
    order.visit(root);
    update(root, std::nullopt);
    for (Expr *e : llvm::reverse(order.nodes)) {
      if (auto *call = dyn_cast<Call>(e)) {
        std::optional<Message> out;
        auto it = messages.find(call);
        if (it != messages.end())
          out = it->second;
        SmallVector<std::optional<Message>, 2> in = prep(*call, out);
        for (size_t i = 0; i < call->getNumArgs(); ++i)
          update(call->getArg(i).get(),
                 i < in.size() ? in[i] : std::optional<Message>());
      } else if (auto *tuple = dyn_cast<Tuple>(e)) {
        for (const Ref<Expr> &field : tuple->getFields())
          update(field.get(), std::nullopt);
      } else if (auto *let = dyn_cast<Let>(e)) {
        update(let->getValue().get(), std::nullopt);
        update(let->getBody().get(), std::nullopt);
      } else if (auto *branch = dyn_cast<If>(e)) {
        update(branch->getCond().get(), std::nullopt);
        update(branch->getThen().get(), std::nullopt);
        update(branch->getElse().get(), std::nullopt);
      } else if (auto *func = dyn_cast<Function>(e)) {
        update(func->getBody().get(), std::nullopt);
      }
    }
  }

  bool hasMessages() const {
    return llvm::any_of(
        messages, [](const auto &entry) { return entry.second.has_value(); });
  }

  /// Phase 2. A node that carries a scale keeps its original form for any
  /// other user; the scaled form (value, axes, scale) is kept aside for the
  /// consumers that absorb it.
  Ref<Expr> rewriteCall(Call *pre, Call *post) override {
    Op *op = pre->getCalledOp();
    std::optional<Message> message = getMessage(pre);
    SMLoc loc = pre->getLoc();
    if (op == ops["multiply"] && message && pre->getNumArgs() == 2) {
      for (unsigned side = 0; side < 2; ++side) {
        const TensorType *valueType = getTensorType(pre->getArg(side).get());
        const TensorType *scaleType =
            getTensorType(pre->getArg(1 - side).get());
        Ref<Expr> scale = post->getArg(1 - side);
        if (valueType && scaleType &&
            matchBroadcastToLeftAxes(*valueType, *scaleType, message->axes,
                                     &scale) &&
            (!message->requirePositive ||
             isAllNonNegativeConstant(scale.get(), ops)) &&
            (!message->requireNonZero || isAllNonZeroConstant(scale.get()))) {
          scaled[pre] = {post->getArg(side), message->axes, scale};
          break;
        }
      }
      return post;
    }
    if ((op == ops["nn.relu"] || op == ops["nn.leaky_relu"]) && message) {
      if (const Scaled *in = getScaled(pre->getArg(0).get()))
        scaled[pre] = {
            Call::get(post->getCallee(), {in->value}, post->getAttrs(), loc),
            in->axes, in->scale};
      return post;
    }
    if ((op == ops["add"] || op == ops["subtract"]) && message &&
        pre->getNumArgs() == 2) {
      for (unsigned side = 0; side < 2; ++side) {
        const Scaled *in = getScaled(pre->getArg(side).get());
        const TensorType *type = getTensorType(pre->getArg(side).get());
        if (!in || !type)
          continue;
        // The other operand is divided by the scale.
        Ref<Expr> divided = ops::divide(
            post->getArg(1 - side),
            reshapeOrExpandToMatchAxis(in->scale, type->getShape(), in->axes,
                                       loc),
            loc);
        SmallVector<Ref<Expr>, 2> args = {in->value, divided};
        if (side == 1)
          std::swap(args[0], args[1]);
        scaled[pre] = {
            Call::get(post->getCallee(), args, post->getAttrs(), loc), in->axes,
            in->scale};
        break;
      }
      return post;
    }
    if (op == ops["nn.conv2d"] || op == ops["nn.conv3d"]) {
      const Scaled *in = getScaled(pre->getArg(0).get());
      std::optional<ConvAxes> axes = getCallConvAxes(*pre, true);
      if (!in || !axes)
        return post;
      Ref<Expr> weight =
          scaleWeight(*pre, *axes, post->getArg(1), in->scale, loc);
      ++numFolded;
      return Call::get(post->getCallee(), {in->value, weight}, post->getAttrs(),
                       loc);
    }
    if (op == ops["nn.dense"]) {
      const Scaled *in = getScaled(pre->getArg(0).get());
      if (!in)
        return post;
      ++numFolded;
      return Call::get(
          post->getCallee(),
          {in->value, ops::multiply(post->getArg(1), in->scale, loc)},
          post->getAttrs(), loc);
    }
    return post;
  }

  int64_t numFolded = 0;

private:
  struct Scaled {
    Ref<Expr> value;
    SmallVector<int64_t, 2> axes;
    Ref<Expr> scale;
  };

  std::optional<Message> getMessage(const Expr *e) const {
    auto it = messages.find(e);
    return it == messages.end() ? std::nullopt : it->second;
  }
  const Scaled *getScaled(const Expr *e) const {
    auto it = scaled.find(e);
    return it == scaled.end() ? nullptr : &it->second;
  }

  void update(Expr *e, std::optional<Message> message) {
    auto [it, inserted] = messages.try_emplace(e, message);
    if (!inserted)
      it->second = intersect(it->second, message);
  }

  /// The scales \p call's operands may carry, given the scale its users
  /// absorb (\p out).
  SmallVector<std::optional<Message>, 2>
  prep(const Call &call, const std::optional<Message> &out) {
    Op *op = call.getCalledOp();
    if (op == ops["nn.relu"] || op == ops["nn.leaky_relu"]) {
      if (!out)
        return {std::nullopt};
      Message in = *out;
      in.requirePositive = true;
      return {in};
    }
    if ((op == ops["add"] || op == ops["subtract"]) && call.getNumArgs() == 2 &&
        out) {
      const TensorType *lhs = getTensorType(call.getArg(0).get());
      const TensorType *rhs = getTensorType(call.getArg(1).get());
      // Dividing the other operand by a zero scale would make NaNs.
      Message in = *out;
      in.requireNonZero = true;
      if (lhs && rhs && matchBroadcastToLeftAxes(*lhs, *rhs, out->axes))
        return {in, std::nullopt};
      if (lhs && rhs && matchBroadcastToLeftAxes(*rhs, *lhs, out->axes))
        return {std::nullopt, in};
      return {std::nullopt, std::nullopt};
    }
    if (op == ops["nn.conv2d"] || op == ops["nn.conv3d"]) {
      if (std::optional<ConvAxes> axes = getCallConvAxes(call, true))
        return {Message{axes->channel, false, false, 1}, std::nullopt};
      return {};
    }
    if (op == ops["nn.dense"] && call.getNumArgs() == 2) {
      const TensorType *data = getTensorType(call.getArg(0).get());
      if (data && data->getRank() >= 1)
        return {
            Message{
                {static_cast<int64_t>(data->getRank()) - 1}, false, false, 1},
            std::nullopt};
    }
    return {};
  }

  OpSet ops;
  DenseMap<const Expr *, std::optional<Message>> messages;
  DenseMap<const Expr *, Scaled> scaled;
};

/// Runs a BackwardFolder or ForwardFolder on \p expr: both prepare their
/// messages, and rewrite only when there is one.
template <typename FolderT>
Expected<Ref<Expr>> runFolder(Expr *expr, int64_t *numFolded) {
  Expected<OpSet> ops = OpSet::get(kOpNames);
  if (!ops)
    return ops.takeError();
  FolderT folder(std::move(*ops));
  folder.prepare(expr);
  if (!folder.hasMessages())
    return Ref<Expr>(expr);
  Ref<Expr> result = folder.mutate(expr);
  if (numFolded)
    *numFolded += folder.numFolded;
  return result;
}

/// The function pass \p pass (requires InferType) running \p fold and
/// counting its folds.
Ref<Pass> createScaleFoldPass(BuiltinPass pass,
                              Expected<Ref<Expr>> (*fold)(Expr *, int64_t *)) {
  PassInfo info = getBuiltinPassInfo(pass, {"InferType"});
  StringRef name = getBuiltinPassName(pass);
  return createFunctionPass(
      [name = name.str(), fold](Ref<Function> func, const IRModule &,
                                PassContext &ctx) -> Expected<Ref<Function>> {
        int64_t count = 0;
        Expected<Ref<Expr>> result = fold(func.get(), &count);
        if (!result)
          return result.takeError();
        ctx.getStatistics().add(name, "num-folded", count,
                                "Number of scales folded into weights");
        return Ref<Function>(cast<Function>(result->get()));
      },
      std::move(info));
}

} // namespace

Expected<Ref<Expr>> nnir::backwardFoldScaleAxis(Expr *expr,
                                                int64_t *numFolded) {
  return runFolder<BackwardFolder>(expr, numFolded);
}

Ref<Pass> nnir::createBackwardFoldScaleAxisPass() {
  return createScaleFoldPass(BuiltinPass::BackwardFoldScaleAxis,
                             backwardFoldScaleAxis);
}

Expected<Ref<Expr>> nnir::forwardFoldScaleAxis(Expr *expr, int64_t *numFolded) {
  return runFolder<ForwardFolder>(expr, numFolded);
}

Ref<Pass> nnir::createForwardFoldScaleAxisPass() {
  return createScaleFoldPass(BuiltinPass::ForwardFoldScaleAxis,
                             forwardFoldScaleAxis);
}
