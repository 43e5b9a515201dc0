//===- NNIROptMain.cpp - The nnir-opt driver ------------------------------===//
//
/// \file
/// Implements nnirOptMain(): the command-line options of nnir-opt and the
/// read -> parse -> verify -> print pipeline behind them.
//
//===----------------------------------------------------------------------===//

#include "nnir/Tools/NNIROptMain.h"
#include "nnir/Tools/DiagnosticVerifier.h"
#include "nnir/Tools/ModuleLoader.h"

#include "EngineFlags.h"
#include "InputShapeOption.h"
#include "LLVMOptions.h"
#include "RangedOption.h"
#include "Reproducer.h"

#include "nnir/ExecutionEngine/ExecutionEngine.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/IR/StructuralEqual.h"
#include "nnir/IR/TypeRelation.h"
#include "nnir/IR/Verifier.h"
#include "nnir/Ops/Compute.h"
#include "nnir/Ops/DynamicOps.h"
#include "nnir/Pass/Instruments.h"
#include "nnir/Pass/Parallel.h"
#include "nnir/Pass/Pass.h"
#include "nnir/Pass/PassContext.h"
#include "nnir/Pass/PassPlugin.h"
#include "nnir/Pass/PassRegistry.h"
#include "nnir/Pass/RemarkStreamer.h"
#include "nnir/Support/Diagnostics.h"
#include "nnir/Support/Heap.h"
#include "nnir/Support/OutputFile.h"
#include "nnir/Support/Stack.h"
#include "nnir/Support/Suggestions.h"
#include "nnir/Transforms/Executor.h"
#include "nnir/Transforms/Pipelines.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/BuryPointer.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <memory>

#if defined(__GLIBC__)
#include <pthread.h>
#endif

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
using TimingReport = NNIROptConfig::TimingReport;
using PrintChanged = NNIROptConfig::PrintChanged;
enum class StatsFormat { None, Text, JSON };

/// `--threads=N`. libLLVM.so already registers a hidden int option of that
/// name, without a description; nnir-opt adopts it (as LLVM's tools adopt
/// options of the libraries they link), or registers its own where it is
/// absent (a static link that does not pull it in).
static cl::opt<int> &getThreadsOption(cl::OptionCategory &cat) {
  static cl::opt<int> *option = [&] {
    auto *existing = dynamic_cast<cl::opt<int> *>(
        cl::getRegisteredOptions().lookup("threads"));
    if (!existing)
      existing = new cl::opt<int>("threads", cl::init(0));
    existing->setDescription(
        "Run function passes on N threads (default 0: one per core)");
    existing->setValueStr("N");
    existing->setHiddenFlag(cl::NotHidden);
    existing->addCategory(cat);
    existing->setInitialValue(0);
    return existing;
  }();
  return *option;
}

/// Every nnir-opt option. They exist only once registerCLOptions() has run,
/// so linking NNIRTools into another tool adds no options behind its back.
/// New flags go here and into NNIROptConfig::createFromCLOptions().
struct CLOptions {
  cl::OptionCategory &cat = getNNIROptCategory();

  cl::opt<std::string> inputFilename{cl::Positional, cl::desc("<input file>"),
                                     cl::init("-"), cl::cat(cat)};
  InputShapeOption inputShapes{cat};
  cl::opt<std::string> outputFilename{
      "o", cl::desc("Output filename (default: stdout)"),
      cl::value_desc("filename"), cl::init("-"), cl::cat(cat)};

  // Parsing.
  RangedOpt<unsigned> maxNestingDepth{
      "max-nesting-depth",
      cl::desc("Deepest syntactic nesting the parser accepts (default 1000)"),
      cl::init(ParserOptions().maxNestingDepth), cl::cat(cat),
      valueRange(1u, kMaxNestingDepth)};
  RangedOpt<unsigned long long> maxConstantBytes{
      "max-constant-bytes",
      cl::desc("Largest constant (in bytes) the parser will materialise"),
      cl::init(ParserOptions().maxConstantBytes), cl::cat(cat),
      valueRange(IntegerRange<unsigned long long>::all())};

  // Verification.
  cl::opt<bool> verify{
      "verify",
      cl::desc("Verify the module after parsing and after the pass pipeline "
               "(default)"),
      cl::init(true), cl::cat(cat)};
  cl::opt<bool> noVerify{
      "no-verify",
      cl::desc("Verify the module neither after parsing nor after the passes"),
      cl::init(false), cl::cat(cat)};
  cl::opt<bool> verifyRoundtrip{
      "verify-roundtrip",
      cl::desc("Check that the printed module parses back to a structurally "
               "equal module"),
      cl::init(false), cl::cat(cat)};
  cl::opt<bool> splitInputFile{
      "split-input-file",
      cl::desc("Split the input at lines '// -----' and process each part "
               "as a module of its own; the outputs are joined by the same "
               "line"),
      cl::init(false), cl::cat(cat)};
  cl::opt<bool> verifyDiagnostics{
      "verify-diagnostics",
      cl::desc("Check that the run produces exactly the diagnostics the "
               "input's expected-error/warning/remark/note comments state"),
      cl::init(false), cl::cat(cat)};

  // Printing.
  cl::opt<bool> printTypes{
      "print-types", cl::desc("Print /* ty=... */ after typed expressions"),
      cl::init(false), cl::cat(cat)};
  RangedOpt<long long> inlineConstantLimit{
      "inline-constant-limit",
      cl::desc("Print constants with at most N elements, or of one repeated "
               "value, inline; others go to the metadata section (0: TVM's "
               "syntax, every non-scalar constant; negative: inline all)"),
      cl::value_desc("N"),
      cl::init(PrintOptions().inlineConstantLimit),
      cl::cat(cat),
      valueRange(IntegerRange<long long>::all())};
  cl::opt<bool> noVersionHeader{
      "no-version-header",
      cl::desc("Do not print the #[version = \"0.0.5\"] header"),
      cl::init(false), cl::cat(cat)};

  // Passes.
  cl::opt<std::string> passPipeline{
      "passes",
      cl::desc("Run a pass pipeline, e.g. "
               "'InferType,Sequential(A,B{key=value})'"),
      cl::value_desc("pipeline"), cl::cat(cat)};
  cl::list<std::string> passPlugins{
      "load-pass-plugin",
      cl::desc("Load a shared library that registers passes (repeatable)"),
      cl::value_desc("path"), cl::cat(cat)};
  cl::opt<bool> listPasses{
      "list-passes",
      cl::desc("List the registered passes with their options and exit"),
      cl::init(false), cl::cat(cat)};
  cl::opt<bool> listPassConfigs{
      "list-pass-configs",
      cl::desc("List the registered --pass-config keys and exit"),
      cl::init(false), cl::cat(cat)};
  cl::opt<bool> listOps{
      "list-ops",
      cl::desc("List the registered operators with their fusion pattern, "
               "flags, inputs and attributes, and exit"),
      cl::init(false), cl::cat(cat)};

