//===- NNIRRunMain.h - The nnir-run driver as a library ----------*- C++
//-*-===//
//
/// \file
/// nnir-run executes a function of a module on real tensors: parse, verify,
/// InferType, fuse (FuseOps when it is registered; otherwise every operator
/// call runs as its own kernel), JIT-compile and run through the
/// ExecutionEngine, then write or print the flattened result.
///
/// FILE is nnir text or an ONNX model (see ModuleLoader.h); inputs are .npy
/// files or serialised ONNX TensorProtos (.pb).
///
///     nnir-run FILE [--entry=main] [--input NAME=PATH.npy ...]
///              [--input-shape=NAME=D0xD1x... ...]
///              [--random-inputs[=SEED]] [--output-dir=DIR] [--print]
///              [--time] [--stats] [--time-passes[=tvm]] [--repeat=N]
///              [--profile]
///              [--kernel-cache-dir=DIR] [--jit-listeners=gdb,perf]
///              [--max-tensor-bytes=N]
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TOOLS_NNIRRUNMAIN_H
#define NNIR_TOOLS_NNIRRUNMAIN_H

#include "nnir/ExecutionEngine/ExecutionEngine.h"
#include "nnir/Parser/Parser.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nnir {

struct NNIRRunConfig {
  std::string inputFilename = "-";
  std::string entry = "main";
  /// `--input NAME=PATH`: a parameter's name and a .npy or .pb path, as
  /// given. They are split against the entry's parameter names (an ONNX
  /// model's graph input names): NAME ends at the rightmost '=' whose left
  /// side is a parameter's name, with or without one leading '%' (`%x=...`
  /// binds x unless a parameter is named `%x`). So NAME may contain '='.
  std::vector<std::string> inputs;
  /// `--random-inputs[=SEED]`: parameters without --input get seeded random
  /// values (floats uniform in [-1, 1), integers in [-8, 8) or [0, 16),
  /// bools 0/1).
  std::optional<uint64_t> randomSeed;
  /// `--output-dir=DIR`: write DIR/output_<i>.npy for each flattened output.
  std::string outputDir;
  bool print = false;
  bool time = false;
  bool stats = false;
  /// `--profile`: each kernel's time, calls and operation rate (the runs of
  /// the entry only, not the import's evaluations), most time first.
  bool profile = false;
  /// `--repeat=N`: call the entry N times (the outputs are the last call's;
  /// `--time` reports the median call's kernel time).
  unsigned repeat = 1;
  /// `--time-passes[=tvm]`: the timing report of the passes run (InferType,
  /// FuseOps, Evaluate), with the engine's compile and run time nested
  /// under Evaluate.
  enum class TimingReport { None, Tree, TVM };
  TimingReport timePasses = TimingReport::None;
  /// `-O<N>`: the opt level of the preparation. From 1, the module is
  /// optimised for inference at that level before fusing
  /// (ExecutorOptions::optimize); FuseOps fuses at that level (at 0 every
  /// operator is a kernel of its own).
  unsigned optLevel = 3;
  /// `--input-shape=NAME=D0xD1x...`: shapes of ONNX graph inputs.
  llvm::StringMap<std::vector<int64_t>> inputShapes;
  ParserOptions parserOptions;
  EngineOptions engineOptions;
};

/// Runs nnir-run with \p config; returns the exit code. Results go to
/// \p out, diagnostics to \p errs.
int runNNIRRun(const NNIRRunConfig &config, llvm::raw_ostream &out,
               llvm::raw_ostream &errs);

/// Parses the command line into a config and runs it.
int nnirRunMain(int argc, char **argv);

} // namespace nnir

#endif // NNIR_TOOLS_NNIRRUNMAIN_H
