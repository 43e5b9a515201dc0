//===- ConvertControlFlow.cpp - If, Loop and Scan -------------------------===//
//
/// \file
/// The ONNX operators with subgraphs, as TVM's importer makes them:
///
/// - If becomes Relay's `if`, both branches imported as expressions over the
///   enclosing scope (NodeContext::importSubgraph); several outputs travel
///   as a tuple. A condition known at import time (it depends on no graph
///   input, or on inputs whose values were given, as nnir-run gives them)
///   selects its branch at once, so shape-dependent Ifs (Silero's "squeeze
///   when the batch is 1") vanish and their branches may differ in type.
/// - Loop and Scan become a recursive let-bound local function:
///
///       let %while_loop = fn (%iter, %carried...) -> (...) {
///         if (<continue>) { <body>; %while_loop(add(%iter, 1), <next>...) }
///         else { (%iter, %carried...) }
///       };
///       %while_loop(0, <initial>...)
///
///   The recursive call is in tail position, which the evaluator runs as an
///   iteration in the same frame. A scan output is carried as a tensor of
///   the final extent, filled as a shift register (each iteration drops the
///   oldest row and appends the new one, TVM's Scan), so every type is
///   static: a Loop with scan outputs needs its trip count at import time
///   and a condition that cannot end it early.
///
/// - A Loop that carries a sequence or an optional (a tuple whose length
///   import fixes) and SequenceMap are unrolled: one import of the body
///   per iteration or element, within kMaxUnrolledNodes.
///
/// Without dynamic shapes (Relay's Any), branches of different types and
/// loop-carried values whose shape changes per iteration are errors that
/// name the node and the value.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "nnir/IR/ExprVisitor.h"
#include "nnir/IR/Type.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::onnximport;

static constexpr StringLiteral kNeedsDynamicShapes =
    "needs dynamic shapes (Relay's Any), which nnir's importer does not "
    "support yet";

/// \p cond, a one-element tensor, as a 0-d bool tensor.
static Expected<Value> scalarCondition(NodeContext &ctx, const Value &cond,
                                       StringRef what) {
  if (product(cond.shape()) != 1)
    return ctx.error(what + " must have one element, got " + cond.type().str());
  TRY(flat, reshape(ctx, cond, {}));
  return cast(ctx, flat, DataType::boolean());
}

/// One value as itself, several as a tuple.
static Value pack(NodeContext &ctx, ArrayRef<Value> values) {
  return values.size() == 1 ? values.front() : ctx.tuple(values);
}

/// The \p count values \p packed stands for (see pack()).
static Outputs unpack(NodeContext &ctx, const Value &packed, size_t count) {
  if (count == 1)
    return one(packed);
  Outputs outs;
  for (size_t i = 0; i < count; ++i)
    outs.push_back(ctx.getItem(packed, i));
  return outs;
}

/// The name of output \p i of the subgraph attribute \p attr, for messages.
static std::string outputName(NodeContext &ctx, StringRef attr, int i) {
  Expected<const onnx::GraphProto *> graph = ctx.getGraph(attr);
  if (!graph) {
    consumeError(graph.takeError());
    return "";
  }
  return i < (*graph)->output_size() ? (*graph)->output(i).name() : "";
}

//===----------------------------------------------------------------------===//
// If
//===----------------------------------------------------------------------===//

namespace {
/// The variables of `?` extents an expression depends on (graph inputs, or
/// a loop body's parameters), in the order met.
class DynamicVars : public ExprVisitor {
public:
  SmallVector<Var *, 2> found;
  void visitVar(Var *v) override {
    const auto *type = dyn_cast_or_null<TensorType>(v->getCheckedType().get());
    if (type && type->isDynamic())
      found.push_back(v);
  }
};
} // namespace

/// Why an If with condition \p cond cannot select its branch at import,
/// for the error of branches that differ in type: the `?` extents the
/// condition depends on, and how to fix them.
static std::string whyNotSelected(const Value &cond) {
  DynamicVars vars;
  vars.visit(cond.expr);
  if (vars.found.empty())
    return "its condition is known at run time only";
  std::string out = "its condition depends on the `?` extents of";
  std::string fix;
  ListSeparator sep(",");
  for (Var *v : vars.found) {
    const auto *type = cast<TensorType>(v->getCheckedType().get());
    out += formatv("{0} '{1}' ({2})", StringRef(sep), v->getNameHint(),
                   type->str())
               .str();
    // --input-shape=x=D0x3xD2: Di where the extent is `?`.
    fix += " --input-shape=" + v->getNameHint().str() + "=";
    ListSeparator times("x");
    for (auto [i, d] : llvm::enumerate(type->getShape()))
      fix += formatv("{0}{1}", StringRef(times),
                     isAnyDim(d) ? "D" + std::to_string(i) : std::to_string(d))
                 .str();
  }
  return out + ": fix them with" + fix +
         " (nnir-run takes them from its input files), so the condition is "
         "known at import and selects one branch";
}

