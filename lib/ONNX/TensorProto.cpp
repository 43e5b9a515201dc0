//===- TensorProto.cpp - ONNX TensorProto to NDArray ----------------------===//
//
/// \file
/// Element types and tensor data of ONNX: raw_data (little-endian bytes,
/// copied once into the array) or the typed repeated fields (float_data,
/// int32_data holding every narrow integer, bool and 16-bit float bit
/// patterns, int64_data, double_data, uint64_data). Strings, complex
/// numbers and external data are refused with a reason.
///
/// Sequences (SequenceProto) and optionals (OptionalProto), the other values
/// the ONNX test data stores, become tuples: one field per element of a
/// sequence, none or one for an optional (Import.h).
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"
#include "nnir/ONNX/Import.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/Twine.h"

#include <onnx/onnx-data.pb.h>

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

//===----------------------------------------------------------------------===//
// Sequences and optionals
//===----------------------------------------------------------------------===//

static Expected<RuntimeValue> valueOf(const onnx::SequenceProto &seq,
                                      uint64_t maxTensorBytes);
static Expected<RuntimeValue> valueOf(const onnx::OptionalProto &opt,
                                      uint64_t maxTensorBytes);

/// A tensor, as an element of a sequence or an optional.
static Expected<RuntimeValue> valueOf(const onnx::TensorProto &tensor,
                                      uint64_t maxTensorBytes) {
  Expected<NDArray> array = tensorFromProto(tensor, maxTensorBytes);
  if (!array)
    return array.takeError();
  return RuntimeValue::tensor(std::move(*array));
}

/// Protobuf parses any message's bytes as another message, keeping the
/// fields it does not know aside: a TensorProto read as a SequenceProto is
/// an empty sequence with unknown fields. So unknown fields are an error.
static constexpr StringLiteral kUnknownFields =
    "it has fields a sequence or optional does not have (is it another kind "
    "of value, a TensorProto?)";

/// "sequence 'name'" or "sequence".
template <typename Proto>
static std::string describe(StringRef what, const Proto &proto) {
  return proto.name().empty() ? what.str()
                              : (what + " '" + proto.name() + "'").str();
}

/// Sequences and optionals share their DataType enumeration.
static_assert(int(onnx::SequenceProto::TENSOR) ==
                  int(onnx::OptionalProto::TENSOR) &&
              int(onnx::SequenceProto::SEQUENCE) ==
                  int(onnx::OptionalProto::SEQUENCE) &&
              int(onnx::SequenceProto::OPTIONAL) ==
                  int(onnx::OptionalProto::OPTIONAL));

/// Checks the element type \p elemType of a sequence or an optional against
/// the kind of elements it holds (\p tensors, \p sequences, \p optionals:
/// whether it holds any of each).
static Error checkElements(int32_t elemType, bool tensors, bool sequences,
                           bool optionals) {
  using SP = onnx::SequenceProto;
  switch (elemType) {
  case SP::UNDEFINED:
  case SP::TENSOR:
  case SP::SEQUENCE:
  case SP::OPTIONAL:
    break;
  case SP::SPARSE_TENSOR:
  case SP::MAP:
    return makeError("sparse tensors and maps are not supported");
  default:
    return makeError("unknown element type " + Twine(elemType));
  }
  if ((tensors && elemType != SP::TENSOR) ||
      (sequences && elemType != SP::SEQUENCE) ||
      (optionals && elemType != SP::OPTIONAL))
    return makeError("it holds elements of another kind than its element "
                     "type " +
                     Twine(elemType));
  return Error::success();
}

/// Appends the values of \p elements (tensors, sequences or optionals) to
/// \p fields.
template <typename Elements>
static Error appendValues(const Elements &elements,
                          std::vector<RuntimeValue> &fields,
                          uint64_t maxTensorBytes) {
  for (const auto &element : elements) {
    Expected<RuntimeValue> value = valueOf(element, maxTensorBytes);
    if (!value)
      return makeError("element " + Twine(fields.size()) + ": " +
                       toString(value.takeError()));
    fields.push_back(std::move(*value));
  }
  return Error::success();
}

