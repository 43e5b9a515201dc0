//===- NNIROptMain.h - The nnir-opt driver -----------------------*- C++ -*-===//
//
/// \file
/// The nnir-opt driver as a library, the way MLIR keeps mlir-opt's logic in
/// MlirOptMain: tools/nnir-opt/nnir-opt.cpp only initialises LLVM, registers
/// the operators and calls nnirOptMain().
///
/// nnir-opt reads a module (a file or stdin), parses it, verifies it and
/// prints it. Every command-line option lives in NNIROptConfig: its
/// registerCLOptions() declares them (in the "nnir options" category) and
/// createFromCLOptions() reads them back, so new flags are added in one place.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TOOLS_NNIROPTMAIN_H
#define NNIR_TOOLS_NNIROPTMAIN_H

#include "nnir/IR/Printer.h"
#include "nnir/Parser/Parser.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace nnir {

/// The category that holds every nnir-opt option; `--help` shows only it
/// (and LLVM's generic options such as --help and --version).
llvm::cl::OptionCategory &getNNIROptCategory();

/// What one nnir-opt run does, independent of how it was asked for.
struct NNIROptConfig {
  /// Input file, or "-" for stdin.
  std::string inputFilename = "-";
  /// Output file, or "-" for stdout.
  std::string outputFilename = "-";
  ParserOptions parserOptions;
  PrintOptions printOptions;
  /// Run the verifier after parsing.
  bool verify = true;
  /// Print the module, parse the text again and check that the result is
  /// structurally equal (mlir-opt's --verify-roundtrip).
  bool verifyRoundtrip = false;

  /// Declares the command-line options (once; later calls do nothing).
  static void registerCLOptions();
  /// Builds a config from the parsed command line. registerCLOptions() must
  /// have been called before the command line was parsed.
  static NNIROptConfig createFromCLOptions();
};

/// The program name used in diagnostics.
inline constexpr llvm::StringRef kNNIROptToolName = "nnir-opt";

/// Prints `nnir version X.Y.Z` and the LLVM version (the --version output).
void printNNIRVersion(llvm::raw_ostream &os);

/// Parses, verifies and prints \p config's input into its output. Errors are
/// printed to \p errs (located ones as file:line:col, source line and caret).
/// Returns the process exit code: 0 on success, 1 on any error.
int runNNIROpt(const NNIROptConfig &config, llvm::raw_ostream &errs);

/// The whole tool: parses the command line, then runNNIROpt(). Operators
/// must have been registered (registerAllOps()).
int nnirOptMain(int argc, char **argv);

} // namespace nnir

#endif // NNIR_TOOLS_NNIROPTMAIN_H
