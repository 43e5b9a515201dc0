//===- Optimize.cpp - LLVM's pipeline for generated kernels ---------------===//
//
/// \file
/// The new pass manager's default pipelines for the host target. Tiny
/// kernels (FoldConstant's typical small constant subgraphs) get no pipeline
/// and the fast instruction selector, where compilation time dominates;
/// everything else gets O3 with the loop and SLP vectorisers
/// (benchmarks/KernelBench.cpp measures the trade-off).
//
//===----------------------------------------------------------------------===//

#include "nnir/Codegen/Codegen.h"

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Target/TargetMachine.h"

using namespace llvm;
using namespace nnir;

unsigned nnir::chooseOptLevel(uint64_t work, uint64_t codeSize) {
  // Measured on the 2-core host (nnir-run --stats, O0 vs O3): O3 adds about
  // 0.5 ms of compiling per operation of code (a 256-operation elementwise
  // chain: 23 ms -> 147 ms) and saves 0.2-0.4 ns per scalar operation run
  // (the same chain over 65,536 elements: 8.8 ms -> 2.4 ms; conv2d
  // 1x64x56x56 by 64x64x3x3: 136 ms -> 14 ms). So O3 pays for itself in one
  // run from about 2M scalar operations per operation of code.
  // benchmarks/KernelBench.cpp measures the trade-off.
  if (work / std::max<uint64_t>(codeSize, 1) < (uint64_t(1) << 21))
    return 0;
  return 3;
}

void nnir::optimizeModule(Module &module, TargetMachine &tm,
                          unsigned optLevel) {
  module.setTargetTriple(tm.getTargetTriple().str());
  module.setDataLayout(tm.createDataLayout());
  if (optLevel == 0)
    return;
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PipelineTuningOptions pto;
  pto.LoopVectorization = optLevel >= 2;
  pto.SLPVectorization = optLevel >= 2;
  // LLVM's own instrumentation options (--llvm-time-passes,
  // --llvm-print-changed in nnir's tools, see lib/Tools/LLVMOptions.h) act
  // on this pipeline as they do in opt.
  PassInstrumentationCallbacks pic;
  StandardInstrumentations si(module.getContext(), /*DebugLogging=*/false);
  si.registerCallbacks(pic, &mam);
  PassBuilder pb(&tm, pto, std::nullopt, &pic);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  OptimizationLevel level = optLevel == 1   ? OptimizationLevel::O1
                            : optLevel == 2 ? OptimizationLevel::O2
                                            : OptimizationLevel::O3;
  ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
}
