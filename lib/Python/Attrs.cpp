//===- Attrs.cpp - Python bindings of attribute records -------------------===//
//
/// \file
/// One Python class, Attrs, shows every attribute record: its fields are
/// read by name (`call.attrs.axis`, `attrs["axis"]`), listed with keys(),
/// and converted to Python values (int, float, bool, str, None, tuples,
/// expressions). No record type is bound by hand: the field list comes from
/// the record's own declaration (Attrs::getFields).
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "nnir/IR/Attrs.h"
#include "nnir/IR/Expr.h"
#include "nnir/IR/Metadata.h"

#include "llvm/ADT/SmallVector.h"

using namespace nnir;
using namespace nnir::python;

py::object python::attrValueToPython(const AttrValue &value) {
  switch (value.getKind()) {
  case AttrValue::Kind::None:
    return py::none();
  case AttrValue::Kind::Int:
    return py::int_(value.getInt());
  case AttrValue::Kind::Float:
    return py::float_(value.getFloat());
  case AttrValue::Kind::Bool:
    return py::bool_(value.getBool());
  case AttrValue::Kind::String:
    return py::str(value.getString());
  case AttrValue::Kind::Array: {
    py::tuple result(value.getArray().size());
    for (size_t i = 0, e = value.getArray().size(); i != e; ++i)
      result[i] = attrValueToPython(value.getArray()[i]);
    return std::move(result);
  }
  case AttrValue::Kind::Expr:
    return py::cast(Ref<Expr>(value.getExpr()));
  case AttrValue::Kind::Object:
    // TVM objects without a literal (VirtualDevice, Target): their repr.
    return py::str(value.getObject()->getRepr().str());
  }
  return py::none();
}

AttrValue python::attrValueFromPython(py::handle object,
                                      const std::string &what) {
  if (object.is_none())
    return AttrValue::none();
  // bool before int: a Python bool is an int.
  if (py::isinstance<py::bool_>(object))
    return AttrValue::boolean(object.cast<bool>());
  if (py::isinstance<py::int_>(object)) {
    int64_t v = object.cast<int64_t>();
    bool fits32 = v >= INT32_MIN && v <= INT32_MAX;
    return AttrValue::integer(v, fits32 ? DataType::int32()
                                        : DataType::int64());
  }
  if (py::isinstance<py::float_>(object))
    return AttrValue::floating(object.cast<double>());
  if (py::isinstance<py::str>(object))
    return AttrValue::string(object.cast<std::string>());
  if (py::isinstance<Expr>(object))
    return AttrValue::expr(object.cast<Ref<Expr>>());
  if (py::isinstance<py::list>(object) || py::isinstance<py::tuple>(object)) {
    std::vector<AttrValue> elements;
    for (py::handle item : object)
      elements.push_back(attrValueFromPython(item, what));
    return AttrValue::array(std::move(elements));
  }
  // NumPy scalars and other number-likes: by their protocol.
  if (py::hasattr(object, "__index__"))
    return attrValueFromPython(py::int_(py::reinterpret_borrow<py::object>(
                                   object)),
                               what);
  if (py::hasattr(object, "__float__"))
    return AttrValue::floating(
        py::float_(py::reinterpret_borrow<py::object>(object)).cast<double>());
  if (py::hasattr(object, "tolist"))
    return attrValueFromPython(object.attr("tolist")(), what);
  // A record standing for a TVM object without a literal (the TVM
  // compatibility layer's Executor, Runtime): (type key, [(field, text)]).
  if (py::hasattr(object, "_nnir_meta_object_")) {
    py::tuple spec = object.attr("_nnir_meta_object_")().cast<py::tuple>();
    std::vector<MetaObject::Field> fields;
    for (py::handle item : spec[1]) {
      auto pair = item.cast<std::pair<std::string, std::string>>();
      fields.push_back({pair.first, false, pair.second, nullptr});
    }
    return AttrValue::object(MetaObject::get(spec[0].cast<std::string>(),
                                             py::str(object).cast<std::string>(),
                                             std::move(fields), {}, {}));
  }
  throw py::type_error(what + ": cannot convert a value of type " +
                       py::str(py::type::handle_of(object)).cast<std::string>() +
                       " to an attribute");
}

/// The fields of \p attrs as (name, value) pairs.
static llvm::SmallVector<NamedAttrValue, 8> getFields(const Attrs &attrs) {
  llvm::SmallVector<NamedAttrValue, 8> fields;
  attrs.getFields(fields);
  return fields;
}

static py::object getField(const Attrs &attrs, const std::string &name) {
  for (const NamedAttrValue &field : getFields(attrs))
    if (field.name == name)
      return attrValueToPython(field.value);
  throw py::attribute_error(attrs.getTypeKey().str() + " has no attribute '" +
                            name + "'");
}

void python::populateAttrs(py::module_ &m) {
  py::class_<Attrs, Ref<Attrs>>(
      m, "Attrs",
      "An attribute record (of an operator call or a function): fields "
      "read by name")
      .def_property_readonly("type_key",
                             [](const Attrs &a) { return a.getTypeKey().str(); })
      .def("keys",
           [](const Attrs &a) {
             std::vector<std::string> keys;
             for (const NamedAttrValue &field : getFields(a))
               keys.push_back(field.name);
             return keys;
           })
      .def("items",
           [](const Attrs &a) {
             py::list items;
             for (const NamedAttrValue &field : getFields(a))
               items.append(
                   py::make_tuple(field.name, attrValueToPython(field.value)));
             return items;
           })
      .def("get_field", &getField, py::arg("name"))
      .def("__getitem__",
           [](const Attrs &a, const std::string &name) {
             try {
               return getField(a, name);
             } catch (const py::attribute_error &) {
               throw py::key_error(name);
             }
           })
      .def("__getattr__", &getField)
      .def("__contains__",
           [](const Attrs &a, const std::string &name) {
             for (const NamedAttrValue &field : getFields(a))
               if (field.name == name)
                 return true;
             return false;
           })
      .def("__len__", [](const Attrs &a) { return getFields(a).size(); })
      .def("__eq__",
           [](const Attrs &a, py::object b) {
             return py::isinstance<Attrs>(b) && attrsEqual(&a, b.cast<Attrs *>());
           })
      .def("__hash__",
           [](const Attrs &a) { return static_cast<size_t>(hashAttrs(&a)); })
      .def("__repr__", [](const Attrs &a) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << a.getTypeKey() << "(";
        bool first = true;
        for (const NamedAttrValue &field : getFields(a)) {
          if (!first)
            os << ", ";
          first = false;
          os << field.name << "=";
          field.value.print(os);
        }
        os << ")";
        return os.str();
      });
}
