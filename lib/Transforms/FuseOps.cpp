//===- FuseOps.cpp - Operator fusion --------------------------------------===//
//
/// \file
/// Partitions the dataflow graph (nnir/Analysis/GraphPartitioner.h), then
/// rewrites the expression bottom-up: a node inside a group is rebuilt with
/// the group's parameters in place of the values the group reads from
/// outside, and the root of a group becomes a call of a new primitive
/// function holding the group (Relay's FuseMutator). Each new function can
/// be reported as a Passed remark.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/FuseOps.h"
#include "nnir/Transforms/Passes.h"

#include "nnir/Analysis/GraphPartitioner.h"
#include "nnir/Analysis/IndexedForwardGraph.h"
#include "nnir/IR/ExprMutator.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/Pass/Remark.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/DenseMap.h"

#include <string>

using namespace llvm;
using namespace nnir;

namespace {

class FuseMutator final : public ExprMutator {
public:
  /// With \p ctx, each new primitive function is reported as a remark
  /// about \p function (when the context's remark sink wants it).
  FuseMutator(const FuseOpsOptions &options, PassContext *ctx = nullptr,
              StringRef function = "")
      : options(options), partitioner(options.optLevel, options.maxDepth),
        stopFusion(Op::lookup("annotation.stop_fusion")),
        remarks(ctx && ctx->isRemarkEnabled(RemarkKind::Passed, "FuseOps")
                    ? ctx
                    : nullptr),
        function(function) {}

  Expected<Ref<Expr>> run(Expr *expr) {
    graph = IndexedForwardGraph::create(expr);
    partitioner.partition(graph);
    Ref<Expr> result = mutate(expr);
    if (error)
      return std::move(error);
    return result;
  }

  /// The number of primitive functions created.
  int64_t getNumGroups() const { return numGroups; }

private:
  /// What a group collects while its nodes are rewritten.
  struct GroupInfo {
    SmallVector<Ref<Var>, 4> params;
    SmallVector<Ref<Expr>, 4> arguments;
    unsigned numCalls = 0;
    bool hasCall = false;
  };

  static constexpr unsigned kNoGroup = ~0u;

  /// The root node of the group of \p e, or kNoGroup if \p e is not in the
  /// graph.
  unsigned groupOf(const Expr *e) {
    const IndexedForwardGraph::Node *node = graph.lookup(e);
    return node ? partitioner.getGroupRoot(node->index) : kNoGroup;
  }
  bool isGroupRoot(const Expr *e, unsigned group) {
    return group != kNoGroup && graph.getNode(group).ref == e;
  }

  void setError(Error err) {
    if (error)
      consumeError(std::move(err));
    else
      error = std::move(err);
  }

  /// The parameter of \p group bound to \p argument, made on first use.
  Ref<Expr> getOrAllocParam(unsigned group, const Ref<Expr> &argument,
                            const Expr *original) {
    GroupInfo &info = groups[group];
    for (size_t i = 0, e = info.arguments.size(); i != e; ++i)
      if (info.arguments[i] == argument)
        return info.params[i];
    const Ref<Type> &type = original->getCheckedType();
    if (!type)
      setError(makeError(original->getLoc(),
                         "FuseOps needs checked types: this " +
                             Expr::getKindName(original->getKind()) +
                             " has none (run InferType first)"));
    Ref<Var> param = Var::get("p" + std::to_string(info.params.size()), type);
    info.params.push_back(param);
    info.arguments.push_back(argument);
    return param;
  }

  /// The operands of a node of \p group: \p post (the rewritten operands)
  /// with every operand that lies outside the group replaced by a parameter
  /// (constants stay with link_params).
  SmallVector<Ref<Expr>, 4> getNewArguments(ArrayRef<Ref<Expr>> pre,
                                            ArrayRef<Ref<Expr>> post,
                                            unsigned group) {
    SmallVector<Ref<Expr>, 4> result;
    for (size_t i = 0, e = pre.size(); i != e; ++i) {
      if (groupOf(pre[i].get()) == group ||
          (options.linkParams && isa<Constant>(post[i].get())))
        result.push_back(post[i]);
      else
        result.push_back(getOrAllocParam(group, post[i], pre[i].get()));
    }
    return result;
  }

  /// `fn (params..., Primitive=1) -> retType { body }(arguments...)` for
  /// \p group, located at the group's root \p root.
  Ref<Expr> makeNewFunction(unsigned group, const Expr *root, Ref<Expr> body) {
    GroupInfo &info = groups[group];
    if (!root->getCheckedType())
      setError(
          makeError(root->getLoc(), "FuseOps needs checked types: this " +
                                        Expr::getKindName(root->getKind()) +
                                        " has none (run InferType first)"));
    // Attributes are immutable: every group shares one record.
    Ref<DictAttrs> &attrs = primitiveAttrs[info.hasCall];
    if (!attrs)
      attrs =
          DictAttrs::get({{attr::kPrimitive.str(),
                           AttrValue::integer(info.hasCall ? 1 : 0), SMLoc()}});
    Ref<Function> func =
        Function::get(info.params, std::move(body), root->getCheckedType(),
                      attrs, root->getLoc());
    ++numGroups;
    if (remarks)
      remarks->emitRemark(
          Remark(RemarkKind::Passed, "FuseOps", "Fused", root->getLoc())
              .setFunction(function)
          << "fused " << RemarkArg("NumCalls", info.numCalls)
          << (info.numCalls == 1 ? " call" : " calls")
          << " into a primitive function with "
          << RemarkArg("NumParams", unsigned(info.params.size()))
          << (info.params.size() == 1 ? " parameter" : " parameters"));
    return Call::get(func, info.arguments, nullptr, root->getLoc());
  }

