//===- TestPasses.cpp - Small passes that exercise the pass manager -------===//
//
/// \file
/// The `test-*` passes that nnir-opt registers when the tests are built
/// (mlir-opt does the same with its test passes). Each one does one small,
/// visible thing, so that the lit tests under test/Pass can drive every
/// feature of the pass infrastructure through nnir-opt: renaming (a function
/// pass with an option), adding and removing functions (module passes),
/// failing with a located error, recording a statistic, mutating the input in
/// place (for testing.immutable_module), breaking the IR (for --verify-each),
/// preserving types (for the required-InferType bookkeeping), running a
/// pipeline inside a pass (for nested instrumentation) and emitting remarks
/// of every kind (for the --pass-remarks flags).
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/ExprMutator.h"
#include "nnir/IR/ExprVisitor.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Op.h"
#include "nnir/Pass/Pass.h"
#include "nnir/Pass/PassRegistry.h"
#include "nnir/Pass/Remark.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/Support/ErrorHandling.h"

#include <csignal>

using namespace llvm;
using namespace nnir;

namespace nnir::test {
void registerTestPasses();
} // namespace nnir::test

/// The name under which \p func is defined in \p module ("" if it is not).
static StringRef getFunctionName(const IRModule &module, const Function *func) {
  for (const IRModule::Entry &entry : module.getFunctions())
    if (entry.func.get() == func)
      return entry.var->getName();
  return "";
}

//===----------------------------------------------------------------------===//
// test-rename-vars
//===----------------------------------------------------------------------===//

namespace {
/// Appends a suffix to the name hint of every variable, binders and uses
/// alike (the mutator maps a binder and its uses through the same memo).
struct RenameVars : ExprMutator {
  explicit RenameVars(StringRef suffix) : suffix(suffix) {}
  Ref<Expr> visitVar(Var *var) override {
    ++numRenamed;
    return Var::get((var->getNameHint() + suffix).str(),
                    var->getTypeAnnotation(), var->getLoc(),
                    var->getCheckedType());
  }
  StringRef suffix;
  int64_t numRenamed = 0;
};

/// Counts the distinct call nodes of an expression.
struct CountCalls : ExprVisitor {
  void visitCall(Call *call) override {
    ++numCalls;
    ExprVisitor::visitCall(call);
  }
  int64_t numCalls = 0;
};
} // namespace

static Expected<Ref<Pass>> createRenameVars(const PassOptions &options) {
  std::string suffix = options.getString("suffix");
  PassInfo info("test-rename-vars", /*optLevel=*/0);
  return createFunctionPass(
      [suffix](Ref<Function> func, const IRModule &,
               PassContext &ctx) -> Expected<Ref<Function>> {
        if (suffix.empty())
          return func;
        RenameVars renamer(suffix);
        Ref<Expr> result = renamer.mutate(func.get());
        ctx.getStatistics().add("test-rename-vars", "num-renamed",
                                renamer.numRenamed,
                                "Number of variables renamed");
        return Ref<Function>(cast<Function>(result.get()));
      },
      std::move(info));
}

//===----------------------------------------------------------------------===//
// test-add-function, test-remove-function
//===----------------------------------------------------------------------===//

static Expected<Ref<Pass>> createAddFunction(const PassOptions &options) {
  std::string name = options.getString("name");
  return createModulePass(
      [name](Ref<IRModule> module, PassContext &) -> Expected<Ref<IRModule>> {
        if (module->contains(name))
          return makeError("test-add-function: the module already has @" +
                           name);
        // def @<name>() { 0f }
        Ref<Function> func =
            Function::get({}, Constant::getScalar(DataType::float32(), 0.0));
        Ref<IRModule> result = module->shallowCopy();
        result->addOrUpdate(name, std::move(func));
        return result;
      },
      PassInfo("test-add-function", /*optLevel=*/0));
}

static Expected<Ref<Pass>> createRemoveFunction(const PassOptions &options) {
  std::string name = options.getString("name");
  return createModulePass(
      [name](Ref<IRModule> module, PassContext &) -> Expected<Ref<IRModule>> {
        if (!module->contains(name))
          return makeError("test-remove-function: the module has no "
                           "function @" +
                           name);
        Ref<IRModule> result = module->shallowCopy();
        result->remove(name);
        return result;
      },
      PassInfo("test-remove-function", /*optLevel=*/0));
}

//===----------------------------------------------------------------------===//
// test-fail, test-count-calls
//===----------------------------------------------------------------------===//

static Ref<Pass> createFail() {
  return createFunctionPass(
      [](Ref<Function> func, const IRModule &module,
         PassContext &) -> Expected<Ref<Function>> {
        return makeError(func->getLoc(),
                         "test-fail: failing on purpose in @" +
                             getFunctionName(module, func.get()));
      },
      PassInfo("test-fail", /*optLevel=*/0));
}

