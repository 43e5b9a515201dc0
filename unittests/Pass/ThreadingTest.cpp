//===- ThreadingTest.cpp - Pass pipelines on several threads at once ------===//
//
/// \file
/// Pass contexts are per thread and passes are immutable: N threads, each
/// with its own PassContext (its own opt level and recording instrument)
/// entered on its own stack, run their own pipelines on their own parsed
/// modules at the same time, and one shared Pass object is run from every
/// thread at once. Results must be structurally equal to the single-threaded
/// ones, and each instrument must see exactly the events of its own thread.
/// Run it under ThreadSanitizer (docs/Architecture.md, "Sanitizers").
//
//===----------------------------------------------------------------------===//

#include "PassTestUtils.h"

#include "nnir/IR/StructuralEqual.h"

#include "gtest/gtest.h"

#include <atomic>
#include <thread>

using namespace llvm;
using namespace nnir;
using namespace nnir::passtest;

namespace {

constexpr int kThreads = 8;
/// Pipeline runs per thread, so that the threads overlap.
constexpr int kRounds = 10;

/// A module with a chain of `log`, `abs`, `negative` calls in @main and a
/// helper that @main calls.
std::string makeModuleText() {
  std::string text = "#[version = \"0.0.5\"]\n"
                     "def @helper(%y: Tensor[(4), float32]) {\n"
                     "  log(abs(%y))\n"
                     "}\n"
                     "def @main(%x: Tensor[(4), float32]) {\n"
                     "  %0 = @helper(%x);\n";
  int next = 1;
  for (int i = 0; i < 40; ++i) {
    for (const char *op : {"log", "abs", "negative"}) {
      text += "  %" + std::to_string(next) + " = " + op + "(%" +
              std::to_string(next - 1) + ");\n";
      ++next;
    }
  }
  text += "  add(%" + std::to_string(next - 1) + ", %x)\n}\n";
  return text;
}

/// Counts passes that ran under a context other than the thread's current
/// one (the context a pass is given must be PassContext::current()).
std::atomic<int> &wrongContextRuns() {
  static std::atomic<int> count{0};
  return count;
}

/// A function pass rewriting each function with \p rewrite.
Ref<Pass>
makeRewritePass(std::string name, int optLevel,
                std::function<Ref<Function>(const Ref<Function> &)> rewrite) {
  return createFunctionPass(
      [rewrite](Ref<Function> f, const IRModule &,
                PassContext &ctx) -> Expected<Ref<Function>> {
        if (&ctx != &PassContext::current())
          ++wrongContextRuns();
        return rewrite(f);
      },
      PassInfo(name, optLevel));
}

/// A module pass that turns abs into nn.relu in every function and adds
/// @extra (a new function calling @helper).
Ref<Pass> makeModuleRewritePass(std::string name, int optLevel) {
  return createModulePass(
      [](Ref<IRModule> module, PassContext &ctx) -> Expected<Ref<IRModule>> {
        if (&ctx != &PassContext::current())
          ++wrongContextRuns();
        Ref<IRModule> copy = module->shallowCopy();
        for (const IRModule::Entry &entry : module->getFunctions()) {
          Ref<Function> rewritten = replaceOp(entry.func, "abs", "nn.relu");
          if (rewritten != entry.func)
            copy->addOrUpdate(entry.var->getName(), rewritten);
        }
        Ref<Var> z = Var::get("z");
        copy->addOrUpdate(
            "extra",
            Function::get({z}, Call::get(module->getGlobalVar("helper"), {z})));
        ctx.getStatistics().add("extra", "added", 1, "Functions added");
        return copy;
      },
      PassInfo(name, optLevel));
}

/// The pipeline of thread \p id; its pass names start with "t<id>." so that
/// a thread's events can be told from the others'.
Ref<Pass> makePipeline(int id) {
  std::string prefix = "t" + std::to_string(id) + ".";
  Ref<Pass> inner = createSequential(
      {makeRewritePass(prefix + "AddToMultiply", 2,
                       [](const Ref<Function> &f) {
                         return replaceOp(f, "add", "multiply");
                       })},
      PassInfo(prefix + "inner", 1));
  return createSequential({makeRewritePass(prefix + "DoubleLog", 0,
                                           [](const Ref<Function> &f) {
                                             return doubleUnaryArgs(f, {"log"});
                                           }),
                           makeModuleRewritePass(prefix + "AbsToRelu", 1),
                           makeRewritePass(prefix + "NegativeToExp", 3,
                                           [](const Ref<Function> &f) {
                                             return replaceOp(f, "negative",
                                                              "exp");
                                           }),
                           inner},
                          PassInfo(prefix + "pipeline", 0));
}

/// The opt level of thread \p id's context: 3 for even ids, 2 for odd.
int optLevelOf(int id) { return id % 2 == 0 ? 3 : 2; }

/// What one run produced: the result module, the instrument's events and
/// the context's statistics.
struct RunResult {
  Ref<IRModule> module;
  EventLog events;
  int64_t added = 0;
  std::string error;
};

/// Parses the module, enters a fresh context at \p optLevel with a recorder
/// named after \p id, and runs \p pipeline (once per round).
RunResult runPipeline(const Ref<Pass> &pipeline, int id, int optLevel,
                      const std::string &text, int rounds = 1) {
  RunResult out;
  SourceMgr sourceMgr;
  Expected<Ref<IRModule>> parsed = parseModule(text, sourceMgr);
  if (!parsed) {
    out.error = toString(parsed.takeError());
    return out;
  }
  auto log = std::make_shared<EventLog>();
  Ref<PassContext> ctx = PassContext::create();
  ctx->setOptLevel(optLevel);
  ctx->setInstruments({makeRecorder("i" + std::to_string(id), log)});
  {
    Expected<PassContextScope> scope = PassContext::enter(ctx);
    if (!scope) {
      out.error = toString(scope.takeError());
      return out;
    }
    if (&PassContext::current() != ctx.get()) {
      out.error = "the entered context is not current";
      return out;
    }
    for (int round = 0; round < rounds; ++round) {
      log->clear();
      Expected<Ref<IRModule>> result = pipeline->run(*parsed);
      if (!result) {
        out.error = toString(result.takeError());
        return out;
      }
      out.module = *result;
    }
  }
  out.events = *log;
  out.added = ctx->getStatistics().get("extra", "added");
  return out;
}

class ThreadingTest : public ::testing::Test {
protected:
  void SetUp() override {
    // Everything global is registered before the threads start.
    registerAllOps();
    registerPassInfraConfigs();
    ensureInferType();
    wrongContextRuns() = 0;
    text = makeModuleText();
  }

