//===- NodeContext.h - What an ONNX operator converter sees ------*- C++
//-*-===//
//
/// \file
/// The importer's internal interface between the graph walk (Importer.cpp)
/// and the table of operator converters (OpConverters.cpp, the converters
/// themselves in Convert*.cpp by operator family). A converter reads one
/// NodeProto's inputs (typed nnir expressions, with their constant values
/// where import can know them) and attributes (checked against their
/// declared AttributeProto type, with per-opset defaults supplied by the
/// converter), and builds nnir calls with the operators' builders
/// (nnir/Ops/Builders.h), each typed at once by NodeContext::typed(), so the
/// next converter sees static shapes.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_LIB_ONNX_NODECONTEXT_H
#define NNIR_LIB_ONNX_NODECONTEXT_H

#include "nnir/ExecutionEngine/Evaluator.h"
#include "nnir/IR/Attrs.h"
#include "nnir/IR/Expr.h"
#include "nnir/IR/Type.h"
#include "nnir/ONNX/Import.h"
#include "nnir/Runtime/NDArray.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <vector>

namespace nnir {
namespace onnximport {

/// An ONNX value during import: a typed expression. Its TensorType is its
/// checked type; `constant` is set when it depends on no graph input, so its
/// value can be computed at import time.
struct Value {
  Ref<Expr> expr;
  bool constant = false;

  explicit operator bool() const { return expr != nullptr; }
  /// The expression, so a Value is an operand of the builders
  /// (`ops::add(x, y)`).
  operator Ref<Expr>() const { return expr; }
  /// The TensorType of a tensor (not of a sequence or an optional: isTensor).
  const TensorType &type() const;
  /// False for a sequence or an optional (a tuple, ConvertSequence.cpp).
  bool isTensor() const;
  llvm::ArrayRef<int64_t> shape() const { return type().getShape(); }
  int64_t rank() const { return type().getRank(); }
  DataType dtype() const { return type().getDType(); }
};

class GraphImporter;

/// One node being converted.
class NodeContext {
public:
  NodeContext(GraphImporter &importer, const onnx::NodeProto &node,
              unsigned index, int64_t opset, llvm::ArrayRef<Value> inputs)
      : importer(importer), node(node), index(index), opset(opset),
        inputs(inputs) {}

  const onnx::NodeProto &getNode() const { return node; }
  llvm::StringRef getOpType() const { return node.op_type(); }
  /// The opset version of the node's domain.
  int64_t getOpset() const { return opset; }

  //===--------------------------------------------------------------------===//
  // Diagnostics
  //===--------------------------------------------------------------------===//

  /// "node 3 'conv1' (Conv, domain ai.onnx, opset 13): <message>"
  llvm::Error error(const llvm::Twine &message) const;
  /// An operator or attribute value nnir cannot express.
  llvm::Error unsupported(const llvm::Twine &message) const;

  //===--------------------------------------------------------------------===//
  // Inputs
  //===--------------------------------------------------------------------===//

  size_t getNumInputs() const { return inputs.size(); }
  /// True when input \p i is given (present and not the empty name).
  bool hasInput(size_t i) const { return i < inputs.size() && inputs[i]; }
  const Value &input(size_t i) const { return inputs[i]; }
  /// Requires at least \p min and at most \p max inputs.
  llvm::Error checkNumInputs(size_t min, size_t max) const;
  /// The static shape of input \p i; when it has a `?` extent, the error
  /// that names this node, the input and the dimension, and says how to fix
  /// it (--input-shape). For converters that read an extent at import time
  /// only in some cases (an opset, an attribute); the table's rows say
  /// which inputs a converter takes dynamic (ConverterRow::dynamicInputs).
  /// Only the extents from \p fromDim on are required (Conv's spatial ones).
  llvm::Expected<llvm::ArrayRef<int64_t>> staticShape(size_t i,
                                                      size_t fromDim = 0) const;
  /// The value of input \p i, computed at import time; an error naming the
  /// input when it depends on a graph input.
  llvm::Expected<NDArray> constantInput(size_t i, llvm::StringRef what);
  /// The integer elements of a constant input (a 1-D or 0-d tensor).
  llvm::Expected<std::vector<int64_t>> constantInts(size_t i,
                                                    llvm::StringRef what);
  llvm::Expected<std::vector<double>> constantFloats(size_t i,
                                                     llvm::StringRef what);