  // The PassContext.
  cl::opt<bool> o0{"O0",
                   cl::desc("Opt level 0; without --passes, run default<O0>"),
                   cl::init(false), cl::cat(cat)};
  cl::opt<bool> o1{"O1",
                   cl::desc("Opt level 1; without --passes, run default<O1>"),
                   cl::init(false), cl::cat(cat)};
  cl::opt<bool> o2{"O2",
                   cl::desc("Opt level 2 (the default level); without "
                            "--passes, run default<O2>"),
                   cl::init(false), cl::cat(cat)};
  cl::opt<bool> o3{"O3",
                   cl::desc("Opt level 3; without --passes, run default<O3>"),
                   cl::init(false), cl::cat(cat)};
  cl::opt<bool> printPipeline{
      "print-pipeline",
      cl::desc("Print the pipeline with default<ON> expanded, and exit"),
      cl::init(false), cl::cat(cat)};
  RangedOpt<unsigned> optLevel{
      "opt-level",
      cl::desc("Opt level of the pass context: a Sequential runs a pass only "
               "if the level is at least the pass's (default 2)"),
      cl::value_desc("N"),
      cl::init(2),
      cl::cat(cat),
      valueRange(0u, 3u)};
  cl::list<std::string> disablePass{
      "disable-pass",
      cl::desc("Skip these passes where a Sequential lists them; a pass that "
               "requires one still runs it first, as in TVM"),
      cl::value_desc("A,B"), cl::CommaSeparated, cl::cat(cat)};
  cl::list<std::string> requiredPass{
      "required-pass",
      cl::desc("Run these passes whatever their opt level, and do not ask "
               "the instruments whether they should run"),
      cl::value_desc("A,B"), cl::CommaSeparated, cl::cat(cat)};
  cl::list<std::string> passConfig{
      "pass-config",
      cl::desc("Set a pass context config entry (repeatable; see "
               "--list-pass-configs)"),
      cl::value_desc("key=value"), cl::cat(cat)};

  // Instruments.
  cl::opt<TimingReport> timePasses{
      "time-passes",
      cl::desc("Print the wall time of every pass, nested, at the end"),
      cl::ValueOptional,
      cl::init(TimingReport::None),
      cl::values(
          clEnumValN(TimingReport::Tree, "", "a tree like MLIR's -mlir-timing"),
          clEnumValN(TimingReport::JSON, "json",
                     "JSON: wall, self and user time per pass, nested"),
          clEnumValN(TimingReport::TVM, "tvm",
                     "TVM's PassTimingInstrument.render() format")),
      cl::cat(cat)};
  cl::list<std::string> printIRBefore{
      "print-ir-before", cl::desc("Print the module before these passes"),
      cl::value_desc("A,B"), cl::CommaSeparated, cl::cat(cat)};
  cl::list<std::string> printIRAfter{
      "print-ir-after", cl::desc("Print the module after these passes"),
      cl::value_desc("A,B"), cl::CommaSeparated, cl::cat(cat)};
  cl::opt<bool> printIRBeforeAll{"print-ir-before-all",
                                 cl::desc("Print the module before every pass"),
                                 cl::init(false), cl::cat(cat)};
  cl::opt<bool> printIRAfterAll{"print-ir-after-all",
                                cl::desc("Print the module after every pass"),
                                cl::init(false), cl::cat(cat)};
  cl::list<unsigned> printAfterPassNumber{
      "print-after-pass-number",
      cl::desc("Print the module after the passes with these numbers (see "
               "--print-pass-numbers)"),
      cl::value_desc("N,M"), cl::CommaSeparated, cl::cat(cat)};
  cl::opt<bool> printPassNumbers{
      "print-pass-numbers",
      cl::desc("Print 'Running pass N NAME' before each pass"),
      cl::init(false), cl::cat(cat)};
  cl::opt<std::string> irDumpDir{
      "ir-dump-dir",
      cl::desc("Write each dump of the --print-ir-* flags to a numbered file "
               "of its own in this directory instead of stderr"),
      cl::value_desc("dir"), cl::cat(cat)};
  RangedOpt<long long> passBisectLimit{
      "pass-bisect-limit",
      cl::desc("Run only the first N passes that may be skipped, printing "
               "each decision (BISECT: ...); -1 runs them all"),
      cl::value_desc("N"), cl::init(-1), cl::cat(cat),
      valueRange(IntegerRange<long long>(-1, INT64_MAX))};
  cl::opt<std::string> crashReproducer{
      "crash-reproducer",
      cl::desc("When a pass fails or crashes, write a file that "
               "--run-reproducer replays"),
      cl::value_desc("file"), cl::cat(cat)};
  cl::opt<bool> crashReproducerLocal{
      "crash-reproducer-local",
      cl::desc("Make the crash reproducer replay the failing pass alone, on "
               "the module it was given"),
      cl::init(false), cl::cat(cat)};
  cl::opt<bool> runReproducer{
      "run-reproducer",
      cl::desc("The input is a crash reproducer: take the pipeline and the "
               "options from it"),
      cl::init(false), cl::cat(cat)};
  cl::opt<bool> printIRAfterFailure{
      "print-ir-after-failure",
      cl::desc("Print the module the failing pass was given"),
      cl::init(false), cl::cat(cat)};
  cl::opt<PrintChanged> printChanged{
      "print-changed",
      cl::desc("Print the module after every pass that changed it"),
      cl::ValueOptional,
      cl::init(PrintChanged::None),
      cl::values(clEnumValN(PrintChanged::Module, "", "the whole module"),
                 clEnumValN(PrintChanged::Diff, "diff",
                            "a unified diff against the previous module")),
      cl::cat(cat)};
  // Threads.
  cl::opt<int> &threads = getThreadsOption(cat);
  cl::opt<bool> noThreading{
      "no-threading",
      cl::desc("Run every pass on one thread (--threads=1)"), cl::init(false),
      cl::cat(cat)};
  cl::opt<bool> verifyEach{
      "verify-each",
      cl::desc("Verify and type-check the module after every pass"),
      cl::init(false), cl::cat(cat)};
  cl::opt<NNIROptConfig::EmitKind> emit{
      "emit", cl::desc("What to print after the passes"),
      cl::init(NNIROptConfig::EmitKind::NNIR),
      cl::values(
          clEnumValN(NNIROptConfig::EmitKind::NNIR, "nnir", "the module"),
          clEnumValN(NNIROptConfig::EmitKind::LLVM, "llvm",
                     "the LLVM IR of each primitive function's kernel"),
          clEnumValN(NNIROptConfig::EmitKind::LLVMOptimized, "llvm-opt",
                     "the same after LLVM's optimisation pipeline")),
      cl::cat(cat)};
  cl::opt<StatsFormat> stats{
      "stats", cl::desc("Print the statistics of the passes at the end"),
      cl::ValueOptional, cl::init(StatsFormat::None),
      cl::values(clEnumValN(StatsFormat::Text, "", "LLVM's -stats layout"),
                 clEnumValN(StatsFormat::JSON, "json",
                            "one JSON object of \"<pass>.<counter>\": value")),
      cl::cat(cat)};
  cl::opt<std::string> timeTrace{
      "time-trace",
      cl::desc("Write a Chrome trace (chrome://tracing, Perfetto) of the "
               "passes and the kernels compiled and run to this file"),
      cl::value_desc("file"), cl::cat(cat)};
  RangedOpt<unsigned> timeTraceGranularity{
      "time-trace-granularity",
      cl::desc("The shortest event --time-trace records, in microseconds "
               "(default 0: every one)"),
      cl::init(0), cl::cat(cat), valueRange(0u, 1000000000u)};
  // The execution engine (FoldConstant, --emit).
  KernelCacheDirOption kernelCacheDir{cat};
  JITListenersOption jitListeners{cat};

