//===- NNIRRunMain.cpp - The nnir-run driver ------------------------------===//
//
/// \file
/// Command-line options, input binding (.npy files or seeded random values,
/// checked against the entry function's parameter types), preparation
/// (InferType, then FuseOps when registered), evaluation, and output as
/// .npy files or NumPy-style text.
//
//===----------------------------------------------------------------------===//

#include "nnir/Tools/NNIRRunMain.h"

#include "EngineFlags.h"
#include "InputShapeOption.h"
#include "LLVMOptions.h"
#include "RangedOption.h"

#include "nnir/ExecutionEngine/ExecutionEngine.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Type.h"
#include "nnir/IR/Verifier.h"
#include "nnir/Pass/Instruments.h"
#include "nnir/Pass/Pass.h"
#include "nnir/Pass/PassContext.h"
#include "nnir/Runtime/NumPy.h"
#include "nnir/Support/Diagnostics.h"
#include "nnir/Tools/ModuleLoader.h"
#include "nnir/Tools/NumPyPrinter.h"
#include "nnir/Transforms/Executor.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

#include <chrono>
#include <random>

using namespace llvm;
using namespace nnir;

static constexpr StringLiteral kToolName = "nnir-run";

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

static std::string typeString(const nnir::Type *type) {
  return type ? type->str() : "<unknown type>";
}

/// A seeded random array of \p type.
static Expected<NDArray> randomArray(const TensorType &type,
                                     std::mt19937_64 &rng,
                                     ExecutionEngine &engine) {
  Expected<NDArray> array = engine.allocate(type.getDType(), type.getShape());
  if (!array)
    return array.takeError();
  DataType d = type.getDType();
  for (int64_t i = 0, n = array->getNumElements(); i < n; ++i) {
    uint64_t r = rng();
    if (d.isBool())
      array->setElementFromInt(i, r & 1);
    else if (d.isFloatingPoint())
      array->setElementFromDouble(i, (r >> 11) * 0x1.0p-53 * 2.0 - 1.0);
    else if (d.isInt())
      array->setElementFromInt(i, static_cast<int64_t>(r % 16) - 8);
    else
      array->setElementFromInt(i, static_cast<int64_t>(r % 16));
  }
  return array;
}

/// An `--input NAME=PATH` with NAME resolved against the parameters.
struct InputBinding {
  std::string name;
  std::string path;
};

/// Resolves `--input` text \p text against the entry's parameter names (an
/// ONNX model's graph input names), \p isName: the rightmost '=' whose left
/// side is a name, as it is or after one leading '%' (`%x=x.npy` binds x
/// unless a parameter is named `%x`), ends NAME and the rest is PATH. So
/// NAME may contain '=' and may start with '%'; the longest name wins (with
/// inputs `a` and `a=b`, `a=b=t.npy` binds `a=b`, and `a=./b=t.npy` binds
/// `a`). Nothing when no '=' splits off a name.
static std::optional<InputBinding>
resolveInput(StringRef text, function_ref<bool(StringRef)> isName) {
  for (size_t eq = text.rfind('='); eq != StringRef::npos && eq > 0;
       eq = text.rfind('=', eq)) {
    StringRef name = text.take_front(eq), path = text.drop_front(eq + 1);
    if (path.empty())
      continue;
    if (isName(name))
      return InputBinding{name.str(), path.str()};
    if (name.starts_with("%") && isName(name.drop_front()))
      return InputBinding{name.drop_front().str(), path.str()};
  }
  return std::nullopt;
}

/// The error for `--input` text \p text that names none of \p names, the
/// parameters of @\p entry.
static Error unknownInputError(StringRef text, StringRef entry,
                               ArrayRef<std::string> names) {
  std::string list;
  for (const std::string &name : names)
    list += (list.empty() ? "%" : ", %") + name;
  if (list.empty())
    list = "(none)";
  StringRef name = text.split('=').first;
  if (text.count('=') > 1)
    return makeError("unknown input in '" + text +
                     "': no text before an '=' in it is a parameter name; @" +
                     entry + " has the parameters " + list);
  return makeError("unknown input '" + name.ltrim('%') + "': @" + entry +
                   " has the parameters " + list);
}

