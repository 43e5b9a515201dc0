//===- OpProperties.cpp - Properties passes query of operators ------------===//
//
/// \file
/// Lookups of the pattern and flag tables, with TVM's defaults.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/OpProperties.h"

#include "nnir/IR/Op.h"

using namespace llvm;
using namespace nnir;

StringRef nnir::getOpPatternKindName(OpPatternKind kind) {
  switch (kind) {
  case OpPatternKind::ElemWise:
    return "ElemWise";
  case OpPatternKind::Broadcast:
    return "Broadcast";
  case OpPatternKind::Injective:
    return "Injective";
  case OpPatternKind::CommReduce:
    return "CommReduce";
  case OpPatternKind::OutEWiseFusable:
    return "OutEWiseFusable";
  case OpPatternKind::Tuple:
    return "Tuple";
  case OpPatternKind::Opaque:
    return "Opaque";
  }
  return "Opaque";
}

OpPatternKind nnir::getOpPattern(const Op *op) {
  const OpAttrMap<OpPatternKind> *map =
      OpRegistry::instance().findAttrMap<OpPatternKind>(kOpPatternAttr);
  return map ? map->lookup(op, OpPatternKind::Opaque) : OpPatternKind::Opaque;
}

bool nnir::isStatefulOp(const Op *op) {
  const OpAttrMap<bool> *map =
      OpRegistry::instance().findAttrMap<bool>(kOpIsStatefulAttr);
  return map && map->lookup(op, false);
}

bool nnir::isNonComputationalOp(const Op *op) {
  const OpAttrMap<bool> *map =
      OpRegistry::instance().findAttrMap<bool>(kOpNonComputationalAttr);
  return map && map->lookup(op, false);
}

NNIR_DEFINE_EXPLICIT_TYPE_ID(nnir::OpPatternKind)
