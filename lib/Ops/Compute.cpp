//===- Compute.cpp - Operator computes in the tensor-expression layer -----===//

#include "nnir/Ops/Compute.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Type.h"

using namespace llvm;
using namespace nnir;

const TECompute *nnir::getOpCompute(const Op *op) {
  const OpAttrMap<TECompute> *map =
      OpRegistry::instance().findAttrMap<TECompute>(kTEComputeAttr);
  if (!map || !map->has(op))
    return nullptr;
  return &map->get(op);
}

static bool getBoolAttr(const Op *op, StringRef key) {
  const OpAttrMap<bool> *map = OpRegistry::instance().findAttrMap<bool>(key);
  return map && map->has(op) && map->get(op);
}

bool nnir::followsBroadcastRule(const Op *op) {
  return getBoolAttr(op, kTEBroadcastRuleAttr);
}

bool nnir::isReshapeLike(const Op *op) {
  return getBoolAttr(op, kTEReshapeAttr);
}

std::vector<te::Expr> ComputeArgs::getResultShape() const {
  if (genericResultShape)
    return *genericResultShape;
  return te::makeShape(llvm::cast<TensorType>(resultType)->getShape());
}

void nnir::setOpCompute(StringRef opName, TECompute compute) {
  OpRegistry &registry = OpRegistry::instance();
  Op *op = registry.lookup(opName);
  assert(op && "registering the compute of an unknown operator");
  if (!op)
    return;
  registry.getAttrMap<TECompute>(kTEComputeAttr).set(op, std::move(compute));
}

DataType nnir::getAccumulationType(DataType dtype) {
  return dtype.isFloatingPoint() && dtype.getBits() == 16 ? DataType::float32()
                                                          : dtype;
}

Error nnir::computeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

NNIR_DEFINE_EXPLICIT_TYPE_ID(nnir::TECompute)
