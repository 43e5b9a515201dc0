//===- NNIRReduceMain.cpp - The nnir-reduce driver ------------------------===//
//
/// \file
/// Options, the checks that can fail before any work (the script, the
/// output file, the input), the reduction, the summary and the output.
//
//===----------------------------------------------------------------------===//

#include "nnir/Tools/NNIRReduceMain.h"

#include "InputShapeOption.h"
#include "LLVMOptions.h"
#include "RangedOption.h"

#include "nnir/IR/Verifier.h"
#include "nnir/Reduce/Reducer.h"
#include "nnir/Reduce/ScriptTest.h"
#include "nnir/Support/Diagnostics.h"
#include "nnir/Support/OutputFile.h"
#include "nnir/Tools/ModuleLoader.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace nnir;

static constexpr StringLiteral kToolName = "nnir-reduce";

namespace {
struct ReduceConfig {
  std::string inputFilename, outputFilename, test;
  std::vector<std::string> testArgs;
  StringMap<std::vector<int64_t>> inputShapes;
  ReduceOptions options;
  bool verbose = false;
};
} // namespace

static std::string plural(uint64_t n, StringRef word) {
  return std::to_string(n) + " " + word.str() + (n == 1 ? "" : "s");
}

static int runReduce(const ReduceConfig &config) {
  SourceMgr sourceMgr;
  auto fail = [&](Error err) {
    printErrors(std::move(err), sourceMgr, kToolName, errs());
    return 1;
  };
  Expected<ScriptTest> test = ScriptTest::create(config.test, config.testArgs);
  if (!test)
    return fail(test.takeError());

  // Opened first, so that an unwritable path fails before the work; put in
  // place by a rename at the end, so the output may be the input.
  std::error_code ec;
  OutputFile output(config.outputFilename, ec, sys::fs::OF_Text);
  if (ec)
    return fail(makeError("cannot open output file '" +
                          config.outputFilename + "': " + ec.message()));

  Expected<unsigned> bufferId = addInputFile(sourceMgr, config.inputFilename);
  if (!bufferId)
    return fail(bufferId.takeError());
  ModuleLoadOptions loadOptions;
  loadOptions.parserOptions = config.options.parserOptions;
  for (const auto &entry : config.inputShapes)
    loadOptions.inputShapes[entry.getKey()] = entry.getValue();
  Expected<Ref<IRModule>> module =
      loadModule(sourceMgr, *bufferId, loadOptions);
  if (!module)
    return fail(module.takeError());
  if (Error err = verifyModule(**module))
    return fail(std::move(err));

  ReduceStats stats;
  Expected<Ref<IRModule>> reduced = reduceModule(
      *module, [&](StringRef text) { return test->run(text); },
      config.options, stats);
  if (!reduced)
    return fail(reduced.takeError());

  output.os() << printForReduction(**reduced);
  output.os().flush();
  if (output.os().has_error()) {
    std::error_code writeError = output.os().error();
    output.os().clear_error();
    return fail(makeError("cannot write output file '" +
                          config.outputFilename +
                          "': " + writeError.message()));
  }
  if (std::error_code keepError = output.keep())
    return fail(makeError("cannot write output file '" +
                          config.outputFilename + "': " + keepError.message()));
  errs() << formatv("{0}: {1} -> {2}, {3} -> {4}; {5} ({6} interesting), "
                    "{7} skipped as ill-formed; {8:f2} s{9}\n",
                    kToolName, plural(stats.callsBefore, "call"),
                    plural(stats.callsAfter, "call"),
                    plural(stats.functionsBefore, "function"),
                    plural(stats.functionsAfter, "function"),
                    plural(stats.testRuns, "test run"), stats.interestingRuns,
                    plural(stats.illFormedCandidates, "candidate"),
                    stats.seconds,
                    stats.stoppedEarly ? " (stopped by --max-steps or "
                                         "--time-limit)"
                                       : "");
  return 0;
}

int nnir::nnirReduceMain(int argc, char **argv) {
  static cl::OptionCategory category("nnir-reduce options");
  cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<input file>"),
                                     cl::Required, cl::cat(category));
  cl::opt<std::string> outputFilename(
      "o", cl::desc("Where to write the reduced module ('-': stdout)"),
      cl::value_desc("file"), cl::init("reduced.nnir"), cl::cat(category));
  cl::opt<std::string> test(
      "test",
      cl::desc("The interestingness test: a program run on each candidate "
               "file, exiting 0 when it is interesting"),
      cl::value_desc("script"), cl::Required, cl::cat(category));
  cl::list<std::string> testArgs(
      "test-arg",
      cl::desc("An argument given to the test before the candidate's path "
               "(repeatable)"),
      cl::value_desc("arg"), cl::cat(category));
  RangedOpt<unsigned long long> maxSteps(
      "max-steps",
      cl::desc("Stop after this many test runs (0: no bound)"), cl::init(0),
      cl::cat(category), valueRange(IntegerRange<unsigned long long>::all()));
  RangedOpt<unsigned long long> timeLimit(
      "time-limit",
      cl::desc("Start no test run after this many seconds (0: no bound)"),
      cl::init(0), cl::cat(category),
      valueRange(IntegerRange<unsigned long long>::all()));
  cl::opt<bool> verbose(
      "verbose", cl::desc("Print every reduction the test accepts"),
      cl::cat(category));
  cl::alias verboseShort("v", cl::aliasopt(verbose), cl::desc("Alias for --verbose"));
  InputShapeOption inputShapes(category);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "nnir-reduce: shrink a module while an interestingness test accepts "
      "it\n");

  ReduceConfig config;
  config.inputFilename = inputFilename;
  config.outputFilename = outputFilename;
  config.test = test;
  config.testArgs = testArgs;
  for (const std::string &spec : inputShapes)
    if (Error err = parseInputShape(spec, config.inputShapes)) {
      WithColor::error(errs(), kToolName) << toString(std::move(err)) << "\n";
      return 1;
    }
  config.options.maxTestRuns = maxSteps;
  config.options.timeLimitSeconds = timeLimit;
  if (verbose)
    config.options.log = &errs();
  return runOnNestingStack(config.options.parserOptions.maxNestingDepth,
                           kToolName, errs(),
                           [&] { return runReduce(config); });
}
