//===- Ops.cpp - The operator registry, seen from Python ------------------===//
//
/// \file
/// list_ops() describes every registered operator (name, inputs, attribute
/// record type and fields with their defaults) so that nnir.op generates a
/// Python function per operator at import: an operator registered in C++
/// appears in Python without a Python edit. make_op_call() builds a call,
/// checking arity and attributes the way the parser does (a wrong attribute
/// name or type is a TypeError naming the attribute).
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "nnir/IR/Attrs.h"
#include "nnir/IR/Expr.h"
#include "nnir/IR/Op.h"

#include "llvm/ADT/SmallVector.h"

using namespace nnir;
using namespace nnir::python;

static py::dict describeOp(const Op &op) {
  py::dict info;
  info["name"] = op.getName().str();
  info["description"] = op.getDescription().str();
  info["num_inputs"] = op.getNumInputs();
  py::list inputs;
  for (const OpArgument &argument : op.getArguments())
    inputs.append(argument.name);
  info["inputs"] = inputs;
  info["attrs_type_key"] = op.getAttrsTypeKey().str();
  py::list fields;
  if (const Ref<Attrs> &defaults = op.getDefaultAttrs()) {
    llvm::SmallVector<AttrFieldInfo, 8> described;
    defaults->describeFields(described);
    llvm::SmallVector<NamedAttrValue, 8> values;
    defaults->getFields(values);
    for (size_t i = 0, e = described.size(); i != e; ++i) {
      py::dict field;
      field["name"] = described[i].name;
      field["type"] = described[i].typeName;
      field["required"] = !described[i].defaultText.has_value();
      field["default"] = described[i].defaultText
                             ? attrValueToPython(values[i].value)
                             : py::object(py::none());
      fields.append(field);
    }
  }
  info["fields"] = fields;
  return info;
}

static Ref<Call> makeOpCall(const std::string &name,
                            std::vector<Ref<Expr>> args, py::dict attrs) {
  Op *op = Op::lookup(name);
  if (!op)
    throw py::value_error("unknown operator '" + name + "'");
  if (llvm::Error err = op->checkNumArgs(args.size()))
    throwTypeError(std::move(err));
  std::vector<NamedAttrValue> kwargs;
  for (auto item : attrs) {
    std::string key = py::str(item.first);
    kwargs.push_back(
        {key,
         attrValueFromPython(item.second,
                             "attribute '" + key + "' of " + name),
         {}});
  }
  Ref<Attrs> record;
  if (op->hasAttrsType() || !kwargs.empty()) {
    llvm::Expected<Ref<Attrs>> created = op->createAttrs(kwargs);
    if (!created)
      throwTypeError(created.takeError());
    record = *created;
  }
  return Call::get(Ref<Expr>(op), args, record);
}

void python::populateOps(py::module_ &m) {
  m.def(
      "list_ops",
      []() {
        py::list ops;
        for (const Ref<Op> &op : OpRegistry::instance().getOps())
          ops.append(describeOp(*op));
        return ops;
      },
      "Every registered operator, described as a dict");
  m.def("make_op_call", &makeOpCall, py::arg("op_name"), py::arg("args"),
        py::arg("attrs"),
        "A call of a registered operator with attributes from keywords");
}