  // Remarks.
  cl::opt<std::string> passRemarks{
      "pass-remarks",
      cl::desc("Print the remarks of what the passes whose name matches the "
               "regex did"),
      cl::value_desc("pattern"), cl::cat(cat)};
  cl::opt<std::string> passRemarksMissed{
      "pass-remarks-missed",
      cl::desc("Print the remarks of what the passes whose name matches the "
               "regex did not do, and why"),
      cl::value_desc("pattern"), cl::cat(cat)};
  cl::opt<std::string> passRemarksAnalysis{
      "pass-remarks-analysis",
      cl::desc("Print the analysis remarks of the passes whose name matches "
               "the regex"),
      cl::value_desc("pattern"), cl::cat(cat)};
  cl::opt<std::string> passRemarksOutput{
      "pass-remarks-output",
      cl::desc("Write every remark to this file in LLVM's YAML remark format"),
      cl::value_desc("filename"), cl::cat(cat)};
  cl::opt<std::string> passRemarksFilter{
      "pass-remarks-filter",
      cl::desc("Only write the remarks of the passes whose name matches the "
               "regex to --pass-remarks-output"),
      cl::value_desc("pattern"), cl::cat(cat)};
};
} // namespace

/// The options, created by registerCLOptions().
static std::unique_ptr<CLOptions> &getCLOptions() {
  static std::unique_ptr<CLOptions> options;
  return options;
}

void NNIROptConfig::registerCLOptions() {
  std::unique_ptr<CLOptions> &options = getCLOptions();
  if (options)
    return;
  // nnir-opt's --time-passes, --print-changed, --stats, remark and pass
  // number flags are its own; LLVM's become --llvm-time-passes, ...
  // (LLVMOptions.h).
  renameLLVMOptions({"time-passes", "print-changed", "stats", "pass-remarks",
                     "pass-remarks-missed", "pass-remarks-analysis",
                     "pass-remarks-output", "pass-remarks-filter",
                     "print-pass-numbers", "print-after-pass-number",
                     "ir-dump-directory"});
  options = std::make_unique<CLOptions>();
}

Expected<NNIROptConfig> NNIROptConfig::createFromCLOptions() {
  NNIROptConfig config;
  const std::unique_ptr<CLOptions> &options = getCLOptions();
  if (!options)
    return config;
  config.inputFilename = options->inputFilename;
  config.outputFilename = options->outputFilename;
  config.parserOptions.maxNestingDepth = options->maxNestingDepth;
  config.parserOptions.maxConstantBytes = options->maxConstantBytes;
  for (const std::string &spec : options->inputShapes)
    if (Error err = parseInputShape(spec, config.inputShapes))
      return err;
  config.verify = options->verify && !options->noVerify;
  config.verifyRoundtrip = options->verifyRoundtrip;
  config.splitInputFile = options->splitInputFile;
  config.verifyDiagnostics = options->verifyDiagnostics;
  config.printOptions.showTypes = options->printTypes;
  config.printOptions.inlineConstantLimit = options->inlineConstantLimit;
  config.printOptions.printVersion = !options->noVersionHeader;

  if (options->passPipeline.getNumOccurrences())
    config.passPipeline = options->passPipeline;
  config.passPlugins = options->passPlugins;
  config.listPasses = options->listPasses;
  config.listPassConfigs = options->listPassConfigs;
  config.listOps = options->listOps;

  // -O<N> and --opt-level=N may be repeated only with the same level.
  std::optional<unsigned> level;
  std::string levelFlag;
  auto setLevel = [&](unsigned value, std::string flag) -> Error {
    if (level && *level != value)
      return makeError("conflicting opt levels: " + levelFlag + " and " + flag);
    level = value;
    levelFlag = std::move(flag);
    return Error::success();
  };
  cl::opt<bool> *levelFlags[] = {&options->o0, &options->o1, &options->o2,
                                 &options->o3};
  for (unsigned i = 0; i < 4; ++i)
    if (*levelFlags[i])
      if (Error err = setLevel(i, "-O" + std::to_string(i)))
        return err;
  if (options->optLevel.getNumOccurrences())
    if (Error err =
            setLevel(options->optLevel,
                     "--opt-level=" + std::to_string(options->optLevel)))
      return err;
  config.optLevel = level.value_or(2);
  config.optLevelFlag = levelFlag;
  // `-O<N>` alone runs the default pipeline, as `opt -O2` does.
  if (!config.passPipeline && level && !options->optLevel.getNumOccurrences())
    config.passPipeline = "default<O" + std::to_string(*level) + ">";
  config.printPipeline = options->printPipeline;
  config.requiredPasses = options->requiredPass;
  config.disabledPasses = options->disablePass;
  config.passConfigs = options->passConfig;

  config.timePasses = options->timePasses;
  config.printIRBefore = options->printIRBefore;
  config.printIRAfter = options->printIRAfter;
  config.printIRBeforeAll = options->printIRBeforeAll;
  config.printIRAfterAll = options->printIRAfterAll;
  config.printChanged = options->printChanged;
  config.printAfterPassNumbers = options->printAfterPassNumber;
  config.printPassNumbers = options->printPassNumbers;
  config.irDumpDir = options->irDumpDir;
  if (options->passBisectLimit.getNumOccurrences())
    config.passBisectLimit = options->passBisectLimit;
  config.crashReproducer = options->crashReproducer;
  config.crashReproducerLocal = options->crashReproducerLocal;
  config.runReproducer = options->runReproducer;
  config.printIRAfterFailure = options->printIRAfterFailure;
  if (config.crashReproducerLocal && config.crashReproducer.empty())
    return makeError("--crash-reproducer-local needs --crash-reproducer=FILE");
  if (config.runReproducer) {
    // The reproducer says how the failing run was made.
    std::pair<bool, StringRef> replayed[] = {
        {bool(config.passPipeline), "--passes or -O"},
        {!config.optLevelFlag.empty(), "an opt level"},
        {!config.passConfigs.empty(), "--pass-config"},
        {!config.disabledPasses.empty(), "--disable-pass"},
        {!config.requiredPasses.empty(), "--required-pass"},
        {!config.passPlugins.empty(), "--load-pass-plugin"}};
    for (auto [given, flag] : replayed)
      if (given)
        return makeError("--run-reproducer takes the pipeline and its "
                         "options from the reproducer; do not give " +
                         flag);
  }
  config.verifyEach = options->verifyEach;
  if (options->threads < 0)
    return makeError("--threads expects a number of threads (0: one per "
                     "core), got " +
                     Twine(int(options->threads)));
  config.threads = options->noThreading ? 1 : unsigned(options->threads);
  config.printStats = options->stats != StatsFormat::None;
  config.statsJSON = options->stats == StatsFormat::JSON;
  config.timeTraceFile = options->timeTrace;
  config.timeTraceGranularity = options->timeTraceGranularity;
  config.emit = options->emit;
  config.engineOptions.cacheDir = getKernelCacheDir(options->kernelCacheDir);
  config.engineOptions.listeners = options->jitListeners.get();
  config.passRemarks = options->passRemarks;
  config.passRemarksMissed = options->passRemarksMissed;
  config.passRemarksAnalysis = options->passRemarksAnalysis;
  config.passRemarksOutput = options->passRemarksOutput;
  config.passRemarksFilter = options->passRemarksFilter;
  return config;
}

//===----------------------------------------------------------------------===//
// Listings
//===----------------------------------------------------------------------===//

/// Orders names case-insensitively (InferType among the lower-case test
/// passes), then case-sensitively.
static bool lessName(StringRef a, StringRef b) {
  if (int c = a.compare_insensitive(b))
    return c < 0;
  return a < b;
}