/// Raises SIGSEGV in the first function: for the crash reproducer and the
/// stack trace that names the pass and the function.
static Ref<Pass> createCrash() {
  return createFunctionPass(
      [](Ref<Function> func, const IRModule &,
         PassContext &) -> Expected<Ref<Function>> {
        std::raise(SIGSEGV);
        // LLVM's signal handler returns from a raised (not faulting)
        // signal after restoring the default action: raising it again ends
        // the process as a fault would.
        std::raise(SIGSEGV);
        return func;
      },
      PassInfo("test-crash", /*optLevel=*/0));
}

static Ref<Pass> createCountCalls() {
  PassInfo info("test-count-calls", /*optLevel=*/0);
  info.preservesTypes = true;
  return createFunctionPass(
      [](Ref<Function> func, const IRModule &,
         PassContext &ctx) -> Expected<Ref<Function>> {
        CountCalls counter;
        counter.visit(func.get());
        ctx.getStatistics().add("test-count-calls", "num-calls",
                                counter.numCalls, "Number of calls");
        return func;
      },
      std::move(info));
}

//===----------------------------------------------------------------------===//
// test-mutate-in-place, test-break-ir
//===----------------------------------------------------------------------===//

static Ref<Pass> createMutateInPlace() {
  return createModulePass(
      [](Ref<IRModule> module, PassContext &) -> Expected<Ref<IRModule>> {
        // Wrong on purpose: a pass must work on a shallowCopy().
        module->addOrUpdate(
            "mutated",
            Function::get({}, Constant::getScalar(DataType::float32(), 1.0)));
        return module;
      },
      PassInfo("test-mutate-in-place", /*optLevel=*/0));
}

static Ref<Pass> createBreakIR() {
  return createModulePass(
      [](Ref<IRModule> module, PassContext &) -> Expected<Ref<IRModule>> {
        if (module->empty())
          return module;
        // The first function now returns a variable bound nowhere.
        const IRModule::Entry &entry = module->getFunctions().front();
        Ref<Function> broken = Function::get(
            entry.func->getParams(), Var::get("free"),
            /*retType=*/nullptr, entry.func->getAttrs(), entry.func->getLoc());
        Ref<IRModule> result = module->shallowCopy();
        if (Error err = result->add(entry.var, std::move(broken),
                                    /*update=*/true))
          return err;
        return result;
      },
      PassInfo("test-break-ir", /*optLevel=*/0));
}

//===----------------------------------------------------------------------===//
// test-preserve-types
//===----------------------------------------------------------------------===//

static Expected<Ref<Pass>> createPreserveTypes(const PassOptions &options) {
  int64_t level = options.getInt("level");
  if (level < 0 || level > 3)
    return makeError("test-preserve-types: level must be in 0..3, got " +
                     Twine(level));
  PassInfo info("test-preserve-types", static_cast<int>(level),
                /*required=*/{"InferType"});
  info.preservesTypes = options.getBool("preserve");
  return createFunctionPass(
      [](Ref<Function> func, const IRModule &,
         PassContext &) -> Expected<Ref<Function>> {
        // A new but equal function, checked types included: the module
        // changes (a new object) while its types stay valid.
        return Function::get(func->getParams(), func->getBody(),
                             func->getRetType(), func->getAttrs(),
                             func->getLoc(), func->getCheckedType());
      },
      std::move(info));
}

//===----------------------------------------------------------------------===//
// test-nested-pipeline
//===----------------------------------------------------------------------===//

static Ref<Pass> createNestedPipeline() {
  return createModulePass(
      [](Ref<IRModule> module, PassContext &ctx) -> Expected<Ref<IRModule>> {
        const PassRegistry &registry = PassRegistry::instance();
        Expected<Ref<Pass>> count = registry.create("test-count-calls");
        if (!count)
          return count.takeError();
        Expected<Ref<Pass>> rename =
            registry.create("test-rename-vars", {{"suffix", "_n"}});
        if (!rename)
          return rename.takeError();
        Ref<Pass> inner = createSequential({*count, *rename},
                                           PassInfo("test-inner-pipeline", 0));
        return inner->run(std::move(module), ctx);
      },
      PassInfo("test-nested-pipeline", /*optLevel=*/0));
}

//===----------------------------------------------------------------------===//
// test-remarks
//===----------------------------------------------------------------------===//

