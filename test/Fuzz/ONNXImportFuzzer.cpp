//===- ONNXImportFuzzer.cpp - libFuzzer target of the ONNX importer -------===//
//
/// \file
/// Feeds arbitrary bytes to nnir::importONNX (protobuf parsing, opset and
/// domain checks, topological ordering, every operator converter, import-
/// time evaluation of shape computations) and prints what imports. Any
/// crash, hang, leak or sanitizer report is a bug; so is an error without a
/// message. Tensors are limited to 1 MiB so that a mutated shape cannot
/// spend the fuzzer's memory.
//
//===----------------------------------------------------------------------===//

#include "FuzzerUtils.h"

#include "nnir/IR/Printer.h"
#include "nnir/ONNX/Import.h"
#include "nnir/Ops/Ops.h"

#include "llvm/Support/MemoryBufferRef.h"

#include <cstddef>
#include <cstdint>

using namespace llvm;
using namespace nnir;

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  registerAllOps();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StringRef bytes(reinterpret_cast<const char *>(data), size);
  ONNXImportOptions options;
  options.maxTensorBytes = uint64_t(1) << 20;
  Expected<Ref<IRModule>> module =
      importONNX(MemoryBufferRef(bytes, "fuzz.onnx"), options);
  if (!module) {
    SourceMgr sourceMgr;
    fuzz::checkError(module.takeError(), sourceMgr);
    return 0;
  }
  raw_null_ostream os;
  printModule(**module, os);
  return 0;
}