Result onnximport::convertIf(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 1))
    return err;
  // Both branches must be there, whichever is taken.
  for (StringRef attr : {"then_branch", "else_branch"})
    if (Expected<const onnx::GraphProto *> graph = ctx.getGraph(attr); !graph)
      return graph.takeError();
  TRY(cond, scalarCondition(ctx, ctx.input(0), "the condition (input 0)"));
  if (cond.constant) {
    TRY(value, ctx.evaluate(cond));
    bool taken = value.getElementAsInt(0) != 0;
    TRY(outs, ctx.importSubgraph(taken ? "then_branch" : "else_branch", {}));
    return Outputs(outs.begin(), outs.end());
  }
  TRY(thenOuts, ctx.importSubgraph("then_branch", {}));
  TRY(elseOuts, ctx.importSubgraph("else_branch", {}));
  if (thenOuts.size() != elseOuts.size())
    return ctx.error(formatv("then_branch has {0} outputs, else_branch {1}",
                             thenOuts.size(), elseOuts.size())
                         .str());
  for (size_t i = 0; i < thenOuts.size(); ++i)
    if (!typesEqual(thenOuts[i].expr->getCheckedType().get(),
                    elseOuts[i].expr->getCheckedType().get()))
      return ctx.error(
          formatv("output {0} is {1} in then_branch ('{2}') but {3} in "
                  "else_branch ('{4}'): the branches of an If must have one "
                  "type unless its condition is known at import, and {5}",
                  i, thenOuts[i].type().str(), outputName(ctx, "then_branch", i),
                  elseOuts[i].type().str(), outputName(ctx, "else_branch", i),
                  whyNotSelected(cond))
              .str());
  Value thenValue = pack(ctx, thenOuts);
  Value elseValue = pack(ctx, elseOuts);
  Value result = ctx.record(
      Value{If::get(cond.expr, thenValue.expr, elseValue.expr, SMLoc(),
                    thenValue.expr->getCheckedType()),
            /*constant=*/false});
  return unpack(ctx, result, thenOuts.size());
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

/// A fresh loop parameter of \p type (never constant).
static Value loopParam(NodeContext &ctx, StringRef name, Ref<Type> type) {
  return ctx.record(Value{Var::get(name, type, SMLoc(), type),
                          /*constant=*/false});
}

/// `let %while_loop = fn (params) { if (cond) { %while_loop(next) } else
/// { (params) } }; %while_loop(init)`: the final values of \p params, as a
/// tuple. \p next and \p init have the parameters' types.
static Value buildWhileLoop(NodeContext &ctx, ArrayRef<Value> params,
                            const Value &cond, ArrayRef<Value> next,
                            ArrayRef<Value> init) {
  SmallVector<Ref<Var>, 8> vars;
  SmallVector<Ref<Type>, 8> types;
  for (const Value &p : params) {
    vars.push_back(cast<Var>(p.expr));
    types.push_back(p.expr->getCheckedType());
  }
  Ref<Type> resultType = TupleType::get(types);
  Ref<Type> fnType = FuncType::get(types, resultType);
  Ref<Var> loop = Var::get("while_loop", fnType, SMLoc(), fnType);
  auto callLoop = [&](ArrayRef<Value> args) {
    SmallVector<Ref<Expr>, 8> exprs;
    for (const Value &a : args)
      exprs.push_back(a.expr);
    return Call::get(loop, exprs, nullptr, SMLoc(), resultType);
  };
  Ref<Expr> body = If::get(cond.expr, callLoop(next), ctx.tuple(params).expr,
                           SMLoc(), resultType);
  Ref<Function> fn =
      Function::get(vars, body, resultType, nullptr, SMLoc(), fnType);
  return ctx.record(Value{Let::get(loop, fn, callLoop(init), SMLoc(),
                                   resultType),
                          /*constant=*/false});
}

