//===- Lowering.cpp - Primitive functions to tensor expressions -----------===//
//
/// \file
/// An iterative post-order walk over the primitive function's dataflow DAG:
/// parameters and constants become placeholders, each operator call becomes
/// the tensors its compute returns, tuples and projections rearrange them.
//
//===----------------------------------------------------------------------===//

#include "nnir/Codegen/Lowering.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/IR/Type.h"
#include "nnir/Ops/Compute.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace llvm;
using namespace nnir;

namespace {
/// The TE value of a graph expression: a tensor or a tuple of values.
struct TEValue {
  te::Tensor tensor;
  std::vector<TEValue> fields;
  bool isTuple = false;

  void flatten(std::vector<te::Tensor> &out) const {
    if (!isTuple) {
      out.push_back(tensor);
      return;
    }
    for (const TEValue &field : fields)
      field.flatten(out);
  }
};
} // namespace

static const Type *getTypeOf(const Expr *e) {
  if (e->getCheckedType())
    return e->getCheckedType().get();
  if (const auto *v = dyn_cast<Var>(e))
    return v->getTypeAnnotation().get();
  return nullptr;
}

/// The children of \p e along dataflow edges inside a primitive function.
static SmallVector<const Expr *, 4> getOperands(const Expr *e) {
  SmallVector<const Expr *, 4> ops;
  if (const auto *call = dyn_cast<Call>(e)) {
    for (const Ref<Expr> &a : call->getArgs())
      ops.push_back(a.get());
  } else if (const auto *tuple = dyn_cast<Tuple>(e)) {
    for (const Ref<Expr> &f : tuple->getFields())
      ops.push_back(f.get());
  } else if (const auto *item = dyn_cast<TupleGetItem>(e)) {
    ops.push_back(item->getTuple().get());
  }
  return ops;
}

void nnir::forEachPrimitiveNode(const Function &fn,
                                function_ref<void(const Expr *)> visit) {
  DenseSet<const Expr *> done;
  SmallVector<std::pair<const Expr *, bool>, 32> stack;
  stack.push_back({fn.getBody().get(), false});
  while (!stack.empty()) {
    auto [e, expanded] = stack.pop_back_val();
    if (done.contains(e))
      continue;
    if (expanded) {
      done.insert(e);
      visit(e);
      continue;
    }
    stack.push_back({e, true});
    SmallVector<const Expr *, 4> operands = getOperands(e);
    for (const Expr *op : llvm::reverse(operands))
      if (!done.contains(op))
        stack.push_back({op, false});
  }
}

/// The one non-scalar shape of the tensor types in \p type, checking that
/// every tensor is either of that shape or rank 0.
static bool collectCommonShape(const Type *type, std::optional<Shape> &common) {
  if (!type)
    return false;
  if (const auto *tuple = dyn_cast<TupleType>(type)) {
    for (const Ref<Type> &field : tuple->getFields())
      if (!collectCommonShape(field.get(), common))
        return false;
    return true;
  }
  const auto *tensor = dyn_cast<TensorType>(type);
  if (!tensor)
    return false;
  if (tensor->getRank() == 0)
    return true;
  if (!common) {
    common = Shape(tensor->getShape().begin(), tensor->getShape().end());
    return true;
  }
  return ArrayRef<int64_t>(*common) == tensor->getShape();
}

bool nnir::isShapeGeneric(const Function &fn) {
  std::optional<Shape> common;
  for (const Ref<Var> &param : fn.getParams())
    if (!collectCommonShape(getTypeOf(param.get()), common))
      return false;
  bool ok = true;
  forEachPrimitiveNode(fn, [&](const Expr *e) {
    if (!ok)
      return;
    if (const auto *call = dyn_cast<Call>(e)) {
      const auto *op = dyn_cast<Op>(call->getCallee().get());
      if (!op) {
        ok = false;
        return;
      }
      OpPatternKind kind = getOpPattern(op);
      if (kind != OpPatternKind::ElemWise && kind != OpPatternKind::Broadcast) {
        ok = false;
        return;
      }
    }
    if (!isa<Var>(e) && !collectCommonShape(getTypeOf(e), common))
      ok = false;
  });
  return ok && common.has_value();
}

/// Placeholders for a value of \p type (a tuple gives one per field).
static TEValue makePlaceholders(const Type *type, StringRef name,
                                const te::Expr &genericExtent,
                                std::vector<te::Tensor> &inputs) {
  TEValue value;
  if (const auto *tuple = dyn_cast<TupleType>(type)) {
    value.isTuple = true;
    for (const Ref<Type> &field : tuple->getFields())
      value.fields.push_back(
          makePlaceholders(field.get(), name, genericExtent, inputs));
    return value;
  }
  const auto *tensor = llvm::cast<TensorType>(type);
  std::vector<te::Expr> shape;
  if (genericExtent && tensor->getRank() != 0)
    shape.push_back(genericExtent);
  else
    shape = te::makeShape(tensor->getShape());
  value.tensor = te::placeholder(shape, tensor->getDType(), name);
  inputs.push_back(value.tensor);
  return value;
}