/// A SequenceProto as a tuple of its elements. Nesting is bounded by the
/// protobuf parser's recursion limit (100).
static Expected<RuntimeValue> valueOf(const onnx::SequenceProto &seq,
                                      uint64_t maxTensorBytes) {
  auto fail = [&](const Twine &message) {
    return makeError(describe("sequence", seq) + ": " + message);
  };
  if (seq.unknown_fields().field_count())
    return fail(kUnknownFields);
  if (seq.sparse_tensor_values_size() || seq.map_values_size())
    return fail("sequences of sparse tensors and of maps are not supported");
  if (Error err = checkElements(seq.elem_type(), seq.tensor_values_size(),
                                seq.sequence_values_size(),
                                seq.optional_values_size()))
    return fail(toString(std::move(err)));
  // Only one of them holds elements (checkElements).
  std::vector<RuntimeValue> fields;
  Error err = appendValues(seq.tensor_values(), fields, maxTensorBytes);
  if (!err)
    err = appendValues(seq.sequence_values(), fields, maxTensorBytes);
  if (!err)
    err = appendValues(seq.optional_values(), fields, maxTensorBytes);
  if (err)
    return fail(toString(std::move(err)));
  return RuntimeValue::tuple(std::move(fields));
}

/// An OptionalProto as a tuple of no field (empty) or one.
static Expected<RuntimeValue> valueOf(const onnx::OptionalProto &opt,
                                      uint64_t maxTensorBytes) {
  auto fail = [&](const Twine &message) {
    return makeError(describe("optional", opt) + ": " + message);
  };
  if (opt.unknown_fields().field_count())
    return fail(kUnknownFields);
  if (opt.has_sparse_tensor_value() || opt.has_map_value())
    return fail("optionals of sparse tensors and of maps are not supported");
  if (opt.has_tensor_value() + opt.has_sequence_value() +
          opt.has_optional_value() >
      1)
    return fail("it holds more than one value");
  if (Error err = checkElements(opt.elem_type(), opt.has_tensor_value(),
                                opt.has_sequence_value(),
                                opt.has_optional_value()))
    return fail(toString(std::move(err)));
  auto wrap = [&](Expected<RuntimeValue> value) -> Expected<RuntimeValue> {
    if (!value)
      return fail(toString(value.takeError()));
    return RuntimeValue::tuple({std::move(*value)});
  };
  if (opt.has_tensor_value())
    return wrap(valueOf(opt.tensor_value(), maxTensorBytes));
  if (opt.has_sequence_value())
    return wrap(valueOf(opt.sequence_value(), maxTensorBytes));
  if (opt.has_optional_value())
    return wrap(valueOf(opt.optional_value(), maxTensorBytes));
  // ONNX writes an empty optional with no element type.
  return RuntimeValue::tuple({});
}

Expected<RuntimeValue> nnir::loadONNXValue(StringRef bytes, ONNXValueKind kind,
                                           uint64_t maxTensorBytes) {
  auto parse = [&](auto &proto) {
    return bytes.size() <= static_cast<size_t>(INT32_MAX) &&
           proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
  };
  switch (kind) {
  case ONNXValueKind::Tensor: {
    Expected<NDArray> array = loadTensorProto(bytes, maxTensorBytes);
    if (!array)
      return array.takeError();
    return RuntimeValue::tensor(std::move(*array));
  }
  case ONNXValueKind::Sequence: {
    onnx::SequenceProto proto;
    if (!parse(proto))
      return makeError("not a serialised ONNX SequenceProto (corrupt or "
                       "truncated)");
    return valueOf(proto, maxTensorBytes);
  }
  case ONNXValueKind::Optional: {
    onnx::OptionalProto proto;
    if (!parse(proto))
      return makeError("not a serialised ONNX OptionalProto (corrupt or "
                       "truncated)");
    return valueOf(proto, maxTensorBytes);
  }
  }
  llvm_unreachable("unknown value kind");
}
