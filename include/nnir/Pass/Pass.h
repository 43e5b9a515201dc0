//===- Pass.h - Module, function and sequential passes ----------*- C++ -*-===//
//
/// \file
/// A Pass maps a module to a module (TVM's transform::Pass). Passes are
/// immutable, shared objects: running one never changes it, and one pass may
/// run on several modules and threads at once.
///
/// Pass::run(module, ctx) is the instrumented entry point (TVM's
/// Pass::operator()): the context's instruments are asked whether the pass
/// should run and are called before and after it; with the config entry
/// `testing.immutable_module` the module's structural hash is compared before
/// and after, and a pass that changed its input in place is an error naming
/// it. Calling a pass directly does not check its opt level or the disabled
/// list; only Sequential does (as in TVM).
///
/// A pass that changes nothing returns the very same module object. A pass
/// that changes something returns a new module (work on
/// IRModule::shallowCopy()); it must not mutate its input.
///
///  - ModulePass: any change, including adding and removing functions.
///  - FunctionPass: rewrites each function independently (functions marked
///    Compiler=..., Extern=1 or SkipOptimization=1 are left alone; Primitive
///    functions are given to the pass, which decides). It cannot add or remove
///    functions. When it changed something and does not preserve types, the
///    registered "InferType" pass runs afterwards (TVM always re-runs it).
///  - Sequential: runs its children in order, skipping those the context does
///    not enable (PassContext::isEnabled). Before each child it runs the
///    passes named in the child's `required` list, looked up in the
///    PassRegistry; a required pass that establishes types is skipped while
///    the module's types are valid (TVM re-runs it every time).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_PASS_PASS_H
#define NNIR_PASS_PASS_H

#include "nnir/IR/Module.h"
#include "nnir/IR/Object.h"
#include "nnir/Pass/PassContext.h"
#include "nnir/Pass/PassInfo.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <vector>

namespace nnir {

class Pass : public Object {
public:
  enum class Kind : uint8_t { Module, Function, Sequential };

  Kind getKind() const { return kind; }
  const PassInfo &getInfo() const { return info; }
  llvm::StringRef getName() const { return info.name; }

  /// Runs the pass with instrumentation under \p ctx (see the file comment).
  llvm::Expected<Ref<IRModule>> run(Ref<IRModule> module,
                                    PassContext &ctx) const;
  /// Runs the pass under PassContext::current().
  llvm::Expected<Ref<IRModule>> run(Ref<IRModule> module) const {
    return run(std::move(module), PassContext::current());
  }

  /// TVM's repr ("Run Module pass: X at the optimization level N").
  void print(llvm::raw_ostream &os) const;

protected:
  Pass(Kind kind, PassInfo info) : kind(kind), info(std::move(info)) {}
  /// The transformation itself, without instrumentation.
  virtual llvm::Expected<Ref<IRModule>> runImpl(Ref<IRModule> module,
                                                PassContext &ctx) const = 0;

private:
  Kind kind;
  PassInfo info;
};

using ModulePassFn = std::function<llvm::Expected<Ref<IRModule>>(
    Ref<IRModule> module, PassContext &ctx)>;
/// Rewrites one function; \p module is the input module (no function of it
/// is updated yet while the pass runs over the others).
using FunctionPassFn = std::function<llvm::Expected<Ref<Function>>(
    Ref<Function> func, const IRModule &module, PassContext &ctx)>;

class ModulePass final : public Pass {
public:
  static bool classof(const Pass *p) { return p->getKind() == Kind::Module; }

private:
  friend Ref<Pass> createModulePass(ModulePassFn, PassInfo);
  ModulePass(ModulePassFn fn, PassInfo info)
      : Pass(Kind::Module, std::move(info)), fn(std::move(fn)) {}
  llvm::Expected<Ref<IRModule>> runImpl(Ref<IRModule> module,
                                        PassContext &ctx) const override;
  ModulePassFn fn;
};

class FunctionPass final : public Pass {
public:
  static bool classof(const Pass *p) { return p->getKind() == Kind::Function; }

  /// TVM's AsOptimizableFunctionNode: not Compiler=..., Extern=1 or
  /// SkipOptimization=1.
  static bool isOptimizable(const Function &func);

private:
  friend Ref<Pass> createFunctionPass(FunctionPassFn, PassInfo);
  FunctionPass(FunctionPassFn fn, PassInfo info)
      : Pass(Kind::Function, std::move(info)), fn(std::move(fn)) {}
  llvm::Expected<Ref<IRModule>> runImpl(Ref<IRModule> module,
                                        PassContext &ctx) const override;
  FunctionPassFn fn;
};

class Sequential final : public Pass {
public:
  llvm::ArrayRef<Ref<Pass>> getPasses() const { return passes; }

  static bool classof(const Pass *p) {
    return p->getKind() == Kind::Sequential;
  }

private:
  friend Ref<Pass> createSequential(llvm::ArrayRef<Ref<Pass>>, PassInfo);
  Sequential(llvm::ArrayRef<Ref<Pass>> passes, PassInfo info)
      : Pass(Kind::Sequential, std::move(info)),
        passes(passes.begin(), passes.end()) {}
  llvm::Expected<Ref<IRModule>> runImpl(Ref<IRModule> module,
                                        PassContext &ctx) const override;
  std::vector<Ref<Pass>> passes;
};

Ref<Pass> createModulePass(ModulePassFn fn, PassInfo info);
Ref<Pass> createFunctionPass(FunctionPassFn fn, PassInfo info);
/// A Sequential; its PassInfo defaults to TVM's ("sequential", opt level 0).
Ref<Pass> createSequential(llvm::ArrayRef<Ref<Pass>> passes,
                           PassInfo info = PassInfo("sequential", 0));

} // namespace nnir

#endif // NNIR_PASS_PASS_H
