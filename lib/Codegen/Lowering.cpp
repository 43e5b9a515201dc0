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
#include "llvm/ADT/IntEqClasses.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

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

/// Appends the tensor types of \p type, flattened; false if a field is not
/// a tensor.
static bool flattenTensorTypes(const Type *type,
                               SmallVectorImpl<const TensorType *> &out) {
  if (const auto *tuple = dyn_cast_or_null<TupleType>(type)) {
    for (const Ref<Type> &field : tuple->getFields())
      if (!flattenTensorTypes(field.get(), out))
        return false;
    return true;
  }
  const auto *tensor = dyn_cast_or_null<TensorType>(type);
  if (!tensor)
    return false;
  out.push_back(tensor);
  return true;
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

/// Numbers the tensor values of \p fn into \p tensors (firstValue: the
/// number of each value's first tensor) and lists the pairs of tensors a
/// broadcast puts in one domain. False where \p fn is not shape-generic.
static bool
numberTensorValues(const Function &fn,
                   SmallVectorImpl<const TensorType *> &tensors,
                   DenseMap<const Expr *, unsigned> &firstValue,
                   SmallVectorImpl<std::pair<unsigned, unsigned>> &joins) {
  // Number the tensor values: one per flattened field of each parameter,
  // constant and call; tuples and projections rearrange them.
  DenseMap<const Expr *, SmallVector<unsigned, 1>> values;
  auto define = [&](const Expr *e) {
    SmallVector<const TensorType *, 1> flat;
    if (!flattenTensorTypes(getTypeOf(e), flat))
      return false;
    firstValue[e] = tensors.size();
    SmallVector<unsigned, 1> ids;
    for (const TensorType *t : flat) {
      ids.push_back(tensors.size());
      tensors.push_back(t);
    }
    values[e] = std::move(ids);
    return true;
  };
  for (const Ref<Var> &param : fn.getParams())
    if (!define(param.get()))
      return false;
  bool ok = true;
  forEachPrimitiveNode(fn, [&](const Expr *e) {
    if (!ok || isa<Var>(e))
      return;
    if (isa<Constant>(e)) {
      ok = define(e);
      return;
    }
    if (const auto *tuple = dyn_cast<Tuple>(e)) {
      SmallVector<unsigned, 1> ids;
      for (const Ref<Expr> &field : tuple->getFields())
        llvm::append_range(ids, values.lookup(field.get()));
      values[e] = std::move(ids);
      return;
    }
    if (const auto *item = dyn_cast<TupleGetItem>(e)) {
      const auto *type =
          dyn_cast_or_null<TupleType>(getTypeOf(item->getTuple().get()));
      SmallVector<unsigned, 1> all = values.lookup(item->getTuple().get());
      if (!type || item->getIndex() >= type->getFields().size()) {
        ok = false;
        return;
      }
      unsigned offset = 0;
      for (unsigned i = 0; i < item->getIndex(); ++i)
        offset += countTensors(type->getFields()[i].get());
      unsigned count = countTensors(type->getFields()[item->getIndex()].get());
      if (offset + count > all.size()) {
        ok = false;
        return;
      }
      values[e] = SmallVector<unsigned, 1>(ArrayRef(all).slice(offset, count));
      return;
    }
    const auto *call = dyn_cast<Call>(e);
    const Op *op = call ? dyn_cast<Op>(call->getCallee().get()) : nullptr;
    bool broadcast = op && followsBroadcastRule(op);
    if (!op || (!broadcast && !isReshapeLike(op)) || !define(e) ||
        values[e].size() != 1) {
      ok = false;
      return;
    }
    // Broadcasting puts the result and the operands in one domain; a
    // re-shape's result starts its own.
    unsigned id = values[e].front();
    if (broadcast)
      for (const Ref<Expr> &arg : call->getArgs())
        for (unsigned other : values.lookup(arg.get()))
          joins.push_back({id, other});
  });
  return ok;
}

/// Merges the axes of one broadcast \p domain (numbers of \p tensors):
/// appends its extents to \p extents and sets the axes of its tensors.
/// False where the shapes do not broadcast or the rank exceeds 64.
static bool mergeDomainAxes(ArrayRef<unsigned> domain,
                            ArrayRef<const TensorType *> tensors,
                            SmallVectorImpl<int64_t> &extents,
                            MutableArrayRef<GenericShape::TensorAxes> axes) {
  SmallPtrSet<const TensorType *, 8> seen;
  SmallVector<const TensorType *, 8> types;
  unsigned rank = 0;
  for (unsigned v : domain)
    if (seen.insert(tensors[v]).second) {
      types.push_back(tensors[v]);
      rank = std::max<unsigned>(rank, tensors[v]->getRank());
    }
  if (rank > 64)
    return false;
  // The one extent of each aligned axis (1 where every tensor has 1).
  SmallVector<int64_t, 8> extent(rank, 1);
  for (const TensorType *t : types) {
    unsigned offset = rank - t->getRank();
    for (auto [i, e] : llvm::enumerate(t->getShape())) {
      int64_t &slot = extent[offset + i];
      if (e == 1)
        continue;
      if (slot != 1 && slot != e)
        return false;
      slot = e;
    }
  }
  auto isFull = [&](const TensorType *t, unsigned axis) {
    unsigned offset = rank - t->getRank();
    return axis >= offset && t->getShape()[axis - offset] != 1;
  };
  // Drop axes of extent 1; merge an axis into the previous kept one when
  // every tensor spans both or neither.
  unsigned first = extents.size();
  SmallVector<int, 8> group(rank, -1);
  std::optional<unsigned> prev;
  for (unsigned k = 0; k < rank; ++k) {
    if (extent[k] == 1)
      continue;
    bool merge = prev && llvm::all_of(types, [&](const TensorType *t) {
                   return isFull(t, *prev) == isFull(t, k);
                 });
    if (merge) {
      group[k] = group[*prev];
      if (MulOverflow(extents.back(), extent[k], extents.back()))
        return false;
    } else {
      group[k] = extents.size() - first;
      extents.push_back(extent[k]);
    }
    prev = k;
  }
  unsigned count = extents.size() - first;
  for (unsigned v : domain) {
    ArrayRef<int64_t> shape = tensors[v]->getShape();
    unsigned offset = rank - shape.size();
    GenericShape::TensorAxes &tensorAxes = axes[v];
    tensorAxes.first = first;
    tensorAxes.count = count;
    for (auto [i, e] : llvm::enumerate(shape))
      if (e != 1)
        tensorAxes.mask |= uint64_t(1) << group[offset + i];
  }
  return true;
}

std::optional<GenericShape> GenericShape::get(const Function &fn) {
  GenericShape result;
  SmallVector<const TensorType *, 16> tensors;
  SmallVector<std::pair<unsigned, unsigned>, 16> joins;
  if (!numberTensorValues(fn, tensors, result.firstValue, joins))
    return std::nullopt;
  // `?` extents are symbolic (lowerToTE without a GenericShape), not merged.
  if (llvm::any_of(tensors, [](const TensorType *t) { return t->isDynamic(); }))
    return std::nullopt;

  IntEqClasses classes(tensors.size());
  for (auto [a, b] : joins)
    classes.join(a, b);
  classes.compress();
  std::vector<SmallVector<unsigned, 8>> domains(classes.getNumClasses());
  for (unsigned v = 0; v < tensors.size(); ++v)
    domains[classes[v]].push_back(v);

  result.axes.resize(tensors.size());
  for (ArrayRef<unsigned> domain : domains)
    if (!mergeDomainAxes(domain, tensors, result.extents, result.axes))
      return std::nullopt;
  if (result.extents.empty())
    return std::nullopt;
  return result;
}

GenericShape::TensorAxes GenericShape::getAxes(const Expr *e,
                                               unsigned field) const {
  auto it = firstValue.find(e);
  assert(it != firstValue.end() && "not a tensor value of the function");
  return axes[it->second + field];
}

/// The TE shape of a tensor over the runtime extents \p dims (rank 0 if it
/// spans no merged axis).
static std::vector<te::Expr> makeTEShape(GenericShape::TensorAxes axes,
                                         ArrayRef<te::Expr> dims) {
  std::vector<te::Expr> result;
  if (axes.mask == 0)
    return result;
  for (unsigned g = 0; g < axes.count; ++g)
    result.push_back(axes.mask & (uint64_t(1) << g) ? dims[axes.first + g]
                                                    : te::Expr(1));
  return result;
}

/// The TE shape of the \p field-th tensor of \p e's value, of static shape
/// \p shape: over the runtime extents when \p generic is given.
static std::vector<te::Expr> getTEShape(const Expr *e, unsigned field,
                                        ArrayRef<int64_t> shape,
                                        const GenericShape *generic,
                                        ArrayRef<te::Expr> dims) {
  if (!generic)
    return te::makeShape(shape);
  return makeTEShape(generic->getAxes(e, field), dims);
}

/// The variables of a symbolic lowering: one per position of a `?` extent
/// counted from the last axis, shared by every parameter with a `?` there
/// (NumPy's alignment, so that broadcasting two of them needs no rule for
/// distinct extents; the engine refuses arguments that disagree).
struct SymbolicDims {
  std::vector<te::Expr> &vars;
  std::vector<unsigned> &ofAnyExtent;
  DenseMap<size_t, unsigned> byPosition;

  te::Expr get(size_t positionFromEnd) {
    auto [it, inserted] = byPosition.try_emplace(positionFromEnd, vars.size());
    if (inserted)
      vars.push_back(te::var("n" + std::to_string(vars.size())));
    ofAnyExtent.push_back(it->second);
    return vars[it->second];
  }
};

/// Placeholders for the value of parameter \p param of \p type (a tuple
/// gives one per field; \p field counts the flattened fields). In a
/// symbolic lowering (\p symbolic given), each `?` extent is a variable.
static TEValue makePlaceholders(const Var *param, const Type *type,
                                unsigned &field, const GenericShape *generic,
                                ArrayRef<te::Expr> dims,
                                std::vector<te::Tensor> &inputs,
                                SymbolicDims *symbolic) {
  TEValue value;
  if (const auto *tuple = dyn_cast<TupleType>(type)) {
    value.isTuple = true;
    for (const Ref<Type> &f : tuple->getFields())
      value.fields.push_back(makePlaceholders(param, f.get(), field, generic,
                                              dims, inputs, symbolic));
    return value;
  }
  const auto *tensor = llvm::cast<TensorType>(type);
  std::vector<te::Expr> shape =
      getTEShape(param, field++, tensor->getShape(), generic, dims);
  if (symbolic)
    for (auto [axis, extent] : llvm::enumerate(tensor->getShape()))
      if (extent == kAnyDim)
        shape[axis] = symbolic->get(tensor->getRank() - axis);
  value.tensor =
      te::placeholder(shape, tensor->getDType(), param->getNameHint());
  inputs.push_back(value.tensor);
  return value;
}

/// Checks the outputs of a compute lowered over symbolic extents against
/// the call's type \p type: the ranks, and every constant extent where the
/// type's is static too (symbolic extents are checked when the kernel runs,
/// against the shape function's types).
static Error checkSymbolicOutputs(ArrayRef<te::Tensor> outputs,
                                  const Type *type) {
  SmallVector<const TensorType *, 2> types;
  if (!flattenTensorTypes(type, types) || types.size() != outputs.size())
    return computeError("returned " + Twine(outputs.size()) +
                        " tensors for a result of another arity");
  for (auto [out, t] : llvm::zip_equal(outputs, types)) {
    if (out.getRank() != t->getRank())
      return computeError("returned a tensor of rank " +
                          Twine(out.getRank()) + " for a result of rank " +
                          Twine(t->getRank()));
    for (auto [e, expected] : llvm::zip_equal(out.getShape(), t->getShape())) {
      std::optional<int64_t> c = e.getConstInt();
      if (c && (*c < 0 || (expected != kAnyDim && *c != expected)))
        return computeError("returned an extent of " + Twine(*c) +
                            " for a result of type " + t->str());
    }
  }
  return Error::success();
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

Expected<TEFunction> nnir::lowerToTE(const Function &fn,
                                     const GenericShape *generic) {
  TEFunction result;
  if (generic) {
    uint64_t elements = 1;
    for (auto [g, e] : llvm::enumerate(generic->getExtents())) {
      result.dimVars.push_back(te::var("d" + std::to_string(g)));
      elements = SaturatingMultiply<uint64_t>(elements, e);
    }
    result.genericElementsHint =
        std::min<uint64_t>(elements, std::numeric_limits<int64_t>::max());
  }
  DenseMap<const Expr *, TEValue> values;
  // `?` extents of the parameters make a symbolic lowering: one kernel for
  // every shape, each `?` a variable bound from `dims`.
  result.symbolic =
      !generic && llvm::any_of(fn.getParams(), [](const Ref<Var> &param) {
        return hasDynamicShape(getTypeOf(param.get()));
      });
  SymbolicDims symbolicDims{result.dimVars, result.dimOfAnyExtent,
                            DenseMap<size_t, unsigned>()};
  for (const Ref<Var> &param : fn.getParams()) {
    const Type *type = getTypeOf(param.get());
    if (!type || (!isa<TensorType>(type) && !isa<TupleType>(type)))
      return makeError(param->getLoc(),
                       "cannot lower parameter '%" + param->getNameHint() +
                           "': its type is not known or not a tensor");
    unsigned field = 0;
    values[param.get()] = makePlaceholders(
        param.get(), type, field, generic, result.dimVars, result.inputs,
        result.symbolic ? &symbolicDims : nullptr);
  }
  result.numParams = result.inputs.size();
  if (result.symbolic)
    result.genericElementsHint = kSymbolicElementsHint;

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
      TEValue value;
      value.tensor = te::placeholder(
          getTEShape(c, 0, data.getShape(), generic, result.dimVars),
          data.getDType(), "constant");
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
    if (!result.symbolic && hasDynamicShape(type)) {
      error = makeError(e->getLoc(),
                        "cannot lower a call to '" + op->getName() +
                            "' of dynamic type " + type->str() +
                            " on static parameters: kernels compute only "
                            "extents that follow from their parameters'");
      return;
    }
    if (result.symbolic && !computesSymbolicShapes(op)) {
      error = makeError(e->getLoc(),
                        "cannot lower a call to '" + op->getName() +
                            "' over the run-time extents of `?` dimensions: "
                            "its compute needs static shapes");
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
    ComputeArgs computeArgs{attrs.get(), args, type};
    std::vector<te::Expr> genericShape;
    if (generic) {
      genericShape = makeTEShape(generic->getAxes(e), result.dimVars);
      computeArgs.genericResultShape = &genericShape;
    }
    Expected<std::vector<te::Tensor>> outputs = (*compute)(computeArgs);
    if (!outputs) {
      error = makeError(e->getLoc(), "compute of '" + op->getName() +
                                         "': " + toString(outputs.takeError()));
      return;
    }
    // Shape-generic operators promise the lowering's shape (Compute.h); a
    // compute that breaks the promise must not produce a wrong kernel.
    if (generic && (outputs->size() != 1 ||
                    !te::provablyEqualShapes((*outputs)[0].getShape(),
                                             genericShape))) {
      error = makeError(e->getLoc(), "compute of '" + op->getName() +
                                         "' does not follow the shape of a "
                                         "shape-generic kernel");
      return;
    }
    if (result.symbolic)
      if (Error bad = checkSymbolicOutputs(*outputs, type)) {
        error = makeError(e->getLoc(), "compute of '" + op->getName() +
                                           "': " + toString(std::move(bad)));
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

bool nnir::canLowerSymbolic(const Function &fn) {
  if (llvm::none_of(fn.getParams(), [](const Ref<Var> &param) {
        return hasDynamicShape(getTypeOf(param.get()));
      }))
    return false;
  bool ok = true;
  forEachPrimitiveNode(fn, [&](const Expr *e) {
    if (!ok || isa<Var>(e) || isa<Constant>(e) || isa<Tuple>(e) ||
        isa<TupleGetItem>(e))
      return;
    const auto *call = dyn_cast<Call>(e);
    const Op *op = call ? call->getCalledOp() : nullptr;
    ok = op && getOpCompute(op) && computesSymbolicShapes(op);
  });
  return ok;
}

std::optional<int64_t> nnir::evaluateExtent(const te::Expr &extent,
                                            ArrayRef<te::Expr> vars,
                                            ArrayRef<int64_t> values) {
  const te::ExprNode *node = extent.get();
  if (const auto *imm = dyn_cast<te::IntImmNode>(node))
    return imm->getValue();
  if (isa<te::VarNode>(node)) {
    for (auto [var, value] : llvm::zip(vars, values))
      if (var.sameAs(extent))
        return value;
    return std::nullopt;
  }
  if (const auto *cast = dyn_cast<te::CastNode>(node))
    return cast->getDType().isInteger() || cast->getDType().isBool()
               ? evaluateExtent(cast->getOperand(), vars, values)
               : std::nullopt;
  if (const auto *unary = dyn_cast<te::UnaryNode>(node)) {
    std::optional<int64_t> a = evaluateExtent(unary->getOperand(), vars, values);
    if (!a)
      return std::nullopt;
    return unary->getOp() == te::UnaryOp::Neg ? -*a : int64_t(!*a);
  }
  if (const auto *select = dyn_cast<te::SelectNode>(node)) {
    std::optional<int64_t> c =
        evaluateExtent(select->getCondition(), vars, values);
    if (!c)
      return std::nullopt;
    return evaluateExtent(*c ? select->getTrueValue() : select->getFalseValue(),
                          vars, values);
  }
  const auto *binary = dyn_cast<te::BinaryNode>(node);
  if (!binary)
    return std::nullopt;
  std::optional<int64_t> a = evaluateExtent(binary->getLHS(), vars, values);
  std::optional<int64_t> b = evaluateExtent(binary->getRHS(), vars, values);
  if (!a || !b)
    return std::nullopt;
  int64_t x = *a, y = *b;
  switch (binary->getOp()) {
  case te::BinaryOp::Add:
    return x + y;
  case te::BinaryOp::Sub:
    return x - y;
  case te::BinaryOp::Mul:
    return x * y;
  case te::BinaryOp::Div:
    return y ? std::optional<int64_t>(x / y) : std::nullopt;
  case te::BinaryOp::TruncMod:
    return y ? std::optional<int64_t>(x % y) : std::nullopt;
  case te::BinaryOp::FloorDiv:
    return y ? std::optional<int64_t>(divideFloorSigned(x, y)) : std::nullopt;
  case te::BinaryOp::FloorMod:
    return y ? std::optional<int64_t>(x - divideFloorSigned(x, y) * y)
             : std::nullopt;
  case te::BinaryOp::Min:
    return std::min(x, y);
  case te::BinaryOp::Max:
    return std::max(x, y);
  case te::BinaryOp::EQ:
    return x == y;
  case te::BinaryOp::NE:
    return x != y;
  case te::BinaryOp::LT:
    return x < y;
  case te::BinaryOp::LE:
    return x <= y;
  case te::BinaryOp::GT:
    return x > y;
  case te::BinaryOp::GE:
    return x >= y;
  case te::BinaryOp::And:
    return x & y;
  case te::BinaryOp::Or:
    return x | y;
  default:
    return std::nullopt;
  }
}
