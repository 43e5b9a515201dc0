//===- PassInstrument.h - Hooks around passes --------------------*- C++ -*-===//
//
/// \file
/// A PassInstrument observes (and may veto) the passes run under a
/// PassContext, at TVM's four points: entering and exiting the context, asking
/// whether a pass should run, and before and after each pass that runs.
///
/// Failures are llvm::Errors (nnir is built without exceptions), with TVM's
/// semantics:
///  - an error in enterPassContext: the instruments already entered are exited
///    in reverse order, the context's instruments are cleared, the error is
///    returned and the context is not entered;
///  - an error in exitPassContext: the remaining exits are not called, the
///    instruments are cleared, the error is returned (the context has already
///    been left);
///  - an error in shouldRun, runBeforePass or runAfterPass: the remaining
///    instruments are not called for that point and the error propagates out
///    of the pass run;
///  - a pass that fails: runAfterPass is not called.
///
/// Instruments are shared (std::shared_ptr) so that one instrument can watch
/// several contexts; each context calls its instruments from the thread that
/// runs its passes.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_PASS_PASSINSTRUMENT_H
#define NNIR_PASS_PASSINSTRUMENT_H

#include "nnir/Pass/PassInfo.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace nnir {

class IRModule;

class PassInstrument {
public:
  explicit PassInstrument(llvm::StringRef name) : name(name.str()) {}
  virtual ~PassInstrument();

  llvm::StringRef getName() const { return name; }

  /// True if the instrument also follows the pipelines a pass runs on its
  /// own behalf under a nested context (PassContext::createNestedContext():
  /// FoldConstant's evaluations), so they show up under the pass. Timing
  /// does; instruments that print or check the user's module do not.
  virtual bool followsNestedPipelines() const { return false; }

  /// What an instrument recorded while one task of a pass ran on a worker
  /// thread (a function of a FunctionPass run on the context's thread pool,
  /// nnir/Pass/Parallel.h).
  class TaskRecord {
  public:
    virtual ~TaskRecord();
  };
  /// Tasks: the instruments that follow nested pipelines also see the
  /// pipelines a task runs, on the worker, under a task context. beginTask()
  /// is called on the worker before the task and endTask() after it; the
  /// record endTask() returns is handed to mergeTask() on the thread that
  /// runs the pass, in the order of the tasks (functions), after all of them
  /// ran, so what the instrument reports is what one thread would have
  /// recorded. The defaults record nothing.
  virtual void beginTask() {}
  virtual std::unique_ptr<TaskRecord> endTask() { return nullptr; }
  virtual void mergeTask(std::unique_ptr<TaskRecord> record) {}

  virtual llvm::Error enterPassContext() { return llvm::Error::success(); }
  virtual llvm::Error exitPassContext() { return llvm::Error::success(); }
  /// Asked of every instrument (no short circuit) before a pass, except for
  /// passes named in the context's requiredPasses. The pass runs only if all
  /// answer true; a skipped pass gets neither runBeforePass nor runAfterPass.
  virtual llvm::Expected<bool> shouldRun(const IRModule &module,
                                         const PassInfo &info) {
    return true;
  }
  virtual llvm::Error runBeforePass(const IRModule &module,
                                    const PassInfo &info) {
    return llvm::Error::success();
  }
  /// \p module is the pass's result.
  virtual llvm::Error runAfterPass(const IRModule &module,
                                   const PassInfo &info) {
    return llvm::Error::success();
  }

private:
  std::string name;
};

} // namespace nnir

#endif // NNIR_PASS_PASSINSTRUMENT_H