/// The next value of a scan output's accumulator \p acc (extent \p trips on
/// \p axis) given this iteration's \p y: the oldest row dropped and \p y
/// appended (or, \p reverse, prepended).
static Expected<Value> shiftIn(NodeContext &ctx, const Value &acc,
                               const Value &y, int64_t axis, int64_t trips,
                               bool reverse) {
  TRY(row, ctx.typed(ops::expandDims(y, axis)));
  if (trips == 1)
    return row;
  TRY(kept, sliceAxis(ctx, acc, axis, reverse ? 0 : 1,
                      reverse ? trips - 1 : trips));
  Value fields = reverse ? ctx.tuple({row, kept}) : ctx.tuple({kept, row});
  return ctx.typed(ops::concatenate(fields, axis));
}

/// The accumulator of a scan output like \p y: \p y's shape with \p trips
/// inserted at \p axis (in [0, rank]), zero-filled.
static Expected<Value> scanAccumulator(NodeContext &ctx, const Value &y,
                                       int64_t axis, int64_t trips) {
  std::vector<int64_t> shape(y.shape().begin(), y.shape().end());
  shape.insert(shape.begin() + axis, trips);
  return ctx.typed(ops::zeros(shape, y.dtype()));
}

/// Gives the body's loop-carried outputs (\p outs[1, 1 + numCarried]) that
/// have `?` extents where the value they replace has static ones (a slice
/// with run-time bounds, test_loop11) the static shape of \p before, by a
/// reshape that checks at run time that the extents agree; a scan output
/// that is the same value gets the reshaped one too.
static Error refineCarried(NodeContext &ctx, ArrayRef<Value> before,
                           MutableArrayRef<Value> outs, size_t numCarried) {
  for (size_t k = 0; k < numCarried; ++k) {
    Value after = outs[1 + k];
    const Type *from = before[k].expr->getCheckedType().get();
    const Type *to = after.expr->getCheckedType().get();
    if (!before[k].isTensor() || !after.isTensor() ||
        before[k].type().isDynamic() || !after.type().isDynamic() ||
        !typesCompatible(from, to))
      continue;
    TRY(refined, reshape(ctx, after, before[k].shape()));
    for (Value &out : outs.drop_front(1))
      if (out.expr == after.expr)
        out = refined;
  }
  return Error::success();
}

/// Checks that the body keeps each loop-carried value's type.
static Error checkCarried(NodeContext &ctx, ArrayRef<Value> before,
                          ArrayRef<Value> after, size_t firstOutput) {
  for (size_t k = 0; k < before.size(); ++k)
    if (!typesEqual(before[k].expr->getCheckedType().get(),
                    after[k].expr->getCheckedType().get()))
      return ctx.error(
          formatv("loop-carried value {0} ('{1}') is {2} before an "
                  "iteration and {3} after it: a loop-carried value whose "
                  "shape or type changes per iteration {4}",
                  k, outputName(ctx, "body", firstOutput + k),
                  before[k].type().str(), after[k].type().str(),
                  kNeedsDynamicShapes)
              .str());
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Unrolling at import time
//===----------------------------------------------------------------------===//

/// The most nodes an unrolled Loop or SequenceMap may import: iterations
/// times the body's nodes (those of its own subgraphs included).
static constexpr int64_t kMaxUnrolledNodes = 100000;

/// The nodes of \p graph and of the subgraphs its nodes hold.
static int64_t countNodes(const onnx::GraphProto &graph) {
  int64_t count = 0;
  for (const onnx::NodeProto &node : graph.node()) {
    ++count;
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g())
        count += countNodes(attr.g());
      for (const onnx::GraphProto &g : attr.graphs())
        count += countNodes(g);
    }
  }
  return count;
}

/// An error when a \p what unrolled into \p iterations copies of \p body
/// would import more than kMaxUnrolledNodes nodes.
static Error checkUnrollBound(NodeContext &ctx, const onnx::GraphProto &body,
                              int64_t iterations, StringRef what) {
  int64_t size = std::max<int64_t>(countNodes(body), 1);
  if (iterations <= kMaxUnrolledNodes / size)
    return Error::success();
  return ctx.unsupported(
      formatv("{0} is unrolled at import time, and {1} iterations of a body "
              "of {2} nodes exceed the bound of {3} imported nodes",
              what, iterations, size, kMaxUnrolledNodes)
          .str());
}

