//===- PassTest.cpp - Module, function and sequential passes --------------===//
//
/// \file
/// The pass kinds with TVM's semantics (tests/python/relay/
/// test_pass_manager.py): module passes, function passes and their identity
/// rule and skipped functions, Sequential with opt-level gating, disabled and
/// required passes resolved through the PassRegistry, nested Sequentials,
/// direct calls; nnir's valid-types tracking that runs type inference once
/// for a pipeline of type-preserving passes; testing.immutable_module.
//
//===----------------------------------------------------------------------===//

#include "PassTestUtils.h"

#include "nnir/IR/StructuralEqual.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <algorithm>

using namespace llvm;
using namespace nnir;
using namespace nnir::passtest;

using Events = std::vector<std::string>;

namespace {

/// TVM's test module: @myAdd, @mySub and @myLog.
constexpr const char *kModuleText = R"(#[version = "0.0.5"]
def @myAdd(%x: Tensor[(5, 10), float32], %y: Tensor[(5, 10), float32]) {
  add(%x, %y)
}
def @mySub(%x: Tensor[(5, 10), float32], %y: Tensor[(5, 10), float32]) {
  subtract(log(%x), %y)
}
def @myLog(%x: Tensor[(5, 10), float32]) {
  log(%x)
}
)";

class PassTest : public ::testing::Test {
protected:
  void SetUp() override {
    registerAllOps();
    registerPassInfraConfigs();
    ensureInferType();
    ensureRegistered("unittest.PassTest.Marker", [] {
      return createModulePass(
          [](Ref<IRModule> module, PassContext &) -> Expected<Ref<IRModule>> {
            ++markerRuns();
            Ref<IRModule> copy = module->shallowCopy();
            copy->addOrUpdate("marker", makeUnaryFunction("abs"));
            return copy;
          },
          PassInfo("unittest.PassTest.Marker", 3));
    });
    markerRuns() = 0;
    log = std::make_shared<EventLog>();
    module = parse(kModuleText);
    ASSERT_TRUE(module);
  }

  Ref<IRModule> parse(StringRef text) { return parseOrFail(text, sourceMgr); }

  static int &markerRuns() {
    static int runs = 0;
    return runs;
  }

  /// A context recording the names of the passes that reach run_before.
  Ref<PassContext> recordingContext(int optLevel = 2) {
    Ref<PassContext> ctx = PassContext::create();
    ctx->setOptLevel(optLevel);
    ctx->setInstruments({std::make_shared<BeforeRecorder>(log)});
    return ctx;
  }

  /// Runs \p pass under \p ctx (entered); the test fails on an error.
  Ref<IRModule> runOk(const Ref<Pass> &pass, Ref<IRModule> input,
                      Ref<PassContext> ctx = PassContext::create()) {
    std::optional<PassContextScope> scope = enterOrFail(ctx);
    if (!scope)
      return nullptr;
    Expected<Ref<IRModule>> result = pass->run(std::move(input));
    if (!result) {
      ADD_FAILURE() << toString(result.takeError());
      return nullptr;
    }
    return *result;
  }

  /// The error message of running \p pass under \p ctx ("" if it succeeds).
  std::string runError(const Ref<Pass> &pass, Ref<IRModule> input,
                       Ref<PassContext> ctx = PassContext::create()) {
    std::optional<PassContextScope> scope = enterOrFail(ctx);
    if (!scope)
      return "";
    Expected<Ref<IRModule>> result = pass->run(std::move(input));
    if (result)
      return "";
    return toString(result.takeError());
  }

  /// How many times \p name appears in the log.
  int countRuns(StringRef name) const {
    return std::count(log->begin(), log->end(), name.str());
  }

  /// Records the name of each pass at run_before.
  struct BeforeRecorder : PassInstrument {
    explicit BeforeRecorder(std::shared_ptr<EventLog> log)
        : PassInstrument("BeforeRecorder"), log(std::move(log)) {}
    Error runBeforePass(const IRModule &, const PassInfo &info) override {
      log->push_back(info.name);
      return Error::success();
    }
    std::shared_ptr<EventLog> log;
  };

  SourceMgr sourceMgr;
  std::shared_ptr<EventLog> log;
  Ref<IRModule> module;
};

