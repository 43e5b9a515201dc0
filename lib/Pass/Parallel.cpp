//===- Parallel.cpp - Run the parts of a pass on the context's pool -------===//
//
/// \file
/// parallelForEach(): tasks on the PassContext's thread pool under task
/// contexts, merged in task order.
//
//===----------------------------------------------------------------------===//

#include "nnir/Pass/Parallel.h"

#include "nnir/Support/PoolLoop.h"

#include "llvm/Support/ThreadPool.h"

#include <atomic>
#include <memory>
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
} // namespace

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
  runPoolLoop(*pool, ctx.getNumThreads(), n, runTask);

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
  runPoolLoop(*pool, ctx.getNumThreads(), functions.size(),
              [&](size_t i) { functions[i].reset(); });
}
