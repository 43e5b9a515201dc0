//===- Instruments.h - Built-in pass instruments ----------------*- C++ -*-===//
//
/// \file
/// The instruments behind nnir-opt's debugging flags:
///
///  - PassTimingInstrument (`--time-passes`): a nested tree of wall times,
///    rendered like TVM's PassTimingInstrument or MLIR's `-mlir-timing`;
///  - PrintIRInstrument (`--print-ir-before=`, `--print-ir-after=`,
///    `--print-ir-before-all`, `--print-ir-after-all`): the module before or
///    after selected passes, under MLIR's banner;
///  - PrintChangedInstrument (`--print-changed`): the module (or a unified
///    diff) only after passes that changed it;
///  - VerifyEachInstrument (`--verify-each`): the verifier and the type check
///    after every pass, with an error naming the pass that broke the module.
///
/// Every pass that runs through Pass::run is seen, including the Sequentials
/// of a pipeline, the passes a Sequential runs because they are required, and
/// passes run by another pass. Each instrument keeps its state per thread, so
/// one instrument may be shared by contexts running on several threads;
/// output of one event is written to the stream in one piece, under a lock.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_PASS_INSTRUMENTS_H
#define NNIR_PASS_INSTRUMENTS_H

#include "nnir/IR/Printer.h"
#include "nnir/Pass/PassInstrument.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace nnir {

//===----------------------------------------------------------------------===//
// PassTimingInstrument
//===----------------------------------------------------------------------===//

/// Times every pass with std::chrono::steady_clock. A pass that runs while
/// another is running (on the same thread) is recorded as its child. As in
/// TVM, the profile is per thread (render() shows the calling thread's
/// passes) and leaving a context clears it, so render before leaving (or
/// give a stream to create(), which writes the report then); unlike TVM,
/// leaving a context entered inside a running pass keeps the profile.
class PassTimingInstrument final : public PassInstrument {
public:
  /// How a report is laid out: TVM's lines (render()), MLIR's tree
  /// (renderTree()) or JSON (renderJSON()).
  enum class Display { TVM, Tree, JSON };

  /// An instrument whose profile is read with render() / renderTree().
  static std::shared_ptr<PassTimingInstrument> create();
  /// An instrument that also writes its report to \p os when a context is
  /// left (before the profile is cleared), as mlir-opt does with
  /// `-mlir-timing`; nothing is written when nothing was profiled.
  static std::shared_ptr<PassTimingInstrument> create(llvm::raw_ostream &os,
                                                      Display display);

  /// TVM's render(): one line per pass, in pre-order, children in run order:
  ///
  ///   <'\t' x depth><name>: <total>us [<self>us] (<% of all>%; <% of parent>%)
  ///
  /// with times in whole microseconds and percentages with two decimals;
  /// "self" excludes the children, "% of all" is relative to the sum of the
  /// top-level passes (which is also the "parent" of a top-level pass).
  /// Returns "" when nothing was profiled, and an error when called while a
  /// pass is running on this thread.
  llvm::Expected<std::string> render() const;

  /// An MLIR `-mlir-timing`-like report of the same tree:
  ///
  ///   ===-------------------------------------------------------------------------===
  ///                            ... Execution time report ...
  ///   ===-------------------------------------------------------------------------===
  ///     Total Execution Time: 0.0012 seconds
  ///
  ///     ----Wall Time----  ----Self Time----  ----Name----
  ///       0.0011 ( 91.7%)    0.0001 (  8.3%)  sequential
  ///       0.0006 ( 50.0%)    0.0006 ( 50.0%)    InferType
  ///       0.0012 (100.0%)                     Total
  ///
  /// Times are in seconds; both percentages are of the total (the sum of the
  /// top-level passes); names are indented two spaces per nesting level.
  /// Same empty and error cases as render().
  llvm::Expected<std::string> renderTree() const;

  /// The same tree as JSON (MLIR's --mlir-output-format=json in spirit):
  ///
  ///   {"total": {"wall": 0.0012, "user": 0.0011},
  ///    "passes": [{"name": "sequential", "wall": 0.0011, "self": 0.0001,
  ///                "user": 0.0010, "passes": [...]}, ...]}
  ///
  /// Times in seconds; "user" is the process's user CPU time while the pass
  /// ran (all threads), "self" the wall time minus the children's.
  llvm::Expected<std::string> renderJSON() const;

