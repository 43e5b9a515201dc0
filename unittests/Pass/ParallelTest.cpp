//===- ParallelTest.cpp - Function passes on the context's thread pool ----===//
//
/// \file
/// A function pass run with a thread pool in its PassContext gives what one
/// thread gives: the same module, statistics, remarks and warnings in
/// function order, the same timing tree (nested pipelines under the pass,
/// in function order), and the first failing function's error with nothing
/// recorded by later functions. Each task sees its task context as
/// PassContext::current(). Run it under ThreadSanitizer too
/// (docs/Architecture.md, "Sanitizers").
//
//===----------------------------------------------------------------------===//

#include "PassTestUtils.h"

#include "nnir/IR/StructuralEqual.h"
#include "nnir/Pass/Instruments.h"
#include "nnir/Pass/Parallel.h"

#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include "gtest/gtest.h"

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <set>
#include <thread>

using namespace llvm;
using namespace nnir;
using namespace nnir::passtest;

namespace {

constexpr int kFunctions = 24;

/// @f0 ... @f23, each a chain of `log` and `abs` calls (longer ones first,
/// so that the tasks finish out of order).
std::string makeModuleText() {
  std::string text = "#[version = \"0.0.5\"]\n";
  for (int f = 0; f < kFunctions; ++f) {
    text += "def @f" + std::to_string(f) + "(%x: Tensor[(4), float32]) {\n";
    int length = 4 + 8 * (kFunctions - f);
    text += "  %0 = log(%x);\n";
    for (int i = 1; i < length; ++i)
      text += "  %" + std::to_string(i) + " = " + (i % 2 ? "abs" : "log") +
              "(%" + std::to_string(i - 1) + ");\n";
    text += "  %" + std::to_string(length - 1) + "\n}\n";
  }
  return text;
}

/// Takes every remark, as text.
class ListSink final : public RemarkSink {
public:
  bool isEnabled(RemarkKind, StringRef) const override { return true; }
  void emit(const Remark &remark) override {
    lines.push_back((remark.getName() + ": " + remark.getMessage()).str());
  }
  std::vector<std::string> lines;
};

/// What one run gave.
struct Outcome {
  Ref<IRModule> module;
  std::string error;
  std::string statistics;
  std::vector<std::string> remarks;
  std::vector<std::string> warnings;
  /// The pass names of the timing tree, in pre-order.
  std::vector<std::string> timing;
  /// Tasks that ran under a context other than PassContext::current().
  int wrongContext = 0;
  /// Threads the functions ran on.
  size_t threads = 0;
};

/// The function's number: 7 for @f7.
int functionNumber(const IRModule &module, const Function &func) {
  for (const IRModule::Entry &entry : module.getFunctions())
    if (entry.func.get() == &func)
      return std::stoi(entry.var->getName().substr(1).str());
  return -1;
}

/// A function pass that turns abs into negative and, per function, adds to
/// statistics, emits a remark and a warning, and runs a nested pipeline
/// named after the function (seen by the timing instrument). It fails on
/// the functions in \p failOn.
Ref<Pass> makeRecordingPass(std::set<int> failOn, std::atomic<int> &wrong,
                            std::mutex &threadsMutex,
                            std::set<std::thread::id> &threads) {
  return createFunctionPass(
      [failOn, &wrong, &threadsMutex,
       &threads](Ref<Function> func, const IRModule &module,
                 PassContext &ctx) -> Expected<Ref<Function>> {
        if (&ctx != &PassContext::current())
          ++wrong;
        {
          std::lock_guard<std::mutex> lock(threadsMutex);
          threads.insert(std::this_thread::get_id());
        }
        int number = functionNumber(module, *func);
        std::string name = "f" + std::to_string(number);
        ctx.getStatistics().add("Recording", "functions", 1, "Functions seen");
        ctx.getStatistics().add("Recording", "numbers", number,
                                "Sum of function numbers");
        if (number % 5 == 0)
          ctx.getStatistics().add("Recording", "fifths", 1,
                                  "Functions numbered 5k");
        ctx.emitRemark(Remark(RemarkKind::Passed, "Recording", name, SMLoc())
                       << "seen " << name);
        ctx.emitWarning(SMLoc(), "warning from " + name);
        // A nested pipeline, timed under this pass.
        Ref<PassContext> nested = ctx.createNestedContext();
        std::optional<PassContextScope> scope = enterOrFail(nested);
        Ref<Pass> inner = createModulePass(
            [](Ref<IRModule> m, PassContext &) -> Expected<Ref<IRModule>> {
              return m;
            },
            PassInfo("nested-" + name, 0));
        if (Expected<Ref<IRModule>> ran = inner->run(IRModule::create()); !ran)
          return ran.takeError();
        if (failOn.count(number))
          return makeError("failed on @" + name);
        return replaceOp(func, "abs", "negative");
      },
      PassInfo("Recording", 0));
}

/// Fills in what \p out takes from the context after a run.
Outcome &finish(Outcome &out, const PassContext &ctx, const ListSink &sink,
                const std::atomic<int> &wrong,
                const std::set<std::thread::id> &threadIds) {
  raw_string_ostream os(out.statistics);
  ctx.getStatistics().print(os);
  out.remarks = sink.lines;
  out.wrongContext = wrong;
  out.threads = threadIds.size();
  return out;
}

/// Runs the recording pass on the module under a context with \p threads
/// threads (1: no pool).
Outcome run(unsigned threads, std::set<int> failOn = {}) {
  Outcome out;
  SourceMgr sourceMgr;
  Ref<IRModule> module = parseOrFail(makeModuleText(), sourceMgr);
  if (!module)
    return out;
  Ref<PassContext> ctx = PassContext::create();
  if (threads > 1)
    ctx->setThreadPool(
        std::make_shared<DefaultThreadPool>(hardware_concurrency(threads)));
  auto sink = std::make_shared<ListSink>();
  ctx->setRemarkSink(sink);
  ctx->setWarningHandler([&](SMLoc, const Twine &message) {
    out.warnings.push_back(message.str());
  });
  std::shared_ptr<PassTimingInstrument> timing = PassTimingInstrument::create();
  ctx->setInstruments({timing});
  std::atomic<int> wrong{0};
  std::mutex threadsMutex;
  std::set<std::thread::id> threadIds;
  {
    std::optional<PassContextScope> scope = enterOrFail(ctx);
    Expected<Ref<IRModule>> result =
        makeRecordingPass(failOn, wrong, threadsMutex, threadIds)->run(module);
    if (!result) {
      // A failed pass never ends: there is no timing report.
      out.error = toString(result.takeError());
      consumeError(scope->exit());
      return finish(out, *ctx, *sink, wrong, threadIds);
    }
    out.module = *result;
    Expected<std::string> tree = timing->renderTree();
    if (!tree) {
      ADD_FAILURE() << toString(tree.takeError());
    } else {
      // "    0.0011 ( 91.7%)    0.0001 (  8.3%)    nested-f3": the name of
      // each line with both times (not "Total").
      SmallVector<StringRef, 64> lines;
      StringRef(*tree).split(lines, '\n');
      for (StringRef l : lines)
        if (l.count("%)") == 2)
          out.timing.push_back(l.rsplit(' ').second.str());
    }
  }
  return finish(out, *ctx, *sink, wrong, threadIds);
}

class ParallelTest : public ::testing::Test {
protected:
  void SetUp() override {
    registerAllOps();
    registerPassInfraConfigs();
    ensureInferType();
  }
};

TEST_F(ParallelTest, SameAsOneThread) {
  Outcome one = run(1);
  Outcome four = run(4);
  ASSERT_EQ(one.error, "");
  ASSERT_EQ(four.error, "");
  ASSERT_TRUE(one.module && four.module);
  EXPECT_TRUE(structuralEqual(*one.module, *four.module));
  EXPECT_EQ(one.statistics, four.statistics);
  EXPECT_EQ(one.remarks, four.remarks);
  EXPECT_EQ(one.warnings, four.warnings);
  EXPECT_EQ(one.timing, four.timing);
  EXPECT_EQ(one.wrongContext, 0);
  EXPECT_EQ(four.wrongContext, 0);
  EXPECT_EQ(one.threads, 1u);

  // What one thread records, in function order.
  ASSERT_EQ(one.remarks.size(), size_t(kFunctions));
  EXPECT_EQ(one.remarks.front(), "f0: seen f0");
  EXPECT_EQ(one.remarks.back(), "f23: seen f23");
  EXPECT_EQ(one.warnings[7], "warning from f7");
  EXPECT_NE(one.statistics.find("24 Recording - Functions seen"),
            std::string::npos)
      << one.statistics;
  EXPECT_NE(one.statistics.find("276 Recording - Sum of function numbers"),
            std::string::npos)
      << one.statistics;
  // The timing tree: the pass, then (after its InferType) the nested
  // pipelines in function order under it.
  ASSERT_GE(one.timing.size(), size_t(kFunctions + 1));
  EXPECT_EQ(one.timing[0], "Recording");
  EXPECT_EQ(one.timing[1], "nested-f0");
  EXPECT_EQ(one.timing[kFunctions], "nested-f23");
}

TEST_F(ParallelTest, FirstFailureInFunctionOrder) {
  Outcome one = run(1, {9, 5, 17});
  Outcome four = run(4, {9, 5, 17});
  EXPECT_EQ(one.error, "failed on @f5");
  EXPECT_EQ(four.error, "failed on @f5");
  EXPECT_EQ(one.remarks, four.remarks);
  EXPECT_EQ(one.warnings, four.warnings);
  EXPECT_EQ(one.statistics, four.statistics);
  // Nothing from the functions after the failing one.
  ASSERT_EQ(four.remarks.size(), 6u);
  EXPECT_EQ(four.remarks.back(), "f5: seen f5");
}

TEST_F(ParallelTest, CallerRunsTasksWhenWorkersAreBusy) {
  // Every worker of the pool is held by another job (as a worker that has
  // not been scheduled yet would be): the calling thread runs every task
  // itself and returns without waiting for a worker.
  Ref<PassContext> ctx = PassContext::create();
  auto pool = std::make_shared<DefaultThreadPool>(hardware_concurrency(2));
  ctx->setThreadPool(pool);
  ASSERT_EQ(ctx->getNumThreads(), 2u);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> held{0};
  for (int w = 0; w < 2; ++w)
    pool->async([&held, released] {
      ++held;
      released.wait();
    });
  while (held.load() < 2)
    std::this_thread::yield();

  std::vector<char> onCaller(16, 0);
  auto loop = std::async(std::launch::async, [&] {
    std::thread::id self = std::this_thread::get_id();
    Error err = parallelForEach(*ctx, onCaller.size(),
                                [&](size_t i, PassContext &) {
                                  onCaller[i] =
                                      std::this_thread::get_id() == self;
                                  return Error::success();
                                });
    return err;
  });
  bool finished =
      loop.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  release.set_value(); // Lets a loop that waits for the workers finish.
  Error err = loop.get();
  ASSERT_FALSE(bool(err)) << toString(std::move(err));
  EXPECT_TRUE(finished) << "the loop waited for busy workers";
  for (size_t i = 0; i != onCaller.size(); ++i)
    EXPECT_TRUE(onCaller[i]) << i;
  pool->wait();
}

TEST_F(ParallelTest, TasksRunOnTheirOwnContexts) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setOptLevel(3);
  ASSERT_FALSE(
      bool(ctx->setConfig("testing.immutable_module", OptionValue(true))));
  ctx->setThreadPool(
      std::make_shared<DefaultThreadPool>(hardware_concurrency(3)));
  EXPECT_EQ(ctx->getNumThreads(), 3u);
  std::vector<PassContext *> seen(50, nullptr);
  std::vector<int> levels(50, 0);
  // Not vector<bool>: its bits share words, and the tasks write concurrently.
  std::vector<char> configs(50, 0);
  Error err =
      parallelForEach(*ctx, seen.size(), [&](size_t i, PassContext &task) {
        seen[i] = &PassContext::current();
        levels[i] = task.getOptLevel();
        configs[i] = task.getConfigBool("testing.immutable_module", false);
        EXPECT_EQ(task.getThreadPool(), ctx->getThreadPool());
        return Error::success();
      });
  ASSERT_FALSE(bool(err)) << toString(std::move(err));
  for (size_t i = 0; i != seen.size(); ++i) {
    EXPECT_NE(seen[i], ctx.get()) << i;
    EXPECT_EQ(levels[i], 3) << i;
    EXPECT_TRUE(configs[i]) << i;
  }

