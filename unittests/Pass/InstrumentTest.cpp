//===- InstrumentTest.cpp - Instrument hooks and their failures -----------===//
//
/// \file
/// The call sequences of PassInstrument hooks, ported case by case from TVM's
/// tests/python/relay/test_pass_instrument.py: the order of enter / should
/// run / before / after / exit, should-run vetoes ANDed over every
/// instrument, requiredPasses bypassing should-run, and what happens when an
/// instrument or a pass fails at each point. Every instrument writes to an
/// event log of strings; the tests compare whole logs.
//
//===----------------------------------------------------------------------===//

#include "PassTestUtils.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::passtest;

using FailAt = RecordingInstrument::FailAt;
using Events = std::vector<std::string>;

namespace {

class InstrumentTest : public ::testing::Test {
protected:
  void SetUp() override {
    registerAllOps();
    log = std::make_shared<EventLog>();
    module = parseOrFail(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32], %y: Tensor[(4), float32]) {
  %0 = add(%x, %y);
  %1 = subtract(%x, %y);
  add(multiply(%0, divide(%0, %1)), %1)
}
)",
                         sourceMgr);
    ASSERT_TRUE(module);
  }

  void TearDown() override {
    // The thread's default context outlives the test; leave it clean.
    PassContext &global = PassContext::current();
    if (!global.getInstruments().empty())
      consumeError(global.overrideInstruments({}));
  }

  SourceMgr sourceMgr;
  std::shared_ptr<EventLog> log;
  Ref<IRModule> module;
};

/// TVM's MyTest instrument of test_custom_instrument: overrides enter, exit,
/// before and after only (so shouldRun is the base class default).
class CustomInstrument : public PassInstrument {
public:
  explicit CustomInstrument(std::shared_ptr<EventLog> log)
      : PassInstrument("MyTest"), log(std::move(log)) {}
  Error enterPassContext() override {
    log->push_back("enter ctx");
    return Error::success();
  }
  Error exitPassContext() override {
    log->push_back("exit ctx");
    return Error::success();
  }
  Error runBeforePass(const IRModule &, const PassInfo &info) override {
    log->push_back("run before " + info.name);
    return Error::success();
  }
  Error runAfterPass(const IRModule &, const PassInfo &info) override {
    log->push_back("run after " + info.name);
    return Error::success();
  }

private:
  std::shared_ptr<EventLog> log;
};

/// Vetoes every pass whose name contains \p skipped.
static std::function<bool(const PassInfo &)> skipping(std::string skipped) {
  return [skipped](const PassInfo &info) {
    return StringRef(info.name).find(skipped) == StringRef::npos;
  };
}

} // namespace

//===----------------------------------------------------------------------===//
// Event order and should-run
//===----------------------------------------------------------------------===//

// test_custom_instrument: enter, before, after, exit; nothing else.
TEST_F(InstrumentTest, CustomInstrumentEventOrder) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({std::make_shared<CustomInstrument>(log)});
  Ref<Pass> pass = makeAddFunctionPass("InferType", nullptr);
  {
    std::optional<PassContextScope> scope = enterOrFail(ctx);
    ASSERT_TRUE(scope);
    Expected<Ref<IRModule>> result = pass->run(module);
    ASSERT_TRUE(bool(result)) << toString(result.takeError());
    EXPECT_TRUE((*result)->contains("added.InferType"));
  }
  EXPECT_EQ(*log, (Events{"enter ctx", "run before InferType",
                          "run after InferType", "exit ctx"}));
}

// The instrument sees the pass's input before it and its result after it.
TEST_F(InstrumentTest, HooksSeeInputAndResult) {
  struct ModuleWatcher : PassInstrument {
    ModuleWatcher() : PassInstrument("ModuleWatcher") {}
    Error runBeforePass(const IRModule &m, const PassInfo &) override {
      before = &m;
      return Error::success();
    }
    Error runAfterPass(const IRModule &m, const PassInfo &) override {
      after = &m;
      return Error::success();
    }
    const IRModule *before = nullptr;
    const IRModule *after = nullptr;
  };
  auto watcher = std::make_shared<ModuleWatcher>();
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({watcher});
  std::optional<PassContextScope> scope = enterOrFail(ctx);
  ASSERT_TRUE(scope);
  Expected<Ref<IRModule>> result =
      makeAddFunctionPass("unittest.Add", nullptr)->run(module);
  ASSERT_TRUE(bool(result)) << toString(result.takeError());
  EXPECT_EQ(watcher->before, module.get());
  EXPECT_EQ(watcher->after, result->get());
  EXPECT_NE(watcher->before, watcher->after);
}

