//===- Codegen.h - Tensor expressions to LLVM IR kernels ---------*- C++
//-*-===//
//
/// \file
/// The second half of Codegen: a primitive function's tensor expressions
/// (nnir/Codegen/Lowering.h) become one LLVM module with one exported kernel
/// behind the ABI of nnir/Runtime/KernelABI.h, and LLVM's new pass manager
/// optimises it for the host.
///
/// Scheduling is fixed and simple (Halide's default, TVM's injective
/// schedule): compute stages that are injective (no reduction) are inlined
/// into their readers, so a fused chain is one loop nest with no intermediate
/// buffers; stages that reduce, extern (structured) stages, and the outputs
/// are materialised, each as one loop nest over its output in row-major
/// order, so the innermost loop walks contiguous memory and LLVM's loop
/// vectoriser applies. A stage whose estimated work is large runs its outer
/// loops (collapsed until there are enough iterations) through
/// nnir_parallel_for, LLVM's parallelFor.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_CODEGEN_CODEGEN_H
#define NNIR_CODEGEN_CODEGEN_H

#include "nnir/Codegen/Lowering.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace nnir {

struct CodegenOptions {
  /// Stages whose estimated work (scalar operations) is at least this run
  /// their outer loops in parallel; 0 disables parallel loops.
  uint64_t parallelWork = uint64_t(1) << 20;
  /// The bytes of a vector register that vectorised loops fill (32 or 64);
  /// 0: the host's (64 with AVX-512, else 32).
  unsigned vectorBytes = 0;
};

/// What Codegen knows about an emitted kernel.
struct KernelInfo {
  /// The exported symbol.
  std::string name;
  unsigned numInputs = 0;
  unsigned numOutputs = 0;
  /// Estimated scalar operations of one run, and operations in the code
  /// (a reduction's body counted once): together they pick the
  /// optimisation level.
  uint64_t work = 0;
  uint64_t codeSize = 0;
  /// The work of one run as a function of the shapes it runs on (what a
  /// caller bounds before running): `fixedWork` plus, for each output,
  /// `outputWork[i]` times its element count. Stages whose extents are
  /// run-time values (a shape-generic kernel's outputs) count there; all
  /// others, with constant extents, in fixedWork (a shape-specific kernel's
  /// fixedWork is its work).
  uint64_t fixedWork = 0;
  std::vector<uint64_t> outputWork;
  /// The largest scratch buffer a run allocates, in bytes (0 when none;
  /// UINT64_MAX when a scratch extent is a run-time value).
  uint64_t largestScratchBytes = 0;
  unsigned numStages = 0;
  unsigned numParallelStages = 0;
};

/// Emits the kernel \p name for \p fn into a new module in \p ctx.
llvm::Expected<std::unique_ptr<llvm::Module>>
emitKernel(const TEFunction &fn, llvm::LLVMContext &ctx, llvm::StringRef name,
           const CodegenOptions &options, KernelInfo &info);

/// The optimisation level for code of \p codeSize operations that will run
/// \p work scalar operations: 3 where LLVM's pipeline saves more run time
/// than it costs compile time, else 0 (no IR pipeline; the engine also uses
/// the fast instruction selector). The engine weighs one run's work for a
/// first compile (FoldConstant runs most kernels once) and the work run so
/// far to compile a kernel again (ExecutionEngine.h, EngineOptions::optLevel).
unsigned chooseOptLevel(uint64_t work, uint64_t codeSize);

/// Runs LLVM's default pipeline at \p optLevel (0-3) on \p module for
/// \p tm's target (the module's triple and data layout are set from it).
void optimizeModule(llvm::Module &module, llvm::TargetMachine &tm,
                    unsigned optLevel);

} // namespace nnir

#endif // NNIR_CODEGEN_CODEGEN_H