/// \p arg as one shell word: as it is when it has only characters no shell
/// treats specially, else in single quotes.
static std::string shellWord(StringRef arg) {
  bool plain = !arg.empty() && llvm::all_of(arg, [](char c) {
    return isAlnum(c) || StringRef("%+,-./:=@_").contains(c);
  });
  if (plain)
    return arg.str();
  std::string quoted = "'";
  for (char c : arg)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

//===----------------------------------------------------------------------===//
// Outputs
//===----------------------------------------------------------------------===//

/// Checks that \p fn (the entry, named \p name, with inferred types) returns
/// tensors or nested tuples of them, which is what nnir-run prints and
/// writes: a function (a closure) anywhere in the result is an error located
/// at the expression that makes it, as far as the body shows it (the
/// result's tuple literals are followed, let bodies skipped; a global
/// function, whose node is located at its definition, is reported at the
/// expression around it).
static Error checkTensorResult(const Function &fn, StringRef name) {
  struct Item {
    const nnir::Type *type;
    const Expr *expr; // Null where the body does not show the field.
    SMLoc loc;        // Where the field is made, as far as known.
    std::string path; // "", "field 1", "field 1.0".
  };
  auto locate = [](const Expr *e, SMLoc outer) {
    return e && !isa<GlobalVar>(e) && e->getLoc().isValid() ? e->getLoc()
                                                             : outer;
  };
  // Hand-written rather than a PostOrderWalker: it walks the result *type*
  // (tuple types), following the body's tuple literals alongside where they
  // show a field, not the graph.
  const Expr *body = fn.getBody().get();
  SmallVector<Item, 4> stack{
      {body->getCheckedType().get(), body, locate(body, fn.getLoc()), ""}};
  while (!stack.empty()) {
    Item item = stack.pop_back_val();
    while (const auto *let = dyn_cast_or_null<Let>(item.expr)) {
      item.expr = let->getBody().get();
      item.loc = locate(item.expr, item.loc);
    }
    if (const auto *tuple = dyn_cast_or_null<TupleType>(item.type)) {
      const auto *literal = dyn_cast_or_null<Tuple>(item.expr);
      for (size_t i = tuple->getFields().size(); i-- > 0;) {
        const Expr *field = literal ? literal->getFields()[i].get() : nullptr;
        stack.push_back({tuple->getFields()[i].get(), field,
                         locate(field, item.loc),
                         (item.path.empty() ? "field " : item.path + ".") +
                             std::to_string(i)});
      }
      continue;
    }
    if (!isa_and_nonnull<FuncType>(item.type))
      continue;
    return makeError(
        item.loc,
        "@" + name + " returns a function" +
            (item.path.empty() ? "" : " in " + item.path + " of its result") +
            " (" + item.type->str() +
            "); nnir-run prints and writes only tensors and "
            "tuples of tensors");
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

/// Reads the input (an ONNX model may need the values of its inputs at
/// import time, a shape given as a graph input, the length of a sequence:
/// the importer asks for them with the graph input names, against which the
/// --input names resolve, and kinds, which say how to read a file; what is
/// read then lands in \p inputValues and is not read again) and verifies
/// it.
static Expected<Ref<IRModule>>
loadInput(const NNIRRunConfig &config, SourceMgr &sourceMgr,
          std::shared_ptr<ExecutionEngine> engine,
          StringMap<RuntimeValue> &inputValues) {
  Expected<unsigned> bufferId = addInputFile(sourceMgr, config.inputFilename);
  if (!bufferId)
    return bufferId.takeError();
  ModuleLoadOptions loadOptions;
  loadOptions.parserOptions = config.parserOptions;
  for (const auto &entry : config.inputShapes)
    loadOptions.inputShapes[entry.getKey()] = entry.getValue();
  loadOptions.getInputValues = [&](ArrayRef<ONNXGraphInput> graphInputs)
      -> Expected<StringMap<RuntimeValue>> {
    std::vector<std::string> names;
    StringMap<ONNXValueKind> kinds;
    for (const ONNXGraphInput &input : graphInputs) {
      names.push_back(input.name);
      kinds[input.name] = input.kind;
    }
    auto isName = [&](StringRef name) { return kinds.count(name) != 0; };
    for (const std::string &text : config.inputs) {
      std::optional<InputBinding> input = resolveInput(text, isName);
      if (!input)
        return unknownInputError(text, config.entry, names);
      if (inputValues.count(input->name))
        return makeError("input '" + input->name + "' is given twice");
      Expected<RuntimeValue> value =
          loadInputValue(input->path, kinds.lookup(input->name),
                         config.engineOptions.maxTensorBytes);
      if (!value)
        return makeError("input '" + input->name +
                         "': " + toString(value.takeError()));
      inputValues.try_emplace(input->name, std::move(*value));
    }
    return inputValues;
  };
  loadOptions.getEngine = [engine] { return engine; };
  Expected<Ref<IRModule>> module = loadModule(sourceMgr, *bufferId, loadOptions);
  if (!module)
    return module.takeError();
  if (Error err = verifyModule(**module))
    return err;
  return module;
}

/// The type of \p value (a tensor or nested tuples of tensors).
static Ref<nnir::Type> typeOfValue(const RuntimeValue &value) {
  if (value.isTensor())
    return TensorType::get(value.getTensor().getShape(),
                           value.getTensor().getDType());
  SmallVector<Ref<nnir::Type>, 4> fields;
  for (const RuntimeValue &field : value.getFields())
    fields.push_back(typeOfValue(field));
  return TupleType::get(fields);
}

/// The value of parameter \p param: the tensor file \p path names (read at
/// import time already when it is in \p inputValues, as an ONNX sequence's
/// or optional's tuple is), or seeded random values when \p path is null.
static Expected<RuntimeValue>
bindParameter(const Var &param, const std::string *path, std::mt19937_64 &rng,
              const NNIRRunConfig &config, StringMap<RuntimeValue> &inputValues,
              ExecutionEngine &engine) {
  const nnir::Type *type = param.getCheckedType()
                               ? param.getCheckedType().get()
                               : param.getTypeAnnotation().get();
  const auto *tensorType = dyn_cast_or_null<TensorType>(type);
  StringRef name = param.getNameHint();
  if (!path) {
    if (!config.randomSeed)
      return makeError(param.getLoc(),
                       "missing input for parameter '%" + name + "' of type " +
                           typeString(type) + " (pass --input " +
                           shellWord(name.str() + "=FILE.npy") +
                           " or --random-inputs)");
    if (!tensorType || tensorType->isDynamic())
      return makeError(param.getLoc(),
                       "cannot make random inputs for parameter '%" + name +
                           "' of type " + typeString(type) +
                           (tensorType ? " (its shape is dynamic: pass --input " +
                                             shellWord(name.str() + "=FILE.npy") +
                                             ")"
                                       : ""));
    Expected<NDArray> array = randomArray(*tensorType, rng, engine);
    if (!array)
      return array.takeError();
    return RuntimeValue::tensor(std::move(*array));
  }
  auto loaded = inputValues.find(name);
  if (!tensorType && loaded == inputValues.end())
    return makeError(param.getLoc(), "parameter '%" + name + "' of type " +
                                         typeString(type) +
                                         " cannot be read from a tensor file");
  if (loaded == inputValues.end()) {
    Expected<NDArray> array =
        loadInputTensor(*path, config.engineOptions.maxTensorBytes);
    if (!array)
      return makeError("input '" + name + "': " + toString(array.takeError()));
    loaded =
        inputValues.try_emplace(name, RuntimeValue::tensor(*array)).first;
  }
  // A `?` extent takes the file's (the executor specialises the function).
  Ref<nnir::Type> got = typeOfValue(loaded->second);
  if (!type || !typesCompatible(type, got.get()))
    return makeError(param.getLoc(), "input '" + *path + "' for parameter '%" +
                                         name + "' has type " + got->str() +
                                         ", expected " + typeString(type));
  return loaded->second;
}

/// The arguments of \p entry: `--input` files by parameter name, random
/// values for the others with `--random-inputs`.
static Expected<std::vector<RuntimeValue>>
bindInputs(const NNIRRunConfig &config, const Function &entry,
           StringMap<RuntimeValue> &inputValues, ExecutionEngine &engine) {
  std::vector<std::string> paramNames;
  for (const Ref<Var> &p : entry.getParams())
    paramNames.push_back(p->getNameHint().str());
  auto isParamName = [&](StringRef name) {
    return is_contained(paramNames, name);
  };
  StringMap<std::string> paths;
  for (const std::string &text : config.inputs) {
    std::optional<InputBinding> input = resolveInput(text, isParamName);
    if (!input)
      return unknownInputError(text, config.entry, paramNames);
    if (!paths.try_emplace(input->name, input->path).second)
      return makeError("input '" + input->name + "' is given twice");
  }
  std::mt19937_64 rng(config.randomSeed.value_or(0));
  std::vector<RuntimeValue> args;
  for (const Ref<Var> &param : entry.getParams()) {
    auto it = paths.find(param->getNameHint());
    Expected<RuntimeValue> arg =
        bindParameter(*param, it == paths.end() ? nullptr : &it->second, rng,
                      config, inputValues, engine);
    if (!arg)
      return arg.takeError();
    args.push_back(std::move(*arg));
  }
  return args;
}

/// The tensors of \p result with their names: a tensor is `output_0`; the
/// fields of a tuple are `output_<i>`, and the fields of a tuple within it
/// (an ONNX sequence or optional) `output_<i>_<j>`, and so on down.
static std::vector<std::pair<std::string, NDArray>>
nameOutputs(const RuntimeValue &result) {
  std::vector<std::pair<std::string, NDArray>> outputs;
  if (result.isTensor()) {
    outputs.emplace_back("output_0", result.getTensor());
    return outputs;
  }
  // Fields pushed in reverse, so they pop in order.
  SmallVector<std::pair<std::string, const RuntimeValue *>, 8> stack;
  auto pushFields = [&](const RuntimeValue &tuple, const std::string &name) {
    for (size_t i = tuple.getFields().size(); i-- > 0;)
      stack.emplace_back(name + "_" + std::to_string(i), &tuple.getFields()[i]);
  };
  pushFields(result, "output");
  while (!stack.empty()) {
    auto [name, value] = stack.pop_back_val();
    if (value->isTensor())
      outputs.emplace_back(name, value->getTensor());
    else
      pushFields(*value, name);
  }
  return outputs;
}

/// Writes `--output-dir` files and prints `--print` text of \p result.
static Error writeOutputs(const NNIRRunConfig &config,
                          const RuntimeValue &result, raw_ostream &out) {
  std::vector<std::pair<std::string, NDArray>> outputs = nameOutputs(result);
  if (!config.outputDir.empty()) {
    if (std::error_code ec = sys::fs::create_directories(config.outputDir))
      return makeError("cannot create '" + config.outputDir +
                       "': " + ec.message());
    for (const auto &[name, array] : outputs) {
      SmallString<256> path(config.outputDir);
      sys::path::append(path, name + ".npy");
      if (Error err = saveNpyFile(path, array))
        return err;
    }
  }
  if (config.print) {
    for (const auto &[name, array] : outputs) {
      Ref<TensorType> type =
          TensorType::get(array.getShape(), array.getDType());
      out << name << ": " << type->str() << "\n";
      printArrayLikeNumPy(array, out);
      out << "\n";
    }
  }
  out.flush();
  return Error::success();
}

using Clock = std::chrono::steady_clock;

static double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

/// Calls \p entry through \p executor \p repeat times as a pass
/// ("Evaluate") that leaves the module alone, with the engine's compile and
/// run time recorded under it; sets \p totalMs and \p runMs (the median
/// call's, the kernels' run time).
static Expected<RuntimeValue> evaluateEntry(Executor &executor,
                                            StringRef entry,
                                            ArrayRef<RuntimeValue> args,
                                            unsigned repeat, double &totalMs,
                                            double &runMs) {
  const EngineStats &stats = executor.getEngine().getStats();
  std::optional<RuntimeValue> result;
  Ref<Pass> evaluate = createModulePass(
      [&](Ref<IRModule> m, PassContext &) -> Expected<Ref<IRModule>> {
        Clock::time_point runStart = Clock::now();
        std::vector<double> runs;
        Expected<RuntimeValue> value = RuntimeValue();
        for (unsigned i = 0; i < std::max(repeat, 1u) && value; ++i) {
          uint64_t before = stats.runNanos;
          value = executor.call(entry, args);
          runs.push_back((stats.runNanos - before) / 1e6);
        }
        totalMs = msSince(runStart);
        std::nth_element(runs.begin(), runs.begin() + runs.size() / 2,
                         runs.end());
        runMs = runs[runs.size() / 2];
        addTimingToCurrentPass(
            formatv("compile kernels ({0} compiled, {1} memory cache hits, "
                    "{2} disk cache hits)",
                    stats.kernelsCompiled.load(), stats.memoryHits.load(),
                    stats.diskHits.load())
                .str(),
            stats.compileNanos / 1e3);
        addTimingToCurrentPass(
            formatv("run kernels ({0} runs)", stats.kernelRuns.load()).str(),
            stats.runNanos / 1e3);
        if (!value)
          return value.takeError();
        result = std::move(*value);
        return m;
      },
      PassInfo("Evaluate", /*optLevel=*/0));
  Ref<IRModule> module(const_cast<IRModule *>(&executor.getModule()));
  if (Expected<Ref<IRModule>> done = evaluate->run(module); !done)
    return done.takeError();
  return std::move(*result);
}

/// `--time`: the stages' times and the cache figures; \p runMs is the
/// entry's kernel time (the median call's).
static void printTimes(const EngineStats &stats, double prepareMs,
                       double runMs, double totalMs, raw_ostream &errs) {
  errs << formatv("nnir-run: prepare {0:f3} ms, compile {1:f3} ms, run "
                  "{2:f3} ms (kernels), total {3:f3} ms\n",
                  prepareMs, stats.compileNanos / 1e6, runMs, totalMs);
  errs << formatv("nnir-run: {0} kernels compiled, {1} memory cache hits, "
                  "{2} disk cache hits, {3} kernel runs\n",
                  stats.kernelsCompiled.load(), stats.memoryHits.load(),
                  stats.diskHits.load(), stats.kernelRuns.load());
}

/// runNNIRRun's work, on a stack sized for the nesting limit.
static int runNNIRRunOnStack(const NNIRRunConfig &config, raw_ostream &out,
                             raw_ostream &errs) {
  SourceMgr sourceMgr;
  auto fail = [&](Error err) {
    printErrors(std::move(err), sourceMgr, kToolName, errs);
    return 1;
  };

  // The engine of this run: the import's evaluations and the run share it.
  EngineOptions engineOptions = config.engineOptions;
  engineOptions.profile |= config.profile;
  Expected<std::shared_ptr<ExecutionEngine>> engine =
      createSharedEngine(engineOptions);
  if (!engine)
    return fail(engine.takeError());
  StringMap<RuntimeValue> inputValues;
  Expected<Ref<IRModule>> parsed =
      loadInput(config, sourceMgr, *engine, inputValues);
  if (!parsed)
    return fail(parsed.takeError());

  // Every stage runs as a pass in one context, so --time-passes shows the
  // preparation and the evaluation, with the engine's work nested in it.
  Ref<PassContext> context = PassContext::create();
  if (config.timePasses != NNIRRunConfig::TimingReport::None)
    context->setInstruments({PassTimingInstrument::create(
        errs, config.timePasses == NNIRRunConfig::TimingReport::TVM
                  ? PassTimingInstrument::Display::TVM
                  : PassTimingInstrument::Display::Tree)});
  context->setResource(*engine);
  context->setOptLevel(config.optLevel);
  Expected<PassContextScope> scope = PassContext::enter(context);
  if (!scope)
    return fail(scope.takeError());

  // Prepare: InferType, the optimisations for inference (from -O1), FuseOps,
  // InferType.
  Clock::time_point prepareStart = Clock::now();
  ExecutorOptions executorOptions;
  executorOptions.optimize = config.optLevel > 0;
  Expected<std::unique_ptr<Executor>> executor =
      Executor::create(*parsed, **engine, executorOptions, context.get());
  if (!executor)
    return fail(executor.takeError());
  double prepareMs = msSince(prepareStart);

  const Function *entry = (*executor)->getModule().lookup(config.entry);
  if (!entry)
    return fail(makeError("no function @" + config.entry + " in '" +
                          config.inputFilename + "'"));
  if (Error err = checkTensorResult(*entry, config.entry))
    return fail(std::move(err));
  Expected<std::vector<RuntimeValue>> args =
      bindInputs(config, *entry, inputValues, **engine);
  if (!args)
    return fail(args.takeError());

  // The profile covers the entry's calls only.
  if (KernelProfile *profile = (*engine)->getProfile())
    profile->clear();
  double totalMs = 0, runMs = 0;
  Expected<RuntimeValue> result = evaluateEntry(
      **executor, config.entry, *args, config.repeat, totalMs, runMs);
  if (!result)
    return fail(result.takeError());
  if (Error err = writeOutputs(config, *result, out))
    return fail(std::move(err));
  if (config.time)
    printTimes((*engine)->getStats(), prepareMs, runMs, totalMs, errs);
  if (KernelProfile *profile = (*engine)->getProfile())
    profile->print(errs);
  if (config.stats)
    (*engine)->getStats().print(errs);
  // Leaving the context writes the --time-passes report.
  if (Error err = scope->exit())
    return fail(std::move(err));
  return 0;
}

int nnir::runNNIRRun(const NNIRRunConfig &config, raw_ostream &out,
                     raw_ostream &errs) {
  return runOnNestingStack(
      config.parserOptions.maxNestingDepth, kToolName, errs,
      [&] { return runNNIRRunOnStack(config, out, errs); });
}

int nnir::nnirRunMain(int argc, char **argv) {
  // nnir-run's --stats and --time-passes are its own; LLVM's become
  // --llvm-stats and --llvm-time-passes (LLVMOptions.h).
  renameLLVMOptions({"stats", "time-passes"});
  static cl::OptionCategory category("nnir-run options");
  cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<input file>"),
                                     cl::init("-"), cl::cat(category));
  cl::opt<std::string> entry("entry", cl::desc("The function to run"),
                             cl::init("main"), cl::cat(category));
  cl::list<std::string> inputs(
      "input",
      cl::desc("Bind parameter NAME to a .npy file or a TensorProto (.pb; "
               "an ONNX sequence or optional input: a SequenceProto or "
               "OptionalProto): NAME=PATH (NAME may contain '='; a leading "
               "'%' is optional)"),
      cl::value_desc("NAME=PATH"), cl::cat(category));
  InputShapeOption inputShapes(category);
  RangedOpt<unsigned long long> randomInputs(
      "random-inputs", cl::ValueOptional,
      cl::desc("Seeded random values for parameters without --input "
               "(default seed 0)"),
      cl::value_desc("SEED"), cl::cat(category),
      valueRange(IntegerRange<unsigned long long>::all()));
  cl::opt<std::string> outputDir(
      "output-dir",
      cl::desc("Write each output as DIR/output_<i>.npy (the fields of a "
               "tuple within the result, an ONNX sequence's elements, as "
               "DIR/output_<i>_<j>.npy)"),
      cl::value_desc("DIR"), cl::cat(category));
  cl::opt<bool> print("print", cl::desc("Print the outputs as NumPy does"),
                      cl::cat(category));
  cl::opt<bool> time("time",
                     cl::desc("Print compile time, run time and cache figures"),
                     cl::cat(category));
  cl::opt<bool> stats("stats",
                      cl::desc("Print the execution engine's "
                               "statistics"),
                      cl::cat(category));
  cl::opt<NNIRRunConfig::TimingReport> timePasses(
      "time-passes",
      cl::desc("Print the wall time of every stage (the passes that prepare "
               "the module, then Evaluate with the kernels' compile and run "
               "time nested), at the end"),
      cl::ValueOptional, cl::init(NNIRRunConfig::TimingReport::None),
      cl::values(clEnumValN(NNIRRunConfig::TimingReport::Tree, "",
                            "a tree like MLIR's -mlir-timing"),
                 clEnumValN(NNIRRunConfig::TimingReport::TVM, "tvm",
                            "TVM's PassTimingInstrument.render() format")),
      cl::cat(category));
  cl::opt<bool> profile(
      "profile",
      cl::desc("Print each kernel's time, calls and operation rate (the "
               "entry's calls), most time first"),
      cl::cat(category));
  RangedOpt<unsigned> repeat(
      "repeat",
      cl::desc("Call the entry N times (--time: the median call's kernel "
               "time)"),
      cl::init(1), cl::value_desc("N"), cl::cat(category),
      valueRange(1u, 1000000u));
  KernelCacheDirOption cacheDir(category);
  JITListenersOption jitListeners(category);
  cl::opt<bool> noMemoryCache(
      "no-kernel-cache",
      cl::desc("Compile every primitive function (no in-memory cache)"),
      cl::cat(category));
  RangedOpt<unsigned long long> maxTensorBytes(
      "max-tensor-bytes",
      cl::desc("Refuse to allocate any tensor larger than this"),
      cl::init(UINT64_MAX), cl::cat(category),
      valueRange(IntegerRange<unsigned long long>::all()));
  RangedOpt<int> kernelOptLevel(
      "kernel-opt-level",
      cl::desc("LLVM optimisation level of kernels (-1, the default: by "
               "work)"),
      cl::init(-1), cl::cat(category), valueRange(-1, 3));
  RangedOpt<unsigned> optLevel(
      "O", cl::Prefix,
      cl::desc("Opt level of the preparation (default 3): from 1, the default "
               "pipeline runs before fusing (batch norms simplified; from 2 "
               "constants folded once and dense weights packed; at 3 scales "
               "folded into the weights); at 0 nothing is fused"),
      cl::init(3), cl::value_desc("N"), cl::cat(category), valueRange(0u, 3u));
  cl::opt<bool> noParallel("no-parallel",
                           cl::desc("Run every kernel on one thread"),
                           cl::cat(category));
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv, "nnir-run: execute a function of an nnir module\n");

  NNIRRunConfig config;
  config.inputFilename = inputFilename;
  config.entry = entry;
  // NAME=PATH is split when the names are known (resolveInput).
  for (const std::string &binding : inputs) {
    StringRef text = binding;
    if (text.size() < 3 || !text.drop_front().drop_back().contains('=')) {
      WithColor::error(errs(), kToolName)
          << "expected --input NAME=PATH, got '" << binding << "'\n";
      return 1;
    }
    config.inputs.push_back(binding);
  }
  for (const std::string &spec : inputShapes) {
    if (Error err = parseInputShape(spec, config.inputShapes)) {
      WithColor::error(errs(), kToolName) << toString(std::move(err)) << "\n";
      return 1;
    }
  }
  if (randomInputs.getNumOccurrences())
    config.randomSeed = randomInputs;
  config.outputDir = outputDir;
  config.print = print;
  config.time = time;
  config.stats = stats;
  config.profile = profile;
  config.repeat = repeat;
  config.timePasses = timePasses;
  config.optLevel = optLevel;
  config.engineOptions.cacheDir = getKernelCacheDir(cacheDir);
  config.engineOptions.listeners = jitListeners.get();
  config.engineOptions.memoryCache = !noMemoryCache;
  config.engineOptions.maxTensorBytes = maxTensorBytes;
  config.engineOptions.optLevel = kernelOptLevel;
  if (noParallel)
    config.engineOptions.codegen.parallelWork = 0;
  return runNNIRRun(config, outs(), errs());
}