/// `--list-passes`: every registered pass by name, with what its PassInfo
/// says when created with the default options, and its options.
static void printPassList(raw_ostream &os) {
  std::vector<const PassRegistration *> registrations =
      PassRegistry::instance().getRegistrations();
  llvm::sort(registrations,
             [](const PassRegistration *a, const PassRegistration *b) {
               return lessName(a->name, b->name);
             });
  os << "Registered passes:\n";
  for (const PassRegistration *registration : registrations) {
    os << "  " << registration->name << " [";
    Expected<Ref<Pass>> pass =
        PassRegistry::instance().create(registration->name);
    std::string description = registration->description;
    if (pass) {
      const PassInfo &info = (*pass)->getInfo();
      os << "opt level " << info.optLevel;
      if (!info.required.empty())
        os << ", requires " << join(info.required, ", ");
      if (info.establishesTypes)
        os << ", establishes types";
      else if (info.preservesTypes)
        os << ", preserves types";
      if (description.empty())
        description = info.description;
    } else {
      os << "not creatable with the default options: "
         << toString(pass.takeError());
    }
    if (registration->origin != "nnir")
      os << ", from " << registration->origin;
    os << "]";
    if (!description.empty())
      os << " - " << description;
    os << "\n";
    for (const PassOptionInfo &option : registration->options) {
      os << "    " << option.name << ": " << getOptionTypeName(option.type);
      if (option.range)
        os << " (" << option.range->str() << ")";
      os << " = " << option.defaultValue.str();
      if (!option.description.empty())
        os << " - " << option.description;
      os << "\n";
    }
  }
}

/// `--list-pass-configs`: every registered config key with its type (and
/// range).
static void printPassConfigList(raw_ostream &os) {
  std::vector<const PassConfigRegistry::Entry *> entries;
  for (const PassConfigRegistry::Entry &entry :
       PassConfigRegistry::instance().getEntries())
    entries.push_back(&entry);
  llvm::sort(entries, [](const PassConfigRegistry::Entry *a,
                         const PassConfigRegistry::Entry *b) {
    return lessName(a->key, b->key);
  });
  os << "Pass config options (--pass-config=key=value):\n";
  for (const PassConfigRegistry::Entry *entry : entries) {
    os << "  " << entry->key << " (" << getOptionTypeName(entry->type);
    if (entry->range)
      os << ", " << entry->range->str();
    os << ")";
    if (!entry->description.empty())
      os << " - " << entry->description;
    os << "\n";
  }
}

/// `--list-ops`: every registered operator by name, as
///   `  name [Pattern, flags..., N inputs (a, b), record type] - description`
/// (flags: stateful, non-computational, no type relation, no compute, host
/// compute, static form: nnir/Ops/DynamicOps.h)
/// followed by one `    field: type = default` line per attribute
/// (`    field: type, required` for a field without a default).
static void printOpList(raw_ostream &os) {
  std::vector<const Op *> ops;
  for (const Ref<Op> &op : OpRegistry::instance().getOps())
    ops.push_back(op.get());
  llvm::sort(ops, [](const Op *a, const Op *b) {
    return a->getName() < b->getName();
  });
  const OpAttrMap<OpPatternKind> *patterns =
      OpRegistry::instance().findAttrMap<OpPatternKind>(kOpPatternAttr);
  os << "Registered operators:\n";
  for (const Op *op : ops) {
    os << "  " << op->getName() << " [";
    // FuseOps treats an operator without a pattern as Opaque; say which.
    if (patterns && patterns->has(op))
      os << getOpPatternKindName(patterns->get(op));
    else
      os << "no pattern (Opaque)";
    if (isStatefulOp(op))
      os << ", stateful";
    if (isNonComputationalOp(op))
      os << ", non-computational";
    if (!getTypeRelation(op))
      os << ", no type relation";
    // Codegen cannot lower (nnir-run, FoldConstant) a call without one,
    // unless the evaluator runs it by a run-time implementation.
    if (getHostCompute(op))
      os << ", host compute";
    else if (!getOpCompute(op))
      os << (getStaticForm(op) ? ", static form" : ", no compute");
    int numInputs = op->getNumInputs();
    if (numInputs < 0)
      os << ", variadic";
    else
      os << ", " << numInputs << (numInputs == 1 ? " input" : " inputs");
    if (!op->getArguments().empty()) {
      os << " (";
      interleaveComma(op->getArguments(), os,
                      [&](const OpArgument &arg) { os << arg.name; });
      os << ")";
    }
    if (op->hasAttrsType())
      os << ", " << op->getAttrsTypeKey();
    os << "]";
    if (!op->getDescription().empty())
      os << " - " << op->getDescription();
    os << "\n";
    const Ref<Attrs> &defaults = op->getDefaultAttrs();
    if (!defaults)
      continue;
    SmallVector<AttrFieldInfo, 8> fields;
    defaults->describeFields(fields);
    for (const AttrFieldInfo &field : fields) {
      os << "    " << field.name << ": " << field.typeName;
      if (field.defaultText)
        os << " = " << *field.defaultText;
      else
        os << ", required";
      os << "\n";
    }
  }
}

//===----------------------------------------------------------------------===//
// The pass context and the pipeline
//===----------------------------------------------------------------------===//

/// Adds to \p names the name of every pass in \p pass: itself and, for a
/// Sequential, everything it holds (pipeline nesting is bounded by the
/// pipeline parser, so the recursion is too).
static void collectPassNames(const Pass &pass, StringSet<> &names) {
  names.insert(pass.getName());
  if (const auto *sequential = dyn_cast<Sequential>(&pass))
    for (const Ref<Pass> &child : sequential->getPasses())
      if (child)
        collectPassNames(*child, names);
}

/// Checks the names given to the pass-naming flag \p flag: each must be a
/// registered pass or the name of a pass in the pipeline (a Sequential's
/// `name`), since a typo would silently do nothing. An unknown name is an
/// error located in `--flag=A,B`, added to \p sourceMgr as a buffer named
/// "<command line>", with the closest names as suggestions.
static Error checkPassNames(ArrayRef<std::string> names, StringRef flag,
                            const StringSet<> &pipelineNames,
                            SourceMgr &sourceMgr) {
  const PassRegistry &registry = PassRegistry::instance();
  auto isKnown = [&](StringRef name) {
    return registry.lookup(name) || pipelineNames.contains(name);
  };
  if (all_of(names, isKnown))
    return Error::success();
  std::string text = ("--" + flag + "=").str();
  std::vector<size_t> offsets;
  for (const std::string &name : names) {
    if (!offsets.empty())
      text += ',';
    offsets.push_back(text.size());
    text += name;
  }
  unsigned id = sourceMgr.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(text, "<command line>"), SMLoc());
  const char *start = sourceMgr.getMemoryBuffer(id)->getBufferStart();
  std::vector<StringRef> extraNames;
  for (const auto &entry : pipelineNames)
    if (!registry.lookup(entry.getKey()))
      extraNames.push_back(entry.getKey());
  llvm::sort(extraNames);
  for (auto [name, offset] : llvm::zip(names, offsets))
    if (!isKnown(name))
      return makeError(SMLoc::getFromPointer(start + offset),
                       "--" + flag + " names " +
                           registry.getUnknownPassMessage(name, extraNames));
  return Error::success();
}

/// Builds the PassContext that --passes runs under: opt level, required and
/// disabled passes, config entries, and the instruments in the order timing,
/// IR printing, change printing, verification (so that the timing of a pass
/// leaves out the printing and verifying done after it, and a module that
/// fails verification has already been printed). Dumps and the timing report
/// (written when the context is left, if no pass failed) go to \p errs.
/// The name the files of --ir-dump-dir end in: the input's stem.
static std::string getDumpName(StringRef inputFilename) {
  if (inputFilename == "-")
    return "stdin";
  return sys::path::stem(inputFilename).str();
}

