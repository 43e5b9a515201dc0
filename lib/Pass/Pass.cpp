//===- Pass.cpp - Module, function and sequential passes ------------------===//
//
/// \file
/// The instrumented run of a pass, and the three kinds of passes.
//
//===----------------------------------------------------------------------===//

#include "nnir/Pass/Pass.h"

#include "nnir/IR/StructuralEqual.h"
#include "nnir/Pass/Parallel.h"
#include "nnir/Pass/PassRegistry.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"

#include <utility>

using namespace llvm;
using namespace nnir;

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
/// What a crash's stack trace says about the pass running (LLVM's
/// PrettyStackTrace): `Running pass 'FoldConstant'`, and for a function
/// pass `... on function @main`.
class PassStackTraceEntry final : public PrettyStackTraceEntry {
public:
  PassStackTraceEntry(const PassInfo &info, const GlobalVar *function = nullptr)
      : info(info), function(function) {}
  void print(raw_ostream &os) const override {
    os << "Running pass '" << info.name << "'";
    if (function)
      os << " on function @" << function->getName();
    os << "\n";
  }

private:
  const PassInfo &info;
  const GlobalVar *function;
};
} // namespace

Expected<Ref<IRModule>> Pass::run(Ref<IRModule> module,
                                  PassContext &ctx) const {
  if (!module)
    return makeError("pass '" + info.name + "' was given no module");
  // The gate (--pass-bisect-limit) decides for the passes that may be
  // skipped: not containers, not type inference, not required by name.
  if (PassGate *gate = ctx.getPassGate())
    if (kind != Kind::Sequential && !info.establishesTypes &&
        !ctx.isRequired(info.name) && !gate->shouldRunPass(info.name))
      return module;
  Expected<bool> shouldRun = ctx.instrumentBeforePass(*module, info);
  if (!shouldRun)
    return shouldRun.takeError();
  if (!*shouldRun)
    return module;

  bool checkImmutable =
      ctx.getConfigBool("testing.immutable_module", /*def=*/false);
  hash_code hashBefore = checkImmutable ? structuralHash(*module) : hash_code();
  bool typesBefore = module->hasValidTypes();

  Expected<Ref<IRModule>> result = [&] {
    PassStackTraceEntry entry(info);
    TimeTraceScope trace("Pass", info.name); // --time-trace
    return runImpl(module, ctx);
  }();
  if (!result)
    return result.takeError();
  if (!*result)
    return makeError("pass '" + info.name + "' returned no module");
  if (checkImmutable && (structuralHash(*module) != hashBefore ||
                         module->hasValidTypes() != typesBefore))
    return makeError("pass '" + info.name +
                     "' changed its input module in place "
                     "(testing.immutable_module)");
  // A module pass that changed the module keeps valid types only if it says
  // so. Function passes and sequentials keep the flag right themselves (a
  // function pass's nested InferType re-validates the types).
  if (kind == Kind::Module && *result != module && !info.preservesTypes &&
      !info.establishesTypes)
    (*result)->setValidTypes(false);

  if (Error err = ctx.instrumentAfterPass(**result, info))
    return err;
  return result;
}

void Pass::print(raw_ostream &os) const {
  switch (kind) {
  case Kind::Module:
    os << "Run Module pass: " << info.name << " at the optimization level "
       << info.optLevel;
    return;
  case Kind::Function:
    os << "Run Function pass: " << info.name << " at the optimization level "
       << info.optLevel;
    return;
  case Kind::Sequential:
    os << "Run Sequential pass: " << info.name
       << " at the optimization level " << info.optLevel
       << ". The passes will be executed are: [";
    for (const Ref<Pass> &pass : cast<Sequential>(this)->getPasses())
      os << pass->getName() << ' ';
    os << ']';
    return;
  }
}

//===----------------------------------------------------------------------===//
// ModulePass
//===----------------------------------------------------------------------===//

Ref<Pass> nnir::createModulePass(ModulePassFn fn, PassInfo info) {
  return Ref<Pass>(new ModulePass(std::move(fn), std::move(info)));
}

Expected<Ref<IRModule>> ModulePass::runImpl(Ref<IRModule> module,
                                            PassContext &ctx) const {
  return fn(std::move(module), ctx);
}

//===----------------------------------------------------------------------===//
// FunctionPass
//===----------------------------------------------------------------------===//

