//===- Parallel.h - Run the parts of a pass on the context's pool -*- C++ -*-===//
//
/// \file
/// MLIR's pass manager runs a function pass on the module's functions in
/// parallel and keeps its diagnostics in the order of the functions;
/// parallelForEach() does the same for nnir's passes, on the thread pool of
/// the PassContext (PassContext::setThreadPool):
///
///  - each task (a function) runs under a task context of its own
///    (PassContext::createTaskContext()), entered on the worker, so that
///    PassContext::current() is the context the task is given;
///  - what the task records there (statistics, remarks, warnings, and the
///    nested pipelines that instruments following them see) is merged into
///    the caller's context in task order once every task is done;
///  - the result is the error of the first task (in task order) that
///    failed; nothing a later task recorded is merged, as one thread would
///    have stopped there.
///
/// The calling thread counts as one of the context's threads
/// (nnir/Support/PoolLoop.h): a loop whose workers are late or busy takes at
/// most its serial time.
///
/// Without a pool (or with one thread, or one task) the tasks run in order
/// on the calling thread under \p ctx itself, stopping at the first error.
/// Tasks must not share mutable state: each writes its own result slot.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_PASS_PARALLEL_H
#define NNIR_PASS_PARALLEL_H

#include "nnir/IR/Module.h"
#include "nnir/Pass/PassContext.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstddef>

namespace nnir {

/// Runs \p task(i, taskContext) for every i in [0, \p n), in parallel on
/// \p ctx's thread pool when it has one (see the file comment).
llvm::Error
parallelForEach(PassContext &ctx, size_t n,
                llvm::function_ref<llvm::Error(size_t i, PassContext &taskCtx)>
                    task);

/// Drops \p module. If that was its last reference and \p ctx has a thread
/// pool, its functions are released in parallel, so that the nodes only
/// they held are freed on all of the context's threads: a pass that
/// rewrites every function leaves the old ones for the pass manager to
/// free, which would otherwise be a serial step between parallel passes.
void releaseInParallel(Ref<IRModule> module, PassContext &ctx);

} // namespace nnir

#endif // NNIR_PASS_PARALLEL_H
