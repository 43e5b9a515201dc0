//===- Ops.cpp - Registration of nnir's operators -------------------------===//
//
/// \file
/// registerAllOps(): one call registers every family, once per process.
//
//===----------------------------------------------------------------------===//

#include "nnir/Ops/Ops.h"
#include "nnir/Ops/Compute.h"
#include "nnir/Ops/DynamicOps.h"
#include "nnir/Ops/QNN.h"

#include <mutex>

void nnir::registerAllOps() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerElementwiseOps();
    registerReductionOps();
    registerDataMovementOps();
    registerNNOps();
    registerAnnotationOps();
    registerAlgorithmOps();
    registerQNNOps();
    registerDynamicOps();
    registerVisionOps();
    // Computes attach to the registered operators.
    registerReductionComputes();
    registerDataMovementComputes();
    registerNNComputes();
    registerImageComputes();
    registerAnnotationComputes();
    registerAlgorithmComputes();
    registerVisionComputes();
  });
}
