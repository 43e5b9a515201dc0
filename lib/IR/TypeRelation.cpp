//===- TypeRelation.cpp - How an operator call gets its type --------------===//
//
/// \file
/// The identity of TypeRelationFn, the value type of the FTypeRelation
/// attribute map, and the lookup of the TTypeReadsArgValues flag.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/TypeRelation.h"

using namespace nnir;

bool nnir::typeDependsOnArgValues(const Op *op) {
  const OpAttrMap<bool> *map =
      OpRegistry::instance().findAttrMap<bool>(kTypeReadsArgValuesAttr);
  return map && map->lookup(op, false);
}

NNIR_DEFINE_EXPLICIT_TYPE_ID(nnir::TypeRelationFn)
