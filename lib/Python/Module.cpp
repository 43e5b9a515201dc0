//===- Module.cpp - Python bindings of IRModule ---------------------------===//
//
/// \file
/// IRModule: built empty, from a dict of GlobalVar or name -> Function, or
/// from an expression (from_expr wraps it as `main`); indexed by name or
/// GlobalVar; `update`, `get_global_var`, `functions`. Functions are shared
/// with other modules (nodes are immutable); the module itself is mutable,
/// as TVM's is.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "nnir/IR/Expr.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Printer.h"
#include "nnir/IR/StructuralEqual.h"

using namespace nnir;
using namespace nnir::python;

static std::string keyName(py::handle key) {
  if (py::isinstance<py::str>(key))
    return key.cast<std::string>();
  if (py::isinstance<GlobalVar>(key))
    return key.cast<GlobalVar *>()->getName().str();
  throw py::type_error("a module is indexed by a GlobalVar or a name");
}

static Ref<Function> functionFromPython(py::handle value) {
  if (!py::isinstance<Function>(value))
    throw py::type_error("a module holds Functions, got " +
                         py::str(py::type::handle_of(value)).cast<std::string>());
  return value.cast<Ref<Function>>();
}

/// Adds or replaces the function under \p key (a GlobalVar keeps its node
/// when the name is new).
static void setFunction(IRModule &module, py::handle key, py::handle value) {
  Ref<Function> func = functionFromPython(value);
  std::string name = keyName(key);
  if (py::isinstance<GlobalVar>(key) && !module.contains(name)) {
    if (llvm::Error err = module.add(key.cast<Ref<GlobalVar>>(), func))
      throwDiagnostic(std::move(err));
    return;
  }
  module.addOrUpdate(name, func);
}

void python::populateModule(py::module_ &m) {
  py::class_<IRModule, Ref<IRModule>>(
      m, "IRModule", "A set of global functions, by name")
      .def(py::init([](py::object functions) {
             Ref<IRModule> module = IRModule::create();
             if (!functions.is_none()) {
               if (!py::isinstance<py::dict>(functions))
                 throw py::type_error("IRModule(functions): expected a dict of "
                                      "GlobalVar or name -> Function");
               for (auto item : functions.cast<py::dict>())
                 setFunction(*module, item.first, item.second);
             }
             return module;
           }),
           py::arg("functions") = py::none())
      .def_static(
          "from_expr",
          [](Ref<Expr> expr) { return IRModule::fromExpr(expr); },
          py::arg("expr"),
          "A module whose `main` is the expression (a Function as it is; "
          "any other expression as a function of its free variables)")
      .def("__getitem__",
           [](const IRModule &module, py::handle key) {
             Function *func = module.lookup(keyName(key));
             if (!func)
               throw py::key_error("no function named '" + keyName(key) +
                                   "' in the module");
             return Ref<Function>(func);
           })
      .def("__setitem__", &setFunction)
      .def("__contains__",
           [](const IRModule &module, py::handle key) {
             return module.contains(keyName(key));
           })
      .def("__len__", &IRModule::size)
      .def(
          "update",
          [](IRModule &module, py::object other) {
            if (py::isinstance<IRModule>(other)) {
              for (const IRModule::Entry &entry :
                   other.cast<IRModule &>().getFunctions())
                module.addOrUpdate(entry.var->getName(), entry.func);
              return;
            }
            if (!py::isinstance<py::dict>(other))
              throw py::type_error("update: expected an IRModule or a dict");
            for (auto item : other.cast<py::dict>())
              setFunction(module, item.first, item.second);
          },
          py::arg("other"))
      .def(
          "remove",
          [](IRModule &module, py::handle key) {
            if (!module.remove(keyName(key)))
              throw py::key_error(keyName(key));
          },
          py::arg("var"))
      .def(
          "get_global_var",
          [](const IRModule &module, const std::string &name) {
            GlobalVar *var = module.getGlobalVar(name);
            if (!var)
              throw py::value_error("no function named '" + name +
                                    "' in the module");
            return Ref<GlobalVar>(var);
          },
          py::arg("name"))
      .def("get_global_vars",
           [](const IRModule &module) {
             std::vector<Ref<GlobalVar>> vars;
             for (const IRModule::Entry &entry : module.getFunctions())
               vars.push_back(entry.var);
             return vars;
           })
      .def_property_readonly(
          "functions",
          [](const IRModule &module) {
            py::dict functions;
            for (const IRModule::Entry &entry : module.getFunctions())
              functions[py::cast(entry.var)] = py::cast(entry.func);
            return functions;
          },
          "GlobalVar -> Function, in definition order")
      .def_property_readonly("has_valid_types", &IRModule::hasValidTypes)
      .def_property_readonly(
          "attrs", [](const IRModule &module) { return module.getAttrs(); },
          "The module's attributes (a DictAttrs), or None")
      .def(
          "with_attr",
          [](const IRModule &module, const std::string &key,
             py::handle value) {
            if (key.empty())
              throw py::value_error("a module attribute key must not be "
                                    "empty");
            AttrValue converted = attrValueFromPython(
                value, "module attribute '" + key + "'");
            Ref<DictAttrs> attrs = module.getAttrs();
            Ref<IRModule> copy = module.shallowCopy();
            copy->setAttrs(attrs ? attrs->with(key, std::move(converted))
                                 : DictAttrs::get({{key, converted, llvm::SMLoc()}}));
            return copy;
          },
          py::arg("attr_key"), py::arg("attr_value"),
          "A copy of the module (sharing its functions) with the attribute "
          "set")
      .def(
          "astext",
          [](const IRModule &module, bool showTypes, bool showMetaData) {
            PrintOptions options;
            options.showTypes = showTypes;
            options.printMetadata = showMetaData;
            return toString(module, options);
          },
          py::arg("show_types") = false, py::arg("show_meta_data") = true,
          "The module in the text format")
      .def("__str__", [](const IRModule &module) { return toString(module); })
      .def("__repr__", [](const IRModule &module) { return toString(module); })
      .def("same_as",
           [](const IRModule &a, const IRModule &b) { return &a == &b; });
}