  /// Records work measured elsewhere (the execution engine's compile and
  /// run time) as a finished entry named \p name that took \p durationUs:
  /// a child of the pass running on this thread, or a top-level entry.
  void addTiming(llvm::StringRef name, double durationUs);

  /// Nested pipelines are timed under the pass that runs them.
  bool followsNestedPipelines() const override { return true; }
  /// A task's passes are recorded on its worker and nested under the pass
  /// that ran the tasks, in task order.
  void beginTask() override;
  std::unique_ptr<TaskRecord> endTask() override;
  void mergeTask(std::unique_ptr<TaskRecord> record) override;

  llvm::Error exitPassContext() override;
  llvm::Error runBeforePass(const IRModule &module,
                            const PassInfo &info) override;
  llvm::Error runAfterPass(const IRModule &module,
                           const PassInfo &info) override;

  ~PassTimingInstrument() override;

  /// Per-thread state (defined in Instruments.cpp).
  struct Impl;

private:
  PassTimingInstrument(llvm::raw_ostream *os, Display display);
  /// Where exitPassContext writes the report, or null.
  llvm::raw_ostream *os;
  Display display;
  std::unique_ptr<Impl> impl;
};

/// Adds \p name (\p durationUs) under the running pass of every
/// PassTimingInstrument of the current PassContext (PassContext::current()),
/// so that `--time-passes` shows it nested; nothing when none is there.
void addTimingToCurrentPass(llvm::StringRef name, double durationUs);

//===----------------------------------------------------------------------===//
// PrintIRInstrument
//===----------------------------------------------------------------------===//

/// Numbers the passes that run under one context in the order they start,
/// from 1, as LLVM's -print-pass-numbers does: a Sequential and each pass it
/// runs (required ones included) get a number each.
class PassNumbering {
public:
  /// The number of the pass that starts now.
  unsigned begin() {
    stack.push_back(++count);
    return count;
  }
  /// The number of the innermost pass that started and has not ended.
  unsigned current() const { return stack.empty() ? 0 : stack.back(); }
  /// Ends the innermost pass (after current()).
  void end() {
    if (!stack.empty())
      stack.pop_back();
  }

private:
  unsigned count = 0;
  std::vector<unsigned> stack;
};

struct PrintIROptions {
  /// Print before the passes with these names.
  std::vector<std::string> before;
  /// Print after the passes with these names.
  std::vector<std::string> after;
  /// Print after the passes with these numbers (PassNumbering).
  std::vector<unsigned> afterNumbers;
  bool beforeAll = false;
  bool afterAll = false;
  PrintOptions printOptions;
  /// When set, each dump goes to a file of its own in this directory
  /// (created if missing) instead of the stream:
  /// `NNN-before|after-PASS-NAME.nnir`, NNN the pass's number, NAME
  /// dumpName. The banner stays the file's first line.
  std::string dumpDirectory;
  std::string dumpName = "module";
};

/// Prints the module before and/or after the selected passes:
///
///   // -----// IR Dump Before InferType //----- //
///   <module>
///   <empty line>
class PrintIRInstrument final : public PassInstrument {
public:
  static std::shared_ptr<PrintIRInstrument> create(llvm::raw_ostream &os,
                                                   PrintIROptions options);

  llvm::Error runBeforePass(const IRModule &module,
                            const PassInfo &info) override;
  llvm::Error runAfterPass(const IRModule &module,
                           const PassInfo &info) override;

private:
  PrintIRInstrument(llvm::raw_ostream &os, PrintIROptions options);
  /// Writes one dump: on the stream, or into its file.
  llvm::Error write(llvm::StringRef when, llvm::StringRef pass,
                    unsigned number, const IRModule &module);
  llvm::raw_ostream &os;
  PrintIROptions options;
  PassNumbering numbering;
};

//===----------------------------------------------------------------------===//
// PassNumbersInstrument
//===----------------------------------------------------------------------===//