/// A Loop that carries a sequence or an optional (input \p tupleInput) as
/// one copy of its body per iteration, each imported with the previous
/// one's values and the iteration number as a constant: its trip count and
/// each iteration's condition must be known at import time. Scan outputs
/// are stacked.
static Result unrollLoop(NodeContext &ctx, const onnx::GraphProto &body,
                         size_t numCarried, size_t numScans,
                         size_t tupleInput) {
  auto notKnown = [&](size_t i, StringRef what) {
    return ctx.unsupported(
        formatv("a Loop that carries a sequence or an optional (input {0}, "
                "'{1}') is unrolled at import time, which needs {2} known "
                "at import time; it depends on a graph input",
                tupleInput, ctx.getNode().input(tupleInput), what)
            .str());
  };
  std::optional<int64_t> maxCount;
  if (ctx.hasInput(0)) {
    if (product(ctx.input(0).shape()) != 1 || !ctx.input(0).dtype().isInt())
      return ctx.error("the trip count M (input 0) must be one int64, got " +
                       ctx.input(0).type().str());
    if (!ctx.input(0).constant)
      return notKnown(0, "the trip count M (input 0)");
    TRY(m, ctx.evaluate(ctx.input(0)));
    maxCount = m.getElementAsInt(0);
  }
  bool cond = true;
  if (ctx.hasInput(1)) {
    TRY(c, scalarCondition(ctx, ctx.input(1), "the condition (input 1)"));
    if (!c.constant)
      return notKnown(1, "the condition (input 1)");
    TRY(value, ctx.evaluate(c));
    cond = value.getElementAsInt(0) != 0;
  }
  if (maxCount && *maxCount > 0 && cond)
    if (Error err = checkUnrollBound(ctx, body, *maxCount, "the Loop"))
      return err;

  SmallVector<Value, 8> carried;
  // An optional input whose output is declared as what it holds (a
  // sequence, a tensor) gets that output as a full optional.
  SmallVector<bool, 8> wrap;
  for (size_t k = 0; k < numCarried; ++k) {
    carried.push_back(ctx.input(2 + k));
    const onnx::TypeProto &out = body.output(1 + k).type();
    wrap.push_back(valueKindOf(body.input(2 + k).type()) ==
                       ONNXValueKind::Optional &&
                   out.value_case() != onnx::TypeProto::VALUE_NOT_SET &&
                   valueKindOf(out) != ONNXValueKind::Optional);
  }
  std::vector<SmallVector<Value, 4>> scans(numScans);
  for (int64_t i = 0; cond && (!maxCount || i < *maxCount); ++i) {
    // Without a trip count, the condition ends the loop: bound it as it goes.
    if (!maxCount)
      if (Error err = checkUnrollBound(ctx, body, i + 1, "the Loop"))
        return err;
    SmallVector<Value, 8> bodyInputs = {ctx.scalar(DataType::int64(), i),
                                        ctx.scalar(DataType::boolean(), 1)};
    for (size_t k = 0; k < numCarried; ++k)
      bodyInputs.push_back(wrap[k] && i > 0 ? ctx.tuple({carried[k]})
                                            : carried[k]);
    TRY(outs, ctx.importSubgraph("body", bodyInputs));
    TRY(next, scalarCondition(ctx, outs[0], "the body's condition output"));
    if (!next.constant)
      return notKnown(1, formatv("the condition after each iteration (after "
                                 "iteration {0})",
                                 i)
                             .str());
    TRY(nextValue, ctx.evaluate(next));
    cond = nextValue.getElementAsInt(0) != 0;
    for (size_t k = 0; k < numCarried; ++k)
      carried[k] = outs[1 + k];
    for (size_t j = 0; j < numScans; ++j) {
      const Value &y = outs[1 + numCarried + j];
      if (!y.isTensor())
        return ctx.error(formatv("scan output {0} ('{1}') is not a tensor", j,
                                 outputName(ctx, "body", 1 + numCarried + j))
                             .str());
      scans[j].push_back(y);
    }
  }
  Outputs results(carried.begin(), carried.end());
  for (size_t j = 0; j < numScans; ++j) {
    if (scans[j].empty())
      return ctx.unsupported("a Loop with scan outputs that runs no "
                             "iteration (empty tensors) is not supported");
    TRY(stacked, ctx.typed(ops::stack(ctx.tuple(scans[j]), 0)));
    results.push_back(stacked);
  }
  return results;
}

