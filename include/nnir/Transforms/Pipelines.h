//===- Pipelines.h - The default optimisation pipeline ----------*- C++ -*-===//
//
/// \file
/// The default pipeline, the front of TVM's relay.build before lowering:
///
///   SimplifyInference, EliminateCommonSubexpr, FoldConstant, FoldScaleAxis,
///   SimplifyExpr, FoldConstant, DeadCodeElimination
///
/// as one Sequential named `default<ON>`, whose passes run as the context's
/// opt level enables them (so -O2 skips EliminateCommonSubexpr and
/// FoldScaleAxis's two scale folds, which have opt level 3). Pipeline text
/// names it `default<O0>` .. `default<O3>`; the level in the name is the
/// opt level it is meant to run at.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TRANSFORMS_PIPELINES_H
#define NNIR_TRANSFORMS_PIPELINES_H

#include "nnir/Pass/Pass.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace nnir {

/// The passes of the default pipeline, as pipeline text.
llvm::StringRef getDefaultPipelineText();

/// The default pipeline as one Sequential named `default<O\p optLevel>`
/// (what pipeline text `default<ON>` expands to). Its passes run as the
/// context's opt level enables them: run it under a context at that level.
/// Registers the Transforms passes first.
llvm::Expected<Ref<Pass>> createDefaultPipeline(unsigned optLevel);

/// Pipeline text with every `default<ON>` replaced by
/// `Sequential{name=default<ON>}(<the default pipeline>)`, and the level N
/// those names ask for (none if the text names none).
struct ExpandedPipeline {
  std::string text;
  std::optional<unsigned> optLevel;
};

/// Expands \p text (see ExpandedPipeline). `default<O4>` or two different
/// levels are errors.
llvm::Expected<ExpandedPipeline> expandDefaultPipelines(llvm::StringRef text);

} // namespace nnir

#endif // NNIR_TRANSFORMS_PIPELINES_H
