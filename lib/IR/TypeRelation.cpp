//===- TypeRelation.cpp - How an operator call gets its type --------------===//
//
/// \file
/// The identities of TypeRelationFn and ArgTypeInferenceFn, the value types
/// of the FTypeRelation and FInferArgTypes attribute maps, and the lookups of
/// FInferArgTypes and the TTypeReadsArgValues flag.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/TypeRelation.h"

using namespace nnir;

bool nnir::typeDependsOnArgValues(const Op *op) {
  const OpAttrMap<bool> *map =
      OpRegistry::instance().findAttrMap<bool>(kTypeReadsArgValuesAttr);
  return map && map->lookup(op, false);
}

const ArgTypeInferenceFn *nnir::getArgTypeInference(const Op *op) {
  const OpAttrMap<ArgTypeInferenceFn> *map =
      OpRegistry::instance().findAttrMap<ArgTypeInferenceFn>(
          kArgTypeInferenceAttr);
  if (!map || !map->has(op))
    return nullptr;
  return &map->get(op);
}

NNIR_DEFINE_EXPLICIT_TYPE_ID(nnir::TypeRelationFn)
NNIR_DEFINE_EXPLICIT_TYPE_ID(nnir::ArgTypeInferenceFn)
