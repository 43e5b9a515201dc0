//===- Executor.cpp - Compiling a module for execution --------------------===//
//
/// \file
/// The preparation passes and the evaluator over the prepared module.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/Executor.h"

#include "nnir/ExecutionEngine/ExecutionEngine.h"
#include "nnir/IR/ExprMutator.h"
#include "nnir/IR/Op.h"
#include "nnir/Ops/Builders.h"
#include "nnir/Ops/NNAttrs.h"
#include "nnir/IR/Traversal.h"
#include "nnir/Pass/Pass.h"
#include "nnir/Support/Diagnostics.h"
#include "nnir/Transforms/FoldConstant.h"
#include "nnir/Transforms/FoldScaleAxis.h"
#include "nnir/Transforms/FuseOps.h"
#include "nnir/Transforms/InferType.h"
#include "nnir/Transforms/Pipelines.h"
#include "nnir/Transforms/QnnCanonicalize.h"
#include "nnir/Transforms/SimplifyInference.h"

#include <algorithm>

using namespace llvm;
using namespace nnir;

Executor::Executor(Ref<IRModule> module, ExecutionEngine &engine,
                   const EvaluatorOptions &options)
    : module(std::move(module)), engine(engine),
      evaluator(engine, this->module.get(), options) {}
Executor::~Executor() = default;

Expected<std::unique_ptr<Executor>>
Executor::create(Ref<IRModule> module, ExecutionEngine &engine,
                 const ExecutorOptions &options, PassContext *ctx) {
  Ref<PassContext> context(ctx);
  if (!context)
    context = PassContext::create();
  // Kept for specialisations: the passes may reuse the module they are
  // given.
  Ref<IRModule> source = module->shallowCopy();
  Expected<Ref<IRModule>> prepared =
      prepare(std::move(module), options, *context);
  if (!prepared)
    return prepared.takeError();
  std::unique_ptr<Executor> executor(
      new Executor(std::move(*prepared), engine, options.evaluator));
  executor->source = std::move(source);
  executor->options = options;
  executor->context = std::move(context);
  // The module's kernels compile concurrently when the engine has threads.
  std::vector<const Function *> primitives;
  for (const Primitive &p : executor->getPrimitiveFunctions())
    primitives.push_back(p.function);
  engine.precompile(primitives);
  return executor;
}

namespace {
/// nn.dense(x, W) with a constant weight W [units, k] becomes
/// nn.matmul(x, transpose(W)), which FoldConstant folds to a constant
/// [k, units]: matmul's sum reads b along the output's last axis, so
/// Codegen runs it in register tiles (several rows of x per vector of b),
/// where dense reads its weight a row apart per output element. The weight
/// is transposed once, at preparation (TVM's AlterOpLayout packs dense
/// weights the same way).
///
/// A bias added through a reshape that keeps the product's trailing extents,
/// add(reshape(dense(x, W)), C) (ONNX's MatMul then Add on a 3-D shape),
/// is added before it: reshape(add(matmul(...), C')), C' C without its
/// leading 1s. The add then fuses into the product's kernel, where it was a
/// kernel of its own whose broadcast through the reshape divided per
/// element, and a reshape back to the product's shape disappears.
struct DenseWeightPacker : ExprMutator {
  /// The reshapes made by moveBiasAdd: the sum they reshape and the
  /// product's type.
  DenseMap<const Expr *, std::pair<Ref<Expr>, const TensorType *>>
      movedReshapes;

  static const TensorType *tensorType(const Expr *e) {
    return dyn_cast_or_null<TensorType>(e->getCheckedType().get());
  }
  static bool sameType(const TensorType *a, const TensorType *b) {
    return a && b && a->getShape() == b->getShape() &&
           a->getDType() == b->getDType();
  }

