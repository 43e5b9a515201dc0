//===- Executor.h - Compiling a module for execution -------------*- C++ -*-===//
//
/// \file
/// The one way a module is compiled for execution, for every caller that
/// runs code: FoldConstant's evaluations, nnir-run, nnir-opt's
/// `--emit=llvm`, and the ONNX importer's import-time evaluation (TVM's
/// create_executor). It lives in Transforms because it runs passes; the
/// ExecutionEngine below it never reaches up.
///
///  1. Prepare: InferType, then (ExecutorOptions::fuseOptLevel) FuseOps and
///     InferType again, each run as a pass under the caller's PassContext,
///     so its instruments (`--time-passes`) see them.
///  2. Kernels: each primitive function, and each operator call left
///     outside one (as a kernel of its own), is lowered, emitted and
///     JIT-compiled by the ExecutionEngine the caller hands in, through the
///     engine's caches: the primitive functions at once, concurrently when
///     the engine has compile threads (ExecutionEngine::precompile), the
///     rest on first use.
///  3. Run: call() evaluates a function of the module on run-time values
///     (nnir/ExecutionEngine/Evaluator.h); getPrimitiveFunctions() and
///     getKernelIR() give the kernels' LLVM IR.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TRANSFORMS_EXECUTOR_H
#define NNIR_TRANSFORMS_EXECUTOR_H

#include "nnir/ExecutionEngine/Evaluator.h"
#include "nnir/IR/Module.h"
#include "nnir/Pass/PassContext.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nnir {

class ExecutionEngine;

struct ExecutorOptions {
  /// FuseOps' opt level (-1: the context's), or none to leave operator calls
  /// unfused (each runs as a kernel of its own).
  std::optional<int> fuseOptLevel = -1;
  /// Bounds of each call (EvaluatorOptions).
  EvaluatorOptions evaluator;
};

class Executor {
public:
  /// Prepares \p module for execution on \p engine, running the passes
  /// under \p ctx (a fresh context when null; it need not be entered).
  static llvm::Expected<std::unique_ptr<Executor>>
  create(Ref<IRModule> module, ExecutionEngine &engine,
         const ExecutorOptions &options = {}, PassContext *ctx = nullptr);
  ~Executor();

  /// The prepared module.
  const IRModule &getModule() const { return *module; }
  ExecutionEngine &getEngine() const { return engine; }

  /// Calls the function \p entry of the module on \p args (one per
  /// parameter). Errors are located at the offending node.
  llvm::Expected<RuntimeValue> call(llvm::StringRef entry,
                                    llvm::ArrayRef<RuntimeValue> args);

  /// A primitive function of the module and the global function it is in.
  struct Primitive {
    llvm::StringRef global;
    const Function *function;
  };
  /// Every primitive function, by global function in definition order, then
  /// in pre-order inside each (without entering primitive functions).
  std::vector<Primitive> getPrimitiveFunctions() const;
  /// The LLVM IR of \p primitive's kernel: as emitted, or after the
  /// optimisation pipeline the engine would run when \p optimized.
  llvm::Expected<std::string> getKernelIR(const Function &primitive,
                                          bool optimized) const;

private:
  Executor(Ref<IRModule> module, ExecutionEngine &engine,
           const EvaluatorOptions &options);
  Ref<IRModule> module;
  ExecutionEngine &engine;
  Evaluator evaluator;
};

} // namespace nnir

#endif // NNIR_TRANSFORMS_EXECUTOR_H
