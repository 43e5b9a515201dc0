//===- ParserFuzzer.cpp - libFuzzer target of the text parser -------------===//
//
/// \file
/// Feeds arbitrary bytes to nnir::parseModule (the lexer, the grammar, the
/// `dense<...>` literals, and the `#[metadata]` section: its JSON and the
/// base64 NDArrays in TVM's binary format) and verifies what parses, as
/// nnir-opt does. Any crash, hang, leak or sanitizer report is a bug; so is
/// an error located outside the input (FuzzerUtils.h).
//
//===----------------------------------------------------------------------===//

#include "FuzzerUtils.h"

#include "nnir/IR/Verifier.h"
#include "nnir/Ops/Ops.h"

#include <cstddef>
#include <cstdint>

using namespace llvm;
using namespace nnir;

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  registerAllOps();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  SourceMgr sourceMgr;
  StringRef text(reinterpret_cast<const char *>(data), size);
  Expected<Ref<IRModule>> module =
      parseModule(text, sourceMgr, "fuzz.nnir", fuzz::getFuzzParserOptions());
  if (!module) {
    fuzz::checkError(module.takeError(), sourceMgr);
    return 0;
  }
  if (Error err = verifyModule(**module))
    fuzz::checkError(std::move(err), sourceMgr);
  return 0;
}