  Ref<Expr> moveBiasAdd(Call *pre, Call *post) {
    static Op *add = Op::lookup("add");
    static Op *reshape = Op::lookup("reshape");
    static Op *dense = Op::lookup("nn.dense");
    static Op *matmul = Op::lookup("nn.matmul");
    if (post->getCalledOp() != add || post->getArgs().size() != 2)
      return nullptr;
    unsigned r = isa<Constant>(post->getArgs()[1]) ? 0 : 1;
    auto *reshaped = dyn_cast<Call>(pre->getArgs()[r].get());
    auto *bias = dyn_cast<Constant>(post->getArgs()[1 - r].get());
    if (!bias || !reshaped || reshaped->getCalledOp() != reshape)
      return nullptr;
    auto *product = dyn_cast<Call>(reshaped->getArgs()[0].get());
    if (!product || (product->getCalledOp() != dense &&
                     product->getCalledOp() != matmul))
      return nullptr;
    const TensorType *out = tensorType(pre);
    const TensorType *mid = tensorType(reshaped);
    const TensorType *in = tensorType(product);
    const TensorType *c = tensorType(bias);
    if (!in || !c || !sameType(out, mid) || in->isDynamic() ||
        mid->isDynamic() || c->isDynamic())
      return nullptr;
    ArrayRef<int64_t> cShape = c->getShape();
    while (!cShape.empty() && cShape.front() == 1)
      cShape = cShape.drop_front();
    size_t n = cShape.size();
    if (n > in->getRank() || n > mid->getRank() ||
        in->getShape().take_back(n) != mid->getShape().take_back(n))
      return nullptr;
    auto *newReshaped = dyn_cast<Call>(post->getArgs()[r].get());
    if (!newReshaped || newReshaped->getArgs().size() != 1)
      return nullptr;
    Ref<Expr> added = Call::get(
        post->getCallee(),
        {newReshaped->getArgs()[0],
         ops::reshape(post->getArgs()[1 - r], IntList(cShape.begin(),
                                                       cShape.end()),
                      bias->getLoc())},
        post->getAttrs(), post->getLoc());
    Ref<Expr> result = ops::reshape(
        added, IntList(mid->getShape().begin(), mid->getShape().end()),
        reshaped->getLoc());
    movedReshapes[result.get()] = {std::move(added), in};
    return result;
  }

  Ref<Expr> rewriteCall(Call *pre, Call *post) override {
    if (Ref<Expr> moved = moveBiasAdd(pre, post))
      return moved;
    // A reshape of a moved reshape to the product's shape: the sum itself.
    static Op *reshape = Op::lookup("reshape");
    if (post->getCalledOp() == reshape) {
      auto it = movedReshapes.find(post->getArgs()[0].get());
      if (it != movedReshapes.end() &&
          sameType(tensorType(pre), it->second.second))
        return it->second.first;
    }
    static Op *dense = Op::lookup("nn.dense");
    const auto *attrs = post->getAttrsAs<DenseAttrs>();
    if (post->getCalledOp() != dense || !attrs ||
        post->getArgs().size() != 2 || !isa<Constant>(post->getArgs()[1]))
      return post;
    Ref<MatmulAttrs> matmul = MatmulAttrs::create();
    matmul->units = attrs->units;
    matmul->outDtype = attrs->outDtype;
    return Call::get(Ref<Expr>(Op::lookup("nn.matmul")),
                     {post->getArgs()[0],
                      ops::transpose(post->getArgs()[1], std::nullopt,
                                     post->getLoc())},
                     Ref<Attrs>(std::move(matmul)), post->getLoc());
  }
};
} // namespace

static Ref<Pass> createPackDenseWeightsPass() {
  return createFunctionPass(
      [](Ref<Function> fn, const IRModule &, PassContext &)
          -> Expected<Ref<Function>> {
        DenseWeightPacker packer;
        return Ref<Function>(cast<Function>(packer.mutate(fn.get()).get()));
      },
      PassInfo("PackDenseWeights", 0));
}

