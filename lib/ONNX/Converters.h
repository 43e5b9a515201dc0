//===- Converters.h - The ONNX operator converters ---------------*- C++
//-*-===//
//
/// \file
/// What the converter files (Convert*.cpp, one per operator family) share:
/// the building blocks they compose nnir calls with, and the converters the
/// table of operators (OpConverters.cpp) names. A converter that serves
/// several ONNX operators takes what differs between them as a parameter
/// (the nnir builder, a kind), and the table binds it per row with
/// withParam<> (NodeContext.h), so no converter looks at the operator's
/// name.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_LIB_ONNX_CONVERTERS_H
#define NNIR_LIB_ONNX_CONVERTERS_H

#include "NodeContext.h"

#include "nnir/Ops/Builders.h"

#include <optional>
#include <vector>

namespace nnir {
namespace onnximport {

using Outputs = llvm::SmallVector<Value, 1>;
using Result = llvm::Expected<Outputs>;

/// Propagates an error out of a converter: `TRY(x, expr)` declares x.
#define TRY(NAME, EXPR)                                                        \
  auto NAME##OrErr = (EXPR);                                                   \
  if (!NAME##OrErr)                                                            \
    return NAME##OrErr.takeError();                                            \
  auto NAME = std::move(*NAME##OrErr);

//===----------------------------------------------------------------------===//
// Shared building blocks (ConverterUtils.cpp)
//===----------------------------------------------------------------------===//

inline Outputs one(Value v) { return Outputs{std::move(v)}; }

/// The product of \p dims: 0 when one is 0, else `?` (kAnyDim) when one is.
int64_t product(llvm::ArrayRef<int64_t> dims);

/// \p x reshaped to \p shape (itself when it has that shape; zeros when
/// \p shape has a zero extent). One extent of \p shape may be `?` (the
/// elements the static ones leave, Relay's -1); more is an error.
llvm::Expected<Value> reshape(NodeContext &ctx, const Value &x,
                              llvm::ArrayRef<int64_t> shape);
/// \p x cast to \p dtype (itself when it has that dtype).
llvm::Expected<Value> cast(NodeContext &ctx, const Value &x, DataType dtype);
/// A 0-d constant of \p x's dtype.
Value scalarLike(NodeContext &ctx, const Value &x, double v);
/// Elements [begin, end) of axis \p axis of \p x.
llvm::Expected<Value> sliceAxis(NodeContext &ctx, const Value &x, int64_t axis,
                                int64_t begin, int64_t end);
/// \p x with axis \p axis contracted with the rows of the (out x in) matrix
/// \p weights (row-major, of \p x's dtype): result[..., o, ...] =
/// sum_i weights[o][i] * x[..., i, ...], as einsum of a constant.
llvm::Expected<Value> contractAxis(NodeContext &ctx, const Value &x,
                                   int64_t axis, int64_t out,
                                   llvm::ArrayRef<double> weights);
/// Broadcast shape of two static shapes (numpy rules).
llvm::Expected<std::vector<int64_t>> broadcastShapes(NodeContext &ctx,
                                                     llvm::ArrayRef<int64_t> a,
                                                     llvm::ArrayRef<int64_t> b);
/// \p x broadcast to \p shape (itself when it has that shape).
llvm::Expected<Value> broadcastTo(NodeContext &ctx, const Value &x,
                                  llvm::ArrayRef<int64_t> shape);
/// The axes of Squeeze/Unsqueeze/Reduce*: an attribute before
/// \p inputSince, the optional input 1 from then on.
llvm::Expected<std::optional<std::vector<int64_t>>>
axesOperand(NodeContext &ctx, int64_t inputSince);

/// One element of an integer vector whose value is partly known at import
/// time: a number, or the `?` extent \p dim of the tensor \p of.
struct SymbolicInt {
  int64_t value = 0;
  const Expr *of = nullptr;
  int64_t dim = 0;
  bool isKnown() const { return !of; }
};

/// The elements of the 0-d or 1-D integer tensor \p v where they are
/// numbers or extents of other tensors: a constant, or shape_of's extents
/// sliced, gathered, cast, reshaped and concatenated (how exporters build a
/// Reshape's shape from a dynamic tensor's). std::nullopt when \p v is
/// computed otherwise.
std::optional<std::vector<SymbolicInt>> symbolicInts(const Value &v);
/// \p v as a constant when symbolicInts() knows every element (a static
/// extent of a dynamic tensor's shape, so that what is computed from it
/// folds at import time as with static shapes); else \p v.
Value foldKnownInts(NodeContext &ctx, const Value &v);

//===----------------------------------------------------------------------===//
// Parameters of the shared converters
//===----------------------------------------------------------------------===//

/// nn.softmax and nn.log_softmax.
using AxisBuilder = Ref<Expr> (*)(Ref<Expr> x, int64_t axis, llvm::SMLoc loc);
enum class PoolKind { Max, Average };
enum class RecurrentKind { RNN, GRU, LSTM };
enum class ResizeKind { Resize, Upsample };
enum class CosineWindow { Hann, Hamming, Blackman };

//===----------------------------------------------------------------------===//
// Elementwise (ConvertElementwise.cpp)
//===----------------------------------------------------------------------===//

Result convertUnary(NodeContext &ctx, ops::UnaryBuilder build);
Result convertBinary(NodeContext &ctx, ops::BinaryBuilder build);
/// Max, Min, Sum: a left fold of the inputs by \p build.
Result convertVariadic(NodeContext &ctx, ops::BinaryBuilder build);
Result convertMean(NodeContext &ctx);
Result convertPow(NodeContext &ctx);
Result convertMod(NodeContext &ctx);
Result convertBitShift(NodeContext &ctx);
Result convertIdentity(NodeContext &ctx);
Result convertReciprocal(NodeContext &ctx);
Result convertLeakyRelu(NodeContext &ctx);
Result convertElu(NodeContext &ctx);
Result convertSelu(NodeContext &ctx);
Result convertCelu(NodeContext &ctx);
Result convertThresholdedRelu(NodeContext &ctx);
Result convertHardSigmoid(NodeContext &ctx);
Result convertHardSwish(NodeContext &ctx);
Result convertSoftplus(NodeContext &ctx);
Result convertSoftsign(NodeContext &ctx);
Result convertShrink(NodeContext &ctx);
/// Sinh (\p combine subtract) and Cosh (add): (exp(x) -+ exp(-x)) / 2.
Result convertHyperbolic(NodeContext &ctx, ops::BinaryBuilder combine);
/// Asinh (\p combine add) and Acosh (subtract): log(x + sqrt(x*x +- 1)).
Result convertInverseHyperbolic(NodeContext &ctx, ops::BinaryBuilder combine);
Result convertAtanh(NodeContext &ctx);
Result convertIsInf(NodeContext &ctx);
Result convertPRelu(NodeContext &ctx);
Result convertClip(NodeContext &ctx);
Result convertWhere(NodeContext &ctx);
Result convertCast(NodeContext &ctx);
Result convertCastLike(NodeContext &ctx);

//===----------------------------------------------------------------------===//
// Tensors: constants, shapes, data movement (ConvertTensor.cpp)
//===----------------------------------------------------------------------===//

Result convertConstant(NodeContext &ctx);
Result convertShape(NodeContext &ctx);
Result convertSize(NodeContext &ctx);
Result convertConstantOfShape(NodeContext &ctx);
Result convertRange(NodeContext &ctx);
Result convertReshape(NodeContext &ctx);
Result convertFlatten(NodeContext &ctx);
Result convertSqueeze(NodeContext &ctx);
Result convertUnsqueeze(NodeContext &ctx);
Result convertTranspose(NodeContext &ctx);
Result convertConcat(NodeContext &ctx);
Result convertGather(NodeContext &ctx);
Result convertGatherElements(NodeContext &ctx);
Result convertGatherND(NodeContext &ctx);
Result convertScatterElements(NodeContext &ctx);
Result convertScatterND(NodeContext &ctx);
Result convertReverseSequence(NodeContext &ctx);
Result convertEinsum(NodeContext &ctx);
Result convertSlice(NodeContext &ctx);
Result convertSplit(NodeContext &ctx);
Result convertExpand(NodeContext &ctx);
Result convertTile(NodeContext &ctx);
Result convertDropout(NodeContext &ctx);
Result convertPad(NodeContext &ctx);
Result convertTrilu(NodeContext &ctx);
Result convertEyeLike(NodeContext &ctx);
Result convertWindow(NodeContext &ctx, CosineWindow window);
Result convertDepthToSpace(NodeContext &ctx);
Result convertSpaceToDepth(NodeContext &ctx);
Result convertOneHot(NodeContext &ctx);

//===----------------------------------------------------------------------===//
// Reductions, scans and sorting (ConvertReduction.cpp)
//===----------------------------------------------------------------------===//

/// ReduceMean, ReduceMax, ReduceMin, ReduceProd (axes an input from 18).
Result convertReduce(NodeContext &ctx, ops::ReduceBuilder build);
/// ReduceSum (axes an input from 13).
Result convertReduceSum(NodeContext &ctx);
Result convertReduceL1(NodeContext &ctx);
Result convertReduceL2(NodeContext &ctx);
Result convertReduceSumSquare(NodeContext &ctx);
Result convertReduceLogSum(NodeContext &ctx);
Result convertReduceLogSumExp(NodeContext &ctx);
Result convertArgReduce(NodeContext &ctx, ops::ArgReduceBuilder build);
Result convertCumSum(NodeContext &ctx);
Result convertTopK(NodeContext &ctx);

//===----------------------------------------------------------------------===//
// Neural network layers (ConvertNN.cpp)
//===----------------------------------------------------------------------===//

Result convertMatMul(NodeContext &ctx);
Result convertMatMulInteger(NodeContext &ctx);
Result convertQLinearMatMul(NodeContext &ctx);
Result convertGemm(NodeContext &ctx);
Result convertConv(NodeContext &ctx);
Result convertConvInteger(NodeContext &ctx);
Result convertQLinearConv(NodeContext &ctx);
Result convertConvTranspose(NodeContext &ctx);
Result convertPool(NodeContext &ctx, PoolKind kind);
Result convertMaxUnpool(NodeContext &ctx);
Result convertRoiAlign(NodeContext &ctx);
/// GlobalMaxPool (\p build max) and GlobalAveragePool (mean).
Result convertGlobalPool(NodeContext &ctx, ops::ReduceBuilder build);
Result convertBatchNorm(NodeContext &ctx);
Result convertInstanceNorm(NodeContext &ctx);
Result convertLayerNorm(NodeContext &ctx);
Result convertMeanVarianceNorm(NodeContext &ctx);
Result convertLRN(NodeContext &ctx);
/// Softmax and LogSoftmax.
Result convertSoftmax(NodeContext &ctx, AxisBuilder build);
Result convertHardmax(NodeContext &ctx);
Result convertNLLLoss(NodeContext &ctx);
Result convertSoftmaxCrossEntropy(NodeContext &ctx);
Result convertDequantize(NodeContext &ctx);
Result convertQuantize(NodeContext &ctx);
Result convertDynamicQuantize(NodeContext &ctx);

//===----------------------------------------------------------------------===//
// Sequences and optionals, as tuples (ConvertSequence.cpp)
//===----------------------------------------------------------------------===//

Result convertSequenceEmpty(NodeContext &ctx);
Result convertSequenceConstruct(NodeContext &ctx);
Result convertSequenceAt(NodeContext &ctx);
Result convertSequenceInsert(NodeContext &ctx);
Result convertSequenceErase(NodeContext &ctx);
Result convertSequenceLength(NodeContext &ctx);
Result convertSplitToSequence(NodeContext &ctx);
Result convertConcatFromSequence(NodeContext &ctx);
Result convertOptional(NodeContext &ctx);
Result convertOptionalHasElement(NodeContext &ctx);
Result convertOptionalGetElement(NodeContext &ctx);

//===----------------------------------------------------------------------===//
// Recurrent layers (ConvertRecurrent.cpp), resizing (ConvertResize.cpp) and
// signal processing (ConvertSignal.cpp); Det (ConvertLinalg.cpp)
//===----------------------------------------------------------------------===//

Result convertRecurrent(NodeContext &ctx, RecurrentKind kind);
Result convertResize(NodeContext &ctx, ResizeKind kind);
Result convertGridSample(NodeContext &ctx);
Result convertDet(NodeContext &ctx);
Result convertDFT(NodeContext &ctx);
Result convertSTFT(NodeContext &ctx);
Result convertMelWeightMatrix(NodeContext &ctx);

//===----------------------------------------------------------------------===//
// Data-dependent shapes (ConvertDynamic.cpp)
//===----------------------------------------------------------------------===//

Result convertNonZero(NodeContext &ctx);
Result convertUnique(NodeContext &ctx);
Result convertCompress(NodeContext &ctx);
Result convertNonMaxSuppression(NodeContext &ctx);
/// The forms of Reshape, Expand, Tile, ConstantOfShape (filled with \p fill,
/// 0-d), Slice, TopK (on \p axis) and Range whose shape-giving inputs are
/// known only at run time: the dyn.* operators and arange.
Result convertDynamicReshape(NodeContext &ctx, bool allowZero);
Result convertDynamicExpand(NodeContext &ctx);
Result convertDynamicTile(NodeContext &ctx);
Result convertDynamicConstantOfShape(NodeContext &ctx, NDArray fill);
Result convertDynamicSlice(NodeContext &ctx);
/// ONNX Slice of \p x on \p axes (normalised) with \p starts, \p ends and
/// \p steps (1-D integer tensors) resolved at run time, when the extents
/// are known: dyn.strided_slice of starts clamped as ONNX clamps them.
Result sliceAtRunTime(NodeContext &ctx, const Value &x, const Value &starts,
                      const Value &ends, llvm::ArrayRef<int64_t> axes,
                      const Value &steps);
Result convertDynamicTopK(NodeContext &ctx, int64_t axis, bool largest);
Result convertDynamicRange(NodeContext &ctx);

//===----------------------------------------------------------------------===//
// Control flow (ConvertControlFlow.cpp)
//===----------------------------------------------------------------------===//

Result convertIf(NodeContext &ctx);
Result convertLoop(NodeContext &ctx);
Result convertScan(NodeContext &ctx);
/// SequenceMap, unrolled at import (one copy of the body per element).
Result convertSequenceMap(NodeContext &ctx);

} // namespace onnximport
} // namespace nnir

#endif // NNIR_LIB_ONNX_CONVERTERS_H