// test_disable_pass: should_run vetoes all but InferType; a vetoed pass gets
// neither run_before nor run_after, is not run, and returns its input.
TEST_F(InstrumentTest, ShouldRunVeto) {
  auto onlyInferType = [](const PassInfo &info) {
    return StringRef(info.name).contains("InferType");
  };
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments(
      {makeRecorder("%1", log, FailAt::Nothing, onlyInferType)});
  std::optional<PassContextScope> scope = enterOrFail(ctx);
  ASSERT_TRUE(scope);
  Ref<IRModule> mod = module;
  for (StringRef name : {"AnnotateSpans", "ToANormalForm", "InferType"}) {
    Ref<IRModule> input = mod;
    Expected<Ref<IRModule>> result = makeAddFunctionPass(name, log)->run(input);
    ASSERT_TRUE(bool(result)) << toString(result.takeError());
    mod = *result;
    if (name == "InferType")
      EXPECT_NE(mod, input);
    else
      EXPECT_EQ(mod, input)
          << name.str() << " was skipped: its input comes back";
  }
  EXPECT_EQ(*log,
            (Events{"%1 enter ctx", "%1 should_run AnnotateSpans",
                    "%1 should_run ToANormalForm", "%1 should_run InferType",
                    "%1 run_before InferType", "transform pass InferType",
                    "%1 run_after InferType"}));
  EXPECT_FALSE(mod->contains("added.AnnotateSpans"));
  EXPECT_FALSE(mod->contains("added.ToANormalForm"));
  EXPECT_TRUE(mod->contains("added.InferType"));
}

// test_multiple_instrument: ShouldRun is the AND of every instrument's
// answer, and every instrument is asked even after one said no.
TEST_F(InstrumentTest, MultipleInstrumentsAreAndedWithoutShortCircuit) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments(
      {makeRecorder("SkipA", log, FailAt::Nothing, skipping("AnnotateSpans")),
       makeRecorder("SkipB", log, FailAt::Nothing, skipping("ToANormalForm")),
       makeRecorder("Print", log)});
  std::optional<PassContextScope> scope = enterOrFail(ctx);
  ASSERT_TRUE(scope);
  Ref<IRModule> mod = module;
  for (StringRef name : {"AnnotateSpans", "ToANormalForm", "InferType"}) {
    Expected<Ref<IRModule>> result = makeAddFunctionPass(name, log)->run(mod);
    ASSERT_TRUE(bool(result)) << toString(result.takeError());
    mod = *result;
  }
  EXPECT_EQ(*log,
            (Events{"SkipA enter ctx", "SkipB enter ctx", "Print enter ctx",
                    // AnnotateSpans: vetoed by the first, all three asked.
                    "SkipA should_run AnnotateSpans",
                    "SkipB should_run AnnotateSpans",
                    "Print should_run AnnotateSpans",
                    // ToANormalForm: vetoed by the second.
                    "SkipA should_run ToANormalForm",
                    "SkipB should_run ToANormalForm",
                    "Print should_run ToANormalForm",
                    // InferType runs.
                    "SkipA should_run InferType", "SkipB should_run InferType",
                    "Print should_run InferType", "SkipA run_before InferType",
                    "SkipB run_before InferType", "Print run_before InferType",
                    "transform pass InferType", "SkipA run_after InferType",
                    "SkipB run_after InferType", "Print run_after InferType"}));
  EXPECT_EQ(mod->size(), 2u);
}