/// The pool of `--threads=N` (null for one thread). Its workers run passes
/// over input nested as deep as the parser accepts, so new threads get the
/// stack the tool's own thread has (nnir/Support/Stack.h).
static std::shared_ptr<ThreadPoolInterface>
createThreadPool(const NNIROptConfig &config) {
  ThreadPoolStrategy strategy = hardware_concurrency(config.threads);
  if (strategy.compute_thread_count() < 2)
    return nullptr;
#if defined(__GLIBC__)
  // LLVM's pool starts its threads with the default attributes.
  pthread_attr_t attr;
  if (pthread_getattr_default_np(&attr) == 0) {
    pthread_attr_setstacksize(
        &attr, getStackBytesForNesting(config.parserOptions.maxNestingDepth));
    pthread_setattr_default_np(&attr);
    pthread_attr_destroy(&attr);
  }
#endif
  return std::make_shared<DefaultThreadPool>(strategy);
}

static Expected<Ref<PassContext>>
createPassContext(const NNIROptConfig &config, raw_ostream &errs,
                  std::shared_ptr<FailureTracker> tracker = nullptr) {
  Ref<PassContext> result = PassContext::create();
  PassContext &ctx = *result;
  ctx.setOptLevel(config.optLevel);
  ctx.setRequiredPasses(config.requiredPasses);
  ctx.setDisabledPasses(config.disabledPasses);
  for (StringRef entry : config.passConfigs) {
    auto [key, value] = entry.split('=');
    if (key.size() == entry.size())
      return makeError("--pass-config expects key=value, got '" + entry + "'");
    if (Error err = ctx.setConfigFromString(key.trim(), value.trim()))
      return err;
  }

  std::vector<std::shared_ptr<PassInstrument>> instruments;
  if (config.timePasses != TimingReport::None)
    instruments.push_back(PassTimingInstrument::create(
        errs, config.timePasses == TimingReport::TVM
                  ? PassTimingInstrument::Display::TVM
              : config.timePasses == TimingReport::JSON
                  ? PassTimingInstrument::Display::JSON
                  : PassTimingInstrument::Display::Tree));
  if (config.printPassNumbers)
    instruments.push_back(PassNumbersInstrument::create(errs));
  if (config.printIRBeforeAll || config.printIRAfterAll ||
      !config.printIRBefore.empty() || !config.printIRAfter.empty() ||
      !config.printAfterPassNumbers.empty()) {
    PrintIROptions options;
    options.before = config.printIRBefore;
    options.after = config.printIRAfter;
    options.beforeAll = config.printIRBeforeAll;
    options.afterAll = config.printIRAfterAll;
    options.afterNumbers = config.printAfterPassNumbers;
    options.dumpDirectory = config.irDumpDir;
    options.dumpName = getDumpName(config.inputFilename);
    options.printOptions = config.printOptions;
    instruments.push_back(PrintIRInstrument::create(errs, std::move(options)));
  }
  if (config.printChanged != PrintChanged::None) {
    PrintChangedOptions options;
    options.diff = config.printChanged == PrintChanged::Diff;
    options.printOptions = config.printOptions;
    instruments.push_back(PrintChangedInstrument::create(errs, options));
  }
  if (config.verifyEach)
    instruments.push_back(VerifyEachInstrument::create());
  if (tracker)
    instruments.push_back(std::move(tracker));
  if (config.passBisectLimit)
    ctx.setPassGate(std::make_shared<PassBisect>(*config.passBisectLimit, errs));
  ctx.setInstruments(std::move(instruments));
  return result;
}

/// The pipeline given with --passes as a top-level Sequential: a list of
/// several passes already is one, and so is a single `Sequential(...)`
/// (whose options then name the top level); any other single pass is
/// wrapped. Either way the top-level passes are gated by the context (opt
/// level, disabled and required passes) as in TVM's Sequential.
static Ref<Pass> asTopLevelSequential(Ref<Pass> pass) {
  if (isa<Sequential>(pass.get()))
    return pass;
  return createSequential({pass});
}

/// Runs \p pipeline on \p module inside the entered \p context. An error of
/// the pipeline and one of leaving the context are both returned.
static Expected<Ref<IRModule>> runPipeline(const Pass &pipeline,
                                           Ref<IRModule> module,
                                           Ref<PassContext> context) {
  Expected<PassContextScope> scope = PassContext::enter(std::move(context));
  if (!scope)
    return scope.takeError();
  Expected<Ref<IRModule>> result =
      pipeline.run(std::move(module), scope->getContext());
  Error exitError = scope->exit();
  if (!result)
    return joinErrors(result.takeError(), std::move(exitError));
  if (exitError)
    return exitError;
  return result;
}

/// The RemarkStreamer the --pass-remarks flags ask for (null when none
/// does): printed through \p print (located through \p sourceMgr), and
/// written to the --pass-remarks-output file, opened into \p file (the
/// caller keeps it once the pipeline ran).
static Expected<std::shared_ptr<RemarkStreamer>> createRemarkStreamer(
    const NNIROptConfig &config, const SourceMgr &sourceMgr, raw_ostream &errs,
    std::function<void(SMLoc, const std::string &)> print,
    std::unique_ptr<ToolOutputFile> &file) {
  if (config.passRemarks.empty() && config.passRemarksMissed.empty() &&
      config.passRemarksAnalysis.empty() && config.passRemarksOutput.empty())
    return nullptr;
  if (!config.passRemarksOutput.empty()) {
    std::error_code ec;
    file = std::make_unique<ToolOutputFile>(config.passRemarksOutput, ec,
                                            sys::fs::OF_TextWithCRLF);
    if (ec)
      return makeError("cannot open remarks file '" + config.passRemarksOutput +
                       "': " + ec.message());
  }
  RemarkStreamerOptions options;
  options.passed = config.passRemarks;
  options.missed = config.passRemarksMissed;
  options.analysis = config.passRemarksAnalysis;
  options.outputFilter = config.passRemarksFilter;
  options.print = std::move(print);
  Expected<std::unique_ptr<RemarkStreamer>> streamer = RemarkStreamer::create(
      options, sourceMgr, errs, file ? &file->os() : nullptr);
  if (!streamer)
    return streamer.takeError();
  return std::shared_ptr<RemarkStreamer>(std::move(*streamer));
}

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

void nnir::printNNIRVersion(raw_ostream &os) {
  os << "nnir version " << NNIR_VERSION_STRING << "\n";
  os << "  LLVM version " << LLVM_VERSION_STRING << "\n";
  // A build or an environment that lost jemalloc shows here.
  os << "  allocator: " << describeAllocator() << "\n";
}

