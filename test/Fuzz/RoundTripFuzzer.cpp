//===- RoundTripFuzzer.cpp - libFuzzer target: parse, type, print, parse --===//
//
/// \file
/// Parses arbitrary bytes; what parses and verifies is type-checked with
/// nnir::inferTypes (a failure is fine: most mutated modules are ill-typed),
/// printed (with and without `/* ty=... */` comments, with constants inline
/// and in the metadata section), and the text parsed again. The printed text
/// must parse, to a module structurally equal to the printed one, which
/// type-checks when the printed one did, and printing that module again must
/// give the same text: the printer and the parser agree on every module the
/// parser can produce.
//
//===----------------------------------------------------------------------===//

#include "FuzzerUtils.h"

#include "nnir/IR/Printer.h"
#include "nnir/IR/StructuralEqual.h"
#include "nnir/IR/Verifier.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Transforms/InferType.h"

#include <cstddef>
#include <cstdint>

using namespace llvm;
using namespace nnir;

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  registerAllOps();
  return 0;
}

/// Prints \p module with \p options, parses the text and checks the result.
/// \p typed says whether \p module went through type inference.
static void checkRoundTrip(const IRModule &module, bool typed,
                           const PrintOptions &options) {
  std::string text = toString(module, options);
  // What nnir prints must read back with the default nesting limit: the
  // printer adds nesting of its own (up to 64 blocks for a flat chain of
  // functions) and prints inferred types (up to 500 levels). Constants keep
  // their size.
  ParserOptions parserOptions = fuzz::getFuzzParserOptions();
  parserOptions.maxNestingDepth = ParserOptions().maxNestingDepth;
  SourceMgr printedMgr;
  Expected<Ref<IRModule>> reparsed =
      parseModule(text, printedMgr, "printed.nnir", parserOptions);
  if (!reparsed) {
    std::string message;
    raw_string_ostream os(message);
    printErrors(reparsed.takeError(), printedMgr, "fuzz", os);
    fuzz::fail("the printed module does not parse:\n" + message +
               "printed module:\n" + text);
  }
  if (!structuralEqual(module, **reparsed))
    fuzz::fail("the printed module parses to a different module: " +
               explainStructuralDifference(module, **reparsed) +
               "\nprinted module:\n" + text);
  Ref<IRModule> second = std::move(*reparsed);
  if (typed) {
    // Types are not part of the text (but for annotations): infer them
    // again, so that `/* ty=... */` comments print the same.
    Expected<Ref<IRModule>> retyped = inferTypes(second);
    if (!retyped)
      fuzz::fail("the printed module does not type-check: " +
                 toString(retyped.takeError()) + "\nprinted module:\n" + text);
    second = std::move(*retyped);
  }
  std::string again = toString(*second, options);
  if (again != text)
    fuzz::fail("printing is not a fixed point:\nfirst:\n" + text +
               "\nsecond:\n" + again);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  SourceMgr sourceMgr;
  StringRef text(reinterpret_cast<const char *>(data), size);
  Expected<Ref<IRModule>> parsed =
      parseModule(text, sourceMgr, "fuzz.nnir", fuzz::getFuzzParserOptions());
  if (!parsed) {
    fuzz::checkError(parsed.takeError(), sourceMgr);
    return 0;
  }
  Ref<IRModule> module = std::move(*parsed);
  if (Error err = verifyModule(*module)) {
    fuzz::checkError(std::move(err), sourceMgr);
    return 0;
  }
  Expected<Ref<IRModule>> typed = inferTypes(module);
  bool isTyped = bool(typed);
  if (typed) {
    module = std::move(*typed);
    // Inference is idempotent: a typed module comes back as it is.
    Expected<Ref<IRModule>> again = inferTypes(module);
    if (!again)
      fuzz::fail("type inference fails on its own result: " +
                 toString(again.takeError()));
    if (again->get() != module.get())
      fuzz::fail("type inference rebuilt a module it had typed");
  } else {
    fuzz::checkError(typed.takeError(), sourceMgr);
  }

  PrintOptions plain;
  checkRoundTrip(*module, isTyped, plain);
  PrintOptions typesAndMetadata;
  typesAndMetadata.showTypes = true;
  typesAndMetadata.inlineConstantLimit = 0;
  checkRoundTrip(*module, isTyped, typesAndMetadata);
  return 0;
}
