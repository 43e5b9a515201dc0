//===- Expr.cpp - Expressions of the graph IR -----------------------------===//
//
/// \file
/// Node factories and small accessors.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Expr.h"

#include "nnir/IR/Op.h"
#include "nnir/Support/Diagnostics.h"

using namespace llvm;
using namespace nnir;

StringRef Expr::getKindName(Kind kind) {
  switch (kind) {
  case Kind::Constant:
    return "Constant";
  case Kind::Var:
    return "Var";
  case Kind::GlobalVar:
    return "GlobalVar";
  case Kind::Op:
    return "Op";
  case Kind::Call:
    return "Call";
  case Kind::Tuple:
    return "Tuple";
  case Kind::TupleGetItem:
    return "TupleGetItem";
  case Kind::Let:
    return "Let";
  case Kind::If:
    return "If";
  case Kind::Function:
    return "Function";
  }
  return "Expr";
}

Ref<Constant> Constant::get(NDArray data, SMLoc loc) {
  Ref<Type> type = TensorType::get(data.getShape(), data.getDType());
  return Ref<Constant>(new Constant(std::move(data), loc, std::move(type)));
}

Ref<Constant> Constant::getScalar(DataType dtype, double value, SMLoc loc) {
  return get(NDArray::scalar(dtype, value), loc);
}

/// The virtual device of a node that has none.
static const AttrValue &getUnconstrainedDevice() {
  static const AttrValue none;
  return none;
}

Ref<Var> Var::get(StringRef nameHint, Ref<Type> annotation, SMLoc loc,
                  Ref<Type> checkedType, AttrValue virtualDevice) {
  if (!checkedType)
    checkedType = annotation;
  Ref<Var> var(new Var(nameHint, std::move(annotation), loc,
                       std::move(checkedType)));
  var->setVirtualDeviceInPlace(std::move(virtualDevice));
  return var;
}

const AttrValue &Var::getVirtualDevice() const {
  return virtualDevice ? *virtualDevice : getUnconstrainedDevice();
}

void Var::setVirtualDeviceInPlace(AttrValue device) {
  if (device.isNone())
    virtualDevice.reset();
  else
    virtualDevice = std::make_unique<const AttrValue>(std::move(device));
}

Ref<GlobalVar> GlobalVar::get(StringRef name, SMLoc loc,
                              Ref<Type> checkedType) {
  return Ref<GlobalVar>(new GlobalVar(name, loc, std::move(checkedType)));
}

Ref<Call> Call::get(Ref<Expr> callee, ArrayRef<Ref<Expr>> args,
                    Ref<Attrs> attrs, SMLoc loc, Ref<Type> checkedType) {
  return Ref<Call>(new Call(std::move(callee), args, std::move(attrs), loc,
                            std::move(checkedType)));
}

Op *Call::getCalledOp() const { return dyn_cast<Op>(callee.get()); }

const Attrs *Call::getAttrsOrDefaults() const {
  const Attrs *record = attrs.get();
  if (const auto *dict = dyn_cast_or_null<DictAttrs>(record);
      dict && dict->empty())
    record = nullptr;
  if (record)
    return record;
  if (const Op *op = getCalledOp())
    return op->getDefaultAttrs().get();
  return nullptr;
}

Ref<Tuple> Tuple::get(ArrayRef<Ref<Expr>> fields, SMLoc loc,
                      Ref<Type> checkedType) {
  return Ref<Tuple>(new Tuple(fields, loc, std::move(checkedType)));
}

Ref<TupleGetItem> TupleGetItem::get(Ref<Expr> tuple, unsigned index, SMLoc loc,
                                    Ref<Type> checkedType) {
  return Ref<TupleGetItem>(
      new TupleGetItem(std::move(tuple), index, loc, std::move(checkedType)));
}

Ref<Let> Let::get(Ref<Var> var, Ref<Expr> value, Ref<Expr> body, SMLoc loc,
                  Ref<Type> checkedType) {
  return Ref<Let>(new Let(std::move(var), std::move(value), std::move(body),
                          loc, std::move(checkedType)));
}

Ref<If> If::get(Ref<Expr> cond, Ref<Expr> thenBranch, Ref<Expr> elseBranch,
                SMLoc loc, Ref<Type> checkedType) {
  return Ref<If>(new If(std::move(cond), std::move(thenBranch),
                        std::move(elseBranch), loc, std::move(checkedType)));
}

Ref<Function> Function::get(ArrayRef<Ref<Var>> params, Ref<Expr> body,
                            Ref<Type> retType, Ref<DictAttrs> attrs, SMLoc loc,
                            Ref<Type> checkedType) {
  return Ref<Function>(new Function(params, std::move(body),
                                    std::move(retType), std::move(attrs), loc,
                                    std::move(checkedType)));
}

const AttrValue *Function::getAttr(StringRef name) const {
  return attrs ? attrs->lookup(name) : nullptr;
}

const AttrValue &Function::getVirtualDevice() const {
  const AttrValue *device = getAttr(attr::kVirtualDevice);
  return device ? *device : getUnconstrainedDevice();
}

Ref<DictAttrs> Function::withVirtualDevice(const DictAttrs *attrs,
                                           AttrValue device) {
  // Removed first, so that a new value goes last, where TVM prints it.
  Ref<DictAttrs> rest = attrs ? attrs->without(attr::kVirtualDevice)
                              : DictAttrs::get({});
  if (device.isNone())
    return rest->empty() ? nullptr : rest;
  return rest->with(attr::kVirtualDevice, std::move(device));
}

void Function::setVirtualDeviceInPlace(AttrValue device) {
  attrs = withVirtualDevice(attrs.get(), std::move(device));
}

bool Function::hasNonZeroAttr(StringRef name) const {
  const AttrValue *value = getAttr(name);
  if (!value)
    return false;
  switch (value->getKind()) {
  case AttrValue::Kind::Int:
  case AttrValue::Kind::Bool:
    return value->getInt() != 0;
  case AttrValue::Kind::Float:
    return value->getFloat() != 0;
  default:
    return false;
  }
}

Error nnir::makeArityError(const Twine &callee, size_t expected, size_t got,
                           SMLoc loc) {
  return makeError(loc, callee + " expects " + Twine(expected) +
                            (expected == 1 ? " argument" : " arguments") +
                            ", got " + Twine(got));
}
