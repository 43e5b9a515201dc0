//===- Reproducer.h - Crash reproducers of nnir-opt -------------*- C++ -*-===//
//
/// \file
/// nnir-opt's --crash-reproducer (MLIR's pass pipeline crash reproducer):
/// when a pass fails or crashes, the driver writes a file that replays the
/// failure with `nnir-opt --run-reproducer FILE`. The file is nnir text led
/// by directive comments,
///
/// \code
///   // nnir-opt crash reproducer; replay: nnir-opt --run-reproducer FILE
///   // nnir-reproducer.pipeline: InferType,FoldConstant{fold_qnn=true}
///   // nnir-reproducer.opt-level: 2
///   // nnir-reproducer.pass-config: FoldConstant.max_bytes=32
///   #[version = "0.0.5"]
///   def @main(...) { ... }
/// \endcode
///
/// so it stays a module any nnir tool reads. The module is the one the
/// pipeline was given and the pipeline the whole one; in local mode
/// (--crash-reproducer-local) the module is the one the failing pass was
/// given and the pipeline that pass alone, as written.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_LIB_TOOLS_REPRODUCER_H
#define NNIR_LIB_TOOLS_REPRODUCER_H

#include "nnir/IR/Module.h"
#include "nnir/IR/Printer.h"
#include "nnir/Pass/PassInstrument.h"
#include "nnir/Pass/PassRegistry.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

#include <optional>
#include <string>
#include <vector>

namespace nnir {

/// What a reproducer replays besides its module: the options of the run
/// that change what the passes do.
struct ReproducerDirectives {
  std::string pipeline;
  std::optional<unsigned> optLevel;
  std::vector<std::string> passConfigs;
  std::vector<std::string> disabledPasses;
  std::vector<std::string> requiredPasses;
  std::vector<std::string> passPlugins;
};

/// Writes the reproducer \p path: the directives, then \p module printed
/// with \p options.
llvm::Error writeReproducer(llvm::StringRef path, const IRModule &module,
                            const ReproducerDirectives &directives,
                            const PrintOptions &options);

/// Reads the directive comments that lead buffer \p bufferId. A directive
/// nnir does not know, a malformed one, or a file without a pipeline is a
/// located error.
llvm::Expected<ReproducerDirectives>
readReproducerDirectives(const llvm::SourceMgr &sourceMgr, unsigned bufferId);

/// Follows the passes that run, so that after a failure (an error, or a
/// crash caught by the driver) the innermost pass that started and did not
/// finish is known, with the module it was given.
class FailureTracker final : public PassInstrument {
public:
  struct Frame {
    const PassInfo *info;
    Ref<IRModule> input;
  };

  FailureTracker() : PassInstrument("FailureTracker") {}

  llvm::Error runBeforePass(const IRModule &module,
                            const PassInfo &info) override;
  llvm::Error runAfterPass(const IRModule &module,
                           const PassInfo &info) override;

  /// The pass that failed (the innermost one still running), or null.
  const Frame *getFailingPass() const {
    return frames.empty() ? nullptr : &frames.back();
  }

private:
  std::vector<Frame> frames;
};

} // namespace nnir

#endif // NNIR_LIB_TOOLS_REPRODUCER_H
