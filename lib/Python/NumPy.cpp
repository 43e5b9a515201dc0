//===- NumPy.cpp - NDArray and the buffer protocol ------------------------===//
//
/// \file
/// NDArray in Python: built from any C-contiguous buffer (a NumPy array) with
/// one copy into nnir's aligned storage, and exported through the buffer
/// protocol without a copy: `numpy.asarray(nd)` views nnir's buffer, read
/// only (constants are immutable), and keeps the storage alive for as long
/// as the view lives. bfloat16 has no NumPy dtype: it is exported as its raw
/// uint16 bits.
///
/// bytes_copied_in() counts the bytes copied into NDArrays from Python, so
/// tests can check that a constant is copied exactly once on its way in.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "nnir/Runtime/DataType.h"
#include "nnir/Runtime/NDArray.h"

#include <atomic>
#include <cstring>

using namespace nnir;
using namespace nnir::python;

static std::atomic<uint64_t> bytesCopiedIn{0};

/// The buffer-protocol format of \p dtype's elements (DataTypes.def).
static std::string bufferFormat(DataType dtype) {
#define NNIR_DTYPE(Factory, Name, Code, Bits, NpyDescr, Suffix, PrintedSuffix,  \
                   ONNX, LLVMStorage, LLVMCompute, BufferFormat)               \
  if (dtype == DataType::Factory())                                            \
    return BufferFormat;
#include "nnir/Runtime/DataTypes.def"
  throw py::type_error("dtype " + dtype.str() + " has no buffer format");
}

static NDArray fromBuffer(py::buffer buffer, const std::string &dtypeName) {
  std::optional<DataType> dtype = DataType::parse(dtypeName);
  if (!dtype)
    throw py::type_error("unknown dtype \"" + dtypeName +
                         "\"; expected one of " +
                         DataType::supportedNames().str());
  py::buffer_info info = buffer.request();
  if (static_cast<unsigned>(info.itemsize) != dtype->getStorageBytes())
    throw py::type_error("a " + dtype->str() + " element takes " +
                         std::to_string(dtype->getStorageBytes()) +
                         " bytes, the buffer's take " +
                         std::to_string(info.itemsize));
  // Only C-contiguous buffers: the caller makes others contiguous.
  int64_t expected = info.itemsize;
  for (int64_t i = info.ndim; i-- > 0;) {
    if (info.shape[i] != 1 && info.strides[i] != expected)
      throw py::value_error("the buffer is not C-contiguous");
    expected *= info.shape[i];
  }
  NDArray array = unwrap(NDArray::create(*dtype, info.shape, UINT64_MAX,
                                         /*zeroFill=*/false));
  size_t bytes = array.getByteSize();
  if (bytes) {
    // The one copy; nnir's storage is aligned and owned by nnir.
    py::gil_scoped_release release;
    std::memcpy(array.getMutableData(), info.ptr, bytes);
  }
  bytesCopiedIn += bytes;
  return array;
}

void python::populateNumPy(py::module_ &m) {
  py::class_<NDArray>(m, "NDArray", py::buffer_protocol(),
                      "A dense host tensor; numpy.asarray() views it without "
                      "a copy")
      .def_static("from_buffer", &fromBuffer, py::arg("buffer"),
                  py::arg("dtype"),
                  "An NDArray copied (once) from a C-contiguous buffer")
      .def_property_readonly("shape",
                             [](const NDArray &a) {
                               return py::tuple(py::cast(std::vector<int64_t>(
                                   a.getShape().begin(), a.getShape().end())));
                             })
      .def_property_readonly("dtype",
                             [](const NDArray &a) { return a.getDType().str(); })
      .def_property_readonly("nbytes", &NDArray::getByteSize)
      .def_property_readonly(
          "data_ptr",
          [](const NDArray &a) {
            return reinterpret_cast<uintptr_t>(a.getData());
          },
          "The address of the buffer (for tests of sharing)")
      .def(
          "numpy",
          [](py::object self) {
            return py::module_::import("numpy").attr("asarray")(self);
          },
          "A read-only NumPy view of the data (no copy)")
      .def("same_as", &NDArray::sameAs)
      .def("__repr__",
           [](py::object self) {
             const NDArray &a = self.cast<const NDArray &>();
             std::string shape;
             for (int64_t extent : a.getShape())
               shape += (shape.empty() ? "" : ", ") + std::to_string(extent);
             return "<nnir.NDArray (" + shape + ") " + a.getDType().str() +
                    ">";
           })
      .def_buffer([](const NDArray &a) {
        DataType dtype = a.getDType();
        std::vector<py::ssize_t> shape(a.getShape().begin(),
                                       a.getShape().end());
        std::vector<py::ssize_t> strides(shape.size());
        py::ssize_t stride = dtype.getStorageBytes();
        for (size_t i = shape.size(); i-- > 0;) {
          strides[i] = stride;
          stride *= shape[i];
        }
        return py::buffer_info(const_cast<void *>(a.getData()),
                               dtype.getStorageBytes(), bufferFormat(dtype),
                               shape.size(), shape, strides,
                               /*readonly=*/true);
      });
  m.def(
      "bytes_copied_in", []() { return bytesCopiedIn.load(); },
      "Bytes copied into NDArrays from Python buffers so far");
}
