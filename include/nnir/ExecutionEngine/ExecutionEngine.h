//===- ExecutionEngine.h - JIT-compiled kernels with a cache ----*- C++ -*-===//
//
/// \file
/// The ExecutionEngine turns primitive functions into callable kernels and
/// runs them on NDArrays: lower (nnir/Codegen/Lowering.h), emit and optimise
/// (nnir/Codegen/Codegen.h), compile with ORC's LLJIT for the host CPU, and
/// cache.
///
/// The engine is a value its owner creates and hands to whatever runs code
/// (the tools create one from their flags; a PassContext carries one to
/// FoldConstant, see nnir/Transforms/FoldConstant.h): no library keeps a
/// process-wide engine or reads the environment. It is shaped after MLIR's
/// ExecutionEngine:
///
/// - One LLJIT and one TargetMachine per engine (lib/ExecutionEngine/
///   KernelJIT.h); every kernel lives in its own JITDylib, added through an
///   ORC ResourceTracker, linked against a runtime JITDylib that defines the
///   symbols of EngineOptions::symbols (nnir/ExecutionEngine/
///   RuntimeSymbols.h: nnir's kernel runtime by default) and resolves
///   anything else (libm) in the process.
/// - Compiled kernels are cached in memory and optionally on disk
///   (nnir/ExecutionEngine/KernelCache.h, DiskCache.h). A kernel is shared
///   (KernelRef): its code is freed when the cache has dropped it (capacity,
///   clearCache()) and no caller holds it any more. A KernelRef must not
///   outlive its engine.
/// - GDB and perf JIT event listeners on request (EngineOptions::listeners),
///   so a debugger or profiler names kernels.
/// - Thread-safe: any number of threads may get and run kernels; getKernel()
///   compiles one kernel at a time, precompile() compiles the independent
///   kernels of a module concurrently on EngineOptions::compileThreads
///   and the calling thread (nnir/Support/PoolLoop.h; lowering, LLVM's pipeline and code generation in parallel, each with
///   a TargetMachine of its own; linking into the JIT serialised).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_EXECUTIONENGINE_EXECUTIONENGINE_H
#define NNIR_EXECUTIONENGINE_EXECUTIONENGINE_H

#include "nnir/Codegen/Codegen.h"
#include "nnir/ExecutionEngine/KernelKey.h"
#include "nnir/ExecutionEngine/KernelProfile.h"
#include "nnir/ExecutionEngine/RuntimeSymbols.h"
#include "nnir/IR/Expr.h"
#include "nnir/Runtime/KernelABI.h"
#include "nnir/Runtime/NDArray.h"
#include "nnir/Support/Diagnostics.h"
#include "nnir/Support/TypeId.h"

#include "llvm/Support/Error.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
class ThreadPoolInterface;
} // namespace llvm

namespace nnir {

class KernelCache;
class KernelCode;
class KernelJIT;
class TensorType;

/// The JIT event listeners an engine registers (MLIR's
/// enableGDBNotificationListener / enablePerfNotificationListener).
struct JITListenerOptions {
  /// GDB's JIT interface: a debugger attached to the process sees kernels'
  /// symbols.
  bool gdb = false;
  /// perf's jitdump (the directory of $JITDUMPDIR, else ~/.debug/jit) and
  /// perf map, so `perf report` names kernels. Needs an LLVM built with
  /// perf support; create() fails with an error saying so otherwise.
  bool perf = false;
};

struct EngineOptions {
  /// Allocations above this many bytes are refused (before they are made).
  uint64_t maxTensorBytes = UINT64_MAX;
  /// The persistent kernel cache directory ("" = none); create() fails when
  /// it cannot be used or trusted (DiskCache::open).
  std::string cacheDir;
  /// Use the in-memory kernel cache (off: every primitive function compiles,
  /// and its code is freed when the run is done).
  bool memoryCache = true;
  /// The most kernels the in-memory cache keeps (0: no limit); beyond it the
  /// least recently used is dropped and its code freed once unused.
  size_t maxCachedKernels = 0;
  /// The C functions kernels may call (see RuntimeSymbols.h).
  RuntimeSymbolMap symbols = getKernelRuntimeSymbols();
  JITListenerOptions listeners;
  /// Optimisation level 0-3, or -1 to choose by what compiling saves: O3
  /// with a disk cache (compiled once, run by every process after), else
  /// by the work run with the code (chooseOptLevel): a kernel's first
  /// compile by one run's work, and a kernel compiled at O0 is compiled
  /// again at O3 once its runs together have done enough work for O3 to
  /// have paid (EngineStats::kernelsRecompiled); a symbolic kernel (compiled
  /// before its shapes are known) is compiled again at O3 before a run
  /// whose own work pays for it.
  int optLevel = -1;
  CodegenOptions codegen;
  /// Record every kernel run's time and work (getProfile()).
  bool profile = false;
  /// The threads precompile() compiles independent kernels on, the caller
  /// counting as one of its getMaxConcurrency() (none: one at a time, on
  /// the caller's thread). The caller creates it (sized as it
  /// likes: the tools use the machine's cores); engines may share one.
  std::shared_ptr<llvm::ThreadPoolInterface> compileThreads;
};

/// Counters (the engine's, since its creation).
struct EngineStats {
  std::atomic<uint64_t> kernelsCompiled{0};
  std::atomic<uint64_t> memoryHits{0};
  std::atomic<uint64_t> diskHits{0};
  std::atomic<uint64_t> diskWrites{0};
  std::atomic<uint64_t> diskCorrupt{0};
  /// Valid entries recorded for another key (copied, or stale).
  std::atomic<uint64_t> diskOtherKey{0};
  /// Entries that are not regular files of this user, writable by it alone.
  std::atomic<uint64_t> diskUntrusted{0};
  /// Kernels dropped from the in-memory cache beyond its capacity.
  std::atomic<uint64_t> kernelsEvicted{0};
  /// Kernels compiled again at O3 because they were run often.
  std::atomic<uint64_t> kernelsRecompiled{0};
  std::atomic<uint64_t> kernelRuns{0};
  /// Runs on splat inputs, done on one element each (see run()).
  std::atomic<uint64_t> splatRuns{0};
  std::atomic<uint64_t> compileNanos{0};
  std::atomic<uint64_t> runNanos{0};
  std::atomic<uint64_t> bytesAllocated{0};

