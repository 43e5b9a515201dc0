//===- Pipelines.cpp - The default optimisation pipeline ------------------===//
//
/// \file
/// The text of the default pipeline and the expansion of `default<ON>` in
/// pipeline text.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/Pipelines.h"

#include "nnir/Pass/PassRegistry.h"
#include "nnir/Support/Diagnostics.h"
#include "nnir/Transforms/Passes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace nnir;

/// The default pipeline's passes, named through BuiltinPass, so a pass
/// renamed in Passes.def cannot leave the pipeline behind.
static ArrayRef<BuiltinPass> getDefaultPipelinePasses() {
  using P = BuiltinPass;
  static const P passes[] = {P::SimplifyInference, P::EliminateCommonSubexpr,
                             P::FoldConstant,      P::FoldScaleAxis,
                             P::SimplifyExpr,      P::FoldConstant,
                             P::DeadCodeElimination};
  return passes;
}

StringRef nnir::getDefaultPipelineText() {
  static const std::string text =
      join(map_range(getDefaultPipelinePasses(), getBuiltinPassName), ",");
  return text;
}

Expected<Ref<Pass>> nnir::createDefaultPipeline(unsigned optLevel) {
  if (optLevel > 3)
    return makeError("no default pipeline at opt level " + Twine(optLevel) +
                     "; the levels are 0 to 3");
  registerTransformPasses();
  std::vector<Ref<Pass>> passes;
  for (BuiltinPass pass : getDefaultPipelinePasses()) {
    Expected<Ref<Pass>> created =
        PassRegistry::instance().create(getBuiltinPassName(pass));
    if (!created)
      return created.takeError();
    passes.push_back(std::move(*created));
  }
  return createSequential(
      passes, PassInfo(("default<O" + Twine(optLevel) + ">").str(), 0));
}

Expected<ExpandedPipeline> nnir::expandDefaultPipelines(StringRef text) {
  constexpr StringLiteral prefix = "default<";
  ExpandedPipeline result;
  size_t pos = 0;
  while (true) {
    size_t found = text.find(prefix, pos);
    result.text += text.slice(pos, found).str();
    if (found == StringRef::npos)
      break;
    // The name starts a pipeline element: at the start, or after a
    // separator (a pass named like "my_default<" is not ours).
    StringRef before = text.take_front(found).rtrim();
    bool startsElement =
        before.empty() || before.back() == ',' || before.back() == '(';
    size_t close = text.find('>', found);
    StringRef name = close == StringRef::npos ? text.drop_front(found)
                                              : text.slice(found, close + 1);
    StringRef level = name.drop_front(prefix.size()).drop_back();
    if (!startsElement) {
      result.text += prefix.str();
      pos = found + prefix.size();
      continue;
    }
    if (close == StringRef::npos || level.size() != 2 || level[0] != 'O' ||
        level[1] < '0' || level[1] > '3')
      return makeError("unknown pipeline '" + name +
                       "'; the default pipelines are default<O0> .. "
                       "default<O3>");
    unsigned n = level[1] - '0';
    if (result.optLevel && *result.optLevel != n)
      return makeError("conflicting opt levels: default<O" +
                       Twine(*result.optLevel) + "> and " + name);
    result.optLevel = n;
    result.text +=
        ("Sequential{name=" + name + "}(" + getDefaultPipelineText() + ")")
            .str();
    pos = close + 1;
  }
  return result;
}