Result onnximport::convertSequenceMap(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, ctx.getNumInputs()))
    return err;
  TRY(body, ctx.getGraph("body"));
  if (static_cast<size_t>(body->input_size()) != ctx.getNumInputs())
    return ctx.error(formatv("the body has {0} inputs, expected {1} (one "
                             "per input of the node)",
                             body->input_size(), ctx.getNumInputs())
                         .str());
  if (body->output_size() < 1)
    return ctx.error("the body has no output");
  // Sequences are iterated, tensors shared by every iteration.
  std::optional<size_t> length;
  for (size_t i = 0; i < ctx.getNumInputs(); ++i) {
    if (!ctx.hasInput(i))
      return ctx.error(formatv("input {0} is missing", i).str());
    const auto *type =
        dyn_cast<TupleType>(ctx.input(i).expr->getCheckedType().get());
    if (!type) {
      if (i == 0)
        return ctx.error(formatv("input 0 ('{0}') must be a sequence",
                                 ctx.getNode().input(0))
                             .str());
      continue;
    }
    size_t n = type->getFields().size();
    if (length && n != *length)
      return ctx.error(formatv("input {0} ('{1}') is a sequence of {2} "
                               "elements, input 0 has {3}",
                               i, ctx.getNode().input(i), n, *length)
                           .str());
    length = n;
  }
  if (Error err = checkUnrollBound(ctx, *body, *length, "SequenceMap"))
    return err;
  std::vector<SmallVector<Value, 4>> elements(body->output_size());
  for (size_t k = 0; k < *length; ++k) {
    SmallVector<Value, 4> bodyInputs;
    for (size_t i = 0; i < ctx.getNumInputs(); ++i)
      bodyInputs.push_back(ctx.input(i).isTensor()
                               ? ctx.input(i)
                               : ctx.getItem(ctx.input(i), k));
    TRY(outs, ctx.importSubgraph("body", bodyInputs));
    for (size_t j = 0; j < outs.size(); ++j)
      elements[j].push_back(outs[j]);
  }
  Outputs results;
  for (const SmallVector<Value, 4> &sequence : elements)
    results.push_back(ctx.tuple(sequence));
  return results;
}

//===----------------------------------------------------------------------===//
// Loop
//===----------------------------------------------------------------------===//