Expected<Ref<IRModule>> Executor::prepare(Ref<IRModule> module,
                                          const ExecutorOptions &options,
                                          PassContext &ctx) {
  std::vector<Ref<Pass>> passes = {createInferTypePass()};
  // Quantized operators run as the primitives they canonicalize to.
  if (hasQnnCalls(*module)) {
    passes.push_back(createQnnCanonicalizePass());
    passes.push_back(createInferTypePass());
  }
  // Inference: the default pipeline at the context's level (at 3 batch
  // norms fold into the weights of the convolutions before them, TVM's
  // build), then dense weights transposed once for matmul's tiles.
  if (options.optimize) {
    int level = std::clamp(ctx.getOptLevel(), 0, 3);
    Expected<Ref<Pass>> pipeline = createDefaultPipeline(level);
    if (!pipeline)
      return pipeline.takeError();
    passes.push_back(std::move(*pipeline));
    passes.push_back(createInferTypePass());
    if (level >= 2)
      for (Ref<Pass> pass :
           {createPackDenseWeightsPass(), createFoldConstantPass()}) {
        passes.push_back(std::move(pass));
        passes.push_back(createInferTypePass());
      }
  }
  if (options.fuseOptLevel) {
    passes.push_back(createFuseOpsPass(*options.fuseOptLevel));
    passes.push_back(createInferTypePass());
  }
  for (const Ref<Pass> &pass : passes) {
    Expected<Ref<IRModule>> result = pass->run(std::move(module), ctx);
    if (!result)
      return result.takeError();
    module = std::move(*result);
  }
  return module;
}

/// True if a parameter of \p fn has a `?` extent.
static bool hasDynamicParams(const Function &fn) {
  return any_of(fn.getParams(), [](const Ref<Var> &param) {
    return hasDynamicShape(param->getCheckedType().get());
  });
}

Expected<RuntimeValue> Executor::call(StringRef entry,
                                      ArrayRef<RuntimeValue> args) {
  const Function *fn = module->lookup(entry);
  if (!fn)
    return makeError("no function @" + entry + " in the module");
  if (!source || !hasDynamicParams(*fn))
    return evaluator.call(*fn, args);
  std::string key;
  SmallVector<Ref<Type>, 4> types;
  if (Error error = checkArguments(entry, args, key, types))
    return error;
  // The prepared module runs as it is: each primitive function with `?`
  // parameters through its one symbolic kernel, sized by its shape function,
  // or specialised alone (the evaluator's choice). Should that fail, the
  // whole function is specialised to the arguments' types, as it is from
  // then on.
  bool direct;
  {
    std::lock_guard<std::mutex> lock(specializationMutex);
    direct = !specializeWhole.contains(entry);
  }
  if (direct) {
    Expected<RuntimeValue> result = evaluator.call(*fn, args);
    if (result || result.errorIsA<ResourceLimitError>())
      return result;
    consumeError(result.takeError());
    std::lock_guard<std::mutex> lock(specializationMutex);
    specializeWhole.insert(entry);
  }
  Expected<Executor *> specialized = specialize(entry, args);
  if (!specialized)
    return specialized.takeError();
  return (*specialized)->call(entry, args);
}

namespace {
/// Replaces the parameters of a function by new variables.
class ParamRebinder : public ExprMutator {
public:
  explicit ParamRebinder(DenseMap<const Var *, Ref<Var>> map)
      : map(std::move(map)) {}
  Ref<Expr> visitVar(Var *var) override {
    auto it = map.find(var);
    return it == map.end() ? ExprMutator::visitVar(var) : it->second;
  }

private:
  DenseMap<const Var *, Ref<Var>> map;
};
} // namespace