/// The TE value of a call's result from the compute's flat outputs.
static TEValue structureResult(const Type *type,
                               ArrayRef<te::Tensor> &outputs) {
  TEValue value;
  if (const auto *tuple = dyn_cast<TupleType>(type)) {
    value.isTuple = true;
    for (const Ref<Type> &field : tuple->getFields())
      value.fields.push_back(structureResult(field.get(), outputs));
    return value;
  }
  value.tensor = outputs.front();
  outputs = outputs.drop_front();
  return value;
}

static unsigned countTensors(const Type *type) {
  if (const auto *tuple = dyn_cast<TupleType>(type)) {
    unsigned n = 0;
    for (const Ref<Type> &field : tuple->getFields())
      n += countTensors(field.get());
    return n;
  }
  return 1;
}

Expected<TEFunction> nnir::lowerToTE(const Function &fn, bool shapeGeneric) {
  TEFunction result;
  te::Expr extent;
  if (shapeGeneric) {
    extent = te::var("n");
    result.dimVars.push_back(extent);
    std::optional<Shape> common;
    collectCommonShape(fn.getBody()->getCheckedType().get(), common);
    for (const Ref<Var> &param : fn.getParams())
      if (!common)
        collectCommonShape(getTypeOf(param.get()), common);
    if (common)
      result.genericElementsHint = getNumElements(*common).value_or(0);
  }
  DenseMap<const Expr *, TEValue> values;
  for (const Ref<Var> &param : fn.getParams()) {
    const Type *type = getTypeOf(param.get());
    if (!type || (!isa<TensorType>(type) && !isa<TupleType>(type)))
      return makeError(param->getLoc(),
                       "cannot lower parameter '%" + param->getNameHint() +
                           "': its type is not known or not a tensor");
    values[param.get()] =
        makePlaceholders(type, param->getNameHint(), extent, result.inputs);
  }
  result.numParams = result.inputs.size();

  Error error = Error::success();
  forEachPrimitiveNode(fn, [&](const Expr *e) {
    if (error)
      return;
    if (isa<Var>(e)) {
      if (!values.count(e))
        error = makeError(e->getLoc(),
                          "cannot lower a free variable in a primitive "
                          "function");
      return;
    }
    if (const auto *c = dyn_cast<Constant>(e)) {
      result.constants.push_back(c);
      const NDArray &data = c->getData();
      std::vector<te::Expr> shape;
      if (extent && data.getRank() != 0)
        shape.push_back(extent);
      else
        shape = te::makeShape(data.getShape());
      TEValue value;
      value.tensor = te::placeholder(shape, data.getDType(), "constant");
      result.inputs.push_back(value.tensor);
      values[e] = value;
      return;
    }
    if (const auto *tuple = dyn_cast<Tuple>(e)) {
      TEValue value;
      value.isTuple = true;
      for (const Ref<Expr> &field : tuple->getFields())
        value.fields.push_back(values[field.get()]);
      values[e] = value;
      return;
    }
    if (const auto *item = dyn_cast<TupleGetItem>(e)) {
      const TEValue &tuple = values[item->getTuple().get()];
      if (!tuple.isTuple || item->getIndex() >= tuple.fields.size()) {
        error = makeError(e->getLoc(), "cannot lower a projection of a "
                                       "non-tuple value");
        return;
      }
      values[e] = tuple.fields[item->getIndex()];
      return;
    }
    const auto *call = dyn_cast<Call>(e);
    if (!call) {
      error = makeError(e->getLoc(),
                        "cannot lower this expression inside a primitive "
                        "function (only calls of operators, tuples, "
                        "projections, parameters and constants)");
      return;
    }
    const auto *op = dyn_cast<Op>(call->getCallee().get());
    if (!op) {
      error = makeError(e->getLoc(), "cannot lower a call of a non-operator "
                                     "inside a primitive function");
      return;
    }
    const TECompute *compute = getOpCompute(op);
    if (!compute) {
      error = makeError(e->getLoc(),
                        "operator '" + op->getName() + "' has no compute");
      return;
    }
    const Type *type = getTypeOf(e);
    if (!type) {
      error =
          makeError(e->getLoc(), "cannot lower a call to '" + op->getName() +
                                     "' without an inferred type");
      return;
    }
    std::vector<std::vector<te::Tensor>> args;
    for (const Ref<Expr> &arg : call->getArgs()) {
      args.emplace_back();
      values[arg.get()].flatten(args.back());
    }
    Ref<Attrs> attrs = call->getAttrs();
    if (!attrs && op->hasAttrsType())
      attrs = op->createDefaultAttrs();
    Expected<std::vector<te::Tensor>> outputs =
        (*compute)({attrs.get(), args, type});
    if (!outputs) {
      error = makeError(e->getLoc(), "compute of '" + op->getName() +
                                         "': " + toString(outputs.takeError()));
      return;
    }
    if (outputs->size() != countTensors(type)) {
      error =
          makeError(e->getLoc(), "compute of '" + op->getName() +
                                     "' returned " + Twine(outputs->size()) +
                                     " tensors for a result of " +
                                     Twine(countTensors(type)));
      return;
    }
    ArrayRef<te::Tensor> flat = *outputs;
    values[e] = structureResult(type, flat);
  });
  if (error)
    return error;
  values[fn.getBody().get()].flatten(result.outputs);
  return result;
}
