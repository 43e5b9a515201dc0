//===- TensorProto.cpp - ONNX TensorProto to NDArray ----------------------===//
//
/// \file
/// Element types and tensor data of ONNX: raw_data (little-endian bytes,
/// copied once into the array) or the typed repeated fields (float_data,
/// int32_data holding every narrow integer, bool and 16-bit float bit
/// patterns, int64_data, double_data, uint64_data). Strings, complex
/// numbers and external data are refused with a reason.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"
#include "nnir/ONNX/Import.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/Twine.h"

#include <cstring>

using namespace llvm;
using namespace nnir;
using namespace nnir::onnximport;

Expected<DataType> onnximport::dataTypeFromONNX(int32_t elemType) {
  using TP = onnx::TensorProto;
  switch (elemType) {
#define NNIR_DTYPE(Factory, Name, Code, Bits, NpyDescr, Suffix, PrintedSuffix,  \
                   ONNX, ...)                                                  \
  case TP::ONNX:                                                               \
    return DataType::Factory();
#include "nnir/Runtime/DataTypes.def"
  case TP::STRING:
    return makeError("string tensors are not supported");
  case TP::COMPLEX64:
  case TP::COMPLEX128:
    return makeError("complex tensors are not supported");
  default:
    return makeError("unknown ONNX element type " + Twine(elemType));
  }
}

/// Copies the repeated field \p values into \p array, converting each.
template <typename Repeated>
static Error fillFrom(NDArray &array, const Repeated &values, bool asBits) {
  int64_t n = array.getNumElements();
  if (values.size() != n)
    return makeError("tensor has " + Twine(values.size()) +
                     " data elements, its shape needs " + Twine(n));
  DataType dtype = array.getDType();
  for (int64_t i = 0; i < n; ++i) {
    if (asBits) {
      // 16-bit floats travel as their bit patterns in int32_data.
      uint16_t bits = static_cast<uint16_t>(values.Get(i));
      std::memcpy(static_cast<uint8_t *>(array.getMutableData()) + 2 * i,
                  &bits, 2);
    } else if (dtype.isFloatingPoint()) {
      array.setElementFromDouble(i, static_cast<double>(values.Get(i)));
    } else {
      array.setElementFromInt(i, static_cast<int64_t>(values.Get(i)));
    }
  }
  return Error::success();
}

Expected<NDArray> onnximport::tensorFromProto(const onnx::TensorProto &proto,
                                              uint64_t maxTensorBytes) {
  auto fail = [&](const Twine &message) {
    return makeError(
        (proto.name().empty() ? Twine("tensor") : "tensor '" + proto.name() + "'") +
        ": " + message);
  };
  if (proto.data_location() == onnx::TensorProto::EXTERNAL ||
      proto.external_data_size())
    return fail("external data is not supported");
  if (proto.has_segment())
    return fail("segmented tensors are not supported");
  Expected<DataType> dtype = dataTypeFromONNX(proto.data_type());
  if (!dtype)
    return fail(toString(dtype.takeError()));
  std::vector<int64_t> shape(proto.dims().begin(), proto.dims().end());
  for (int64_t d : shape)
    if (d < 0)
      return fail("negative dimension " + Twine(d));
  Expected<NDArray> array =
      NDArray::create(*dtype, shape, maxTensorBytes, /*zeroFill=*/false);
  if (!array)
    return fail(toString(array.takeError()));
  if (proto.has_raw_data()) {
    const std::string &raw = proto.raw_data();
    if (raw.size() != array->getByteSize())
      return fail("raw_data has " + Twine(raw.size()) + " bytes, " +
                  Twine(array->getByteSize()) + " expected");
    if (!raw.empty())
      std::memcpy(array->getMutableData(), raw.data(), raw.size());
    if (dtype->isBool())
      for (int64_t i = 0, n = array->getNumElements(); i < n; ++i)
        if (static_cast<const uint8_t *>(array->getData())[i] > 1)
          array->setElementFromInt(i, 1);
    return array;
  }
  using TP = onnx::TensorProto;
  Error err = Error::success();
  switch (proto.data_type()) {
  case TP::FLOAT:
    err = fillFrom(*array, proto.float_data(), false);
    break;
  case TP::DOUBLE:
    err = fillFrom(*array, proto.double_data(), false);
    break;
  case TP::INT64:
    err = fillFrom(*array, proto.int64_data(), false);
    break;
  case TP::UINT32:
  case TP::UINT64:
    err = fillFrom(*array, proto.uint64_data(), false);
    break;
  default:
    // Every narrower type; a float narrower than 32 bits (float16,
    // bfloat16) travels as its bit pattern.
    err = fillFrom(*array, proto.int32_data(), dtype->isFloatingPoint());
    break;
  }
  if (err)
    return fail(toString(std::move(err)));
  return array;
}

Expected<NDArray> nnir::loadTensorProto(StringRef bytes,
                                        uint64_t maxTensorBytes) {
  onnx::TensorProto proto;
  if (bytes.size() > static_cast<size_t>(INT32_MAX) ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return makeError("not a serialised ONNX TensorProto (corrupt or "
                     "truncated)");
  return onnximport::tensorFromProto(proto, maxTensorBytes);
}