  Ref<Expr> visitFunction(Function *func) override {
    // Primitive functions are fused already; external ones are not ours.
    if (func->isOpaque())
      return func;
    return ExprMutator::visitFunction(func);
  }

  Ref<Expr> rewriteCall(Call *pre, Call *post) override {
    Op *op = pre->getCalledOp();
    if (!op || isNonComputationalOp(op))
      return post;
    unsigned group = groupOf(pre);
    if (group == kNoGroup)
      return post;
    if (op == stopFusion)
      return post->getArg(0);
    SmallVector<Ref<Expr>, 4> args =
        getNewArguments(pre->getArgs(), post->getArgs(), group);
    groups[group].hasCall = true;
    ++groups[group].numCalls;
    Ref<Expr> call =
        Call::get(post->getCallee(), args, pre->getAttrs(), pre->getLoc());
    if (isGroupRoot(pre, group))
      return makeNewFunction(group, pre, std::move(call));
    return call;
  }

  Ref<Expr> rewriteTuple(Tuple *pre, Tuple *post) override {
    unsigned group = groupOf(pre);
    // A tuple that ends its group stays a plain tuple.
    if (group == kNoGroup || isGroupRoot(pre, group))
      return post;
    return Tuple::get(
        getNewArguments(pre->getFields(), post->getFields(), group),
        pre->getLoc());
  }

  Ref<Expr> rewriteTupleGetItem(TupleGetItem *pre,
                                TupleGetItem *post) override {
    unsigned group = groupOf(pre);
    if (group == kNoGroup)
      return post;
    bool isRoot = isGroupRoot(pre, group);
    // The projection of a tuple made elsewhere (by an opaque call) stays.
    if (isRoot && groupOf(pre->getTuple().get()) != group)
      return post;
    Ref<Expr> tuple =
        getNewArguments({pre->getTuple()}, {post->getTuple()}, group)[0];
    Ref<Expr> item =
        TupleGetItem::get(std::move(tuple), pre->getIndex(), pre->getLoc());
    if (isRoot)
      return makeNewFunction(group, pre, std::move(item));
    return item;
  }

  const FuseOpsOptions &options;
  IndexedForwardGraph graph;
  GraphPartitioner partitioner;
  DenseMap<unsigned, GroupInfo> groups;
  Op *stopFusion;
  /// `Primitive=0` and `Primitive=1`.
  Ref<DictAttrs> primitiveAttrs[2];
  PassContext *remarks;
  std::string function;
  Error error = Error::success();
  int64_t numGroups = 0;
};

} // namespace

Expected<Ref<Expr>> nnir::fuseOps(Expr *expr, const FuseOpsOptions &options) {
  FuseMutator mutator(options);
  return mutator.run(expr);
}

Ref<Pass> nnir::createFuseOpsPass(int fuseOptLevel) {
  PassInfo info = getBuiltinPassInfo(BuiltinPass::FuseOps, {"InferType"});
  return createFunctionPass(
      [fuseOptLevel](Ref<Function> func, const IRModule &module,
                     PassContext &ctx) -> Expected<Ref<Function>> {
        FuseOpsOptions options;
        options.optLevel = fuseOptLevel < 0 ? ctx.getOptLevel() : fuseOptLevel;
        int64_t maxDepth =
            ctx.getConfigInt(kFuseOpsMaxDepthConfig, FuseOpsOptions().maxDepth);
        if (maxDepth < 1)
          return makeError(Twine(kFuseOpsMaxDepthConfig) +
                           " must be at least 1, got " + Twine(maxDepth));
        options.maxDepth = maxDepth;
        options.linkParams = ctx.getConfigBool(kFuseOpsLinkParamsConfig, false);
        // The function's name, for remarks (only looked up when wanted).
        StringRef name;
        if (ctx.isRemarkEnabled(RemarkKind::Passed, "FuseOps"))
          for (const IRModule::Entry &entry : module.getFunctions())
            if (entry.func == func)
              name = entry.var->getName();
        FuseMutator mutator(options, &ctx, name);
        Expected<Ref<Expr>> result = mutator.run(func.get());
        if (!result)
          return result.takeError();
        ctx.getStatistics().add("FuseOps", "num-fused-functions",
                                mutator.getNumGroups(),
                                "Number of primitive functions created");
        return Ref<Function>(cast<Function>(result->get()));
      },
      std::move(info));
}