/// Prints \p module, parses the text again and compares. The reparsed text
/// lives in its own SourceMgr, so a parse error points into the printed text.
/// It is read with the input's parser options: a module that the nesting
/// limit admitted reads back under the same limit.
static bool verifyRoundtrip(const IRModule &module, const PrintOptions &options,
                            const ParserOptions &parserOptions,
                            raw_ostream &errs) {
  std::string text = toString(module, options);
  SourceMgr printedMgr;
  Expected<Ref<IRModule>> reparsed =
      parseModule(text, printedMgr, "<printed module>", parserOptions);
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

/// The LLVM IR of the kernel of every primitive function in \p module (in
/// definition order, then source order inside each function), each headed
/// by a comment saying where the function is; compiled for \p engine.
static Expected<std::string> emitKernels(Ref<IRModule> module,
                                         const SourceMgr &sourceMgr,
                                         bool optimized,
                                         ExecutionEngine &engine) {
  // Lowering reads the inferred types; the module's own primitive functions
  // are emitted, unfused.
  ExecutorOptions options;
  options.fuseOptLevel = std::nullopt;
  Expected<std::unique_ptr<Executor>> executor =
      Executor::create(std::move(module), engine, options);
  if (!executor)
    return executor.takeError();
  std::string out;
  raw_string_ostream os(out);
  unsigned count = 0;
  for (const Executor::Primitive &primitive :
       (*executor)->getPrimitiveFunctions()) {
    auto [line, column] =
        getLineAndColumn(sourceMgr, primitive.function->getLoc());
    os << "; primitive function " << count++ << " in @" << primitive.global;
    if (line)
      os << " at " << line << ":" << column;
    os << "\n";
    Expected<std::string> ir =
        (*executor)->getKernelIR(*primitive.function, optimized);
    if (!ir)
      return ir.takeError();
    os << *ir << "\n";
  }
  return out;
}

/// Opens the output file of \p config, lets \p write fill it and keeps it
/// (by a rename: the output may be the input, whose metadata tensors are
/// read from it as they are printed). Returns the exit code.
static int writeOutput(const NNIROptConfig &config, raw_ostream &errs,
                       function_ref<void(raw_ostream &)> write) {
  std::error_code ec;
  OutputFile output(config.outputFilename, ec, sys::fs::OF_TextWithCRLF);
  if (ec) {
    WithColor::error(errs, kNNIROptToolName)
        << "cannot open output file '" << config.outputFilename
        << "': " << ec.message() << "\n";
    return 1;
  }
  // A module with its weights in #[metadata] prints 100+ MB: write it in
  // 256 KiB pieces, not the file's preferred 4-8 KiB (a system call each;
  // larger pieces gain little and raise the peak resident set).
  output.os().SetBufferSize(1 << 18);
  write(output.os());
  output.os().flush();
  if (std::error_code writeError = output.os().error()) {
    WithColor::error(errs, kNNIROptToolName)
        << "cannot write '" << config.outputFilename
        << "': " << writeError.message() << "\n";
    output.os().clear_error();
    return 1;
  }
  if (std::error_code keepError = output.keep()) {
    WithColor::error(errs, kNNIROptToolName)
        << "cannot write '" << config.outputFilename
        << "': " << keepError.message() << "\n";
    return 1;
  }
  return 0;
}

/// runNNIROpt's work, on a stack sized for the nesting limit.
/// Writes the lists --list-passes, --list-pass-configs and --list-ops ask
/// for, a blank line between two.
static int writeLists(const NNIROptConfig &config, raw_ostream &errs) {
  return writeOutput(config, errs, [&](raw_ostream &os) {
    bool first = true;
    auto separate = [&] {
      if (!first)
        os << "\n";
      first = false;
    };
    if (config.listPasses) {
      separate();
      printPassList(os);
    }
    if (config.listPassConfigs) {
      separate();
      printPassConfigList(os);
    }
    if (config.listOps) {
      separate();
      printOpList(os);
    }
  });
}

/// Expands `default<On>` in \p config's pipeline (taking its opt level,
/// which must agree with -O) and parses it; null without --passes.
static Expected<Ref<Pass>> resolvePipeline(NNIROptConfig &config,
                                           SourceMgr &sourceMgr,
                                           PassSpellings &spellings) {
  if (config.passPipeline) {
    Expected<ExpandedPipeline> expanded =
        expandDefaultPipelines(*config.passPipeline);
    if (!expanded)
      return expanded.takeError();
    if (expanded->optLevel) {
      std::string flag =
          "--passes=default<O" + std::to_string(*expanded->optLevel) + ">";
      if (!config.optLevelFlag.empty() &&
          config.optLevel != static_cast<int>(*expanded->optLevel))
        return makeError("conflicting opt levels: " + flag + " and " +
                         config.optLevelFlag);
      config.optLevel = *expanded->optLevel;
    }
    config.passPipeline = expanded->text;
  }
  if (!config.passPipeline)
    return Ref<Pass>();
  Expected<Ref<Pass>> parsed =
      parsePassPipeline(*config.passPipeline, sourceMgr, "<pass pipeline>",
                        &spellings);
  if (!parsed)
    return parsed.takeError();
  return asTopLevelSequential(std::move(*parsed));
}

/// Cuts buffer \p bufferId of \p sourceMgr at the lines `// -----` into
/// buffers of their own (the same name), each preceded by as many line
/// breaks as the input has lines before it, so that diagnostics give the
/// input's line numbers. Returns the new buffers' ids, or \p bufferId alone
/// when there is no such line.
static std::vector<unsigned> splitInputBuffer(SourceMgr &sourceMgr,
                                              unsigned bufferId) {
  const MemoryBuffer *input = sourceMgr.getMemoryBuffer(bufferId);
  StringRef text = input->getBuffer();
  SmallVector<StringRef, 8> parts;
  size_t partStart = 0, lineStart = 0;
  while (lineStart < text.size()) {
    size_t lineEnd = text.find('\n', lineStart);
    if (lineEnd == StringRef::npos)
      lineEnd = text.size();
    if (text.slice(lineStart, lineEnd).rtrim("\r").trim() == "// -----") {
      parts.push_back(text.slice(partStart, lineStart));
      partStart = std::min(lineEnd + 1, text.size());
    }
    lineStart = lineEnd + 1;
  }
  if (parts.empty())
    return {bufferId};
  parts.push_back(text.drop_front(partStart));
  std::vector<unsigned> ids;
  size_t linesBefore = 0;
  for (StringRef part : parts) {
    std::string padded(linesBefore, '\n');
    padded += part;
    ids.push_back(sourceMgr.AddNewSourceBuffer(
        MemoryBuffer::getMemBufferCopy(padded, input->getBufferIdentifier()),
        SMLoc()));
    // The part's lines and the marker line after it.
    linesBefore += part.count('\n') + 1;
  }
  return ids;
}

namespace {
/// Where a run's diagnostics go: printed, or to the DiagnosticVerifier of
/// --verify-diagnostics.
struct DiagnosticSink {
  const SourceMgr &sourceMgr;
  raw_ostream &errs;
  DiagnosticVerifier *verifier = nullptr;

  /// Takes the errors in \p err; returns the exit code of a failed run.
  int fail(Error err) const {
    if (verifier)
      verifier->recordErrors(std::move(err));
    else
      printErrors(std::move(err), sourceMgr, kNNIROptToolName, errs);
    return 1;
  }
  void warn(SMLoc loc, const Twine &message) const {
    if (verifier)
      verifier->record(DiagnosticVerifier::Kind::Warning, loc, message);
    else
      printWarning(sourceMgr, loc, message, errs);
  }
  void remark(SMLoc loc, const std::string &message) const {
    if (verifier)
      verifier->record(DiagnosticVerifier::Kind::Remark, loc, message);
    else
      printRemark(sourceMgr, loc, message, errs);
  }
};
} // namespace

namespace {
/// The pipeline of a run, and what explains its failures.
struct PipelineRun {
  /// Null without --passes.
  const Pass *pipeline;
  /// How the pipeline text wrote each pass (for a local reproducer).
  const PassSpellings &spellings;
  /// The options as resolved (the pipeline text, the context's settings).
  const NNIROptConfig &resolved;
};
} // namespace

/// The reproducer of a failure in \p failing (null: unknown), for the run
/// of \p run.pipeline on \p input.
static Error writeFailureReproducer(const PipelineRun &run,
                                    const FailureTracker::Frame *failing,
                                    const IRModule &input) {
  const NNIROptConfig &config = run.resolved;
  ReproducerDirectives directives;
  directives.pipeline = config.passPipeline.value_or("");
  directives.optLevel = config.optLevel;
  directives.passConfigs = config.passConfigs;
  directives.disabledPasses = config.disabledPasses;
  directives.requiredPasses = config.requiredPasses;
  directives.passPlugins = config.passPlugins;
  const IRModule *module = &input;
  if (config.crashReproducerLocal && failing) {
    auto spelled = run.spellings.find(failing->info);
    directives.pipeline = spelled != run.spellings.end()
                              ? spelled->second
                              : failing->info->name;
    module = failing->input.get();
  }
  return writeReproducer(config.crashReproducer, *module, directives,
                         config.printOptions);
}

/// Runs the pipeline of \p run on \p module under \p context. When a pass
/// fails, or crashes (caught when a reproducer or the failed IR is asked
/// for), prints the module it was given (--print-ir-after-failure) and
/// writes the reproducer (--crash-reproducer). \p crashed tells a crash.
static Expected<Ref<IRModule>>
runPipelineExplained(const PipelineRun &run, Ref<IRModule> module,
                     Ref<PassContext> context, FailureTracker *tracker,
                     raw_ostream &errs, bool &crashed) {
  const NNIROptConfig &config = run.resolved;
  crashed = false;
  if (!tracker)
    return runPipeline(*run.pipeline, module, context);
  std::optional<Expected<Ref<IRModule>>> result;
  CrashRecoveryContext::Enable();
  CrashRecoveryContext recovery;
  // The stack trace, with the pass and function that crashed, is printed
  // before the run is abandoned.
  recovery.DumpStackAndCleanupOnFailure = true;
  if (!recovery.RunSafely(
          [&] { result.emplace(runPipeline(*run.pipeline, module, context)); }))
    crashed = true;
  if (!crashed && *result)
    return std::move(*result);
  const FailureTracker::Frame *failing = tracker->getFailingPass();
  std::string passName = failing ? failing->info->name : "";
  Error failure = crashed ? makeError("the pass pipeline crashed" +
                                      (failing ? " in pass '" + passName + "'"
                                               : std::string()))
                          : result->takeError();
  if (config.printIRAfterFailure && failing) {
    errs << "// -----// IR Dump After " << passName << " Failed //----- //\n";
    printModule(*failing->input, errs, config.printOptions);
    errs << "\n";
  }
  if (!config.crashReproducer.empty()) {
    if (Error err = writeFailureReproducer(run, failing, *module))
      return joinErrors(std::move(failure), std::move(err));
    // The note follows the failure's own message.
    return joinErrors(
        std::move(failure),
        makeError("a reproducer of the failure" +
                  (failing ? " in pass '" + passName + "'" : std::string()) +
                  " is in '" + config.crashReproducer +
                  "': nnir-opt --run-reproducer " + config.crashReproducer));
  }
  return failure;
}

/// Reads the module in buffer \p bufferId, runs the pipeline on it under
/// \p context and hands the text to \p write (which returns the exit
/// code). Problems go to \p sink; a crash caught in a pass sets \p crashed.
static int processModule(
    const NNIROptConfig &config, SourceMgr &sourceMgr, unsigned bufferId,
    const PipelineRun &run, Ref<PassContext> context, FailureTracker *tracker,
    const DiagnosticSink &sink, raw_ostream &errs, bool &crashed,
    function_ref<int(function_ref<void(raw_ostream &)>)> write) {
  const Pass *pipeline = run.pipeline;
  ModuleLoadOptions loadOptions;
  loadOptions.parserOptions = config.parserOptions;
  for (const auto &entry : config.inputShapes)
    loadOptions.inputShapes[entry.getKey()] = entry.getValue();
  loadOptions.getEngine = [&context] {
    return context->getResource<ExecutionEngine>();
  };
  Expected<Ref<IRModule>> module = loadModule(sourceMgr, bufferId, loadOptions);
  if (!module)
    return sink.fail(module.takeError());
  if (config.verify)
    if (Error err = verifyModule(**module))
      return sink.fail(std::move(err));

  if (pipeline) {
    Expected<Ref<IRModule>> result =
        runPipelineExplained(run, *module, context, tracker, errs, crashed);
    if (config.printStats && !context->getStatistics().empty()) {
      if (config.statsJSON)
        context->getStatistics().printJSON(errs);
      else
        context->getStatistics().print(errs);
    }
    if (!result)
      return sink.fail(result.takeError());
    releaseInParallel(std::exchange(*module, std::move(*result)), *context);
    // As opt and mlir-opt: what the passes produced is verified before it
    // is printed, so a broken module never reaches the output.
    if (config.verify)
      if (Error err = verifyPassResult(**module, "the pass pipeline"))
        return sink.fail(std::move(err));
  }
  if (config.verifyRoundtrip &&
      !verifyRoundtrip(**module, config.printOptions, config.parserOptions,
                       errs))
    return 1;

  if (config.emit != NNIROptConfig::EmitKind::NNIR) {
    Expected<std::shared_ptr<ExecutionEngine>> engine =
        context->getResource<ExecutionEngine>();
    if (!engine)
      return sink.fail(engine.takeError());
    Expected<std::string> text =
        emitKernels(*module, sourceMgr,
                    config.emit == NNIROptConfig::EmitKind::LLVMOptimized,
                    **engine);
    if (!text)
      return sink.fail(text.takeError());
    return write([&](raw_ostream &os) { os << *text; });
  }
  int status = write([&](raw_ostream &os) {
    printModule(**module, os, config.printOptions);
  });
  if (config.disableFree) {
    // One more reference, kept reachable for leak checkers.
    (*module)->Retain();
    BuryPointer(module->get());
  }
  return status;
}

static int runNNIROptParts(const NNIROptConfig &config, raw_ostream &errs) {
  // One SourceMgr holds the pipeline text and the input, so errors in
  // either are located.
  SourceMgr sourceMgr;
  auto fail = [&](Error err) {
    printErrors(std::move(err), sourceMgr, kNNIROptToolName, errs);
    return 1;
  };

  NNIROptConfig resolved = config;
  // A reproducer is read first: it names the pipeline and its options.
  std::optional<unsigned> inputId;
  if (config.runReproducer) {
    if (config.inputFilename == "-")
      return fail(makeError("--run-reproducer reads a file, not stdin"));
    Expected<unsigned> id = addInputFile(sourceMgr, config.inputFilename,
                                         &resolved.parserOptions.sharedBuffer);
    if (!id)
      return fail(id.takeError());
    inputId = *id;
    Expected<ReproducerDirectives> directives =
        readReproducerDirectives(sourceMgr, *id);
    if (!directives)
      return fail(directives.takeError());
    resolved.passPipeline = directives->pipeline;
    if (directives->optLevel)
      resolved.optLevel = *directives->optLevel;
    resolved.passConfigs = directives->passConfigs;
    resolved.disabledPasses = directives->disabledPasses;
    resolved.requiredPasses = directives->requiredPasses;
    resolved.passPlugins = directives->passPlugins;
  }

  for (const std::string &path : resolved.passPlugins) {
    Expected<PassPlugin> plugin = PassPlugin::load(path);
    if (!plugin)
      return fail(plugin.takeError());
    plugin->registerPasses(PassRegistry::instance());
  }
  if (config.listPasses || config.listPassConfigs || config.listOps)
    return writeLists(config, errs);

  // The pipeline and the context are checked before the input is read.
  PassSpellings spellings;
  Expected<Ref<Pass>> parsedPipeline =
      resolvePipeline(resolved, sourceMgr, spellings);
  if (!parsedPipeline)
    return fail(parsedPipeline.takeError());
  Ref<Pass> pipeline = std::move(*parsedPipeline);
  if (config.printPipeline)
    return writeOutput(config, errs, [&](raw_ostream &os) {
      os << resolved.passPipeline.value_or("") << "\n";
    });
  StringSet<> pipelineNames;
  if (pipeline)
    collectPassNames(*pipeline, pipelineNames);
  std::pair<ArrayRef<std::string>, StringRef> namingFlags[] = {
      {resolved.disabledPasses, "disable-pass"},
      {resolved.requiredPasses, "required-pass"},
      {config.printIRBefore, "print-ir-before"},
      {config.printIRAfter, "print-ir-after"}};
  for (auto [names, flag] : namingFlags)
    if (Error err = checkPassNames(names, flag, pipelineNames, sourceMgr))
      return fail(std::move(err));
  if (Expected<Ref<PassContext>> checked = createPassContext(resolved, errs);
      !checked)
    return fail(checked.takeError());

  // Where diagnostics go; the verifier joins once the input is read.
  std::optional<DiagnosticVerifier> verifier;
  DiagnosticSink sink{sourceMgr, errs};
  // Declared before the contexts, whose remark streamer writes into it.
  std::unique_ptr<ToolOutputFile> remarksFile;
  Expected<std::shared_ptr<RemarkStreamer>> remarks = createRemarkStreamer(
      config, sourceMgr, errs,
      [&sink](SMLoc loc, const std::string &message) {
        sink.remark(loc, message);
      },
      remarksFile);
  if (!remarks)
    return fail(remarks.takeError());

  // The input is shared with the metadata tensors that stay in it.
  Expected<unsigned> bufferId =
      inputId ? Expected<unsigned>(*inputId)
              : addInputFile(sourceMgr, config.inputFilename,
                             &resolved.parserOptions.sharedBuffer);
  if (!bufferId)
    return fail(bufferId.takeError());
  std::vector<unsigned> parts = config.splitInputFile
                                    ? splitInputBuffer(sourceMgr, *bufferId)
                                    : std::vector<unsigned>{*bufferId};
  if (config.verifyDiagnostics) {
    verifier.emplace(sourceMgr);
    for (unsigned part : parts)
      if (Error err = verifier->addExpectations(part))
        return fail(std::move(err));
    sink.verifier = &*verifier;
  }
  // The engine FoldConstant and --emit run kernels on, made when first
  // needed (a pipeline that runs no code never creates one) and shared by
  // the parts of a split input.
  std::shared_ptr<ExecutionEngine> engine;
  auto getEngine = [&]() -> Expected<std::shared_ptr<ExecutionEngine>> {
    if (!engine) {
      Expected<std::shared_ptr<ExecutionEngine>> made =
          createSharedEngine(config.engineOptions);
      if (!made)
        return made.takeError();
      engine = std::move(*made);
    }
    return engine;
  };

  // A single module is printed straight into the output, opened last so
  // that a failed run leaves no partial file; the parts of a split input
  // are collected and written together.
  std::string joined;
  raw_string_ostream joinedStream(joined);
  int status = 0;
  PipelineRun run{pipeline.get(), spellings, resolved};
  bool explainFailures =
      !config.crashReproducer.empty() || config.printIRAfterFailure;
  std::shared_ptr<ThreadPoolInterface> pool =
      explainFailures ? nullptr : createThreadPool(config);
  for (size_t i = 0, e = parts.size(); i != e; ++i) {
    // Each part runs under a context of its own (statistics, timing).
    std::shared_ptr<FailureTracker> tracker =
        explainFailures ? std::make_shared<FailureTracker>() : nullptr;
    Expected<Ref<PassContext>> context =
        createPassContext(resolved, errs, tracker);
    if (!context)
      return fail(context.takeError());
    (*context)->setResourceFactory<ExecutionEngine>(getEngine);
    (*context)->setThreadPool(pool);
    if (*remarks)
      (*context)->setRemarkSink(*remarks);
    // Passes that carry on past a problem (FoldConstant) warn, located.
    (*context)->setWarningHandler(
        [&sink](SMLoc loc, const Twine &message) { sink.warn(loc, message); });
    if (i)
      joinedStream << "// -----\n";
    bool crashed = false;
    int partStatus = processModule(
        resolved, sourceMgr, parts[i], run, *context, tracker.get(), sink,
        errs, crashed, [&](function_ref<void(raw_ostream &)> print) {
          if (!config.splitInputFile)
            return writeOutput(config, errs, print);
          print(joinedStream);
          return 0;
        });
    status = std::max(status, partStatus);
    // After a crash the process state is not to be trusted: the crashed
    // pass's frames were abandoned (their memory is never freed) and may
    // have left objects half-changed. Flush what was written and exit at
    // once, without destructors or exit handlers.
    if (crashed) {
      if (remarksFile) {
        remarksFile->keep();
        remarksFile->os().flush();
      }
      outs().flush();
      errs.flush();
      sys::Process::Exit(1, /*NoCleanup=*/true);
    }
  }
  // The remarks explain a failed run too: keep them either way.
  if (remarksFile)
    remarksFile->keep();
  if (verifier)
    status = verifier->verify(kNNIROptToolName, errs) ? 0 : 1;
  if (status == 0 && config.splitInputFile)
    return writeOutput(config, errs,
                       [&](raw_ostream &os) { os << joinedStream.str(); });
  return status;
}

/// runNNIROptParts with --time-trace's profiler around it (on this thread:
/// the profiler is per thread).
static int runNNIROptOnStack(const NNIROptConfig &config, raw_ostream &errs) {
  if (config.timeTraceFile.empty())
    return runNNIROptParts(config, errs);
  timeTraceProfilerInitialize(config.timeTraceGranularity, "nnir-opt");
  int status = runNNIROptParts(config, errs);
  if (Error err = timeTraceProfilerWrite(config.timeTraceFile, "-")) {
    printErrors(makeError("cannot write the time trace '" +
                          config.timeTraceFile +
                          "': " + toString(std::move(err))),
                SourceMgr(), kNNIROptToolName, errs);
    status = 1;
  }
  timeTraceProfilerCleanup();
  return status;
}

int nnir::runNNIROpt(const NNIROptConfig &config, raw_ostream &errs) {
  return runOnNestingStack(config.parserOptions.maxNestingDepth,
                           kNNIROptToolName, errs,
                           [&] { return runNNIROptOnStack(config, errs); });
}

int nnir::nnirOptMain(int argc, char **argv) {
  NNIROptConfig::registerCLOptions();
  cl::HideUnrelatedOptions(getNNIROptCategory());
  cl::SetVersionPrinter(printNNIRVersion);
  cl::ParseCommandLineOptions(
      argc, argv,
      "nnir-opt: parse, verify, transform and print nnir modules\n");
  Expected<NNIROptConfig> config = NNIROptConfig::createFromCLOptions();
  if (!config) {
    printErrors(config.takeError(), SourceMgr(), kNNIROptToolName, errs());
    return 1;
  }
  // The process exits when the run returns.
  config->disableFree = true;
  return runNNIROpt(*config, errs());
}
