//===- Import.h - ONNX models to nnir modules --------------------*- C++ -*-===//
//
/// \file
/// importONNX() reads a serialised ONNX ModelProto and builds the equivalent
/// IRModule (TVM's relay.frontend.from_onnx): the graph's inputs that are
/// not initializers become @main's parameters, in the graph's order and
/// under their ONNX names; initializers become constants; each node becomes
/// a call of an nnir operator, or a short composition of them; the graph's
/// outputs are @main's result (a tuple when there are several).
///
/// Shapes are static in nnir. A symbolic input dimension must be fixed by
/// ImportOptions::inputShapes (TVM's `shape` dictionary). Shape computations
/// an exporter emits (Shape -> Gather -> Concat -> Reshape, ConstantOfShape,
/// Expand, Range, Slice with tensor starts) are evaluated at import time,
/// through the ExecutionEngine, wherever their operands are known (TVM's
/// infer_value), so operators get static attributes.
///
/// ONNX sequences and optionals become tuples (Relay's encoding of both):
/// a sequence of n tensors is a tuple of n fields, an optional a tuple of
/// zero fields (empty) or one (the value). The length must be known at
/// import time: the operators' positions and split sizes must be constants
/// (or computable at import time), and a graph input of sequence or
/// optional type takes its tuple type from the value given for it
/// (ONNXImportOptions::getInputValues), so the module is imported for that
/// value's length.
///
/// Every failure is an llvm::Error naming the node (its name, or its index
/// when it has none), its op type and domain, and why: unsupported
/// operators and attributes, corrupt or truncated files, cycles, undefined
/// or doubly defined value names, opsets outside 1-17, unknown domains,
/// attributes of the wrong type. Import never crashes on bad input.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_ONNX_IMPORT_H
#define NNIR_ONNX_IMPORT_H

#include "nnir/ExecutionEngine/Evaluator.h"
#include "nnir/IR/Module.h"
#include "nnir/Runtime/NDArray.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace nnir {

class ExecutionEngine;

/// What a graph input holds, as its declared ONNX type says (TypeProto's
/// value case), and so how its value is serialised: a TensorProto, a
/// SequenceProto or an OptionalProto.
enum class ONNXValueKind : uint8_t { Tensor, Sequence, Optional };

/// A graph input the importer asks a value for.
struct ONNXGraphInput {
  std::string name;
  ONNXValueKind kind;
};

struct ONNXImportOptions {
  /// Shapes of graph inputs by name (`--input-shape=NAME=1x3x224x224`).
  /// They replace the model's declared shape; a declared static dimension
  /// that disagrees is an error.
  llvm::StringMap<std::vector<int64_t>> inputShapes;
  /// Values of graph inputs known at import time (nnir-run passes its
  /// --input values). Called once, before any node is imported, with the
  /// graph inputs (initializers left out), in the graph's order; it returns
  /// the values given for them, by name (its error stops the import): a
  /// tensor for a tensor input, a tuple for a sequence (one field per
  /// element) or an optional (zero or one field). A value whose dtype or
  /// shape is not the input's declared type (with inputShapes applied) is an
  /// error naming both. Import uses a tensor's value only where an operand
  /// must be static (a shape, Reshape's target, Expand's shape, ...),
  /// specialising the module to it; a sequence's or optional's value fixes
  /// the input's tuple type (the sequence's length and its elements' shapes)
  /// and is required. The inputs remain @main's parameters.
  std::function<llvm::Expected<llvm::StringMap<RuntimeValue>>(
      llvm::ArrayRef<ONNXGraphInput> inputs)>
      getInputValues;
  /// Largest tensor (bytes) import will create or evaluate.
  uint64_t maxTensorBytes = uint64_t(1) << 34;
  /// The scalar operations one import-time evaluation (of a shape, say) may
  /// take (EvaluatorOptions::maxWork); beyond it the import fails.
  uint64_t maxEvaluationWork = uint64_t(1) << 34;
  /// The engine import-time evaluations run on (the tools hand in theirs,
  /// so its caches serve the import and the run). Null: the import makes a
  /// private engine (allocations limited to maxTensorBytes) when it first
  /// evaluates something, and drops it at the end.
  std::shared_ptr<ExecutionEngine> engine;
};

/// The oldest and newest opset versions of the default domain the importer
/// accepts.
inline constexpr int64_t kMinONNXOpset = 1;
inline constexpr int64_t kMaxONNXOpset = 17;

/// Imports the serialised ModelProto in \p buffer. Error messages start with
/// the buffer's identifier.
llvm::Expected<Ref<IRModule>> importONNX(llvm::MemoryBufferRef buffer,
                                         const ONNXImportOptions &options = {});


/// Reads a serialised TensorProto (the test data's input_0.pb).
llvm::Expected<NDArray> loadTensorProto(llvm::StringRef bytes,
                                        uint64_t maxTensorBytes = UINT64_MAX);

/// Reads a serialised TensorProto, SequenceProto or OptionalProto, as
/// \p kind says, into a tensor or a tuple (a sequence: one field per
/// element; an optional: no field when empty, else one). Sequences of
/// sequences and optionals of sequences nest; maps and sparse tensors are
/// refused.
llvm::Expected<RuntimeValue> loadONNXValue(llvm::StringRef bytes,
                                           ONNXValueKind kind,
                                           uint64_t maxTensorBytes = UINT64_MAX);

} // namespace nnir

#endif // NNIR_ONNX_IMPORT_H
