//===- FuzzerUtils.h - Shared checks of the nnir fuzz targets ---*- C++ -*-===//
//
/// \file
/// What the libFuzzer targets of test/Fuzz have in common: the parser limits
/// they run with (small, so that a mutated input cannot spend the fuzzer's
/// time or memory on one huge constant or a deep recursion), and the checks
/// that turn a silent misbehaviour into a crash libFuzzer reports: an error
/// must carry a message and, when located, a location inside the parsed
/// buffer.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TEST_FUZZ_FUZZERUTILS_H
#define NNIR_TEST_FUZZ_FUZZERUTILS_H

#include "nnir/Parser/Parser.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace nnir {
namespace fuzz {

/// The parser options of every fuzz target: nesting deep enough for every
/// real model, constants of at most 1 MiB.
inline ParserOptions getFuzzParserOptions() {
  ParserOptions options;
  options.maxNestingDepth = 100;
  options.maxConstantBytes = uint64_t(1) << 20;
  return options;
}

/// Reports a broken invariant and aborts, so libFuzzer saves the input.
[[noreturn]] inline void fail(const llvm::Twine &message) {
  llvm::errs() << "nnir fuzz target: " << message << "\n";
  llvm::errs().flush();
  std::abort();
}

/// Checks and consumes an error of a library call on the input in \p sm:
/// every located error points into one of \p sm's buffers and has a
/// message; rendering it (as nnir-opt does) must not fail either.
inline void checkError(llvm::Error err, const llvm::SourceMgr &sm) {
  llvm::Error rest = llvm::handleErrors(
      std::move(err), [&](std::unique_ptr<DiagnosticError> diag) {
        if (diag->getMessage().empty())
          fail("an error without a message");
        if (diag->getLoc().isValid() &&
            !sm.FindBufferContainingLoc(diag->getLoc()))
          fail("error '" + diag->getMessage() +
               "' is located outside the input");
        return llvm::Error(std::move(diag));
      });
  llvm::raw_null_ostream os;
  printErrors(std::move(rest), sm, "fuzz", os);
}

} // namespace fuzz
} // namespace nnir

#endif // NNIR_TEST_FUZZ_FUZZERUTILS_H
