//===- Ops.h - Registration of nnir's operators ------------------*- C++ -*-===//
//
/// \file
/// registerAllOps() registers every operator family with the OpRegistry. It
/// is an explicit call, made by tools and plugin entry points (no static
/// constructors in libraries); calling it again does nothing.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_OPS_H
#define NNIR_OPS_OPS_H

namespace nnir {

/// Registers every operator family. Idempotent and thread-safe.
void registerAllOps();

/// Per-family registration (called by registerAllOps()).
void registerElementwiseOps();
void registerReductionOps();
void registerDataMovementOps();
void registerNNOps();
void registerAnnotationOps();
void registerAlgorithmOps();
void registerVisionOps();

} // namespace nnir

#endif // NNIR_OPS_OPS_H
