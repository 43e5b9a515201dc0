//===- Compute.cpp - Operator computes in the tensor-expression layer -----===//

#include "nnir/Ops/Compute.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Type.h"

#include "llvm/Support/ErrorHandling.h"

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

bool nnir::computesSymbolicShapes(const Op *op) {
  return followsBroadcastRule(op) || getBoolAttr(op, kTESymbolicShapesAttr);
}

void nnir::markSymbolicShapes(ArrayRef<StringRef> opNames) {
  OpRegistry &registry = OpRegistry::instance();
  for (StringRef name : opNames) {
    Op *op = registry.lookup(name);
    if (!op)
      report_fatal_error("cannot mark '" + name +
                         "' symbolic: no such operator");
    registry.getAttrMap<bool>(kTESymbolicShapesAttr).set(op, true);
  }
}

std::vector<te::Expr> ComputeArgs::getResultShape() const {
  if (genericResultShape)
    return *genericResultShape;
  return te::makeShape(llvm::cast<TensorType>(resultType)->getShape());
}

std::vector<te::Expr>
ComputeArgs::getResultShape(ArrayRef<te::Expr> derived) const {
  if (genericResultShape)
    return *genericResultShape;
  ArrayRef<int64_t> shape = llvm::cast<TensorType>(resultType)->getShape();
  assert(derived.size() == shape.size() && "a derived shape of another rank");
  std::vector<te::Expr> result;
  for (auto [e, d] : llvm::zip(shape, derived))
    result.push_back(e == kAnyDim ? d : te::Expr(e));
  return result;
}

Error nnir::attachOpCompute(StringRef opName, TECompute compute) {
  OpRegistry &registry = OpRegistry::instance();
  Op *op = registry.lookup(opName);
  if (!op) {
    std::string message =
        "cannot attach a compute to '" + opName.str() + "': no such operator";
    std::vector<std::string> close =
        registry.suggest(opName, /*maxResults=*/1);
    if (!close.empty())
      message += "; did you mean '" + close.front() + "'?";
    return createStringError(inconvertibleErrorCode(), message);
  }
  if (!compute)
    return createStringError(inconvertibleErrorCode(),
                             "cannot attach an empty compute to '" + opName +
                                 "'");
  registry.getAttrMap<TECompute>(kTEComputeAttr).set(op, std::move(compute));
  return Error::success();
}

void nnir::setOpCompute(StringRef opName, TECompute compute) {
  if (Error error = attachOpCompute(opName, std::move(compute)))
    report_fatal_error(std::move(error));
}

DataType nnir::getAccumulationType(DataType dtype) {
  return dtype.isFloatingPoint() && dtype.getBits() == 16 ? DataType::float32()
                                                          : dtype;
}

Error nnir::computeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

NNIR_DEFINE_EXPLICIT_TYPE_ID(nnir::TECompute)
