//===- NNIROptMain.cpp - The nnir-opt driver ------------------------------===//
//
/// \file
/// Implements nnirOptMain(): the command-line options of nnir-opt and the
/// read -> parse -> verify -> print pipeline behind them.
//
//===----------------------------------------------------------------------===//

#include "nnir/Tools/NNIROptMain.h"

#include "nnir/IR/Module.h"
#include "nnir/IR/StructuralEqual.h"
#include "nnir/IR/Verifier.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <memory>

#ifndef NNIR_VERSION_STRING
#error "NNIR_VERSION_STRING must be defined by the build (PROJECT_VERSION)"
#endif

using namespace llvm;
using namespace nnir;

cl::OptionCategory &nnir::getNNIROptCategory() {
  static cl::OptionCategory category("nnir options");
  return category;
}

//===----------------------------------------------------------------------===//
// Command-line options
//===----------------------------------------------------------------------===//

namespace {
/// Every nnir-opt option. They exist only once registerCLOptions() has run,
/// so linking NNIRTools into another tool adds no options behind its back.
/// New flags (pass pipelines, instrumentation) go here and into
/// NNIROptConfig::createFromCLOptions().
struct CLOptions {
  cl::OptionCategory &cat = getNNIROptCategory();

  cl::opt<std::string> inputFilename{cl::Positional,
                                     cl::desc("<input file>"), cl::init("-"),
                                     cl::cat(cat)};
  cl::opt<std::string> outputFilename{
      "o", cl::desc("Output filename (default: stdout)"),
      cl::value_desc("filename"), cl::init("-"), cl::cat(cat)};

  // Parsing.
  cl::opt<unsigned> maxNestingDepth{
      "max-nesting-depth",
      cl::desc("Deepest syntactic nesting the parser accepts"),
      cl::init(ParserOptions().maxNestingDepth), cl::cat(cat)};
  cl::opt<uint64_t> maxConstantBytes{
      "max-constant-bytes",
      cl::desc("Largest constant (in bytes) the parser will materialise"),
      cl::init(ParserOptions().maxConstantBytes), cl::cat(cat)};

  // Verification.
  cl::opt<bool> verify{"verify",
                       cl::desc("Verify the module after parsing (default)"),
                       cl::init(true), cl::cat(cat)};
  cl::opt<bool> noVerify{"no-verify", cl::desc("Do not verify the module"),
                         cl::init(false), cl::cat(cat)};
  cl::opt<bool> verifyRoundtrip{
      "verify-roundtrip",
      cl::desc("Check that the printed module parses back to a structurally "
               "equal module"),
      cl::init(false), cl::cat(cat)};

  // Printing.
  cl::opt<bool> printTypes{
      "print-types", cl::desc("Print /* ty=... */ after typed expressions"),
      cl::init(false), cl::cat(cat)};
  cl::opt<int64_t> inlineConstantLimit{
      "inline-constant-limit",
      cl::desc("Print constants with at most N elements inline; larger ones "
               "go to the metadata section (negative: inline all)"),
      cl::value_desc("N"), cl::init(PrintOptions().inlineConstantLimit),
      cl::cat(cat)};
  cl::opt<bool> noVersionHeader{
      "no-version-header",
      cl::desc("Do not print the #[version = \"0.0.5\"] header"),
      cl::init(false), cl::cat(cat)};
};
} // namespace

/// The options, created by registerCLOptions().
static std::unique_ptr<CLOptions> &getCLOptions() {
  static std::unique_ptr<CLOptions> options;
  return options;
}

void NNIROptConfig::registerCLOptions() {
  std::unique_ptr<CLOptions> &options = getCLOptions();
  if (!options)
    options = std::make_unique<CLOptions>();
}