  std::string text;
};

/// Runs \p body(id) on kThreads threads released at the same moment.
void runConcurrently(const std::function<void(int)> &body) {
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int id = 0; id < kThreads; ++id)
    threads.emplace_back([&, id] {
      while (!go.load(std::memory_order_acquire))
        std::this_thread::yield();
      body(id);
    });
  go.store(true, std::memory_order_release);
  for (std::thread &thread : threads)
    thread.join();
}

} // namespace

// Each thread: its own context, pipeline and module.
TEST_F(ThreadingTest, OwnContextsPipelinesAndModules) {
  // Single-threaded reference runs.
  std::vector<RunResult> expected;
  for (int id = 0; id < kThreads; ++id) {
    expected.push_back(runPipeline(makePipeline(id), id, optLevelOf(id), text));
    ASSERT_EQ(expected.back().error, "");
    ASSERT_TRUE(expected.back().module);
  }
  // The pipelines really differ by opt level.
  EXPECT_FALSE(structuralEqual(*expected[0].module, *expected[1].module));
  EXPECT_TRUE(expected[0].module->contains("extra"));

  std::vector<RunResult> results(kThreads);
  runConcurrently([&](int id) {
    results[id] =
        runPipeline(makePipeline(id), id, optLevelOf(id), text, kRounds);
  });

  EXPECT_EQ(wrongContextRuns(), 0);
  for (int id = 0; id < kThreads; ++id) {
    SCOPED_TRACE("thread " + std::to_string(id));
    ASSERT_EQ(results[id].error, "");
    ASSERT_TRUE(results[id].module);
    EXPECT_TRUE(structuralEqual(*results[id].module, *expected[id].module))
        << explainStructuralDifference(*results[id].module,
                                       *expected[id].module);
    EXPECT_EQ(results[id].events, expected[id].events);
    // Only this thread's passes (and the shared InferType) were seen, and
    // this context's exit.
    std::string own = "i" + std::to_string(id) + " ";
    std::string ownPass = "t" + std::to_string(id) + ".";
    for (const std::string &event : results[id].events) {
      EXPECT_EQ(event.rfind(own, 0), 0u) << event;
      EXPECT_TRUE(event.find(ownPass) != std::string::npos ||
                  StringRef(event).ends_with(" InferType") ||
                  event == own + "exit ctx")
          << event;
    }
    EXPECT_EQ(results[id].added, kRounds);
  }
}