// InstrumentBeforePass skips should_run for the names in the context's
// requiredPasses (not the PassInfo's required list): such a pass runs even
// though every instrument would veto it.
TEST_F(InstrumentTest, ShouldRunNotAskedForRequiredPasses) {
  auto never = [](const PassInfo &) { return false; };
  Ref<PassContext> ctx = PassContext::create();
  ctx->setRequiredPasses({"unittest.Required"});
  ctx->setInstruments({makeRecorder("%1", log, FailAt::Nothing, never),
                       makeRecorder("%2", log, FailAt::Nothing, never)});
  std::optional<PassContextScope> scope = enterOrFail(ctx);
  ASSERT_TRUE(scope);

  Expected<Ref<IRModule>> required =
      makeAddFunctionPass("unittest.Required", log)->run(module);
  ASSERT_TRUE(bool(required)) << toString(required.takeError());
  EXPECT_TRUE((*required)->contains("added.unittest.Required"));

  // A pass that only *lists* a required pass is asked as usual.
  PassInfo info("unittest.Other", 0, {"unittest.Required"});
  Ref<Pass> other = createModulePass(
      [this](Ref<IRModule> m, PassContext &) -> Expected<Ref<IRModule>> {
        log->push_back("transform pass unittest.Other");
        return m;
      },
      info);
  Expected<Ref<IRModule>> vetoed = other->run(module);
  ASSERT_TRUE(bool(vetoed)) << toString(vetoed.takeError());
  EXPECT_EQ(*vetoed, module);

  EXPECT_EQ(
      *log,
      (Events{
          "%1 enter ctx", "%2 enter ctx", "%1 run_before unittest.Required",
          "%2 run_before unittest.Required", "transform pass unittest.Required",
          "%1 run_after unittest.Required", "%2 run_after unittest.Required",
          "%1 should_run unittest.Other", "%2 should_run unittest.Other"}));
}

// test_instrument_call_sequence: two passes, two instruments.
TEST_F(InstrumentTest, CallSequenceOfTwoPassesAndTwoInstruments) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({makeRecorder("%1", log), makeRecorder("%2", log)});
  {
    std::optional<PassContextScope> scope = enterOrFail(ctx);
    ASSERT_TRUE(scope);
    Ref<IRModule> mod = module;
    for (StringRef name : {"A", "B"}) {
      Expected<Ref<IRModule>> result = makeAddFunctionPass(name, log)->run(mod);
      ASSERT_TRUE(bool(result)) << toString(result.takeError());
      mod = *result;
    }
    EXPECT_TRUE(mod->contains("added.A"));
    EXPECT_TRUE(mod->contains("added.B"));
  }
  EXPECT_EQ(*log,
            (Events{"%1 enter ctx", "%2 enter ctx", "%1 should_run A",
                    "%2 should_run A", "%1 run_before A", "%2 run_before A",
                    "transform pass A", "%1 run_after A", "%2 run_after A",
                    "%1 should_run B", "%2 should_run B", "%1 run_before B",
                    "%2 run_before B", "transform pass B", "%1 run_after B",
                    "%2 run_after B", "%1 exit ctx", "%2 exit ctx"}));
}

// Nested passes are instrumented: a Sequential and each of its children
// (TVM's PassCounter of test_print_debug_callback counts the Sequential).
TEST_F(InstrumentTest, SequentialAndItsChildrenAreInstrumented) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({makeRecorder("%1", log)});
  std::optional<PassContextScope> scope = enterOrFail(ctx);
  ASSERT_TRUE(scope);
  Ref<Pass> seq = createSequential(
      {makeAddFunctionPass("A", log), makeAddFunctionPass("B", log)},
      PassInfo("seq", 0));
  Expected<Ref<IRModule>> result = seq->run(module);
  ASSERT_TRUE(bool(result)) << toString(result.takeError());
  EXPECT_EQ(*log,
            (Events{"%1 enter ctx", "%1 should_run seq", "%1 run_before seq",
                    "%1 should_run A", "%1 run_before A", "transform pass A",
                    "%1 run_after A", "%1 should_run B", "%1 run_before B",
                    "transform pass B", "%1 run_after B", "%1 run_after seq"}));
}

// A Sequential's child vetoed by should_run is skipped; the next runs.
TEST_F(InstrumentTest, ShouldRunVetoInsideSequential) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments(
      {makeRecorder("%1", log, FailAt::Nothing, skipping("A"))});
  std::optional<PassContextScope> scope = enterOrFail(ctx);
  ASSERT_TRUE(scope);
  Ref<Pass> seq = createSequential(
      {makeAddFunctionPass("A", log), makeAddFunctionPass("B", log)},
      PassInfo("seq", 0));
  Expected<Ref<IRModule>> result = seq->run(module);
  ASSERT_TRUE(bool(result)) << toString(result.takeError());
  EXPECT_FALSE((*result)->contains("added.A"));
  EXPECT_TRUE((*result)->contains("added.B"));
  EXPECT_EQ(*log,
            (Events{"%1 enter ctx", "%1 should_run seq", "%1 run_before seq",
                    "%1 should_run A", "%1 should_run B", "%1 run_before B",
                    "transform pass B", "%1 run_after B", "%1 run_after seq"}));
}