Result onnximport::convertLoop(NodeContext &ctx) {
  if (ctx.getNumInputs() < 2)
    return ctx.error(formatv("expects at least 2 inputs (M, cond), got {0}",
                             ctx.getNumInputs())
                         .str());
  TRY(body, ctx.getGraph("body"));
  size_t numCarried = ctx.getNumInputs() - 2;
  if (static_cast<size_t>(body->input_size()) != 2 + numCarried)
    return ctx.error(formatv("the body has {0} inputs, expected {1} "
                             "(iteration number, condition, {2} loop-carried)",
                             body->input_size(), 2 + numCarried, numCarried)
                         .str());
  if (static_cast<size_t>(body->output_size()) < 1 + numCarried)
    return ctx.error(formatv("the body has {0} outputs, expected at least {1} "
                             "(condition, {2} loop-carried)",
                             body->output_size(), 1 + numCarried, numCarried)
                         .str());
  size_t numScans = body->output_size() - 1 - numCarried;
  for (size_t k = 0; k < numCarried; ++k)
    if (!ctx.hasInput(2 + k))
      return ctx.error(formatv("loop-carried value {0} (input {1}) is missing",
                               k, 2 + k)
                           .str());

  for (size_t i = 0; i < 2; ++i)
    if (ctx.hasInput(i) && !ctx.input(i).isTensor())
      return ctx.error(formatv("input {0} ('{1}') must be a tensor", i,
                               ctx.getNode().input(i))
                           .str());
  // A sequence or an optional is a tuple whose length import fixes, and a
  // loop that carries one usually changes that length per iteration: such a
  // loop is unrolled.
  for (size_t k = 0; k < numCarried; ++k)
    if (!ctx.input(2 + k).isTensor())
      return unrollLoop(ctx, *body, numCarried, numScans, 2 + k);

  std::optional<Value> maxCount;
  if (ctx.hasInput(0)) {
    if (product(ctx.input(0).shape()) != 1 || !ctx.input(0).dtype().isInt())
      return ctx.error("the trip count M (input 0) must be one int64, got " +
                       ctx.input(0).type().str());
    TRY(m, reshape(ctx, ctx.input(0), {}));
    TRY(m64, cast(ctx, m, DataType::int64()));
    maxCount = m64;
  }
  std::optional<Value> initialCond;
  if (ctx.hasInput(1)) {
    TRY(c, scalarCondition(ctx, ctx.input(1), "the condition (input 1)"));
    initialCond = c;
  }

  // The body over the parameters of the loop function.
  Ref<Type> int64Scalar = TensorType::getScalar(DataType::int64());
  Ref<Type> boolScalar = TensorType::getScalar(DataType::boolean());
  SmallVector<Value, 8> params = {
      loopParam(ctx, body->input(0).name(), int64Scalar),
      loopParam(ctx, body->input(1).name(), boolScalar)};
  SmallVector<Value, 8> carried;
  for (size_t k = 0; k < numCarried; ++k)
    carried.push_back(loopParam(ctx, body->input(2 + k).name(),
                                ctx.input(2 + k).expr->getCheckedType()));
  SmallVector<Value, 8> bodyInputs(params.begin(), params.end());
  bodyInputs.append(carried.begin(), carried.end());
  TRY(outs, ctx.importSubgraph("body", bodyInputs));
  if (Error err = refineCarried(ctx, carried, outs, numCarried))
    return err;
  TRY(nextCond, scalarCondition(ctx, outs[0], "the body's condition output"));
  ArrayRef<Value> nextCarried = ArrayRef<Value>(outs).slice(1, numCarried);
  if (Error err = checkCarried(ctx, carried, nextCarried, 1))
    return err;

  // Scan outputs have the extent of the trip count, which must be known
  // and certain: M at import time, and a condition that stays true.
  int64_t trips = 0;
  if (numScans) {
    if (!maxCount || !maxCount->constant)
      return ctx.unsupported(
          "a Loop with scan outputs whose trip count M is not known at "
          "import time " + kNeedsDynamicShapes);
    TRY(m, ctx.evaluate(*maxCount));
    trips = m.getElementAsInt(0);
    bool condHolds = nextCond.expr == params[1].expr;
    if (const auto *c = dyn_cast<Constant>(nextCond.expr.get()))
      condHolds = c->getData().getElementAsInt(0) != 0;
    if (initialCond) {
      if (!initialCond->constant)
        condHolds = false;
      else {
        TRY(c0, ctx.evaluate(*initialCond));
        if (c0.getElementAsInt(0) == 0)
          trips = 0;
      }
    }
    if (!condHolds)
      return ctx.unsupported("a Loop with scan outputs whose condition may "
                             "end it early " +
                             kNeedsDynamicShapes);
    if (trips <= 0)
      return ctx.unsupported("a Loop with scan outputs that runs no "
                             "iteration (empty tensors) is not supported");
  }
  SmallVector<Value, 4> accs, nextAccs, initAccs;
  for (size_t j = 0; j < numScans; ++j) {
    const Value &y = outs[1 + numCarried + j];
    TRY(init, scanAccumulator(ctx, y, 0, trips));
    Value acc = loopParam(ctx, outputName(ctx, "body", 1 + numCarried + j),
                          init.expr->getCheckedType());
    TRY(next, shiftIn(ctx, acc, y, 0, trips, /*reverse=*/false));
    accs.push_back(acc);
    nextAccs.push_back(next);
    initAccs.push_back(init);
  }

  // Continue while i < M and cond.
  Value cont = params[1];
  if (maxCount) {
    TRY(inRange, ctx.typed(ops::less(params[0], *maxCount)));
    TRY(both, ctx.typed(ops::logicalAnd(inRange, cont)));
    cont = both;
  }
  TRY(nextIter,
      ctx.typed(ops::add(params[0], ctx.scalar(DataType::int64(), 1))));
  SmallVector<Value, 8> allParams(params.begin(), params.end());
  allParams.append(carried.begin(), carried.end());
  allParams.append(accs.begin(), accs.end());
  SmallVector<Value, 8> next = {nextIter, nextCond};
  next.append(nextCarried.begin(), nextCarried.end());
  next.append(nextAccs.begin(), nextAccs.end());
  SmallVector<Value, 8> init = {
      ctx.scalar(DataType::int64(), 0),
      initialCond ? *initialCond : ctx.scalar(DataType::boolean(), 1)};
  for (size_t k = 0; k < numCarried; ++k)
    init.push_back(ctx.input(2 + k));
  init.append(initAccs.begin(), initAccs.end());
  Value final = buildWhileLoop(ctx, allParams, cont, next, init);
  Outputs results;
  for (size_t k = 0; k < numCarried + numScans; ++k)
    results.push_back(ctx.getItem(final, 2 + k));
  return results;
}