Error Executor::checkArguments(StringRef entry, ArrayRef<RuntimeValue> args,
                               std::string &key,
                               SmallVectorImpl<Ref<Type>> &types) const {
  const Function *prepared = module->lookup(entry);
  const Function *fn = source->lookup(entry);
  if (!fn || fn->getNumParams() != prepared->getNumParams())
    return makeError("no function @" + entry + " to specialise");
  if (args.size() != fn->getNumParams())
    return makeError("@" + entry + " expects " + Twine(fn->getNumParams()) +
                     " arguments, got " + Twine(args.size()));
  // The key: the entry and the arguments' types.
  key = entry.str();
  for (size_t i = 0, e = args.size(); i != e; ++i) {
    const Var &param = *prepared->getParam(i);
    const Type *declared = param.getCheckedType().get();
    if (!args[i].isTensor()) {
      if (hasDynamicShape(declared))
        return makeError(param.getLoc(),
                         "cannot specialise parameter " + param.getNameHint() +
                             " of dynamic type " + declared->str() +
                             " on an argument that is not a tensor");
      types.push_back(param.getCheckedType());
      continue;
    }
    const NDArray &array = args[i].getTensor();
    Ref<Type> type = TensorType::get(array.getShape(), array.getDType());
    if (!typesCompatible(declared, type.get()))
      return makeError(param.getLoc(), "argument #" + Twine(i) + " of @" +
                                           entry + " (parameter %" +
                                           param.getNameHint() + ") has type " +
                                           type->str() + ", expected " +
                                           declared->str());
    key += "|" + type->str();
    types.push_back(std::move(type));
  }
  return Error::success();
}

Expected<Executor *> Executor::specialize(StringRef entry,
                                          ArrayRef<RuntimeValue> args) {
  const Function *fn = source->lookup(entry);
  std::string key;
  SmallVector<Ref<Type>, 4> types;
  if (Error error = checkArguments(entry, args, key, types))
    return error;
  // Held while the specialisation is made, so two calls of one shape
  // prepare it once.
  std::lock_guard<std::mutex> lock(specializationMutex);
  auto found = specializations.find(key);
  if (found != specializations.end())
    return found->second.get();

  // The function with parameters of the arguments' types; InferType gives
  // every other node its static type.
  DenseMap<const Var *, Ref<Var>> map;
  SmallVector<Ref<Var>, 4> params;
  for (size_t i = 0, e = fn->getNumParams(); i != e; ++i) {
    const Var &param = *fn->getParam(i);
    params.push_back(Var::get(param.getNameHint(), types[i], param.getLoc()));
    map[&param] = params.back();
  }
  ParamRebinder rebinder(std::move(map));
  Ref<Expr> body = rebinder.mutate(fn->getBody());
  Ref<Function> specialized =
      Function::get(params, body, fn->getRetType(), fn->getAttrs(),
                    fn->getLoc());
  Ref<IRModule> copy = source->shallowCopy();
  copy->addOrUpdate(entry, specialized);
  copy->setValidTypes(false);
  Expected<Ref<IRModule>> ready = prepare(copy, options, *context);
  if (!ready)
    return ready.takeError();
  std::unique_ptr<Executor> executor(
      new Executor(std::move(*ready), engine, options.evaluator));
  Executor *result = executor.get();
  specializations.emplace(std::move(key), std::move(executor));
  return result;
}

std::vector<Executor::Primitive> Executor::getPrimitiveFunctions() const {
  std::vector<Primitive> found;
  for (const IRModule::Entry &entry : module->getFunctions())
    walk(
        entry.func.get(),
        [&](Expr *e) {
          const auto *fn = dyn_cast<Function>(e);
          if (!fn || !fn->isPrimitive())
            return WalkResult::advance();
          found.push_back({entry.var->getName(), fn});
          return WalkResult::skip();
        },
        WalkOrder::PreOrder);
  return found;
}

Expected<std::string> Executor::getKernelIR(const Function &primitive,
                                            bool optimized) const {
  return engine.getLLVMIR(primitive, optimized);
}
