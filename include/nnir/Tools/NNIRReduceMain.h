//===- NNIRReduceMain.h - The nnir-reduce driver as a library ---*- C++ -*-===//
//
/// \file
/// nnir-reduce shrinks a module while an interestingness test still accepts
/// it (LLVM's llvm-reduce, MLIR's mlir-reduce); see nnir/Reduce/Reducer.h
/// for the reductions and docs/Reduce.md for a worked example.
///
///     nnir-reduce --test=SCRIPT [--test-arg=ARG ...] INPUT [-o OUTPUT]
///                 [--max-steps=N] [--time-limit=SECONDS] [--verbose]
///                 [--input-shape=NAME=D0xD1x... ...]
///
/// SCRIPT runs as `SCRIPT ARG... CANDIDATE.nnir` and exits 0 when the
/// candidate is interesting. INPUT is nnir text or an ONNX model; OUTPUT
/// (default `reduced.nnir`, `-` for standard output) is always nnir text.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TOOLS_NNIRREDUCEMAIN_H
#define NNIR_TOOLS_NNIRREDUCEMAIN_H

namespace nnir {

/// Parses the command line and runs nnir-reduce; returns the exit code.
/// Operators must have been registered (registerAllOps()).
int nnirReduceMain(int argc, char **argv);

} // namespace nnir

#endif // NNIR_TOOLS_NNIRREDUCEMAIN_H
