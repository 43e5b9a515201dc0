//===- Parallel.cpp - Run the parts of a pass on the context's pool -------===//
//
/// \file
/// parallelForEach(): tasks on the PassContext's thread pool under task
/// contexts, merged in task order.
//
//===----------------------------------------------------------------------===//

#include "nnir/Pass/Parallel.h"

#include "llvm/Support/ThreadPool.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

using namespace llvm;
using namespace nnir;

namespace {
/// One task's context, outcome and instrument records.
struct TaskState {
  Ref<PassContext> context;
  std::vector<std::unique_ptr<PassInstrument::TaskRecord>> records;
  Error error = Error::success();
  bool ran = false;
};

/// The claims of one parallelForEach, shared with the pool's workers: a
/// worker that starts after the loop has returned finds nothing to claim and
/// touches only this object, never the caller's stack.
struct Claims {
  std::atomic<size_t> next{0};
  size_t n = 0;
  /// Workers between their first claim attempt and their last task's end.
  std::mutex mutex;
  std::condition_variable idle;
  unsigned busy = 0;
  /// The caller's per-task body; valid while busy > 0 or the caller runs.
  std::function<void(size_t)> run;

  /// Claims and runs tasks until none is left.
  void drain() {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1))
      run(i);
  }
  /// A worker's share: counted busy before it claims, so the caller, which
  /// waits for busy == 0 after its own claims ran out, never returns while
  /// a worker runs a task it claimed.
  void work() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      ++busy;
    }
    drain();
    std::lock_guard<std::mutex> lock(mutex);
    if (--busy == 0)
      idle.notify_all();
  }
};
} // namespace

/// Runs \p body(i) for every i in [0, \p n) on \p threads threads: the
/// calling thread and threads - 1 workers of \p pool.
///
/// The calling thread claims tasks too, and waits only for tasks a worker
/// has claimed, never for a worker to start. A worker that wakes late (its
/// core busy, or a virtual CPU the host has not scheduled yet: tens of
/// milliseconds on a shared machine) finds the tasks claimed, so the loop
/// takes at most its serial time.
static void runClaimed(ThreadPoolInterface &pool, size_t threads, size_t n,
                       std::function<void(size_t)> body) {
  auto claims = std::make_shared<Claims>();
  claims->n = n;
  claims->run = std::move(body);
  for (size_t w = 1; w < threads; ++w)
    pool.async([claims] { claims->work(); });
  claims->drain();
  std::unique_lock<std::mutex> lock(claims->mutex);
  claims->idle.wait(lock, [&] { return claims->busy == 0; });
  // A worker that has not started yet will find nothing to claim and must
  // not call the body, whose captures die with the caller's frame.
  claims->run = nullptr;
}

Error nnir::parallelForEach(
    PassContext &ctx, size_t n,
    function_ref<Error(size_t i, PassContext &taskCtx)> task) {
  ThreadPoolInterface *pool = ctx.getThreadPool();
  if (!pool || ctx.getNumThreads() < 2 || n < 2) {
    for (size_t i = 0; i != n; ++i)
      if (Error err = task(i, ctx))
        return err;
    return Error::success();
  }

  std::vector<TaskState> states(n);
  for (TaskState &state : states)
    state.context = ctx.createTaskContext();
  // Tasks after the first failure are not started: their output would be
  // dropped, as one thread would not have run them.
  std::atomic<size_t> firstFailure{n};
  auto runTask = [&](size_t i) {
    if (i > firstFailure.load(std::memory_order_relaxed))
      return;
    TaskState &state = states[i];
    ArrayRef<std::shared_ptr<PassInstrument>> instruments =
        state.context->getInstruments();
    PassContextScope scope = PassContext::enterTask(state.context);
    for (const std::shared_ptr<PassInstrument> &instrument : instruments)
      instrument->beginTask();
    state.error = task(i, *state.context);
    for (const std::shared_ptr<PassInstrument> &instrument : instruments)
      state.records.push_back(instrument->endTask());
    consumeError(scope.exit()); // A task scope calls no instrument.
    state.ran = true;
    if (state.error) {
      size_t seen = firstFailure.load();
      while (i < seen && !firstFailure.compare_exchange_weak(seen, i))
        ;
    }
  };
  runClaimed(*pool, std::min<size_t>(ctx.getNumThreads(), n), n,
             [&](size_t i) { runTask(i); });

  // Merge in task order, up to the first failure.
  Error result = Error::success();
  bool failed = false;
  for (size_t i = 0; i != n; ++i) {
    TaskState &state = states[i];
    if (failed || !state.ran) {
      consumeError(std::move(state.error));
      continue;
    }
    ctx.replay(*state.context);
    ArrayRef<std::shared_ptr<PassInstrument>> instruments =
        state.context->getInstruments();
    for (size_t k = 0, e = state.records.size(); k != e; ++k)
      instruments[k]->mergeTask(std::move(state.records[k]));
    if (state.error) {
      failed = true;
      result = std::move(state.error);
    }
  }
  return result;
}

void nnir::releaseInParallel(Ref<IRModule> module, PassContext &ctx) {
  ThreadPoolInterface *pool = ctx.getThreadPool();
  if (!pool || ctx.getNumThreads() < 2 || !module ||
      module->getRefCount() != 1 || module->getFunctions().size() < 2)
    return;
  std::vector<Ref<Function>> functions;
  functions.reserve(module->getFunctions().size());
  for (const IRModule::Entry &entry : module->getFunctions())
    functions.push_back(entry.func);
  module.reset();
  runClaimed(*pool, std::min<size_t>(ctx.getNumThreads(), functions.size()),
             functions.size(), [&](size_t i) { functions[i].reset(); });
}