Ref<Pass> nnir::createFunctionPass(FunctionPassFn fn, PassInfo info) {
  return Ref<Pass>(new FunctionPass(std::move(fn), std::move(info)));
}

bool FunctionPass::isOptimizable(const Function &func) {
  return !func.getAttr(attr::kCompiler) &&
         !func.hasNonZeroAttr(attr::kExtern) &&
         !func.hasNonZeroAttr(attr::kSkipOptimization);
}

Expected<Ref<IRModule>> FunctionPass::runImpl(Ref<IRModule> module,
                                              PassContext &ctx) const {
  const PassInfo &info = getInfo();
  // Every function sees the input module; updates are applied afterwards.
  // The functions run in parallel on the context's thread pool, if any.
  ArrayRef<IRModule::Entry> entries = module->getFunctions();
  std::vector<Ref<Function>> results(entries.size());
  Error err = parallelForEach(
      ctx, entries.size(), [&](size_t i, PassContext &taskCtx) -> Error {
        const IRModule::Entry &entry = entries[i];
        if (!isOptimizable(*entry.func))
          return Error::success();
        Expected<Ref<Function>> func = [&] {
          PassStackTraceEntry trace(info, entry.var.get());
          TimeTraceScope time("Function", [&] {
            return (info.name + " @" + entry.var->getName()).str();
          });
          return fn(entry.func, *module, taskCtx);
        }();
        if (!func)
          return func.takeError();
        if (!*func)
          return makeError(entry.func->getLoc(),
                           "function pass '" + info.name +
                               "' returned no function for @" +
                               entry.var->getName());
        results[i] = std::move(*func);
        return Error::success();
      });
  if (err)
    return err;
  std::vector<IRModule::Entry> updates;
  for (size_t i = 0, e = entries.size(); i != e; ++i)
    if (results[i] && results[i] != entries[i].func)
      updates.push_back({entries[i].var, std::move(results[i])});
  if (updates.empty())
    return module;

  Ref<IRModule> updated = module->shallowCopy();
  for (IRModule::Entry &update : updates)
    if (Error err = updated->add(update.var, std::move(update.func),
                                 /*update=*/true))
      return err;
  if (info.preservesTypes) {
    updated->setValidTypes(module->hasValidTypes());
    return updated;
  }
  // TVM re-runs InferType after every function pass; nnir only after one
  // that changed something and does not keep the types up to date.
  if (!PassRegistry::instance().lookup("InferType"))
    return updated;
  Expected<Ref<Pass>> inferType = PassRegistry::instance().create("InferType");
  if (!inferType)
    return inferType.takeError();
  Expected<Ref<IRModule>> typed = (*inferType)->run(updated, ctx);
  releaseInParallel(std::move(updated), ctx);
  return typed;
}

//===----------------------------------------------------------------------===//
// Sequential
//===----------------------------------------------------------------------===//

Ref<Pass> nnir::createSequential(ArrayRef<Ref<Pass>> passes, PassInfo info) {
  return Ref<Pass>(new Sequential(passes, std::move(info)));
}

Expected<Ref<IRModule>> Sequential::runImpl(Ref<IRModule> module,
                                            PassContext &ctx) const {
  for (const Ref<Pass> &pass : passes) {
    if (!pass)
      return makeError("sequential '" + getName() + "' holds a null pass");
    if (!ctx.isEnabled(pass->getInfo()))
      continue;
    for (const std::string &name : pass->getInfo().required) {
      Expected<Ref<Pass>> required = PassRegistry::instance().create(name);
      if (!required)
        return makeError("pass '" + pass->getName() + "' requires '" + name +
                         "': " + toString(required.takeError()));
      // TVM re-runs every required pass; nnir skips type inference while the
      // module's types are still valid.
      if ((*required)->getInfo().establishesTypes && module->hasValidTypes())
        continue;
      Expected<Ref<IRModule>> result = (*required)->run(module, ctx);
      if (!result)
        return result.takeError();
      releaseInParallel(std::exchange(module, std::move(*result)), ctx);
    }
    Expected<Ref<IRModule>> result = pass->run(module, ctx);
    if (!result)
      return result.takeError();
    releaseInParallel(std::exchange(module, std::move(*result)), ctx);
  }
  return module;
}