//===----------------------------------------------------------------------===//
// Enter and exit failures
//===----------------------------------------------------------------------===//

// test_enter_pass_ctx_exception: %2 fails to enter; %1 is exited, %3 never
// entered, the instruments are cleared, the context is not pushed.
TEST_F(InstrumentTest, EnterFailure) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({makeRecorder("%1", log),
                       makeRecorder("%2", log, FailAt::Enter),
                       makeRecorder("%3", log)});
  PassContext &before = PassContext::current();
  {
    Expected<PassContextScope> scope = PassContext::enter(ctx);
    ASSERT_FALSE(bool(scope));
    EXPECT_EQ(toString(scope.takeError()), "%2 failed in enter ctx");
  }
  EXPECT_EQ(*log, (Events{"%1 enter ctx", "%2 enter ctx", "%1 exit ctx"}));
  EXPECT_TRUE(ctx->getInstruments().empty());
  EXPECT_NE(&PassContext::current(), ctx.get());
  EXPECT_EQ(&PassContext::current(), &before);
  EXPECT_TRUE(PassContext::current().getInstruments().empty());
}

// The instruments entered before the failing one are exited in reverse.
TEST_F(InstrumentTest, EnterFailureExitsEnteredInReverseOrder) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({makeRecorder("%1", log), makeRecorder("%2", log),
                       makeRecorder("%3", log, FailAt::Enter),
                       makeRecorder("%4", log)});
  Expected<PassContextScope> scope = PassContext::enter(ctx);
  ASSERT_FALSE(bool(scope));
  consumeError(scope.takeError());
  EXPECT_EQ(*log, (Events{"%1 enter ctx", "%2 enter ctx", "%3 enter ctx",
                          "%2 exit ctx", "%1 exit ctx"}));
  EXPECT_TRUE(ctx->getInstruments().empty());
}

// An enter failure inside an entered context leaves the outer one current.
TEST_F(InstrumentTest, EnterFailureKeepsOuterContextCurrent) {
  Ref<PassContext> outer = PassContext::create();
  std::optional<PassContextScope> outerScope = enterOrFail(outer);
  ASSERT_TRUE(outerScope);
  Ref<PassContext> inner = PassContext::create();
  inner->setInstruments({makeRecorder("%1", log, FailAt::Enter)});
  Expected<PassContextScope> scope = PassContext::enter(inner);
  ASSERT_FALSE(bool(scope));
  consumeError(scope.takeError());
  EXPECT_EQ(&PassContext::current(), outer.get());
  EXPECT_EQ(*log, (Events{"%1 enter ctx"}));
}

// test_enter_pass_ctx_exception_global: overriding the instruments of the
// thread's default context with one whose enter fails.
TEST_F(InstrumentTest, EnterFailureOnGlobalContext) {
  PassContext &global = PassContext::current();
  ASSERT_TRUE(global.getInstruments().empty());
  Error err = global.overrideInstruments(
      {makeRecorder("%1", log), makeRecorder("%2", log, FailAt::Enter)});
  EXPECT_EQ(errorMessage(std::move(err)), "%2 failed in enter ctx");
  EXPECT_EQ(*log, (Events{"%1 enter ctx", "%2 enter ctx", "%1 exit ctx"}));
  EXPECT_TRUE(global.getInstruments().empty());
  EXPECT_EQ(&PassContext::current(), &global);
}