  void print(llvm::raw_ostream &os) const;
};

/// Limits on one evaluation (all the kernels an Evaluator call runs),
/// checked from the shapes before each kernel runs and before any of its
/// buffers is allocated: nothing runs that would exceed them.
struct RunBudget {
  /// No result or scratch buffer may be larger than this many bytes.
  uint64_t maxBufferBytes = UINT64_MAX;
  /// The kernels together may do at most this many scalar operations (as
  /// Codegen estimates them: KernelInfo::fixedWork, outputWork).
  uint64_t maxWork = UINT64_MAX;
  /// What the kernels run so far used.
  uint64_t workUsed = 0;
};

/// A run refused by a limit (RunBudget, EngineOptions::maxTensorBytes for
/// scratch buffers) before anything was allocated or run; located at the
/// function or call that would exceed it.
class ResourceLimitError
    : public llvm::ErrorInfo<ResourceLimitError, DiagnosticError> {
public:
  static char ID;
  using ErrorInfo::ErrorInfo;
};

/// A symbolic kernel's arguments that disagree on an extent the kernel
/// shares between them (TEFunction::dimOfAnyExtent): the caller specialises
/// the function for this call.
class SharedExtentError
    : public llvm::ErrorInfo<SharedExtentError, DiagnosticError> {
public:
  static char ID;
  using ErrorInfo::ErrorInfo;
};

/// A compiled kernel and what calling it needs; owns its code.
struct CompiledKernel {
  CompiledKernel();
  ~CompiledKernel();
  KernelFn fn = nullptr;
  KernelInfo info;
  bool shapeGeneric = false;
  /// Lowered over the `?` extents of its function's parameters (Lowering.h):
  /// `dims` are those extents, and each output's extents are these
  /// expressions of dimVars.
  bool symbolic = false;
  std::vector<te::Expr> dimVars;
  std::vector<unsigned> dimOfAnyExtent;
  std::vector<std::vector<te::Expr>> outputShapes;
  unsigned optLevel = 0;
  /// Whether the engine chose optLevel (EngineOptions::optLevel = -1).
  bool autoOptLevel = false;
  /// The work (scalar operations, estimated) of the runs so far.
  mutable std::atomic<uint64_t> workRun{0};
  /// TVM's name of the fused function compiled: `fused_` and its operators.
  std::string name;
  /// The code in the JIT, freed with the kernel.
  std::unique_ptr<KernelCode> code;
};

/// A kernel, shared by the cache and its callers.
using KernelRef = std::shared_ptr<const CompiledKernel>;

class ExecutionEngine {
public:
  /// Creates an engine for the host CPU. \p options.cacheDir, when set, is
  /// created if missing (mode 0700); an error if it cannot be used.
  static llvm::Expected<std::unique_ptr<ExecutionEngine>>
  create(EngineOptions options = {});
  ~ExecutionEngine();

  /// The kernel of the primitive function \p fn (compiled, or from a cache).
  /// Errors carry the location of the call that cannot be lowered.
  llvm::Expected<KernelRef> getKernel(const Function &fn);
  /// The same, and the runtime extents \p fn passes to it as `dims` (none
  /// for a shape-specific kernel).
  llvm::Expected<KernelRef> getKernel(const Function &fn,
                                      llvm::SmallVectorImpl<int64_t> &dims);

