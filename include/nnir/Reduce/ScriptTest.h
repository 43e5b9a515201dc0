//===- ScriptTest.h - An interestingness test run as a program --*- C++ -*-===//
//
/// \file
/// llvm-reduce's interestingness test: a program (a script) run on each
/// candidate, as `SCRIPT [TEST-ARGS...] CANDIDATE-FILE`; it exits 0 when the
/// candidate is interesting. The candidate is written to a temporary file,
/// removed after the run.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_REDUCE_SCRIPTTEST_H
#define NNIR_REDUCE_SCRIPTTEST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace nnir {

class ScriptTest {
public:
  /// Checks that \p script exists and can be executed (a name without a
  /// '/' is looked up on PATH, as a shell does).
  static llvm::Expected<ScriptTest> create(llvm::StringRef script,
                                           llvm::ArrayRef<std::string> args);

  /// Writes \p text to a temporary file named `*.nnir` and runs the script
  /// on it: true when it exits 0, false on another exit code or a signal.
  /// An error when the file cannot be written or the script not started.
  llvm::Expected<bool> run(llvm::StringRef text) const;

  /// The script run, as found.
  llvm::StringRef getProgram() const { return program; }

private:
  ScriptTest(std::string program, std::vector<std::string> args)
      : program(std::move(program)), args(std::move(args)) {}
  std::string program;
  std::vector<std::string> args;
};

} // namespace nnir

#endif // NNIR_REDUCE_SCRIPTTEST_H
