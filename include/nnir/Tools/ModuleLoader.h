//===- ModuleLoader.h - Read a module from nnir text or ONNX -----*- C++ -*-===//
//
/// \file
/// nnir-opt and nnir-run accept a module wherever they accept one as nnir
/// (Relay) text, or as an ONNX model, recognised by its content (or its
/// `.onnx` extension) when nnir is built with ONNX support. They read input
/// tensors from NumPy `.npy` files or serialised ONNX TensorProtos (`.pb`,
/// as the ONNX test data stores them), and the values of ONNX sequence and
/// optional inputs from serialised SequenceProtos and OptionalProtos.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TOOLS_MODULELOADER_H
#define NNIR_TOOLS_MODULELOADER_H

#include "nnir/IR/Module.h"
#include "nnir/ONNX/Import.h"
#include "nnir/Parser/Parser.h"
#include "nnir/Runtime/NDArray.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace nnir {

class ExecutionEngine;

struct ModuleLoadOptions {
  ParserOptions parserOptions;
  /// `--input-shape=NAME=1x3x224x224`: shapes of ONNX graph inputs.
  llvm::StringMap<std::vector<int64_t>> inputShapes;
  /// Values of ONNX graph inputs known at import time, asked for by the
  /// inputs' names and kinds (nnir-run's inputs; see
  /// ONNXImportOptions::getInputValues).
  std::function<llvm::Expected<llvm::StringMap<RuntimeValue>>(
      llvm::ArrayRef<ONNXGraphInput> inputs)>
      getInputValues;
  /// The engine an ONNX import evaluates shape computations on, asked for
  /// only when the input is an ONNX model (null: the importer makes a
  /// private one when it first needs it).
  std::function<llvm::Expected<std::shared_ptr<ExecutionEngine>>()> getEngine;
};

/// True when this build can import ONNX models.
bool hasONNXSupport();

/// Reads the module file \p path (`-`: standard input; otherwise a regular
/// file, nnir/Support/Files.h) into \p sourceMgr; returns its buffer id.
/// With \p sharedBuffer, the buffer is shared: *sharedBuffer owns it and
/// \p sourceMgr holds a view of it. Handed to the parser as
/// ParserOptions::sharedBuffer, it lets the tensors of a mapped file's
/// metadata section stay in the file until they are needed.
llvm::Expected<unsigned>
addInputFile(llvm::SourceMgr &sourceMgr, llvm::StringRef path,
             std::shared_ptr<const llvm::MemoryBuffer> *sharedBuffer = nullptr);

/// Parses or imports buffer \p bufferId of \p sourceMgr.
llvm::Expected<Ref<IRModule>> loadModule(llvm::SourceMgr &sourceMgr,
                                         unsigned bufferId,
                                         const ModuleLoadOptions &options);

/// Runs a tool's \p work (parsing, the passes, printing: they recurse once
/// per level of syntactic nesting) on a stack sized for the nesting limit
/// \p maxNestingDepth (Support/Stack.h) and returns its exit code. A limit
/// above kMaxNestingDepth, the deepest a tool sizes its stack for, is
/// refused on \p errs (`<toolName>: error: ...`, exit code 1).
int runOnNestingStack(unsigned maxNestingDepth, llvm::StringRef toolName,
                      llvm::raw_ostream &errs, llvm::function_ref<int()> work);

/// Adds `NAME=D0xD1x...` (`NAME=` alone for a 0-d tensor) to \p shapes.
llvm::Error parseInputShape(llvm::StringRef spec,
                            llvm::StringMap<std::vector<int64_t>> &shapes);

/// Reads a tensor from a `.npy` file or a serialised ONNX TensorProto.
llvm::Expected<NDArray> loadInputTensor(llvm::StringRef path,
                                        uint64_t maxBytes = UINT64_MAX);

/// Reads the value of an ONNX graph input of kind \p kind: a tensor as
/// loadInputTensor() does, a sequence or an optional from a serialised
/// SequenceProto or OptionalProto (a tuple; see loadONNXValue()).
llvm::Expected<RuntimeValue> loadInputValue(llvm::StringRef path,
                                            ONNXValueKind kind,
                                            uint64_t maxBytes = UINT64_MAX);

} // namespace nnir

#endif // NNIR_TOOLS_MODULELOADER_H
