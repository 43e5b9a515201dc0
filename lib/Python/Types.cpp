//===- Types.cpp - Python bindings of the IR's types -----------------------===//
//
/// \file
/// TensorType(shape, dtype), TupleType(fields), FuncType(arg_types,
/// ret_type) and IncompleteType(). Dtypes are strings in Python ("float32").
/// Types compare and hash structurally (types are values).
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "nnir/IR/Type.h"
#include "nnir/Runtime/DataType.h"
#include "nnir/Support/Diagnostics.h"

using namespace nnir;
using namespace nnir::python;

static DataType parseDType(const std::string &name) {
  std::optional<DataType> dtype = DataType::parse(name);
  if (!dtype)
    throw py::type_error("unknown dtype \"" + name + "\"; expected one of " +
                         DataType::supportedNames().str());
  return *dtype;
}

Ref<Type> python::typeFromPython(py::handle object) {
  if (py::isinstance<Type>(object))
    return object.cast<Ref<Type>>();
  if (py::isinstance<py::str>(object))
    return TensorType::getScalar(parseDType(object.cast<std::string>()));
  throw py::type_error("expected a Type or a dtype string, got " +
                       py::str(py::type::handle_of(object)).cast<std::string>());
}

static std::vector<Ref<Type>> typesFromPython(py::iterable items) {
  std::vector<Ref<Type>> types;
  for (py::handle item : items)
    types.push_back(typeFromPython(item));
  return types;
}

/// A shape given from Python: integers (anything int() takes), and for a
/// dynamic extent an object marked `__nnir_any__` (nnir.Any, which is
/// TVM's relay.Any and tir.Any in the compatibility layer). A negative
/// integer is an error: -1 is not a way to write `?`.
static std::vector<int64_t> shapeFromPython(py::iterable dims) {
  std::vector<int64_t> shape;
  for (py::handle dim : dims) {
    if (py::hasattr(dim, "__nnir_any__")) {
      shape.push_back(kAnyDim);
      continue;
    }
    // operator.index(): integers and what stands for one (NumPy's), not
    // strings or floats.
    py::object index = py::reinterpret_steal<py::object>(
        PyNumber_Index(dim.ptr()));
    if (!index)
      throw py::error_already_set();
    int64_t extent = index.cast<int64_t>();
    if (extent < 0)
      unwrap(llvm::Expected<Ref<TensorType>>(
          makeError(llvm::SMLoc(), "negative dimension " + llvm::Twine(extent) +
                                       " in tensor shape (write nnir.Any() "
                                       "for a dynamic one)")));
    shape.push_back(extent);
  }
  return shape;
}

void python::populateTypes(py::module_ &m) {
  py::class_<Type, Ref<Type>>(m, "Type", "Base class of the IR's types")
      .def("__str__", &Type::str)
      .def("__repr__", &Type::str)
      .def("__eq__",
           [](const Type &a, py::object b) {
             return py::isinstance<Type>(b) &&
                    typesEqual(&a, b.cast<Type *>());
           })
      .def("__hash__",
           [](const Type &t) { return static_cast<size_t>(hashType(&t)); });

  py::class_<TensorType, Type, Ref<TensorType>>(
      m, "TensorType",
      "A tensor type: a shape (extents, or nnir.Any() for a dynamic one, "
      "printed ?) and a dtype")
      .def(py::init([](py::iterable dims, const std::string &dtype) {
             return unwrap(
                 TensorType::create(shapeFromPython(dims), parseDType(dtype)));
           }),
           py::arg("shape"), py::arg("dtype") = "float32")
      .def_property_readonly("shape",
                             [](const TensorType &t) {
                               // A dynamic extent is an nnir.Any (TVM's
                               // tir.Any), the others ints.
                               py::list dims;
                               for (int64_t dim : t.getShape())
                                 dims.append(isAnyDim(dim)
                                                 ? py::module_::import("nnir")
                                                       .attr("Any")()
                                                 : py::int_(dim));
                               return py::tuple(dims);
                             })
      .def_property_readonly("concrete_shape",
                             [](const TensorType &t) {
                               if (t.isDynamic())
                                 throw py::value_error(
                                     "concrete_shape: " + t.str() +
                                     " has a dynamic extent");
                               return py::tuple(py::cast(std::vector<int64_t>(
                                   t.getShape().begin(), t.getShape().end())));
                             })
      .def_property_readonly("dtype",
                             [](const TensorType &t) {
                               return t.getDType().str();
                             })
      .def_property_readonly("ndim", &TensorType::getRank);

  py::class_<TupleType, Type, Ref<TupleType>>(m, "TupleType",
                                               "The type of a tuple")
      .def(py::init([](py::iterable fields) {
             return TupleType::get(typesFromPython(fields));
           }),
           py::arg("fields"))
      .def_property_readonly("fields",
                             [](const TupleType &t) {
                               return std::vector<Ref<Type>>(
                                   t.getFields().begin(), t.getFields().end());
                             })
      .def("__len__", &TupleType::size);

  py::class_<FuncType, Type, Ref<FuncType>>(m, "FuncType",
                                             "The type of a function")
      .def(py::init([](py::iterable argTypes, py::handle retType) {
             return FuncType::get(typesFromPython(argTypes),
                                  typeFromPython(retType));
           }),
           py::arg("arg_types"), py::arg("ret_type"))
      .def_property_readonly("arg_types",
                             [](const FuncType &t) {
                               return std::vector<Ref<Type>>(
                                   t.getParams().begin(), t.getParams().end());
                             })
      .def_property_readonly("ret_type", &FuncType::getResultRef);

  py::class_<IncompleteType, Type, Ref<IncompleteType>>(
      m, "IncompleteType", "`_`: a type left to type inference")
      .def(py::init([]() { return IncompleteType::get(); }));
}
