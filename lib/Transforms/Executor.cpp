//===- Executor.cpp - Compiling a module for execution --------------------===//
//
/// \file
/// The preparation passes and the evaluator over the prepared module.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/Executor.h"

#include "nnir/ExecutionEngine/ExecutionEngine.h"
#include "nnir/IR/Traversal.h"
#include "nnir/Pass/Pass.h"
#include "nnir/Support/Diagnostics.h"
#include "nnir/Transforms/FuseOps.h"
#include "nnir/Transforms/InferType.h"
#include "nnir/Transforms/QnnCanonicalize.h"

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
  Ref<PassContext> fresh;
  if (!ctx) {
    fresh = PassContext::create();
    ctx = fresh.get();
  }
  std::vector<Ref<Pass>> passes = {createInferTypePass()};
  // Quantized operators run as the primitives they canonicalize to.
  if (hasQnnCalls(*module)) {
    passes.push_back(createQnnCanonicalizePass());
    passes.push_back(createInferTypePass());
  }
  if (options.fuseOptLevel) {
    passes.push_back(createFuseOpsPass(*options.fuseOptLevel));
    passes.push_back(createInferTypePass());
  }
  for (const Ref<Pass> &pass : passes) {
    Expected<Ref<IRModule>> result = pass->run(std::move(module), *ctx);
    if (!result)
      return result.takeError();
    module = std::move(*result);
  }
  std::unique_ptr<Executor> executor(
      new Executor(std::move(module), engine, options.evaluator));
  // The module's kernels compile concurrently when the engine has threads.
  std::vector<const Function *> primitives;
  for (const Primitive &p : executor->getPrimitiveFunctions())
    primitives.push_back(p.function);
  engine.precompile(primitives);
  return executor;
}

Expected<RuntimeValue> Executor::call(StringRef entry,
                                      ArrayRef<RuntimeValue> args) {
  const Function *fn = module->lookup(entry);
  if (!fn)
    return makeError("no function @" + entry + " in the module");
  return evaluator.call(*fn, args);
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