/// Prints `Running pass N NAME` before each pass (LLVM's
/// -print-pass-numbers), numbered as PassNumbering does, so that
/// --print-after-pass-number=N can pick one run of a pass.
class PassNumbersInstrument final : public PassInstrument {
public:
  static std::shared_ptr<PassNumbersInstrument> create(llvm::raw_ostream &os);

  llvm::Error runBeforePass(const IRModule &module,
                            const PassInfo &info) override;
  llvm::Error runAfterPass(const IRModule &module,
                           const PassInfo &info) override;

private:
  explicit PassNumbersInstrument(llvm::raw_ostream &os);
  llvm::raw_ostream &os;
  PassNumbering numbering;
};

//===----------------------------------------------------------------------===//
// PrintChangedInstrument
//===----------------------------------------------------------------------===//

struct PrintChangedOptions {
  /// Print a unified diff against the previous module instead of the module.
  bool diff = false;
  /// Print `// IR unchanged after X` after the passes that changed nothing.
  bool verbose = false;
  PrintOptions printOptions;
};

/// After each pass, prints the module if the pass changed it: the result is
/// compared with the pass's input (the same object is unchanged; otherwise
/// their printed texts are compared). A pass whose changes were all made by
/// the passes it ran inside (a Sequential, whose children already showed
/// them) prints nothing itself; a pass that also changed the module between
/// them (a function pass followed by its InferType) is shown.
///
///   // -----// IR Dump After FoldConstant (changed) //----- //
///   <module, or with diff:>
///   --- before FoldConstant
///   +++ after FoldConstant
///   @@ -3,7 +3,5 @@
///    context line
///   -removed line
///   +added line
///
/// The diff has hunks with three lines of context (a line-based Myers diff
/// computed in process, `@@ -start,count +start,count @@` headers).
class PrintChangedInstrument final : public PassInstrument {
public:
  static std::shared_ptr<PrintChangedInstrument>
  create(llvm::raw_ostream &os, PrintChangedOptions options = {});

  llvm::Error exitPassContext() override;
  llvm::Error runBeforePass(const IRModule &module,
                            const PassInfo &info) override;
  llvm::Error runAfterPass(const IRModule &module,
                           const PassInfo &info) override;

  ~PrintChangedInstrument() override;

  /// Per-thread state (defined in Instruments.cpp).
  struct Impl;

private:
  PrintChangedInstrument(llvm::raw_ostream &os, PrintChangedOptions options);
  llvm::raw_ostream &os;
  PrintChangedOptions options;
  std::unique_ptr<Impl> impl;
};

/// A unified diff of two texts, line by line (what PrintChangedInstrument
/// prints): `--- <beforeName>`, `+++ <afterName>`, then hunks with
/// \p context lines of context. Empty when the texts are equal.
std::string diffLines(llvm::StringRef before, llvm::StringRef after,
                      llvm::StringRef beforeName, llvm::StringRef afterName,
                      unsigned context = 3);

//===----------------------------------------------------------------------===//
// VerifyEachInstrument
//===----------------------------------------------------------------------===//

/// After every pass, runs verifyModule and, when the module claims valid
/// types (IRModule::hasValidTypes()), checks that every expression has a
/// checked type (operators and global variables excepted: their types live
/// in the operator registry and the module). A failure is the error
/// "pass 'X' produced an invalid module: <message>", located where the
/// problem is.
class VerifyEachInstrument final : public PassInstrument {
public:
  static std::shared_ptr<VerifyEachInstrument> create();

  llvm::Error runAfterPass(const IRModule &module,
                           const PassInfo &info) override;

private:
  VerifyEachInstrument();
};

/// The check VerifyEachInstrument adds to the verifier: every expression of
/// every function has a checked type. A located error naming the first
/// untyped node.
llvm::Error verifyCheckedTypes(const IRModule &module);

/// The verifier and, when \p module claims valid types, verifyCheckedTypes:
/// what VerifyEachInstrument runs after every pass and nnir-opt after the
/// whole pipeline. The error is "<producer> produced an invalid module:
/// <message>" (\p producer is "pass 'X'", "the pass pipeline"), located
/// where the problem is.
llvm::Error verifyPassResult(const IRModule &module,
                             const llvm::Twine &producer);

} // namespace nnir

#endif // NNIR_PASS_INSTRUMENTS_H