/// TVM's module pass: adds `@myAbs = fn (%x) { abs(%x) }`.
Ref<Pass> makeAddAbsPass(StringRef name = "mod_transform", int optLevel = 1) {
  return createModulePass(
      [](Ref<IRModule> m, PassContext &) -> Expected<Ref<IRModule>> {
        Ref<IRModule> copy = m->shallowCopy();
        copy->addOrUpdate("myAbs", makeUnaryFunction("abs"));
        return copy;
      },
      PassInfo(name, optLevel));
}

/// TVM's function pass: log(x) -> log(add(x, x)), and the same for abs.
Ref<Pass> makeDoublePass(StringRef name = "func_transform", int optLevel = 1,
                         bool preservesTypes = false) {
  PassInfo info(name, optLevel);
  info.preservesTypes = preservesTypes;
  return createFunctionPass(
      [](Ref<Function> f, const IRModule &,
         PassContext &) -> Expected<Ref<Function>> {
        return doubleUnaryArgs(f, {"log", "abs"});
      },
      std::move(info));
}

/// A function pass that returns every function unchanged.
Ref<Pass> makeIdentityFunctionPass(StringRef name) {
  return createFunctionPass(
      [](Ref<Function> f, const IRModule &,
         PassContext &) -> Expected<Ref<Function>> { return f; },
      PassInfo(name, 0));
}

/// A module pass that only logs "<name>" into \p log and returns its input.
Ref<Pass> makeLoggingPass(StringRef name, int optLevel,
                          std::shared_ptr<EventLog> log,
                          std::vector<std::string> required = {}) {
  std::string passName = name.str();
  return createModulePass(
      [passName, log](Ref<IRModule> m,
                      PassContext &) -> Expected<Ref<IRModule>> {
        log->push_back("ran " + passName);
        return m;
      },
      PassInfo(name, optLevel, std::move(required)));
}

/// A function pass that rebuilds every function as an equal new node: it
/// changes the module (new objects) and truly preserves its types.
Ref<Pass> makeRebuildPass(StringRef name, bool preservesTypes,
                          std::vector<std::string> required = {"InferType"}) {
  PassInfo info(name, 0, std::move(required));
  info.preservesTypes = preservesTypes;
  return createFunctionPass(
      [](Ref<Function> f, const IRModule &,
         PassContext &) -> Expected<Ref<Function>> {
        return Function::get(f->getParams(), f->getBody(), f->getRetType(),
                             f->getAttrs(), f->getLoc(), f->getCheckedType());
      },
      std::move(info));
}

std::string printPass(const Pass &pass) {
  std::string text;
  raw_string_ostream os(text);
  pass.print(os);
  return text;
}

std::vector<std::string> functionNames(const IRModule &m) {
  std::vector<std::string> names;
  for (const IRModule::Entry &entry : m.getFunctions())
    names.push_back(entry.var->getName().str());
  return names;
}

} // namespace

//===----------------------------------------------------------------------===//
// Module passes
//===----------------------------------------------------------------------===//

// test_module_pass: info, kind and text form.
TEST_F(PassTest, ModulePassInfo) {
  Ref<Pass> pass = makeAddAbsPass("module_pass_test", 0);
  EXPECT_EQ(pass->getKind(), Pass::Kind::Module);
  EXPECT_TRUE(isa<ModulePass>(pass.get()));
  EXPECT_FALSE(isa<FunctionPass>(pass.get()));
  EXPECT_EQ(pass->getName(), "module_pass_test");
  EXPECT_EQ(pass->getInfo().name, "module_pass_test");
  EXPECT_EQ(pass->getInfo().optLevel, 0);
  EXPECT_EQ(printPass(*pass),
            "Run Module pass: module_pass_test at the optimization level 0");
}

// test_module_pass: running it adds @myAbs and keeps @myAdd.
TEST_F(PassTest, ModulePassAddsFunctionAndKeepsOthers) {
  Function *myAdd = module->lookup("myAdd");
  Ref<IRModule> result = runOk(makeAddAbsPass(), module);
  ASSERT_TRUE(result);
  EXPECT_NE(result, module);
  EXPECT_EQ(functionNames(*result),
            (std::vector<std::string>{"myAdd", "mySub", "myLog", "myAbs"}));
  EXPECT_EQ(result->lookup("myAdd"), myAdd);
  // The input is unchanged.
  EXPECT_EQ(module->size(), 3u);
  EXPECT_FALSE(module->contains("myAbs"));
}

