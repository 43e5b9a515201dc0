//===- Exprs.cpp - Python bindings of the IR's expressions ----------------===//
//
/// \file
/// Every expression node kind, constructible from Python with its fields
/// readable under TVM's names (`call.op`, `call.args`, `let.body`, ...).
/// Expressions compare and hash by identity, as TVM's do (structural
/// comparison is nnir.structural_equal); a node returned twice is the same
/// node. `checked_type` raises until type inference has run.
///
/// dataflow_post_order() lists a graph's nodes children first without
/// recursion; the Python ExprVisitor and ExprMutator walk that list, so a
/// 100,000-call chain never recurses on the Python stack.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "nnir/IR/Attrs.h"
#include "nnir/IR/Expr.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Traversal.h"
#include "nnir/IR/Printer.h"
#include "nnir/Runtime/NDArray.h"

#include "llvm/ADT/DenseSet.h"

using namespace nnir;
using namespace nnir::python;

/// The attribute record of a new call: an Attrs object as it is; a dict is
/// an operator's keyword arguments (or DictAttrs for any other callee).
static Ref<Attrs> callAttrsFromPython(const Ref<Expr> &callee,
                                      py::handle attrs) {
  if (attrs.is_none())
    return nullptr;
  if (py::isinstance<Attrs>(attrs))
    return attrs.cast<Ref<Attrs>>();
  if (!py::isinstance<py::dict>(attrs))
    throw py::type_error("attrs must be an Attrs, a dict or None");
  const Op *op = llvm::dyn_cast<Op>(callee.get());
  std::string owner = op ? op->getName().str() : "call";
  std::vector<NamedAttrValue> kwargs;
  for (auto item : attrs.cast<py::dict>()) {
    std::string name = py::str(item.first);
    kwargs.push_back({name,
                      attrValueFromPython(item.second, "attribute '" + name +
                                                           "' of " + owner),
                      {}});
  }
  if (!op)
    return DictAttrs::get(kwargs);
  llvm::Expected<Ref<Attrs>> record = op->createAttrs(kwargs);
  if (!record)
    throwTypeError(record.takeError());
  return *record;
}

static Ref<DictAttrs> dictAttrsFromPython(py::handle attrs) {
  if (attrs.is_none())
    return nullptr;
  if (py::isinstance<DictAttrs>(attrs))
    return attrs.cast<Ref<DictAttrs>>();
  if (!py::isinstance<py::dict>(attrs))
    throw py::type_error("function attrs must be a dict or None");
  std::vector<NamedAttrValue> entries;
  for (auto item : attrs.cast<py::dict>()) {
    std::string name = py::str(item.first);
    entries.push_back(
        {name, attrValueFromPython(item.second, "function attribute '" + name + "'"),
         {}});
  }
  return DictAttrs::get(entries);
}

static std::vector<Ref<Expr>> exprsFromPython(py::iterable items) {
  std::vector<Ref<Expr>> exprs;
  for (py::handle item : items) {
    if (!py::isinstance<Expr>(item))
      throw py::type_error(
          "expected an Expr, got " +
          py::str(py::type::handle_of(item)).cast<std::string>());
    exprs.push_back(item.cast<Ref<Expr>>());
  }
  return exprs;
}

static Ref<Type> optionalType(py::handle object) {
  return object.is_none() ? nullptr : typeFromPython(object);
}

/// The nodes reachable from \p root through dataflow edges (call callees and
/// arguments, tuple fields, projections, let variables, values and bodies),
/// children before parents, each once. Functions and ifs are listed but not
/// entered: their visit recurses once per syntactic nesting level.
static constexpr const char *kVirtualDeviceDoc =
    "Where the value lives (TVM's virtual_device_): None (unconstrained) or "
    "a DLPack device type (1: the CPU). Setting it changes the node in place: "
    "do it before the node is used.";

/// A virtual device from Python: None or a device type (an integer). A
/// VirtualDevice read from a metadata section cannot be written back.
static AttrValue virtualDeviceFromPython(py::handle device) {
  AttrValue value = attrValueFromPython(device, "virtual_device");
  if (!value.isNone() && value.getKind() != AttrValue::Kind::Int)
    throw py::type_error("virtual_device: expected None or a device type "
                         "(an integer, 1 for the CPU), got " +
                         value.describe().str());
  return value;
}

