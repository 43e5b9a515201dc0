//===- Pipelines.cpp - The default optimisation pipeline ------------------===//
//
/// \file
/// The text of the default pipeline and the expansion of `default<ON>` in
/// pipeline text.
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/Pipelines.h"

#include "nnir/Support/Diagnostics.h"
#include "nnir/Transforms/Passes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace nnir;

StringRef nnir::getDefaultPipelineText() {
  // Named through BuiltinPass, so a pass renamed in Passes.def cannot leave
  // the pipeline behind.
  using P = BuiltinPass;
  static const std::string text = join(
      map_range(ArrayRef<P>{P::SimplifyInference, P::EliminateCommonSubexpr,
                            P::FoldConstant, P::FoldScaleAxis,
                            P::SimplifyExpr, P::FoldConstant,
                            P::DeadCodeElimination},
                getBuiltinPassName),
      ",");
  return text;
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