  /// Compiles the kernels of the primitive functions \p fns that the
  /// in-memory cache does not hold yet, concurrently on
  /// EngineOptions::compileThreads, and caches them, so that running them
  /// later compiles nothing (a module's kernels before its first run: the
  /// Executor calls it). Functions with one kernel key compile once. A
  /// function that cannot be compiled is left alone: getKernel() reports
  /// its error when it is run. Without threads or the memory cache, does
  /// nothing.
  void precompile(llvm::ArrayRef<const Function *> fns);

  /// Drops every kernel from the in-memory cache; the code of each is freed
  /// once no caller holds it.
  void clearCache();
  /// The kernels whose code is in memory (cached, or held by a caller).
  uint64_t getNumLiveKernels() const;
  /// The kernels the in-memory cache holds.
  size_t getNumCachedKernels() const;

  /// Runs \p fn (through its kernel) on \p args, one per flattened
  /// parameter. Returns the flattened result, in freshly allocated arrays.
  /// A shape-generic kernel whose inputs (arguments and lifted constants)
  /// are splats or single elements runs on one element of each and returns
  /// splats (EngineStats::splatRuns). With a \p budget, a run that would
  /// exceed it fails with a ResourceLimitError before it allocates or runs
  /// anything, and its work is added to the budget's.
  ///
  /// A function whose parameter types have `?` extents runs through its one
  /// symbolic kernel (Lowering.h), compiled once for every shape: `dims` are
  /// the arguments' extents at the `?` positions, and each result is sized
  /// from \p resultType, the function's result type for these arguments
  /// (its shape function: specializeFunction()); the kernel's own extents
  /// must agree with it, or the run is refused before anything runs. Without
  /// \p resultType, the kernel's extents size the results. An error when
  /// the function cannot be lowered symbolic: the caller specialises it.
  llvm::Expected<std::vector<NDArray>>
  run(const Function &fn, llvm::ArrayRef<NDArray> args,
      RunBudget *budget = nullptr, const Type *resultType = nullptr);

  /// The LLVM IR of \p fn's kernel: as emitted, or after the optimisation
  /// pipeline the engine would run when \p optimized.
  llvm::Expected<std::string> getLLVMIR(const Function &fn, bool optimized);

  const EngineOptions &getOptions() const { return options; }
  const EngineStats &getStats() const { return stats; }
  /// The per-kernel profile of the runs so far; null unless
  /// EngineOptions::profile.
  KernelProfile *getProfile() { return profile.get(); }
  /// Counts an allocation against the limit; errors when it is exceeded.
  llvm::Expected<NDArray>
  allocate(DataType dtype, llvm::ArrayRef<int64_t> shape, llvm::SMLoc loc = {});

  /// The host's target triple and CPU name, as kernels are compiled for.
  std::string getTargetDescription() const;

private:
  class Impl;
  explicit ExecutionEngine(EngineOptions options);
  /// Lowers, emits and JIT-compiles \p fn (or loads its object from the
  /// disk cache).
  /// \p optLevel overrides the engine's choice. Call with the lock held.
  llvm::Expected<std::unique_ptr<CompiledKernel>>
  compileKernel(const Function &fn, const GenericShape *generic,
                std::optional<unsigned> optLevel = std::nullopt);
  /// A kernel compiled to an object (or read from the disk cache), not yet
  /// in the JIT.
  struct BuiltKernel;
  /// compileKernel's first half, safe on any thread: lowers, emits,
  /// optimises and compiles \p fn to an object.
  llvm::Expected<BuiltKernel> buildKernel(const Function &fn,
                                          const GenericShape *generic,
                                          std::optional<unsigned> optLevel);
  /// The second half, with the lock held: links \p built into the JIT.
  llvm::Expected<std::unique_ptr<CompiledKernel>> linkKernel(BuiltKernel built);
  /// The optimisation level a kernel described by \p info compiles at
  /// first, and whether the engine chose it.
  std::pair<unsigned, bool> pickOptLevel(const KernelInfo &info) const;
  /// Whether \p kernel, compiled at O0 by the engine's choice, has run
  /// enough work since for O3 to pay.
  static bool shouldRecompile(const CompiledKernel &kernel);
  llvm::Expected<uint64_t>
  checkRunCost(const CompiledKernel &kernel, const Function &fn,
               llvm::ArrayRef<const TensorType *> results, bool splatRun,
               RunBudget *budget) const;
  EngineOptions options;
  EngineStats stats;
  std::unique_ptr<KernelProfile> profile;
  std::unique_ptr<Impl> impl;
};

} // namespace nnir

/// Engines travel through PassContext resources (PassContext::setResource).
NNIR_DECLARE_EXPLICIT_TYPE_ID(nnir::ExecutionEngine)

#endif // NNIR_EXECUTIONENGINE_EXECUTIONENGINE_H