// One immutable Sequential shared by every thread, each under its own
// context at its own opt level.
TEST_F(ThreadingTest, SharedPassObject) {
  Ref<Pass> shared = makePipeline(99);
  std::vector<RunResult> expected;
  for (int id = 0; id < kThreads; ++id) {
    expected.push_back(runPipeline(shared, id, optLevelOf(id), text));
    ASSERT_EQ(expected.back().error, "");
  }

  std::vector<RunResult> results(kThreads);
  runConcurrently([&](int id) {
    results[id] = runPipeline(shared, id, optLevelOf(id), text, kRounds);
  });

  EXPECT_EQ(wrongContextRuns(), 0);
  for (int id = 0; id < kThreads; ++id) {
    SCOPED_TRACE("thread " + std::to_string(id));
    ASSERT_EQ(results[id].error, "");
    ASSERT_TRUE(results[id].module);
    EXPECT_TRUE(structuralEqual(*results[id].module, *expected[id].module))
        << explainStructuralDifference(*results[id].module,
                                       *expected[id].module);
    EXPECT_EQ(results[id].events, expected[id].events);
    for (const std::string &event : results[id].events)
      EXPECT_EQ(event.rfind("i" + std::to_string(id) + " ", 0), 0u) << event;
  }
}

// One module shared read-only by every thread: passes never change their
// input, so concurrent pipelines on the same module are safe.
TEST_F(ThreadingTest, SharedInputModule) {
  SourceMgr sourceMgr;
  Ref<IRModule> input = parseOrFail(text, sourceMgr);
  ASSERT_TRUE(input);
  hash_code before = structuralHash(*input);
  Ref<Pass> shared = makePipeline(7);
  Ref<PassContext> refCtx = PassContext::create();
  refCtx->setOptLevel(3);
  Ref<IRModule> expected;
  {
    std::optional<PassContextScope> scope = enterOrFail(refCtx);
    ASSERT_TRUE(scope);
    Expected<Ref<IRModule>> result = shared->run(input);
    ASSERT_TRUE(bool(result)) << toString(result.takeError());
    expected = *result;
  }

  std::vector<Ref<IRModule>> results(kThreads);
  std::vector<int> equal(kThreads, 0);
  runConcurrently([&](int id) {
    Ref<PassContext> ctx = PassContext::create();
    ctx->setOptLevel(3);
    if (Error err = ctx->setConfig("testing.immutable_module", true)) {
      consumeError(std::move(err));
      return;
    }
    Expected<PassContextScope> scope = PassContext::enter(ctx);
    if (!scope) {
      consumeError(scope.takeError());
      return;
    }
    for (int round = 0; round < kRounds; ++round) {
      Expected<Ref<IRModule>> result = shared->run(input);
      if (!result) {
        consumeError(result.takeError());
        return;
      }
      results[id] = *result;
    }
    // Compare concurrently with the shared reference, too.
    equal[id] = structuralEqual(*results[id], *expected);
  });
  for (int id = 0; id < kThreads; ++id) {
    SCOPED_TRACE("thread " + std::to_string(id));
    ASSERT_TRUE(results[id]);
    EXPECT_TRUE(equal[id]);
  }
  EXPECT_EQ(structuralHash(*input), before);
}

// Threads that enter nothing use their own default context; overriding its
// instruments on one thread is invisible to the others.
TEST_F(ThreadingTest, DefaultContextsArePerThread) {
  Ref<Pass> shared = makePipeline(42);
  std::vector<PassContext *> defaults(kThreads, nullptr);
  std::vector<EventLog> logs(kThreads);
  std::vector<int> ok(kThreads, 0);
  std::atomic<int> arrived{0};
  runConcurrently([&](int id) {
    PassContext &global = PassContext::current();
    defaults[id] = &global;
    // Keep every thread (and so its default context) alive until all have
    // taken theirs, so that no address is reused.
    ++arrived;
    while (arrived.load() < kThreads)
      std::this_thread::yield();
    auto log = std::make_shared<EventLog>();
    if (Error err = global.overrideInstruments(
            {makeRecorder("d" + std::to_string(id), log)})) {
      consumeError(std::move(err));
      return;
    }
    SourceMgr sourceMgr;
    Expected<Ref<IRModule>> parsed = parseModule(text, sourceMgr);
    if (!parsed) {
      consumeError(parsed.takeError());
      return;
    }
    Expected<Ref<IRModule>> result = shared->run(*parsed);
    if (!result) {
      consumeError(result.takeError());
      return;
    }
    if (Error err = global.overrideInstruments({})) {
      consumeError(std::move(err));
      return;
    }
    logs[id] = *log;
    ok[id] = 1;
  });
  for (int id = 0; id < kThreads; ++id) {
    SCOPED_TRACE("thread " + std::to_string(id));
    EXPECT_TRUE(ok[id]);
    EXPECT_NE(defaults[id], &PassContext::current());
    for (int other = 0; other < id; ++other)
      EXPECT_NE(defaults[id], defaults[other]);
    std::string own = "d" + std::to_string(id) + " ";
    ASSERT_FALSE(logs[id].empty());
    EXPECT_EQ(logs[id].front(), own + "enter ctx");
    EXPECT_EQ(logs[id].back(), own + "exit ctx");
    for (const std::string &event : logs[id])
      EXPECT_EQ(event.rfind(own, 0), 0u) << event;
    EXPECT_EQ(logs[id].size(), logs[0].size());
  }
}
