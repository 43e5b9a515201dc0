//===- TypeRelation.cpp - How an operator call gets its type --------------===//
//
/// \file
/// The identities of TypeRelationFn and ArgTypeInferenceFn, the value types
/// of the FTypeRelation and FInferArgTypes attribute maps, and the lookups of
/// FInferArgTypes and the TTypeReadsArgValues, TDynamicShapes and
/// TDataDependentShape flags, and
/// the check that keeps `?` extents from relations without the latter.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/TypeRelation.h"

#include <optional>

using namespace llvm;
using namespace nnir;

bool nnir::typeDependsOnArgValues(const Op *op) {
  const OpAttrMap<bool> *map =
      OpRegistry::instance().findAttrMap<bool>(kTypeReadsArgValuesAttr);
  return map && map->lookup(op, false);
}

bool nnir::supportsDynamicShapes(const Op *op) {
  const OpAttrMap<bool> *map =
      OpRegistry::instance().findAttrMap<bool>(kDynamicShapesAttr);
  return map && map->lookup(op, false);
}

bool nnir::hasDataDependentShape(const Op *op) {
  const OpAttrMap<bool> *map =
      OpRegistry::instance().findAttrMap<bool>(kDataDependentShapeAttr);
  return map && map->lookup(op, false);
}

/// The first dynamic dimension of \p type (a tensor, or a tuple of them):
/// the tensor and the axis.
static std::optional<std::pair<const TensorType *, unsigned>>
findDynamicDim(const Type *type) {
  if (const auto *tensor = dyn_cast_or_null<TensorType>(type)) {
    for (unsigned i = 0, e = tensor->getRank(); i != e; ++i)
      if (isAnyDim(tensor->getShape()[i]))
        return std::make_pair(tensor, i);
    return std::nullopt;
  }
  if (const auto *tuple = dyn_cast_or_null<TupleType>(type))
    for (const Ref<Type> &field : tuple->getFields())
      if (auto found = findDynamicDim(field.get()))
        return found;
  return std::nullopt;
}

Error nnir::checkStaticArgTypes(const Op *op, ArrayRef<const Type *> argTypes,
                                const TypeRelationContext &ctx) {
  for (size_t i = 0, e = argTypes.size(); i != e; ++i) {
    auto found = findDynamicDim(argTypes[i]);
    if (!found)
      continue;
    std::string arg = i < op->getArguments().size()
                          ? "'" + op->getArguments()[i].name + "'"
                          : "argument #" + std::to_string(i);
    return ctx.error("dimension " + Twine(found->second) + " of " + arg +
                     " (" + found->first->str() +
                     ") is dynamic; this operator needs static extents");
  }
  return Error::success();
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