NNIROptConfig NNIROptConfig::createFromCLOptions() {
  NNIROptConfig config;
  const std::unique_ptr<CLOptions> &options = getCLOptions();
  if (!options)
    return config;
  config.inputFilename = options->inputFilename;
  config.outputFilename = options->outputFilename;
  config.parserOptions.maxNestingDepth = options->maxNestingDepth;
  config.parserOptions.maxConstantBytes = options->maxConstantBytes;
  config.verify = options->verify && !options->noVerify;
  config.verifyRoundtrip = options->verifyRoundtrip;
  config.printOptions.showTypes = options->printTypes;
  config.printOptions.inlineConstantLimit = options->inlineConstantLimit;
  config.printOptions.printVersion = !options->noVersionHeader;
  return config;
}

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

void nnir::printNNIRVersion(raw_ostream &os) {
  os << "nnir version " << NNIR_VERSION_STRING << "\n";
  os << "  LLVM version " << LLVM_VERSION_STRING << "\n";
}

/// Prints \p module, parses the text again and compares. The reparsed text
/// lives in its own SourceMgr, so a parse error points into the printed text.
static bool verifyRoundtrip(const IRModule &module, const PrintOptions &options,
                            raw_ostream &errs) {
  std::string text = toString(module, options);
  SourceMgr printedMgr;
  Expected<Ref<IRModule>> reparsed =
      parseModule(text, printedMgr, "<printed module>");
  if (!reparsed) {
    WithColor::error(errs, kNNIROptToolName)
        << "round trip failed: the printed module does not parse:\n";
    printErrors(reparsed.takeError(), printedMgr, kNNIROptToolName, errs);
    return false;
  }
  if (structuralEqual(module, **reparsed))
    return true;
  WithColor::error(errs, kNNIROptToolName)
      << "round trip failed: the printed module parses to a different "
         "module: "
      << explainStructuralDifference(module, **reparsed) << "\n";
  return false;
}

int nnir::runNNIROpt(const NNIROptConfig &config, raw_ostream &errs) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> input =
      MemoryBuffer::getFileOrSTDIN(config.inputFilename, /*IsText=*/true);
  if (std::error_code ec = input.getError()) {
    WithColor::error(errs, kNNIROptToolName)
        << "cannot open '" << config.inputFilename << "': " << ec.message()
        << "\n";
    return 1;
  }

  SourceMgr sourceMgr;
  unsigned bufferId = sourceMgr.AddNewSourceBuffer(std::move(*input), SMLoc());
  Expected<Ref<IRModule>> module =
      parseModule(sourceMgr, bufferId, config.parserOptions);
  if (!module) {
    printErrors(module.takeError(), sourceMgr, kNNIROptToolName, errs);
    return 1;
  }
  if (config.verify)
    if (printErrors(verifyModule(**module), sourceMgr, kNNIROptToolName, errs))
      return 1;
  if (config.verifyRoundtrip &&
      !verifyRoundtrip(**module, config.printOptions, errs))
    return 1;

  // The output is opened last, so a failed run leaves no partial file.
  std::error_code ec;
  ToolOutputFile output(config.outputFilename, ec, sys::fs::OF_TextWithCRLF);
  if (ec) {
    WithColor::error(errs, kNNIROptToolName)
        << "cannot open output file '" << config.outputFilename
        << "': " << ec.message() << "\n";
    return 1;
  }
  printModule(**module, output.os(), config.printOptions);
  output.os().flush();
  if (std::error_code writeError = output.os().error()) {
    WithColor::error(errs, kNNIROptToolName)
        << "cannot write '" << config.outputFilename
        << "': " << writeError.message() << "\n";
    output.os().clear_error();
    return 1;
  }
  output.keep();
  return 0;
}

int nnir::nnirOptMain(int argc, char **argv) {
  NNIROptConfig::registerCLOptions();
  cl::HideUnrelatedOptions(getNNIROptCategory());
  cl::SetVersionPrinter(printNNIRVersion);
  cl::ParseCommandLineOptions(
      argc, argv, "nnir-opt: parse, verify and print nnir modules\n");
  return runNNIROpt(NNIROptConfig::createFromCLOptions(), errs());
}
