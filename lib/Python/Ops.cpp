//===- Ops.cpp - The operator registry, seen from Python ------------------===//
//
/// \file
/// list_ops() describes every registered operator (name, inputs, attribute
/// record type and fields with their defaults) so that nnir.op generates a
/// Python function per operator at import: an operator registered in C++
/// appears in Python without a Python edit. make_op_call() builds a call,
/// checking arity and attributes the way the parser does (a wrong attribute
/// name or type is a TypeError naming the attribute).
/// set_alter_op_layout() makes a Python function an operator's layout
/// alteration (the property AlterOpLayout applies), called with TVM's
/// arguments (attrs, inputs, tinfos, out_type) with the GIL taken; its
/// exception leaves the pass as itself.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "nnir/IR/Attrs.h"
#include "nnir/IR/Expr.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Type.h"
#include "nnir/Transforms/AlterOpLayout.h"

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

/// The registered operator \p name; ValueError when there is none.
static Op &lookupOp(const std::string &name) {
  Op *op = Op::lookup(name);
  if (!op)
    throw py::value_error("unknown operator '" + name + "'");
  return *op;
}

static Ref<Call> makeOpCall(const std::string &name,
                            std::vector<Ref<Expr>> args, py::dict attrs) {
  Op *op = &lookupOp(name);
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

/// The Python function \p func as the layout alteration of \p opName.
static AlterOpLayoutFn makePythonAlteration(py::function func,
                                            const std::string &opName) {
  SharedPyObject holder = sharePyObject(std::move(func));
  return [holder, opName](const Call &call, llvm::ArrayRef<const Type *> types,
                          const Type *resultType) -> llvm::Expected<Ref<Expr>> {
    py::gil_scoped_acquire gil;
    try {
      std::vector<Ref<Expr>> inputs(call.getArgs().begin(),
                                    call.getArgs().end());
      std::vector<Ref<Type>> tinfos;
      for (const Type *type : types)
        tinfos.push_back(Ref<Type>(const_cast<Type *>(type)));
      py::object result = holder->get()(
          Ref<Attrs>(const_cast<Attrs *>(call.getAttrsOrDefaults())), inputs,
          tinfos, Ref<Type>(const_cast<Type *>(resultType)));
      if (result.is_none())
        return Ref<Expr>();
      if (!py::isinstance<Expr>(result)) {
        PyErr_SetString(PyExc_TypeError,
                        ("the layout alteration of " + opName +
                         " returned a " +
                         py::str(py::type::of(result).attr("__name__"))
                             .cast<std::string>() +
                         ", not an expression or None")
                            .c_str());
        throw py::error_already_set();
      }
      return result.cast<Ref<Expr>>();
    } catch (py::error_already_set &error) {
      return errorFromPython(error,
                             "in the layout alteration of " + opName);
    }
  };
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
  m.def(
      "set_alter_op_layout",
      [](const std::string &name, py::function func, int level) {
        Op &op = lookupOp(name);
        if (llvm::Error err =
                setAlterOpLayout(op, makePythonAlteration(func, name), level))
          throw py::value_error(llvm::toString(std::move(err)));
      },
      py::arg("op_name"), py::arg("func"), py::arg("level") = 10,
      "Makes func(attrs, inputs, tinfos, out_type) the layout alteration of "
      "an operator at a priority level (TVM's FTVMAlterOpLayout)");
  m.def(
      "reset_alter_op_layout",
      [](const std::string &name) { resetAlterOpLayout(lookupOp(name)); },
      py::arg("op_name"), "Removes the layout alteration of an operator");
}