static std::vector<Ref<Expr>> dataflowPostOrder(const Ref<Expr> &root) {
  std::vector<Ref<Expr>> order;
  // Through calls, tuples, projections and lets; the Python visitor enters
  // If branches and Function bodies itself.
  walkPostOrder(
      root.get(), nullptr,
      [&](Expr *e) {
        order.push_back(e);
        return WalkResult::advance();
      },
      [](Expr *e, llvm::SmallVectorImpl<Expr *> &children) {
        if (!llvm::isa<If, Function>(e))
          forEachChild(e, [&](Expr *child) { children.push_back(child); });
      });
  return order;
}

/// The expressions built of others: Call, Tuple, TupleGetItem, Let, If,
/// Function (and the attribute records calls carry).
static void populateCompositeExprs(py::module_ &m) {
  py::class_<Call, Expr, Ref<Call>>(m, "Call", "A call of an operator or function")
      .def(py::init([](Ref<Expr> callee, py::iterable args, py::object attrs) {
             return Call::get(callee, exprsFromPython(args),
                              callAttrsFromPython(callee, attrs));
           }),
           py::arg("op"), py::arg("args"), py::arg("attrs") = py::none())
      .def_property_readonly("op", &Call::getCallee)
      .def_property_readonly("args",
                             [](const Call &c) {
                               return std::vector<Ref<Expr>>(
                                   c.getArgs().begin(), c.getArgs().end());
                             })
      .def_property_readonly(
          "attrs",
          [](const Call &c) { return Ref<Attrs>(const_cast<Attrs *>(c.getAttrsOrDefaults())); },
          "The attribute record the call means (the operator's defaults "
          "when the call carries none); None when there is no record");

  py::class_<Tuple, Expr, Ref<Tuple>>(m, "Tuple", "A tuple of expressions")
      .def(py::init([](py::iterable fields) {
             return Tuple::get(exprsFromPython(fields));
           }),
           py::arg("fields"))
      .def_property_readonly("fields",
                             [](const Tuple &t) {
                               return std::vector<Ref<Expr>>(
                                   t.getFields().begin(), t.getFields().end());
                             })
      .def("__len__", &Tuple::size)
      .def("__getitem__", [](const Tuple &t, int64_t i) {
        int64_t n = t.size();
        if (i < 0)
          i += n;
        if (i < 0 || i >= n)
          throw py::index_error("tuple index out of range");
        return t.getField(i);
      });

  py::class_<TupleGetItem, Expr, Ref<TupleGetItem>>(m, "TupleGetItem",
                                                    "A field of a tuple")
      .def(py::init([](Ref<Expr> tuple, unsigned index) {
             return TupleGetItem::get(tuple, index);
           }),
           py::arg("tuple_value"), py::arg("index"))
      .def_property_readonly("tuple_value", &TupleGetItem::getTuple)
      .def_property_readonly("index", &TupleGetItem::getIndex);

  py::class_<Let, Expr, Ref<Let>>(m, "Let", "let var = value; body")
      .def(py::init([](Ref<Var> var, Ref<Expr> value, Ref<Expr> body) {
             return Let::get(var, value, body);
           }),
           py::arg("var"), py::arg("value"), py::arg("body"))
      .def_property_readonly("var", &Let::getVar)
      .def_property_readonly("value", &Let::getValue)
      .def_property_readonly("body", &Let::getBody);

  py::class_<If, Expr, Ref<If>>(m, "If", "if (cond) { then } else { else }")
      .def(py::init([](Ref<Expr> cond, Ref<Expr> thenBranch,
                       Ref<Expr> elseBranch) {
             return If::get(cond, thenBranch, elseBranch);
           }),
           py::arg("cond"), py::arg("true_branch"), py::arg("false_branch"))
      .def_property_readonly("cond", &If::getCond)
      .def_property_readonly("true_branch", &If::getThen)
      .def_property_readonly("false_branch", &If::getElse);

  py::class_<Function, Expr, Ref<Function>>(m, "Function", "A function")
      .def(py::init([](std::vector<Ref<Var>> params, Ref<Expr> body,
                       py::object retType, py::object attrs) {
             return Function::get(params, body, optionalType(retType),
                                  dictAttrsFromPython(attrs));
           }),
           py::arg("params"), py::arg("body"), py::arg("ret_type") = py::none(),
           py::arg("attrs") = py::none())
      .def_property_readonly("params",
                             [](const Function &f) {
                               return std::vector<Ref<Var>>(
                                   f.getParams().begin(), f.getParams().end());
                             })
      .def_property_readonly("body", &Function::getBody)
      .def_property_readonly("ret_type", &Function::getRetType)
      .def_property_readonly("attrs", &Function::getAttrs)
      .def_property(
          "virtual_device",
          [](const Function &f) {
            return attrValueToPython(f.getVirtualDevice());
          },
          [](Function &f, py::handle device) {
            f.setVirtualDeviceInPlace(virtualDeviceFromPython(device));
          },
          kVirtualDeviceDoc);

  py::class_<DictAttrs, Attrs, Ref<DictAttrs>>(
      m, "DictAttrs", "Untyped attributes of a function or a call")
      .def(py::init([](py::dict entries) { return dictAttrsFromPython(entries); }),
           py::arg("entries"));

  m.def("dataflow_post_order", &dataflowPostOrder, py::arg("expr"),
        "The nodes reachable through dataflow edges, children first");
}