  //===--------------------------------------------------------------------===//
  // Attributes
  //===--------------------------------------------------------------------===//

  const onnx::AttributeProto *findAttr(llvm::StringRef name) const;
  bool hasAttr(llvm::StringRef name) const { return findAttr(name); }
  llvm::Expected<int64_t> getInt(llvm::StringRef name, int64_t def) const;
  llvm::Expected<std::optional<int64_t>> getOptInt(llvm::StringRef name) const;
  llvm::Expected<double> getFloat(llvm::StringRef name, double def) const;
  llvm::Expected<std::string> getString(llvm::StringRef name,
                                        llvm::StringRef def) const;
  llvm::Expected<std::vector<int64_t>>
  getInts(llvm::StringRef name, llvm::ArrayRef<int64_t> def = {}) const;
  llvm::Expected<std::optional<std::vector<int64_t>>>
  getOptInts(llvm::StringRef name) const;
  llvm::Expected<std::vector<double>>
  getFloats(llvm::StringRef name, llvm::ArrayRef<double> def = {}) const;
  /// A STRINGS attribute (empty when absent).
  llvm::Expected<std::vector<std::string>>
  getStrings(llvm::StringRef name) const;
  /// A TENSOR attribute, as an array.
  llvm::Expected<NDArray> getTensor(llvm::StringRef name) const;
  /// A GRAPH attribute (required).
  llvm::Expected<const onnx::GraphProto *>
  getGraph(llvm::StringRef name) const;

  //===--------------------------------------------------------------------===//
  // Subgraphs
  //===--------------------------------------------------------------------===//

  /// Imports the subgraph of GRAPH attribute \p name (If's branches, Loop's
  /// and Scan's bodies) in a scope nested in this node's: its inputs bound
  /// to \p graphInputs (one per subgraph input; a loop's parameters), its
  /// nodes free to read any value of the enclosing graphs by name. Returns
  /// the subgraph's outputs, which may be outer values themselves. Errors in
  /// the subgraph name its node after this one ("node 3 (If, ...) >
  /// then_branch > node 0 ...").
  llvm::Expected<llvm::SmallVector<Value, 4>>
  importSubgraph(llvm::StringRef name, llvm::ArrayRef<Value> graphInputs);
  /// Marks \p value (built by the converter, e.g. an If or a loop's result)
  /// as constant or not for the calls built from it.
  Value record(Value value);

  //===--------------------------------------------------------------------===//
  // Building
  //===--------------------------------------------------------------------===//

  /// \p call (made by a builder of nnir/Ops/Builders.h from this node's
  /// values) typed by its operator's relation; constant when each argument
  /// is. A type error is reported as this node's error:
  /// `TRY(y, ctx.typed(ops::add(x, b)))`.
  llvm::Expected<Value> typed(Ref<Expr> call);
  /// A tuple of \p fields (typed).
  Value tuple(llvm::ArrayRef<Value> fields);
  /// Field \p index of a tuple-typed \p value.
  Value getItem(const Value &value, unsigned index);
  Value constant(NDArray array);
  /// A zero-filled array, within ONNXImportOptions::maxTensorBytes.
  llvm::Expected<NDArray> createArray(DataType dtype,
                                      llvm::ArrayRef<int64_t> shape) const;
  /// A 0-d constant of \p dtype.
  Value scalar(DataType dtype, double value);
  /// A 1-D int64 constant.
  Value int64Vector(llvm::ArrayRef<int64_t> values);
  /// Evaluates \p value now when it is constant (no-op otherwise).
  llvm::Expected<NDArray> evaluate(const Value &value);

