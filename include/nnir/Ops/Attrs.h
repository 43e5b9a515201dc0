//===- Attrs.h - Attribute records of nnir's operators ----------*- C++ -*-===//
//
/// \file
/// Every attribute record of nnir's operators, one header per family, with TVM
/// Relay's field names, order and defaults (so TVM-printed calls parse
/// unchanged). Each record is declared once; see nnir/IR/Attrs.h.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_ATTRS_H
#define NNIR_OPS_ATTRS_H

#include "nnir/Ops/AlgorithmAttrs.h"
#include "nnir/Ops/AnnotationAttrs.h"
#include "nnir/Ops/DataMovementAttrs.h"
#include "nnir/Ops/ElementwiseAttrs.h"
#include "nnir/Ops/NNAttrs.h"
#include "nnir/Ops/QNNAttrs.h"
#include "nnir/Ops/ReductionAttrs.h"
#include "nnir/Ops/VisionAttrs.h"

#endif // NNIR_OPS_ATTRS_H