void python::populateExprs(py::module_ &m) {
  py::class_<Expr, Ref<Expr>>(m, "Expr", "Base class of expressions")
      .def_property_readonly(
          "checked_type",
          [](const Expr &e) {
            if (!e.getCheckedType())
              throw py::value_error(
                  "the type of this " +
                  Expr::getKindName(e.getKind()).str() +
                  " has not been inferred: run nnir.infer_type() on it or "
                  "on its module first");
            return e.getCheckedType();
          },
          "The type inferred for this node (raises ValueError if type "
          "inference has not run)")
      .def_property_readonly(
          "has_checked_type",
          [](const Expr &e) { return bool(e.getCheckedType()); })
      .def_property_readonly(
          "kind",
          [](const Expr &e) { return Expr::getKindName(e.getKind()).str(); })
      .def("same_as", [](const Expr &a, const Expr &b) { return &a == &b; })
      .def("__eq__",
           [](const Expr &a, py::object b) {
             return py::isinstance<Expr>(b) && &a == b.cast<Expr *>();
           })
      .def("__ne__",
           [](const Expr &a, py::object b) {
             return !(py::isinstance<Expr>(b) && &a == b.cast<Expr *>());
           })
      .def("__hash__", [](const Expr &e) { return reinterpret_cast<size_t>(&e); })
      .def(
          "astext",
          [](const Expr &e, bool showTypes, bool showMetaData) {
            PrintOptions options;
            options.showTypes = showTypes;
            options.printMetadata = showMetaData;
            return toString(&e, options);
          },
          py::arg("show_types") = false, py::arg("show_meta_data") = true,
          "The expression in the text format")
      .def("__str__", [](const Expr &e) { return toString(&e); });

  py::class_<Constant, Expr, Ref<Constant>>(m, "Constant", "A tensor constant")
      .def(py::init([](const NDArray &data) { return Constant::get(data); }),
           py::arg("data"))
      .def_property_readonly("data", &Constant::getData)
      .def_property_readonly("is_scalar", &Constant::isScalar);

  py::class_<Var, Expr, Ref<Var>>(m, "Var", "A local variable")
      .def(py::init([](const std::string &name, py::object annotation) {
             return Var::get(name, optionalType(annotation));
           }),
           py::arg("name_hint"), py::arg("type_annotation") = py::none())
      .def_property_readonly("name_hint",
                             [](const Var &v) { return v.getNameHint().str(); })
      .def_property_readonly("type_annotation", &Var::getTypeAnnotation)
      .def_property(
          "virtual_device",
          [](const Var &v) { return attrValueToPython(v.getVirtualDevice()); },
          [](Var &v, py::handle device) {
            v.setVirtualDeviceInPlace(virtualDeviceFromPython(device));
          },
          kVirtualDeviceDoc);

  py::class_<GlobalVar, Expr, Ref<GlobalVar>>(
      m, "GlobalVar", "A reference to a function of a module, by name")
      .def(py::init([](const std::string &name) { return GlobalVar::get(name); }),
           py::arg("name_hint"))
      .def_property_readonly("name_hint",
                             [](const GlobalVar &v) { return v.getName().str(); });

  py::class_<Op, Expr, Ref<Op>>(m, "Op", "A registered operator")
      .def_static(
          "get",
          [](const std::string &name) {
            Op *op = Op::lookup(name);
            if (!op)
              throw py::value_error("unknown operator '" + name + "'");
            return Ref<Op>(op);
          },
          py::arg("name"))
      .def_property_readonly("name", [](const Op &op) { return op.getName().str(); })
      .def_property_readonly("description",
                             [](const Op &op) { return op.getDescription().str(); })
      .def_property_readonly("num_inputs", &Op::getNumInputs)
      .def_property_readonly("attrs_type_key",
                             [](const Op &op) { return op.getAttrsTypeKey().str(); })
      .def_property_readonly("default_attrs", &Op::getDefaultAttrs);

  populateCompositeExprs(m);
}
