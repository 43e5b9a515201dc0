//===- Passes.h - Registration of the Transforms passes ---------*- C++ -*-===//
//
/// \file
/// registerTransformPasses() adds the passes of the Transforms library to
/// the PassRegistry, so that pipeline text (`--passes=InferType`) and the
/// `required` lists of other passes find them. It is an explicit call, made
/// by tools and plugin entry points (no static constructors in libraries).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TRANSFORMS_PASSES_H
#define NNIR_TRANSFORMS_PASSES_H

namespace nnir {

/// Registers "InferType" (and the other Transforms passes). Idempotent and
/// thread-safe.
void registerTransformPasses();

} // namespace nnir

#endif // NNIR_TRANSFORMS_PASSES_H
