//===- Passes.h - Registration of the Transforms passes ---------*- C++ -*-===//
//
/// \file
/// registerTransformPasses() adds the passes of the Transforms library to
/// the PassRegistry, so that pipeline text (`--passes=InferType`) and the
/// `required` lists of other passes find them. It is an explicit call, made
/// by tools and plugin entry points (no static constructors in libraries).
///
/// The passes, their opt levels, descriptions and options are listed once,
/// in Passes.def; BuiltinPass names its rows, so code that names a built-in
/// pass (the default pipeline, a pass's own create function) is checked by
/// the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TRANSFORMS_PASSES_H
#define NNIR_TRANSFORMS_PASSES_H

#include "nnir/Pass/PassInfo.h"

#include "llvm/ADT/StringRef.h"

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace nnir {

/// The rows of Passes.def.
enum class BuiltinPass : unsigned {
#define NNIR_PASS(NAME, ...) NAME,
#include "nnir/Transforms/Passes.def"
};

/// The name of built-in pass \p pass ("InferType").
llvm::StringRef getBuiltinPassName(BuiltinPass pass);

/// The PassInfo a built-in pass is created with: its name, opt level and
/// description from Passes.def, and \p required. The pass's create function
/// adds what only it knows (the type flags).
PassInfo getBuiltinPassInfo(BuiltinPass pass,
                            std::vector<std::string> required = {});

/// Registers "InferType" (and the other Transforms passes). Idempotent and
/// thread-safe.
void registerTransformPasses();

/// Writes the summary table of the built-in passes, as docs/Passes.md holds
/// it: one Markdown row per pass, sorted by name, with its kind, opt level, its
/// required passes, its options with their defaults and its description.
/// Registers the passes first (their required lists come from the created
/// passes).
void printBuiltinPassTable(llvm::raw_ostream &os);

} // namespace nnir

#endif // NNIR_TRANSFORMS_PASSES_H