// test_exit_pass_ctx_exception: %2 fails to exit; %3 is not exited, the
// instruments are cleared, the context has been left.
TEST_F(InstrumentTest, ExitFailure) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({makeRecorder("%1", log),
                       makeRecorder("%2", log, FailAt::Exit),
                       makeRecorder("%3", log)});
  PassContext &before = PassContext::current();
  std::optional<PassContextScope> scope = enterOrFail(ctx);
  ASSERT_TRUE(scope);
  EXPECT_EQ(&PassContext::current(), ctx.get());
  log->clear();
  EXPECT_EQ(errorMessage(scope->exit()), "%2 failed in exit ctx");
  EXPECT_EQ(*log, (Events{"%1 exit ctx", "%2 exit ctx"}));
  EXPECT_TRUE(ctx->getInstruments().empty());
  EXPECT_NE(&PassContext::current(), ctx.get());
  EXPECT_EQ(&PassContext::current(), &before);
  // The scope has been exited: destroying it calls nothing.
  scope.reset();
  EXPECT_EQ(log->size(), 2u);
}

// The destructor of a scope whose exit fails reports the error on stderr.
TEST_F(InstrumentTest, ExitFailureInDestructorIsReported) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({makeRecorder("%1", log, FailAt::Exit)});
  ::testing::internal::CaptureStderr();
  {
    std::optional<PassContextScope> scope = enterOrFail(ctx);
    ASSERT_TRUE(scope);
  }
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("%1 failed in exit ctx"), std::string::npos) << err;
  EXPECT_EQ(*log, (Events{"%1 enter ctx", "%1 exit ctx"}));
  EXPECT_TRUE(ctx->getInstruments().empty());
  EXPECT_NE(&PassContext::current(), ctx.get());
}

// test_exit_pass_ctx_exception_global: the second override fails in the old
// instrument's exit; the instruments are then empty and the new ones are not
// entered.
TEST_F(InstrumentTest, ExitFailureOnGlobalContext) {
  PassContext &global = PassContext::current();
  ASSERT_FALSE(bool(
      global.overrideInstruments({makeRecorder("%1", log, FailAt::Exit)})));
  EXPECT_EQ(global.getInstruments().size(), 1u);
  Error err = global.overrideInstruments({makeRecorder("%2", log)});
  EXPECT_EQ(errorMessage(std::move(err)), "%1 failed in exit ctx");
  EXPECT_EQ(*log, (Events{"%1 enter ctx", "%1 exit ctx"}));
  EXPECT_TRUE(global.getInstruments().empty());
}

// override_instruments on the default context: exit the old, enter the new;
// the new ones then see the passes run without an entered context.
TEST_F(InstrumentTest, OverrideInstrumentsOnGlobalContext) {
  PassContext &global = PassContext::current();
  ASSERT_FALSE(bool(global.overrideInstruments({makeRecorder("%1", log)})));
  ASSERT_FALSE(bool(global.overrideInstruments({makeRecorder("%2", log)})));
  Expected<Ref<IRModule>> result =
      makeAddFunctionPass("A", nullptr)->run(module);
  ASSERT_TRUE(bool(result)) << toString(result.takeError());
  ASSERT_FALSE(bool(global.overrideInstruments({})));
  EXPECT_EQ(*log, (Events{"%1 enter ctx", "%1 exit ctx", "%2 enter ctx",
                          "%2 should_run A", "%2 run_before A",
                          "%2 run_after A", "%2 exit ctx"}));
  EXPECT_TRUE(global.getInstruments().empty());
}

// override_instruments works on a context that is not entered too.
TEST_F(InstrumentTest, OverrideInstrumentsOnContextNotEntered) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({makeRecorder("%1", log)});
  ASSERT_FALSE(bool(ctx->overrideInstruments({makeRecorder("%2", log)})));
  EXPECT_EQ(*log, (Events{"%1 exit ctx", "%2 enter ctx"}));
  ASSERT_EQ(ctx->getInstruments().size(), 1u);
  EXPECT_EQ(ctx->getInstruments()[0]->getName(), "%2");
}

//===----------------------------------------------------------------------===//
// Failures while passes run
//===----------------------------------------------------------------------===//

// test_pass_exception: no run_after; the error propagates; leaving the scope
// still exits the instruments.
TEST_F(InstrumentTest, PassFailure) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({makeRecorder("%1", log)});
  {
    std::optional<PassContextScope> scope = enterOrFail(ctx);
    ASSERT_TRUE(scope);
    Expected<Ref<IRModule>> result =
        makeAddFunctionPass("Broken", log, 0, /*fail=*/true)->run(module);
    ASSERT_FALSE(bool(result));
    EXPECT_EQ(toString(result.takeError()), "pass Broken failed on purpose");
  }
  EXPECT_EQ(*log, (Events{"%1 enter ctx", "%1 should_run Broken",
                          "%1 run_before Broken", "transform pass Broken",
                          "%1 exit ctx"}));
  EXPECT_EQ(module->size(), 1u);
}

