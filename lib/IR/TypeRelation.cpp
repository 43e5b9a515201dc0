//===- TypeRelation.cpp - How an operator call gets its type --------------===//
//
/// \file
/// The identity of TypeRelationFn, the value type of the FTypeRelation
/// attribute map.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/TypeRelation.h"

NNIR_DEFINE_EXPLICIT_TYPE_ID(nnir::TypeRelationFn)