/// Scan (opset 9 on) over \p states and \p scans: \p inAxes and \p inReverse
/// per scan input, \p outAxes and \p outReverse per scan output (axes
/// normalised by the caller for the inputs, here for the outputs). Returns
/// the final states, then the scan outputs.
static Result buildScan(NodeContext &ctx, ArrayRef<Value> states,
                        ArrayRef<Value> scans, ArrayRef<int64_t> inAxes,
                        ArrayRef<int64_t> inReverse,
                        ArrayRef<int64_t> outAxesAttr,
                        ArrayRef<int64_t> outReverseAttr) {
  const onnx::GraphProto *body = cantFail(ctx.getGraph("body"));
  size_t numStates = states.size();
  if (static_cast<size_t>(body->input_size()) != numStates + scans.size())
    return ctx.error(formatv("the body has {0} inputs, expected {1} ({2} "
                             "states, {3} scan inputs)",
                             body->input_size(), numStates + scans.size(),
                             numStates, scans.size())
                         .str());
  if (static_cast<size_t>(body->output_size()) < numStates)
    return ctx.error(formatv("the body has {0} outputs, expected at least {1}",
                             body->output_size(), numStates)
                         .str());
  size_t numScanOuts = body->output_size() - numStates;
  if (scans.empty())
    return ctx.error("Scan needs at least one scan input");
  int64_t trips = scans[0].shape()[inAxes[0]];
  for (size_t k = 1; k < scans.size(); ++k)
    if (scans[k].shape()[inAxes[k]] != trips)
      return ctx.error(formatv("scan input {0} has {1} iterations along its "
                               "axis, scan input 0 has {2}",
                               k, scans[k].shape()[inAxes[k]], trips)
                           .str());
  if (trips <= 0)
    return ctx.unsupported("a Scan of no iteration (empty tensors)");

  Value iter = loopParam(ctx, "iter", TensorType::getScalar(DataType::int64()));
  SmallVector<Value, 8> stateParams, scanParams, bodyInputs;
  for (size_t k = 0; k < numStates; ++k)
    stateParams.push_back(loopParam(ctx, body->input(k).name(),
                                    states[k].expr->getCheckedType()));
  bodyInputs.append(stateParams.begin(), stateParams.end());
  // The scanned tensors are parameters too (invariant), so each iteration
  // reads them from its own frame.
  TRY(lastIndex, ctx.typed(ops::subtract(
                     ctx.scalar(DataType::int64(), trips - 1), iter)));
  for (size_t k = 0; k < scans.size(); ++k) {
    scanParams.push_back(loopParam(ctx, "scan_input",
                                   scans[k].expr->getCheckedType()));
    TRY(slice, ctx.typed(ops::take(scanParams.back(),
                                   inReverse[k] ? lastIndex : iter, inAxes[k],
                                   "clip")));
    bodyInputs.push_back(slice);
  }
  TRY(outs, ctx.importSubgraph("body", bodyInputs));
  if (Error err = checkCarried(ctx, stateParams,
                               ArrayRef<Value>(outs).take_front(numStates), 0))
    return err;

  SmallVector<Value, 4> accs, nextAccs, initAccs;
  for (size_t j = 0; j < numScanOuts; ++j) {
    const Value &y = outs[numStates + j];
    int64_t axis = j < outAxesAttr.size() ? outAxesAttr[j] : 0;
    if (axis < -(y.rank() + 1) || axis > y.rank())
      return ctx.error(formatv("scan_output_axes[{0}] = {1} is out of range "
                               "for rank {2}",
                               j, axis, y.rank() + 1)
                           .str());
    if (axis < 0)
      axis += y.rank() + 1;
    bool reverse = j < outReverseAttr.size() && outReverseAttr[j];
    TRY(init, scanAccumulator(ctx, y, axis, trips));
    Value acc = loopParam(ctx, outputName(ctx, "body", numStates + j),
                          init.expr->getCheckedType());
    TRY(next, shiftIn(ctx, acc, y, axis, trips, reverse));
    accs.push_back(acc);
    nextAccs.push_back(next);
    initAccs.push_back(init);
  }

  TRY(cont, ctx.typed(ops::less(iter, ctx.scalar(DataType::int64(), trips))));
  TRY(nextIter, ctx.typed(ops::add(iter, ctx.scalar(DataType::int64(), 1))));
  SmallVector<Value, 8> params = {iter}, next = {nextIter},
                        init = {ctx.scalar(DataType::int64(), 0)};
  params.append(stateParams.begin(), stateParams.end());
  next.append(outs.begin(), outs.begin() + numStates);
  init.append(states.begin(), states.end());
  params.append(scanParams.begin(), scanParams.end());
  next.append(scanParams.begin(), scanParams.end());
  init.append(scans.begin(), scans.end());
  params.append(accs.begin(), accs.end());
  next.append(nextAccs.begin(), nextAccs.end());
  init.append(initAccs.begin(), initAccs.end());
  Value final = buildWhileLoop(ctx, params, cont, next, init);
  Outputs results;
  for (size_t k = 0; k < numStates; ++k)
    results.push_back(ctx.getItem(final, 1 + k));
  for (size_t j = 0; j < numScanOuts; ++j)
    results.push_back(ctx.getItem(final, 1 + numStates + scans.size() + j));
  return results;
}