// A failing child stops a Sequential: no run_after for it or the Sequential,
// and the later children do not run.
TEST_F(InstrumentTest, PassFailureInsideSequential) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({makeRecorder("%1", log)});
  std::optional<PassContextScope> scope = enterOrFail(ctx);
  ASSERT_TRUE(scope);
  Ref<Pass> seq =
      createSequential({makeAddFunctionPass("Broken", log, 0, /*fail=*/true),
                        makeAddFunctionPass("Later", log)},
                       PassInfo("seq", 0));
  Expected<Ref<IRModule>> result = seq->run(module);
  ASSERT_FALSE(bool(result));
  EXPECT_EQ(toString(result.takeError()), "pass Broken failed on purpose");
  EXPECT_EQ(*log, (Events{"%1 enter ctx", "%1 should_run seq",
                          "%1 run_before seq", "%1 should_run Broken",
                          "%1 run_before Broken", "transform pass Broken"}));
}

// test_should_run_exception: %1's should_run fails; %2 is not asked, the
// pass does not run.
TEST_F(InstrumentTest, ShouldRunFailure) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments(
      {makeRecorder("%1", log, FailAt::ShouldRun), makeRecorder("%2", log)});
  {
    std::optional<PassContextScope> scope = enterOrFail(ctx);
    ASSERT_TRUE(scope);
    Expected<Ref<IRModule>> result = makeAddFunctionPass("P", log)->run(module);
    ASSERT_FALSE(bool(result));
    EXPECT_EQ(toString(result.takeError()), "%1 failed in should_run P");
  }
  EXPECT_EQ(*log, (Events{"%1 enter ctx", "%2 enter ctx", "%1 should_run P",
                          "%1 exit ctx", "%2 exit ctx"}));
}

// test_run_before_exception: %1's run_before fails after both were asked.
TEST_F(InstrumentTest, RunBeforeFailure) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments(
      {makeRecorder("%1", log, FailAt::RunBefore), makeRecorder("%2", log)});
  {
    std::optional<PassContextScope> scope = enterOrFail(ctx);
    ASSERT_TRUE(scope);
    Expected<Ref<IRModule>> result = makeAddFunctionPass("P", log)->run(module);
    ASSERT_FALSE(bool(result));
    EXPECT_EQ(toString(result.takeError()), "%1 failed in run_before P");
  }
  EXPECT_EQ(*log, (Events{"%1 enter ctx", "%2 enter ctx", "%1 should_run P",
                          "%2 should_run P", "%1 run_before P", "%1 exit ctx",
                          "%2 exit ctx"}));
}

// test_run_after_exception: the pass ran; %1's run_after fails; %2's is not
// called.
TEST_F(InstrumentTest, RunAfterFailure) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments(
      {makeRecorder("%1", log, FailAt::RunAfter), makeRecorder("%2", log)});
  {
    std::optional<PassContextScope> scope = enterOrFail(ctx);
    ASSERT_TRUE(scope);
    Expected<Ref<IRModule>> result = makeAddFunctionPass("P", log)->run(module);
    ASSERT_FALSE(bool(result));
    EXPECT_EQ(toString(result.takeError()), "%1 failed in run_after P");
  }
  EXPECT_EQ(*log, (Events{"%1 enter ctx", "%2 enter ctx", "%1 should_run P",
                          "%2 should_run P", "%1 run_before P",
                          "%2 run_before P", "transform pass P",
                          "%1 run_after P", "%1 exit ctx", "%2 exit ctx"}));
}

// Instruments keep working after a failure in a pass hook (only enter/exit
// failures clear them).
TEST_F(InstrumentTest, InstrumentsSurviveRunHookFailure) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({makeRecorder("%1", log, FailAt::RunAfter)});
  std::optional<PassContextScope> scope = enterOrFail(ctx);
  ASSERT_TRUE(scope);
  Expected<Ref<IRModule>> first =
      makeAddFunctionPass("P", nullptr)->run(module);
  ASSERT_FALSE(bool(first));
  consumeError(first.takeError());
  EXPECT_EQ(ctx->getInstruments().size(), 1u);
}
