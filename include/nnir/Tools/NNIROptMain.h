//===- NNIROptMain.h - The nnir-opt driver ----------------------*- C++ -*-===//
//
/// \file
/// The nnir-opt driver as a library, the way MLIR keeps mlir-opt's logic in
/// MlirOptMain: tools/nnir-opt/nnir-opt.cpp only initialises LLVM, registers
/// the operators and calls nnirOptMain().
///
/// nnir-opt reads a module (a file or stdin), parses it, verifies it, runs
/// the pass pipeline given with `--passes=` under a PassContext built from
/// the flags, and prints the result. Every command-line option lives in
/// NNIROptConfig: its registerCLOptions() declares them (in the "nnir
/// options" category) and createFromCLOptions() reads them back, so new flags
/// are added in one place. docs/Passes.md describes every flag.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TOOLS_NNIROPTMAIN_H
#define NNIR_TOOLS_NNIROPTMAIN_H

#include "nnir/ExecutionEngine/ExecutionEngine.h"
#include "nnir/IR/Printer.h"
#include "nnir/Parser/Parser.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

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
  /// `--input-shape=NAME=D0xD1x...`: shapes of ONNX graph inputs.
  llvm::StringMap<std::vector<int64_t>> inputShapes;
  PrintOptions printOptions;
  /// Run the verifier after parsing and after the pass pipeline (with the
  /// type check when the result claims valid types), as opt does.
  bool verify = true;
  /// Print the module (the result of the passes), parse the text again and
  /// check that the result is structurally equal (mlir-opt's
  /// --verify-roundtrip).
  bool verifyRoundtrip = false;
  /// `--split-input-file`: lines `// -----` cut the input into modules,
  /// each read and run on its own; the outputs are joined by the same line.
  bool splitInputFile = false;
  /// `--verify-diagnostics`: the run succeeds when it produces exactly the
  /// diagnostics the input's `expected-*` comments state
  /// (DiagnosticVerifier.h), which are not printed.
  bool verifyDiagnostics = false;
  /// Leave the final module to the end of the process instead of freeing it
  /// node by node (0.1 s for a million nodes), as clang's -disable-free:
  /// for a process that exits right after, as nnirOptMain's does.
  bool disableFree = false;
  /// `--threads=N`: the size of the thread pool function passes run the
  /// module's functions on (nnir/Pass/Parallel.h); 0 (the default) is one
  /// thread per core (llvm::hardware_concurrency()), 1 (`--no-threading`)
  /// runs everything on the calling thread. A run that asks for a crash
  /// reproducer or the IR after a failure uses one thread, so that a crash
  /// is caught where the pass runs.
  unsigned threads = 0;

  //===--------------------------------------------------------------------===//
  // Passes
  //===--------------------------------------------------------------------===//

  /// `--passes=`: the pipeline text, when given. It runs as a top-level
  /// Sequential (see runNNIROpt). `default<ON>` in it names the default
  /// pipeline (nnir/Transforms/Pipelines.h) and sets the opt level to N.
  /// `-O<N>` without `--passes` is `--passes=default<ON>`.
  std::optional<std::string> passPipeline;
  /// `--print-pipeline`: print the pipeline text with `default<ON>`
  /// expanded, and exit.
  bool printPipeline = false;
  /// `--load-pass-plugin=`: shared libraries to load before anything else.
  std::vector<std::string> passPlugins;
  /// `--list-passes`, `--list-pass-configs`: print the registry and exit.
  bool listPasses = false;
  bool listPassConfigs = false;
  /// `--list-ops`: print every registered operator (pattern, flags such as
  /// "no compute", inputs, attributes) and exit; combines with the other
  /// listing flags.
  bool listOps = false;

  /// The PassContext: `-O<N>` / `--opt-level=N`, `--required-pass=`,
  /// `--disable-pass=`, and `--pass-config=key=value` entries (unparsed).
  /// Every name in the pass lists (and in printIRBefore/printIRAfter) must be
  /// a registered pass or a Sequential's name in the pipeline.
  int optLevel = 2;
  /// The flag that set optLevel (`-O3`, `--opt-level=3`), if one did.
  std::string optLevelFlag;
  std::vector<std::string> requiredPasses;
  std::vector<std::string> disabledPasses;
  std::vector<std::string> passConfigs;

  //===--------------------------------------------------------------------===//
  // Instruments
  //===--------------------------------------------------------------------===//

  enum class TimingReport { None, Tree, TVM, JSON };
  /// `--time-passes` (Tree, MLIR's layout), `--time-passes=tvm` (TVM's
  /// render()) or `--time-passes=json`, printed to the error stream at the
  /// end.
  TimingReport timePasses = TimingReport::None;
  /// `--time-trace=FILE`: a Chrome trace (LLVM's time profiler) of the
  /// passes, the functions they transform and the kernels compiled and run.
  std::string timeTraceFile;
  unsigned timeTraceGranularity = 0;
  /// `--print-ir-before=`, `--print-ir-after=`, `--print-ir-before-all`,
  /// `--print-ir-after-all` (to the error stream).
  std::vector<std::string> printIRBefore;
  std::vector<std::string> printIRAfter;
  bool printIRBeforeAll = false;
  bool printIRAfterAll = false;
  /// `--print-after-pass-number=N,M`: print after the passes numbered so.
  std::vector<unsigned> printAfterPassNumbers;
  /// `--print-pass-numbers`: print `Running pass N NAME` before each pass.
  bool printPassNumbers = false;
  /// `--ir-dump-dir=DIR`: the print-IR dumps go to numbered files there.
  std::string irDumpDir;
  /// `--pass-bisect-limit=N`: run only the first N passes that may be
  /// skipped (PassGate.h); unset: no bisection.
  std::optional<int64_t> passBisectLimit;
  /// `--crash-reproducer=FILE`: when a pass fails or crashes, write a file
  /// that `--run-reproducer` replays (Reproducer.h); with
  /// `--crash-reproducer-local`, for the failing pass alone.
  std::string crashReproducer;
  bool crashReproducerLocal = false;
  /// `--run-reproducer`: the input is a reproducer; its directives give the
  /// pipeline and the options.
  bool runReproducer = false;
  /// `--print-ir-after-failure`: print the module the failing pass was
  /// given.
  bool printIRAfterFailure = false;
  enum class PrintChanged { None, Module, Diff };
  /// `--print-changed` (the module) or `--print-changed=diff`.
  PrintChanged printChanged = PrintChanged::None;
  /// `--verify-each`: verify and type-check after every pass.
  bool verifyEach = false;
  /// `--stats`: print the statistics the passes recorded at the end
  /// (`--stats=json`: as JSON).
  bool printStats = false;
  bool statsJSON = false;

  /// `--emit=`: what to print after the passes: the module (`nnir`, the
  /// default), or the LLVM IR of the kernel of every primitive function, as
  /// Codegen emits it (`llvm`) or after LLVM's pipeline for the host
  /// (`llvm-opt`).
  enum class EmitKind { NNIR, LLVM, LLVMOptimized };
  EmitKind emit = EmitKind::NNIR;

  /// The execution engine that FoldConstant and `--emit` run kernels on,
  /// handed to the passes as the PassContext's ExecutionEngine resource and
  /// created when first needed: `--kernel-cache-dir=` (else
  /// $NNIR_KERNEL_CACHE_DIR, read by createFromCLOptions()) and
  /// `--jit-listeners=gdb,perf`.
  EngineOptions engineOptions;

  //===--------------------------------------------------------------------===//
  // Remarks (LLVM's flags; see nnir/Pass/RemarkStreamer.h)
  //===--------------------------------------------------------------------===//

  /// `--pass-remarks=`, `--pass-remarks-missed=`, `--pass-remarks-analysis=`:
  /// regexes over pass names; matching remarks are printed, located, on the
  /// error stream.
  std::string passRemarks;
  std::string passRemarksMissed;
  std::string passRemarksAnalysis;
  /// `--pass-remarks-output=`: a file for every remark in LLVM's YAML format;
  /// `--pass-remarks-filter=` keeps only the passes it matches there.
  std::string passRemarksOutput;
  std::string passRemarksFilter;

  /// Declares the command-line options (once; later calls do nothing). Takes
  /// over the names that libLLVM registers for its own pass manager
  /// (`--time-passes`, `--print-changed`, `--stats`, `--pass-remarks*`).
  static void registerCLOptions();
  /// Builds a config from the parsed command line. registerCLOptions() must
  /// have been called before the command line was parsed. Contradictory
  /// options (`-O1 --opt-level=3`) are an error.
  static llvm::Expected<NNIROptConfig> createFromCLOptions();
};

/// The program name used in diagnostics.
inline constexpr llvm::StringRef kNNIROptToolName = "nnir-opt";

/// Prints `nnir version X.Y.Z` and the LLVM version (the --version output).
void printNNIRVersion(llvm::raw_ostream &os);

/// Runs nnir-opt as \p config says: loads the plugins; with a listing flag,
/// prints the registered passes, configs or operators and stops; otherwise
/// parses the pipeline, builds the PassContext, parses and verifies the input,
/// runs the pipeline inside the entered context, and prints the result into the
/// output. Dumps, reports and errors go to \p errs (located errors as
/// file:line:col, source line and caret). Returns the process exit code: 0 on
/// success, 1 on any error.
int runNNIROpt(const NNIROptConfig &config, llvm::raw_ostream &errs);

/// The whole tool: parses the command line, then runNNIROpt(). Operators,
/// passes and config keys must have been registered (registerAllOps(),
/// registerTransformPasses(), registerPassInfraConfigs()).
int nnirOptMain(int argc, char **argv);

} // namespace nnir

#endif // NNIR_TOOLS_NNIROPTMAIN_H