namespace {
/// Emits, through the context, a Passed remark for every operator call, a
/// Missed remark for every constant and an Analysis remark per function.
struct RemarkEmitter : ExprVisitor {
  RemarkEmitter(PassContext &ctx, StringRef function)
      : ctx(ctx), function(function) {}
  void visitCall(Call *call) override {
    ++numCalls;
    if (Op *op = call->getCalledOp();
        op && ctx.isRemarkEnabled(RemarkKind::Passed, "test-remarks"))
      ctx.emitRemark(
          Remark(RemarkKind::Passed, "test-remarks", "OpCall", call->getLoc())
              .setFunction(function)
          << "call of '" << RemarkArg("Op", op->getName()) << "' with "
          << RemarkArg("NumArgs", unsigned(call->getNumArgs()))
          << (call->getNumArgs() == 1 ? " argument" : " arguments"));
    ExprVisitor::visitCall(call);
  }
  void visitConstant(Constant *constant) override {
    if (ctx.isRemarkEnabled(RemarkKind::Missed, "test-remarks"))
      ctx.emitRemark(
          Remark(RemarkKind::Missed, "test-remarks", "Constant",
                 constant->getLoc())
              .setFunction(function)
          << "constant of "
          << RemarkArg("Bytes", uint64_t(constant->getData().getByteSize()))
          << " bytes left alone");
  }
  PassContext &ctx;
  StringRef function;
  unsigned numCalls = 0;
};
} // namespace

static Ref<Pass> createRemarks() {
  PassInfo info("test-remarks", /*optLevel=*/0);
  info.preservesTypes = true;
  return createFunctionPass(
      [](Ref<Function> func, const IRModule &module,
         PassContext &ctx) -> Expected<Ref<Function>> {
        StringRef name = getFunctionName(module, func.get());
        RemarkEmitter emitter(ctx, name);
        emitter.visit(func.get());
        if (ctx.isRemarkEnabled(RemarkKind::Analysis, "test-remarks"))
          ctx.emitRemark(Remark(RemarkKind::Analysis, "test-remarks",
                                "CallCount", func->getLoc())
                             .setFunction(name)
                         << "@" << name << " has "
                         << RemarkArg("NumCalls", emitter.numCalls)
                         << " calls");
        return func;
      },
      std::move(info));
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// Registers \p registration; the names are fixed here, so a clash is a bug.
static void add(PassRegistry &registry, PassRegistration registration) {
  if (Error err = registry.registerPass(std::move(registration)))
    report_fatal_error(std::move(err));
}

/// A registration without options.
static PassRegistration make(StringRef name, StringRef description,
                             Ref<Pass> (*factory)()) {
  PassRegistration registration;
  registration.name = name.str();
  registration.description = description.str();
  registration.factory = [factory](const PassOptions &) -> Expected<Ref<Pass>> {
    return factory();
  };
  return registration;
}

/// A registration whose factory reads \p options.
static PassRegistration
make(StringRef name, StringRef description,
     Expected<Ref<Pass>> (*factory)(const PassOptions &),
     std::vector<PassOptionInfo> options) {
  PassRegistration registration;
  registration.name = name.str();
  registration.description = description.str();
  registration.factory = factory;
  registration.options = std::move(options);
  return registration;
}

void nnir::test::registerTestPasses() {
  PassRegistry &registry = PassRegistry::instance();
  if (registry.lookup("test-rename-vars"))
    return;
  add(registry,
      make("test-rename-vars",
           "Append a suffix to the name of every variable (function pass)",
           createRenameVars,
           {{"suffix", OptionType::String, OptionValue("_r"),
             "Text appended to each name"}}));
  add(registry,
      make("test-add-function", "Add a function returning 0f (module pass)",
           createAddFunction,
           {{"name", OptionType::String, OptionValue("added"),
             "Name of the new function"}}));
  add(registry,
      make("test-remove-function",
           "Remove a function; an error if there is none", createRemoveFunction,
           {{"name", OptionType::String, OptionValue("main"),
             "Name of the function to remove"}}));
  add(registry,
      make("test-fail", "Fail with an error located at the first function",
           createFail));
  add(registry, make("test-crash",
                     "Raise SIGSEGV in the first function (crash handling "
                     "tests)",
                     createCrash));
  add(registry, make("test-count-calls",
                     "Count the calls of every function (statistic "
                     "num-calls); changes nothing",
                     createCountCalls));
  add(registry, make("test-mutate-in-place",
                     "Add @mutated to the input module in place (wrong on "
                     "purpose)",
                     createMutateInPlace));
  add(registry, make("test-break-ir",
                     "Make the first function return an unbound variable",
                     createBreakIR));
  add(registry,
      make("test-preserve-types",
           "Rebuild every function unchanged; requires InferType",
           createPreserveTypes,
           {{"level", OptionType::Int, OptionValue(0), "Opt level of the pass"},
            {"preserve", OptionType::Bool, OptionValue(true),
             "Declare that the pass preserves types"}}));
  add(registry,
      make("test-remarks",
           "Remark on every operator call (passed), constant (missed) and "
           "function (analysis: its number of calls); changes nothing",
           createRemarks));
  add(registry, make("test-nested-pipeline",
                     "Run test-count-calls,test-rename-vars{suffix=_n} "
                     "inside the pass",
                     createNestedPipeline));
}