// test_module_class_pass: a module pass's result is whatever it returns, the
// input itself included.
TEST_F(PassTest, ModulePassIdentity) {
  Ref<IRModule> replacement = IRModule::create();
  for (bool replace : {false, true}) {
    Ref<Pass> pass = createModulePass(
        [&](Ref<IRModule> m, PassContext &) -> Expected<Ref<IRModule>> {
          return replace ? replacement : m;
        },
        PassInfo("TestPipeline", 1));
    Ref<IRModule> result = runOk(pass, module);
    EXPECT_EQ(result, replace ? replacement : module);
  }
}

TEST_F(PassTest, ModulePassReturningNoModuleIsAnError) {
  Ref<Pass> pass = createModulePass(
      [](Ref<IRModule>, PassContext &) -> Expected<Ref<IRModule>> {
        return Ref<IRModule>();
      },
      PassInfo("unittest.ReturnsNull", 0));
  EXPECT_NE(runError(pass, module).find("unittest.ReturnsNull"),
            std::string::npos);
}

TEST_F(PassTest, RunningOnNoModuleIsAnError) {
  EXPECT_NE(runError(makeAddAbsPass("unittest.NoInput"), nullptr)
                .find("unittest.NoInput"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Function passes
//===----------------------------------------------------------------------===//

// test_function_pass: info and text form.
TEST_F(PassTest, FunctionPassInfo) {
  Ref<Pass> pass = makeDoublePass("function_pass_test", 1);
  EXPECT_EQ(pass->getKind(), Pass::Kind::Function);
  EXPECT_TRUE(isa<FunctionPass>(pass.get()));
  EXPECT_EQ(pass->getName(), "function_pass_test");
  EXPECT_EQ(pass->getInfo().optLevel, 1);
  EXPECT_EQ(
      printPass(*pass),
      "Run Function pass: function_pass_test at the optimization level 1");
}

// test_function_pass: log(x) becomes log(add(x, x)) in every function; the
// result is a new module and the input is unchanged.
TEST_F(PassTest, FunctionPassRewritesEachFunction) {
  hash_code before = structuralHash(*module);
  Function *myAdd = module->lookup("myAdd");
  Function *myLog = module->lookup("myLog");
  Ref<IRModule> result = runOk(makeDoublePass(), module);
  ASSERT_TRUE(result);
  Ref<IRModule> expected = parse(R"(
def @myAdd(%x: Tensor[(5, 10), float32], %y: Tensor[(5, 10), float32]) {
  add(%x, %y)
}
def @mySub(%x: Tensor[(5, 10), float32], %y: Tensor[(5, 10), float32]) {
  subtract(log(add(%x, %x)), %y)
}
def @myLog(%x: Tensor[(5, 10), float32]) {
  log(add(%x, %x))
}
)");
  ASSERT_TRUE(expected);
  EXPECT_TRUE(structuralEqual(*result, *expected))
      << explainStructuralDifference(*result, *expected);
  EXPECT_NE(result, module);
  // Unchanged functions are shared; changed ones are new.
  EXPECT_EQ(result->lookup("myAdd"), myAdd);
  EXPECT_NE(result->lookup("myLog"), myLog);
  // The input still holds the original functions.
  EXPECT_EQ(module->lookup("myLog"), myLog);
  EXPECT_EQ(structuralHash(*module), before);
}

// A function pass that changes nothing returns the very same module (and
// runs no type inference).
TEST_F(PassTest, FunctionPassThatChangesNothingReturnsSameModule) {
  Ref<PassContext> ctx = recordingContext();
  Ref<IRModule> result =
      runOk(makeIdentityFunctionPass("unittest.Identity"), module, ctx);
  EXPECT_EQ(result, module);
  EXPECT_EQ(*log, (Events{"unittest.Identity"}));

  // Also when the rewrite finds nothing to rewrite.
  Ref<IRModule> noLog = parse(R"(
def @f(%x: float32) { negative(%x) }
)");
  ASSERT_TRUE(noLog);
  EXPECT_EQ(runOk(makeDoublePass(), noLog), noLog);
}

// TVM's FunctionPass re-runs InferType after every function pass; nnir does
// after one that changed the module and does not preserve types.
TEST_F(PassTest, FunctionPassRunsInferTypeAfterAChange) {
  Ref<PassContext> ctx = recordingContext();
  Ref<IRModule> result = runOk(makeDoublePass(), module, ctx);
  ASSERT_TRUE(result);
  EXPECT_EQ(*log, (Events{"func_transform", "InferType"}));
  EXPECT_TRUE(result->hasValidTypes());

  log->clear();
  result = runOk(makeDoublePass("preserving", 1, /*preservesTypes=*/true),
                 module, ctx);
  ASSERT_TRUE(result);
  EXPECT_EQ(*log, (Events{"preserving"}));
}

// Every call of the pass function sees the input module, whose functions are
// not updated until all were visited.
TEST_F(PassTest, FunctionPassSeesTheInputModule) {
  std::vector<std::pair<std::string, Function *>> originals;
  for (const IRModule::Entry &entry : module->getFunctions())
    originals.push_back({entry.var->getName().str(), entry.func.get()});
  int calls = 0;
  Ref<Pass> pass = createFunctionPass(
      [&](Ref<Function> f, const IRModule &m,
          PassContext &) -> Expected<Ref<Function>> {
        ++calls;
        EXPECT_EQ(&m, module.get());
        for (const auto &[name, func] : originals)
          EXPECT_EQ(m.lookup(name), func) << name;
        return doubleUnaryArgs(f, {"log"});
      },
      PassInfo("unittest.SeesInput", 0));
  Ref<IRModule> result = runOk(pass, module);
  ASSERT_TRUE(result);
  EXPECT_EQ(calls, 3);
}

// AsOptimizableFunctionNode: functions marked Compiler=..., Extern=1 or
// SkipOptimization=1 are not given to the pass; Primitive ones are.
TEST_F(PassTest, FunctionPassSkipsExternalAndSkippedFunctions) {
  auto withAttr = [](StringRef name, AttrValue value) {
    Ref<Function> f = makeUnaryFunction("log");
    return Function::get(f->getParams(), f->getBody(), nullptr,
                         DictAttrs::get({{name.str(), value, SMLoc()}}));
  };
  Ref<IRModule> m = IRModule::create();
  m->addOrUpdate("plain", makeUnaryFunction("log"));
  m->addOrUpdate("compiler", withAttr("Compiler", AttrValue::string("ext")));
  m->addOrUpdate("extern", withAttr("Extern", AttrValue::integer(1)));
  m->addOrUpdate("skip", withAttr("SkipOptimization", AttrValue::integer(1)));
  m->addOrUpdate("skipZero",
                 withAttr("SkipOptimization", AttrValue::integer(0)));
  m->addOrUpdate("externFalse", withAttr("Extern", AttrValue::boolean(false)));
  m->addOrUpdate("primitive", withAttr("Primitive", AttrValue::integer(1)));

  std::vector<std::string> visited;
  Ref<Pass> pass = createFunctionPass(
      [&](Ref<Function> f, const IRModule &mod,
          PassContext &) -> Expected<Ref<Function>> {
        for (const IRModule::Entry &entry : mod.getFunctions())
          if (entry.func == f)
            visited.push_back(entry.var->getName().str());
        return doubleUnaryArgs(f, {"log"});
      },
      PassInfo("unittest.Visit", 0));
  Ref<IRModule> result = runOk(pass, m);
  ASSERT_TRUE(result);
  EXPECT_EQ(visited, (std::vector<std::string>{"plain", "skipZero",
                                               "externFalse", "primitive"}));
  for (StringRef skipped : {"compiler", "extern", "skip"})
    EXPECT_EQ(result->lookup(skipped), m->lookup(skipped)) << skipped.str();
  for (StringRef rewritten : {"plain", "skipZero", "externFalse", "primitive"})
    EXPECT_NE(result->lookup(rewritten), m->lookup(rewritten))
        << rewritten.str();

  EXPECT_TRUE(FunctionPass::isOptimizable(*m->lookup("plain")));
  EXPECT_TRUE(FunctionPass::isOptimizable(*m->lookup("primitive")));
  EXPECT_FALSE(FunctionPass::isOptimizable(*m->lookup("compiler")));
  EXPECT_FALSE(FunctionPass::isOptimizable(*m->lookup("extern")));
  EXPECT_FALSE(FunctionPass::isOptimizable(*m->lookup("skip")));
}

// A function pass keeps the module's functions: the same names, order and
// GlobalVars.
TEST_F(PassTest, FunctionPassKeepsTheFunctionSet) {
  Ref<IRModule> result = runOk(makeDoublePass(), module);
  ASSERT_TRUE(result);
  EXPECT_EQ(functionNames(*result), functionNames(*module));
  for (const IRModule::Entry &entry : module->getFunctions())
    EXPECT_EQ(result->getGlobalVar(entry.var->getName()), entry.var.get());
}

TEST_F(PassTest, FunctionPassErrorPropagates) {
  Ref<Pass> pass = createFunctionPass(
      [](Ref<Function>, const IRModule &,
         PassContext &) -> Expected<Ref<Function>> {
        return makeError("cannot rewrite this function");
      },
      PassInfo("unittest.FailingFunctionPass", 0));
  hash_code before = structuralHash(*module);
  EXPECT_EQ(runError(pass, module), "cannot rewrite this function");
  EXPECT_EQ(structuralHash(*module), before);
}

TEST_F(PassTest, FunctionPassReturningNoFunctionIsAnError) {
  Ref<Pass> pass = createFunctionPass(
      [](Ref<Function>, const IRModule &,
         PassContext &) -> Expected<Ref<Function>> { return Ref<Function>(); },
      PassInfo("unittest.ReturnsNoFunction", 0));
  EXPECT_NE(runError(pass, module).find("unittest.ReturnsNoFunction"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Sequential
//===----------------------------------------------------------------------===//

// test_sequential_pass: info and text form.
TEST_F(PassTest, SequentialInfo) {
  Ref<Pass> defaulted = createSequential({makeAddAbsPass(), makeDoublePass()});
  EXPECT_EQ(defaulted->getKind(), Pass::Kind::Sequential);
  EXPECT_TRUE(isa<Sequential>(defaulted.get()));
  EXPECT_EQ(defaulted->getName(), "sequential");
  EXPECT_EQ(defaulted->getInfo().optLevel, 0);
  EXPECT_EQ(cast<Sequential>(defaulted.get())->getPasses().size(), 2u);
  EXPECT_EQ(printPass(*defaulted),
            "Run Sequential pass: sequential at the optimization level 0. The "
            "passes will be executed are: [mod_transform func_transform ]");

  Ref<Pass> named = createSequential({}, PassInfo("sequential", 2));
  EXPECT_EQ(named->getInfo().optLevel, 2);
}

TEST_F(PassTest, EmptySequentialReturnsModuleUnchanged) {
  EXPECT_EQ(runOk(createSequential({}), module), module);
}

// test_sequential_pass: with the passes named in requiredPasses, at levels
// above the context's.
TEST_F(PassTest, SequentialOfModuleAndFunctionPass) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setRequiredPasses({"mod_transform", "func_transform"});
  Ref<Pass> modPass = makeAddAbsPass("mod_transform", 3);
  Ref<Pass> funcPass = makeDoublePass("func_transform", 3);

  Ref<IRModule> onlyModule = runOk(createSequential({modPass}), module, ctx);
  ASSERT_TRUE(onlyModule);
  EXPECT_TRUE(onlyModule->contains("myAbs"));
  EXPECT_TRUE(
      structuralEqual(onlyModule->lookup("myLog"), module->lookup("myLog")));

  Ref<IRModule> onlyFunction = runOk(createSequential({funcPass}), module, ctx);
  ASSERT_TRUE(onlyFunction);
  EXPECT_FALSE(onlyFunction->contains("myAbs"));

  // Both: the module pass first, so the new @myAbs is rewritten too.
  Ref<IRModule> both =
      runOk(createSequential({modPass, funcPass}), module, ctx);
  ASSERT_TRUE(both);
  Ref<IRModule> expected = parse(R"(
def @myAdd(%x: Tensor[(5, 10), float32], %y: Tensor[(5, 10), float32]) {
  add(%x, %y)
}
def @mySub(%x: Tensor[(5, 10), float32], %y: Tensor[(5, 10), float32]) {
  subtract(log(add(%x, %x)), %y)
}
def @myLog(%x: Tensor[(5, 10), float32]) {
  log(add(%x, %x))
}
def @myAbs(%x) {
  abs(add(%x, %x))
}
)");
  ASSERT_TRUE(expected);
  EXPECT_TRUE(structuralEqual(*both, *expected))
      << explainStructuralDifference(*both, *expected);
  EXPECT_TRUE(structuralEqual(onlyFunction->lookup("myLog"),
                              expected->lookup("myLog")));
}

// A child above the context's opt level is skipped; at that level it runs.
TEST_F(PassTest, SequentialGatesChildrenByOptLevel) {
  Ref<Pass> seq = createSequential({makeLoggingPass("L1", 1, log),
                                    makeLoggingPass("L3", 3, log),
                                    makeAddAbsPass("L3.add", 3)});
  Ref<IRModule> at2 = runOk(seq, module, recordingContext(2));
  EXPECT_EQ(at2, module);
  EXPECT_EQ(*log, (Events{"sequential", "L1", "ran L1"}));

  log->clear();
  Ref<IRModule> at3 = runOk(seq, module, recordingContext(3));
  ASSERT_TRUE(at3);
  EXPECT_TRUE(at3->contains("myAbs"));
  EXPECT_EQ(*log,
            (Events{"sequential", "L1", "ran L1", "L3", "ran L3", "L3.add"}));

  log->clear();
  runOk(seq, module, recordingContext(0));
  EXPECT_EQ(*log, (Events{"sequential"}));
}

// Required overrides the opt level; disabled beats required.
TEST_F(PassTest, SequentialDisabledBeatsRequired) {
  Ref<Pass> seq = createSequential(
      {makeLoggingPass("A", 3, log), makeLoggingPass("B", 0, log)});
  Ref<PassContext> ctx = PassContext::create();
  ctx->setRequiredPasses({"A"});
  runOk(seq, module, ctx);
  EXPECT_EQ(*log, (Events{"ran A", "ran B"}));

  log->clear();
  ctx->setDisabledPasses({"A", "B"});
  runOk(seq, module, ctx);
  EXPECT_TRUE(log->empty());
}

// The Sequential's own PassInfo is ignored when it is run directly and
// checked when it is a child.
TEST_F(PassTest, NestedSequential) {
  Ref<Pass> inner = createSequential(
      {makeLoggingPass("inner.A", 0, log), makeLoggingPass("inner.B", 0, log)},
      PassInfo("inner", 3));
  Ref<Pass> outer = createSequential({makeLoggingPass("first", 0, log), inner,
                                      makeLoggingPass("last", 0, log)},
                                     PassInfo("outer", 4));
  runOk(outer, module, recordingContext(2));
  EXPECT_EQ(*log, (Events{"outer", "first", "ran first", "last", "ran last"}));

  log->clear();
  runOk(outer, module, recordingContext(3));
  EXPECT_EQ(*log, (Events{"outer", "first", "ran first", "inner", "inner.A",
                          "ran inner.A", "inner.B", "ran inner.B", "last",
                          "ran last"}));

  // test_nested_sequential_with_scoping: a rewriting pass two levels deep.
  Ref<IRModule> result =
      runOk(createSequential({createSequential({makeDoublePass("deep", 1)})}),
            module, PassContext::create());
  ASSERT_TRUE(result);
  EXPECT_NE(result, module);
  Ref<IRModule> direct = runOk(makeDoublePass("deep", 1), module);
  EXPECT_TRUE(structuralEqual(*result, *direct));
}

// Calling a pass directly checks neither its opt level nor the disabled
// list, and does not resolve its required list.
TEST_F(PassTest, DirectCallIgnoresOptLevelDisabledAndRequired) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setOptLevel(0);
  ctx->setDisabledPasses({"direct"});
  Ref<Pass> pass =
      makeLoggingPass("direct", 4, log, {"unittest.PassTest.Marker"});
  EXPECT_EQ(runOk(pass, module, ctx), module);
  EXPECT_EQ(*log, (Events{"ran direct"}));
  EXPECT_EQ(markerRuns(), 0);
}

// A child's required passes are created through the PassRegistry and run
// before it, even when the required pass itself is above the context's opt
// level or disabled (TVM does not check PassEnabled for them).
TEST_F(PassTest, RequiredPassesResolvedThroughRegistry) {
  Ref<PassContext> ctx = recordingContext(2);
  ctx->setDisabledPasses({"unittest.PassTest.Marker"});
  Ref<Pass> seq = createSequential(
      {makeLoggingPass("needsMarker", 0, log, {"unittest.PassTest.Marker"})});
  Ref<IRModule> result = runOk(seq, module, ctx);
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->contains("marker"));
  EXPECT_EQ(markerRuns(), 1);
  EXPECT_EQ(*log, (Events{"sequential", "unittest.PassTest.Marker",
                          "needsMarker", "ran needsMarker"}));
}

// A required pass that does not establish types runs again before every
// child that requires it (as in TVM).
TEST_F(PassTest, RequiredPassRunsBeforeEachRequiringChild) {
  Ref<Pass> seq = createSequential(
      {makeLoggingPass("A", 0, log, {"unittest.PassTest.Marker"}),
       makeLoggingPass("B", 0, log),
       makeLoggingPass("C", 0, log, {"unittest.PassTest.Marker"})});
  runOk(seq, module);
  EXPECT_EQ(markerRuns(), 2);
  EXPECT_EQ(*log, (Events{"ran A", "ran B", "ran C"}));
}

// A disabled child's required passes are not run.
TEST_F(PassTest, DisabledChildRunsNoRequiredPasses) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setDisabledPasses({"A"});
  runOk(createSequential(
            {makeLoggingPass("A", 0, log, {"unittest.PassTest.Marker"})}),
        module, ctx);
  EXPECT_EQ(markerRuns(), 0);
  EXPECT_TRUE(log->empty());
}

TEST_F(PassTest, UnknownRequiredPassIsAnError) {
  Ref<Pass> seq =
      createSequential({makeLoggingPass("A", 0, log, {"unittest.NoSuchPass"}),
                        makeLoggingPass("B", 0, log)});
  std::string message = runError(seq, module);
  EXPECT_NE(message.find("'unittest.NoSuchPass'"), std::string::npos)
      << message;
  EXPECT_TRUE(log->empty());
}

// A failing child stops the Sequential and its error propagates.
TEST_F(PassTest, SequentialStopsAtFailingChild) {
  Ref<Pass> seq =
      createSequential({makeAddFunctionPass("Broken", log, 0, /*fail=*/true),
                        makeLoggingPass("after", 0, log)});
  EXPECT_EQ(runError(seq, module), "pass Broken failed on purpose");
  EXPECT_EQ(*log, (Events{"transform pass Broken"}));
}

//===----------------------------------------------------------------------===//
// Valid types: type inference runs only when types are stale
//===----------------------------------------------------------------------===//

// The improvement over TVM: ten type-preserving function passes that each
// require InferType run it once, before the first.
TEST_F(PassTest, TypePreservingPipelineRunsTypeInferenceOnce) {
  std::vector<Ref<Pass>> passes;
  Events expected = {"sequential", "InferType"};
  for (int i = 0; i < 10; ++i) {
    std::string name = "preserving" + std::to_string(i);
    passes.push_back(makeRebuildPass(name, /*preservesTypes=*/true));
    expected.push_back(name);
  }
  ASSERT_FALSE(module->hasValidTypes());
  Ref<IRModule> result =
      runOk(createSequential(passes), module, recordingContext());
  ASSERT_TRUE(result);
  EXPECT_EQ(countRuns("InferType"), 1);
  EXPECT_EQ(*log, expected);
  EXPECT_TRUE(result->hasValidTypes());
  EXPECT_FALSE(module->hasValidTypes());
  EXPECT_TRUE(structuralEqual(*result, *module));
}

// Without preservesTypes, each changing pass stales the types and is
// followed by type inference; the next pass's requirement is then met.
TEST_F(PassTest, NonPreservingPipelineRunsTypeInferenceAfterEachPass) {
  std::vector<Ref<Pass>> passes;
  Events expected = {"sequential", "InferType"};
  for (int i = 0; i < 10; ++i) {
    std::string name = "stale" + std::to_string(i);
    passes.push_back(makeRebuildPass(name, /*preservesTypes=*/false));
    expected.push_back(name);
    expected.push_back("InferType");
  }
  Ref<IRModule> result =
      runOk(createSequential(passes), module, recordingContext());
  ASSERT_TRUE(result);
  EXPECT_EQ(countRuns("InferType"), 11);
  EXPECT_EQ(*log, expected);
  EXPECT_TRUE(result->hasValidTypes());
}

// Valid types survive nesting: a Sequential of Sequentials of preserving
// passes still runs type inference once.
TEST_F(PassTest, TypeInferenceOnceAcrossNestedSequentials) {
  std::vector<Ref<Pass>> groups;
  for (int g = 0; g < 2; ++g) {
    std::vector<Ref<Pass>> passes;
    for (int i = 0; i < 5; ++i)
      passes.push_back(makeRebuildPass(
          "group" + std::to_string(g) + "." + std::to_string(i), true));
    groups.push_back(createSequential(passes));
  }
  Ref<IRModule> result =
      runOk(createSequential(groups), module, recordingContext());
  ASSERT_TRUE(result);
  EXPECT_EQ(countRuns("InferType"), 1);
  EXPECT_TRUE(result->hasValidTypes());
}

// A Sequential ending in type inference returns a module with valid types.
TEST_F(PassTest, SequentialKeepsTypesEstablishedByItsChildren) {
  Expected<Ref<Pass>> inferType = PassRegistry::instance().create("InferType");
  ASSERT_TRUE(bool(inferType)) << toString(inferType.takeError());
  Ref<IRModule> result = runOk(
      createSequential({makeAddAbsPass("unittest.AddAbs", 0), *inferType}),
      module);
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->contains("myAbs"));
  EXPECT_TRUE(result->hasValidTypes());
}

// A pass that changes the module without preserving types makes the next
// requirement run type inference again; an unchanged module keeps them.
TEST_F(PassTest, TypeInferenceRerunsOnlyAfterTypesGoStale) {
  Ref<Pass> seq = createSequential(
      {makeRebuildPass("p0", true), makeIdentityFunctionPass("identity"),
       makeRebuildPass("p1", true), makeAddAbsPass("addAbs", 0),
       makeRebuildPass("p2", true)});
  Ref<IRModule> result = runOk(seq, module, recordingContext());
  ASSERT_TRUE(result);
  EXPECT_EQ(*log, (Events{"sequential", "InferType", "p0", "identity", "p1",
                          "addAbs", "InferType", "p2"}));
}

// A module whose types are already valid runs no type inference at all.
TEST_F(PassTest, ValidTypesSkipRequiredTypeInference) {
  Ref<IRModule> typed = module->shallowCopy();
  typed->setValidTypes(true);
  Ref<IRModule> result = runOk(createSequential({makeRebuildPass("p0", true)}),
                               typed, recordingContext());
  ASSERT_TRUE(result);
  EXPECT_EQ(countRuns("InferType"), 0);
}

//===----------------------------------------------------------------------===//
// testing.immutable_module
//===----------------------------------------------------------------------===//

/// A module pass that adds a function to its *input* and returns it.
static Ref<Pass> makeMutatingPass() {
  return createModulePass(
      [](Ref<IRModule> m, PassContext &) -> Expected<Ref<IRModule>> {
        m->addOrUpdate("sneaky", makeUnaryFunction("abs"));
        return m;
      },
      PassInfo("unittest.MutatesInput", 0));
}

TEST_F(PassTest, ImmutableModuleCheckNamesThePass) {
  Ref<PassContext> ctx = PassContext::create();
  ASSERT_FALSE(bool(ctx->setConfig("testing.immutable_module", true)));
  std::string message = runError(makeMutatingPass(), module, ctx);
  EXPECT_NE(message.find("unittest.MutatesInput"), std::string::npos)
      << message;

  // Inside a Sequential the failing child is named.
  Ref<IRModule> fresh = parse(kModuleText);
  ASSERT_TRUE(fresh);
  message = runError(
      createSequential({makeAddAbsPass("fine", 0), makeMutatingPass()}), fresh,
      ctx);
  EXPECT_NE(message.find("unittest.MutatesInput"), std::string::npos)
      << message;
}

TEST_F(PassTest, ImmutableModuleCheckAcceptsWellBehavedPasses) {
  Ref<PassContext> ctx = PassContext::create();
  ASSERT_FALSE(bool(ctx->setConfig("testing.immutable_module", true)));
  hash_code before = structuralHash(*module);
  Ref<IRModule> result = runOk(
      createSequential({makeAddAbsPass(), makeDoublePass()}), module, ctx);
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->contains("myAbs"));
  EXPECT_EQ(structuralHash(*module), before);
}

