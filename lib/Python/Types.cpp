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
      m, "TensorType", "A tensor type: a static shape and a dtype")
      .def(py::init([](std::vector<int64_t> shape, const std::string &dtype) {
             // -1 is kAnyDim in C++; Python spells no `?` (yet), so a
             // negative extent stays an error here.
             for (int64_t dim : shape)
               if (dim < 0)
                 unwrap(llvm::Expected<Ref<TensorType>>(
                     makeError(llvm::SMLoc(), "negative dimension " +
                                                  llvm::Twine(dim) +
                                                  " in tensor shape")));
             return unwrap(TensorType::create(shape, parseDType(dtype)));
           }),
           py::arg("shape"), py::arg("dtype") = "float32")
      .def_property_readonly("shape",
                             [](const TensorType &t) {
                               return py::tuple(py::cast(std::vector<int64_t>(
                                   t.getShape().begin(), t.getShape().end())));
                             })
      .def_property_readonly("concrete_shape",
                             [](const TensorType &t) {
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
