//===- Executor.h - Compiling a module for execution -------------*- C++ -*-===//
//
/// \file
/// The one way a module is compiled for execution, for every caller that
/// runs code: FoldConstant's evaluations, nnir-run, nnir-opt's
/// `--emit=llvm`, and the ONNX importer's import-time evaluation (TVM's
/// create_executor). It lives in Transforms because it runs passes; the
/// ExecutionEngine below it never reaches up.
///
///  1. Prepare: InferType, then (ExecutorOptions::optimize) the default
///     pipeline at the context's opt level (nnir/Transforms/Pipelines.h:
///     constants folded once here rather than computed by every call) and
///     the dense weights packed for matmul's register tiles, then
///     (ExecutorOptions::fuseOptLevel) FuseOps and InferType again, each run
///     as a pass under the caller's PassContext, so its instruments
///     (`--time-passes`) see them.
///  2. Kernels: each primitive function, and each operator call left
///     outside one (as a kernel of its own), is lowered, emitted and
///     JIT-compiled by the ExecutionEngine the caller hands in, through the
///     engine's caches: the primitive functions at once, concurrently when
///     the engine has compile threads (ExecutionEngine::precompile), the
///     rest on first use.
///  3. Run: call() evaluates a function of the module on run-time values
///     (nnir/ExecutionEngine/Evaluator.h); getPrimitiveFunctions() and
///     getKernelIR() give the kernels' LLVM IR.
///
/// Dynamic shapes. A function whose parameters have `?` extents runs as
/// prepared, as TVM's VM runs it: each primitive function with `?`
/// parameters runs through one kernel that takes the `?` extents at run
/// time (nnir/Codegen/Lowering.h), its results sized by its shape function
/// (the operators' relations on the arguments' types: nnir/ExecutionEngine/
/// Specialize.h), when every operator in it computes symbolic shapes
/// (nnir/Ops/Compute.h); any other primitive function is specialised to
/// the shapes it is given and compiled per distinct shape (cached). Should
/// the call fail so, the function is specialised whole from then on: its
/// parameters get the arguments' types, the module is prepared again
/// (InferType re-infers every type) and the call runs on that, one
/// specialisation per distinct argument types.
///
/// Extents that depend on values (NonZero, Unique, dyn.reshape: nnir/Ops/
/// DynamicOps.h) arise inside a function at run time: the evaluator runs
/// those operators by their run-time implementations and runs each
/// primitive function downstream of them the same way.
///
/// call() is safe to run concurrently: the specialisations are made under
/// a lock and the evaluator keeps per-call state apart.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TRANSFORMS_EXECUTOR_H
#define NNIR_TRANSFORMS_EXECUTOR_H

#include "nnir/ExecutionEngine/Evaluator.h"
#include "nnir/IR/Module.h"
#include "nnir/Pass/PassContext.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace nnir {

class ExecutionEngine;

struct ExecutorOptions {
  /// Whether preparation optimises the module for inference before fusing,
  /// as TVM's relay.build does, at the context's opt level N: the default
  /// pipeline `default<ON>` (from 1: batch norms simplified; from 2:
  /// constants folded, so a constant subgraph is computed once rather than
  /// by every call; at 3: batch norms' scales folded into the convolution
  /// and dense weights), then, from 2, nn.dense with a constant weight as
  /// nn.matmul by the weight transposed once (folded).
  bool optimize = false;
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
  /// parameter). Errors are located at the offending node. A function with
  /// `?` extents in its parameter types runs specialised to the shapes of
  /// \p args (see the file comment); an argument whose type does not fit
  /// its parameter's is an error located at the parameter.
  llvm::Expected<RuntimeValue> call(llvm::StringRef entry,
                                    llvm::ArrayRef<RuntimeValue> args);
  /// The number of whole-function shape specialisations made by call() so
  /// far (see the file comment).
  size_t getNumSpecializations() const {
    std::lock_guard<std::mutex> lock(specializationMutex);
    return specializations.size();
  }

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
  /// The preparation passes on \p module.
  static llvm::Expected<Ref<IRModule>> prepare(Ref<IRModule> module,
                                               const ExecutorOptions &options,
                                               PassContext &ctx);
  /// The executor of \p entry specialised to the types of \p args.
  /// Checks \p args against \p entry's parameters (an error located at a
  /// parameter that does not fit); \p key and \p types receive their
  /// types.
  llvm::Error checkArguments(llvm::StringRef entry,
                             llvm::ArrayRef<RuntimeValue> args,
                             std::string &key,
                             llvm::SmallVectorImpl<Ref<Type>> &types) const;
  llvm::Expected<Executor *> specialize(llvm::StringRef entry,
                                        llvm::ArrayRef<RuntimeValue> args);

  Ref<IRModule> module;
  ExecutionEngine &engine;
  Evaluator evaluator;
  /// For specialisations: the module as given, the options and context.
  Ref<IRModule> source;
  ExecutorOptions options;
  Ref<PassContext> context;
  /// Specialisations by entry and argument types, made and looked up under
  /// specializationMutex (call() may run on several threads at once).
  std::map<std::string, std::unique_ptr<Executor>> specializations;
  /// The entries whose direct run failed: specialised whole since.
  llvm::StringSet<> specializeWhole;
  mutable std::mutex specializationMutex;
};

} // namespace nnir

#endif // NNIR_TRANSFORMS_EXECUTOR_H