TEST_F(PassTest, MutatingPassRunsWithoutImmutableModuleCheck) {
  Ref<IRModule> result = runOk(makeMutatingPass(), module);
  ASSERT_TRUE(result);
  EXPECT_EQ(result, module);
  EXPECT_TRUE(module->contains("sneaky"));

  Ref<IRModule> fresh = parse(kModuleText);
  ASSERT_TRUE(fresh);
  Ref<PassContext> ctx = PassContext::create();
  ASSERT_FALSE(bool(ctx->setConfig("testing.immutable_module", false)));
  EXPECT_EQ(runOk(makeMutatingPass(), fresh, ctx), fresh);
}

//===----------------------------------------------------------------------===//
// Statistics
//===----------------------------------------------------------------------===//

TEST_F(PassTest, PassesRecordStatisticsInTheirContext) {
  Ref<Pass> counting = createFunctionPass(
      [](Ref<Function> f, const IRModule &,
         PassContext &ctx) -> Expected<Ref<Function>> {
        ctx.getStatistics().add("unittest.Counting", "functions", 1,
                                "Number of functions visited");
        return f;
      },
      PassInfo("unittest.Counting", 0));
  Ref<PassContext> ctx = PassContext::create();
  runOk(counting, module, ctx);
  EXPECT_EQ(ctx->getStatistics().get("unittest.Counting", "functions"), 3);
}