  // Nested loops (a task that runs a loop of its own) wait on their group.
  std::atomic<int> inner{0};
  err = parallelForEach(*ctx, 8, [&](size_t, PassContext &task) {
    return parallelForEach(task, 8, [&](size_t, PassContext &) {
      ++inner;
      return Error::success();
    });
  });
  ASSERT_FALSE(bool(err)) << toString(std::move(err));
  EXPECT_EQ(inner.load(), 64);
}

} // namespace

TEST_F(ParallelTest, ReleaseInParallelFreesTheFunctions) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setThreadPool(
      std::make_shared<DefaultThreadPool>(hardware_concurrency(2)));
  SourceMgr sourceMgr;
  Ref<IRModule> module = parseOrFail(makeModuleText(), sourceMgr);
  ASSERT_TRUE(module);
  // Each function's body is held here too; its count says whether the
  // function still holds it.
  std::vector<Ref<Expr>> bodies;
  for (const IRModule::Entry &entry : module->getFunctions())
    bodies.push_back(entry.func->getBody());
  ASSERT_EQ(bodies.size(), size_t(kFunctions));
  ASSERT_EQ(bodies[3]->getRefCount(), 2u);

  // Another reference to the module: nothing is released.
  Ref<IRModule> other = module;
  releaseInParallel(std::move(module), *ctx);
  EXPECT_FALSE(module);
  for (const Ref<Expr> &body : bodies)
    EXPECT_EQ(body->getRefCount(), 2u);

  // The last reference: every function is freed, and nothing else.
  releaseInParallel(std::move(other), *ctx);
  EXPECT_FALSE(other);
  for (const Ref<Expr> &body : bodies)
    EXPECT_EQ(body->getRefCount(), 1u);
}