  /// Normalises axis \p axis (negative counts from the end) for \p rank.
  llvm::Expected<int64_t> normalizeAxis(int64_t axis, int64_t rank) const;

private:
  GraphImporter &importer;
  const onnx::NodeProto &node;
  unsigned index;
  int64_t opset;
  llvm::ArrayRef<Value> inputs;
};

/// Converts one node; returns one value per ONNX output (an absent optional
/// output may be left null).
using ConverterFn = llvm::Expected<llvm::SmallVector<Value, 1>> (*)(
    NodeContext &ctx);

/// The converter \p Impl given \p Param, for operators that share a
/// converter (the table's rows name `withParam<convertBinary, ops::add>`
/// rather than the converter looking at the operator's name).
template <auto Impl, auto Param>
llvm::Expected<llvm::SmallVector<Value, 1>> withParam(NodeContext &ctx) {
  return Impl(ctx, Param);
}

/// A set of a node's input positions (ConverterRow::dynamicInputs): bit i
/// for input i. Built with anyInput(i) | ..., or AllInputs; a class rather
/// than an integer so that a row's `true` (takesSequences) cannot be read
/// as an input set.
class InputSet {
public:
  constexpr InputSet() = default;
  constexpr bool contains(size_t i) const {
    return i >= 32 ? bits >> 31 : (bits >> i) & 1;
  }
  constexpr InputSet operator|(InputSet other) const {
    return InputSet(bits | other.bits);
  }
  /// Input \p i alone.
  static constexpr InputSet of(unsigned i) { return InputSet(1u << i); }
  /// Every input (variadic operators included).
  static constexpr InputSet all() { return InputSet(~0u); }

private:
  constexpr explicit InputSet(uint32_t bits) : bits(bits) {}
  uint32_t bits = 0;
};

/// One row of the table of ONNX operators: the operator of the default
/// domain, the opsets [since, until] that define it, and its converter.
struct ConverterRow {
  llvm::StringLiteral opType;
  int64_t since;
  int64_t until;
  ConverterFn convert;
  /// Whether the converter takes sequences and optionals (tuples) among its
  /// inputs; the importer gives the others tensors only.
  bool takesSequences = false;
  /// The inputs that may have `?` extents (Relay's Any): the converter reads
  /// no extent of them at import time (the operators it builds have
  /// relations that keep `?`), or checks the ones it reads itself
  /// (NodeContext::staticShape). The importer refuses a dynamic input
  /// outside the set with the error that names the node, the input and its
  /// dynamic dimension.
  InputSet dynamicInputs = {};
};

/// The row of \p opType of the default domain, or null.
const ConverterRow *lookupConverter(llvm::StringRef opType);
/// Why \p opType is not supported, when it is a known ONNX operator nnir
/// cannot express ("" when it is simply unknown).
llvm::StringRef unsupportedReason(llvm::StringRef opType);

/// Tensor conversion shared with loadTensorProto().
llvm::Expected<NDArray> tensorFromProto(const onnx::TensorProto &proto,
                                        uint64_t maxTensorBytes);
/// The nnir dtype of an ONNX TensorProto::DataType.
llvm::Expected<DataType> dataTypeFromONNX(int32_t elemType);
/// The value kind \p type declares (sequence, optional, else tensor).
ONNXValueKind valueKindOf(const onnx::TypeProto &type);
/// The tuple type of a graph input of sequence or optional type \p type,
/// from the value given for it; an error where the value does not fit the
/// declared type (ConvertSequence.cpp).
llvm::Expected<Ref<Type>> tupleInputType(const onnx::TypeProto &type,
                                         const RuntimeValue &value);

} // namespace onnximport
} // namespace nnir

#endif // NNIR_LIB_ONNX_NODECONTEXT_H
