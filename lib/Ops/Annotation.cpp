//===- Annotation.cpp - Annotation operators ------------------------------===//
//
/// \file
/// Placeholder: on_device, device_copy and annotation.stop_fusion are
/// registered by a later commit.
//
//===----------------------------------------------------------------------===//

#include "nnir/Ops/Ops.h"

void nnir::registerAnnotationOps() {}