Result onnximport::convertScan(NodeContext &ctx) {
  TRY(body, ctx.getGraph("body"));
  (void)body;
  TRY(numScanInputs, ctx.getInt("num_scan_inputs", -1));
  // Opset 8 has a first input, the sequence lengths, and a batch axis.
  bool batched = ctx.getOpset() < 9;
  size_t first = batched ? 1 : 0;
  if (numScanInputs < 1 ||
      static_cast<size_t>(numScanInputs) + first > ctx.getNumInputs())
    return ctx.error(formatv("num_scan_inputs = {0} does not fit the node's "
                             "{1} inputs",
                             numScanInputs, ctx.getNumInputs())
                         .str());
  if (batched && ctx.hasInput(0))
    return ctx.unsupported("Scan's sequence_lens (input 0): sequences of "
                           "different lengths need dynamic shapes");
  size_t numStates = ctx.getNumInputs() - first - numScanInputs;
  SmallVector<Value, 4> states, scans;
  for (size_t i = first; i < ctx.getNumInputs(); ++i) {
    if (!ctx.hasInput(i))
      return ctx.error(formatv("input {0} is required", i).str());
    (i - first < numStates ? states : scans).push_back(ctx.input(i));
  }
  TRY(inReverse,
      ctx.getInts(batched ? "directions" : "scan_input_directions",
                  std::vector<int64_t>(numScanInputs, 0)));
  std::vector<int64_t> inAxes(numScanInputs, 0);
  std::vector<int64_t> outAxes, outReverse;
  if (!batched) {
    TRY(axes, ctx.getInts("scan_input_axes", inAxes));
    inAxes = axes;
    TRY(oAxes, ctx.getInts("scan_output_axes"));
    TRY(oReverse, ctx.getInts("scan_output_directions"));
    outAxes = oAxes;
    outReverse = oReverse;
  }
  if (inAxes.size() != scans.size() || inReverse.size() != scans.size())
    return ctx.error("the scan input axes and directions must have one entry "
                     "per scan input");
  for (size_t k = 0; k < scans.size(); ++k) {
    int64_t rank = scans[k].rank() - (batched ? 1 : 0);
    TRY(axis, ctx.normalizeAxis(inAxes[k], rank));
    inAxes[k] = axis;
  }
  if (!batched)
    return buildScan(ctx, states, scans, inAxes, inReverse, outAxes,
                     outReverse);

  // Opset 8: one scan per batch entry, the results stacked.
  int64_t batch = scans[0].shape()[0];
  for (const Value &v : llvm::concat<const Value>(states, scans))
    if (v.rank() == 0 || v.shape()[0] != batch)
      return ctx.error(formatv("every input of a batched Scan must have the "
                               "batch extent {0} first, got {1}",
                               batch, v.type().str())
                           .str());
  std::vector<Outputs> perBatch;
  for (int64_t b = 0; b < batch; ++b) {
    SmallVector<Value, 4> bStates, bScans;
    for (const Value &v : states) {
      TRY(entry, ctx.typed(ops::take(v, ctx.scalar(DataType::int64(), b), 0,
                                     "clip")));
      bStates.push_back(entry);
    }
    for (const Value &v : scans) {
      TRY(entry, ctx.typed(ops::take(v, ctx.scalar(DataType::int64(), b), 0,
                                     "clip")));
      bScans.push_back(entry);
    }
    TRY(outs, buildScan(ctx, bStates, bScans, inAxes, inReverse, {}, {}));
    perBatch.push_back(std::move(outs));
  }
  Outputs results;
  for (size_t j = 0; j < perBatch[0].size(); ++j) {
    SmallVector<Value, 4> entries;
    for (const Outputs &outs : perBatch)
      entries.push_back(outs[j]);
    TRY(stacked, ctx.typed(ops::stack(ctx.tuple(entries), 0)));
    results.push_back(stacked);
  }
  return results;
}
