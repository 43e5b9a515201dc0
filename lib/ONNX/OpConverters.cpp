//===- OpConverters.cpp - The table of ONNX operators ---------------------===//
//
/// \file
/// The table of ONNX operators of the default domain (opsets 1-17): one row
/// per operator with the opsets that define it and its converter. A
/// converter (Convert*.cpp, by operator family) makes the operator of a
/// direct counterpart (Relu -> nn.relu), a counterpart with attributes
/// translated (Conv -> nn.conv2d, pads and auto_pad resolved against the
/// static input shape), or a short composition (Gemm, LayerNormalization,
/// Softplus, ...). Per-opset differences within a row (attribute defaults,
/// attributes that became inputs) are handled where the converter reads
/// them (ctx.getOpset()). Operators that share a converter are rows that
/// bind it to what differs (`withParam<convertBinary, ops::add>`).
///
/// The opset ranges are the ONNX schemas' (ONNX 1.12's onnx.defs): since the
/// first version of the operator, until the last opset before the one that
/// deprecates it (Upsample in 10, Scatter in 11). A node outside its
/// operator's range is an error naming the range.
///
/// Sequences and optionals are tuples (ConvertSequence.cpp); the rows that
/// take them as inputs say so (ConverterRow::takesSequences), and the
/// importer hands every other converter tensors only.
///
/// Inputs with `?` extents (ONNX symbolic dimensions, Relay's Any) reach the
/// converters whose rows list them (ConverterRow::dynamicInputs): those that
/// read no extent of them at import time, or check the extents they read in
/// the cases that need them (NodeContext::staticShape: Conv's SAME padding,
/// Resize other than an integral nearest upscale, ...). Weights, shapes and
/// other inputs read at import time stay static.
///
/// Operators nnir cannot express are listed with the reason in
/// unsupportedReason().
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::onnximport;

/// The rows' dynamicInputs (ConverterRow): which inputs may have `?` extents.
static constexpr InputSet AllDynamic = InputSet::all(),
                          Dynamic0 = InputSet::of(0),
                          Dynamic0And2 = InputSet::of(0) | InputSet::of(2),
                          // X, initial_h and initial_c of the recurrent
                          // layers (a `?` batch).
                          DynamicBatch = InputSet::of(0) | InputSet::of(5) |
                                         InputSet::of(6);

static const ConverterRow kConverters[] = {
    {"Abs", 1, 17, withParam<convertUnary, ops::abs>, false, AllDynamic},
    {"Acos", 7, 17, withParam<convertUnary, ops::acos>, false, AllDynamic},
    {"Acosh", 9, 17, withParam<convertInverseHyperbolic, ops::subtract>,
     false, AllDynamic},
    {"Add", 1, 17, withParam<convertBinary, ops::add>, false, AllDynamic},
    {"And", 1, 17, withParam<convertBinary, ops::logicalAnd>,
     false, AllDynamic},
    {"ArgMax", 1, 17, withParam<convertArgReduce, ops::argmax>,
     false, Dynamic0},
    {"ArgMin", 1, 17, withParam<convertArgReduce, ops::argmin>,
     false, Dynamic0},
    {"Asin", 7, 17, withParam<convertUnary, ops::asin>, false, AllDynamic},
    {"Asinh", 9, 17, withParam<convertInverseHyperbolic, ops::add>,
     false, AllDynamic},
    {"Atan", 7, 17, withParam<convertUnary, ops::atan>, false, AllDynamic},
    {"Atanh", 9, 17, convertAtanh, false, AllDynamic},
    {"AveragePool", 1, 17, withParam<convertPool, PoolKind::Average>,
     false, Dynamic0},
    {"BatchNormalization", 1, 17, convertBatchNorm, false, Dynamic0},
    {"BitShift", 11, 17, convertBitShift, false, AllDynamic},
    {"BlackmanWindow", 17, 17,
     withParam<convertWindow, CosineWindow::Blackman>},
    {"Cast", 1, 17, convertCast, false, AllDynamic},
    {"CastLike", 15, 17, convertCastLike, false, AllDynamic},
    {"Ceil", 1, 17, withParam<convertUnary, ops::ceil>, false, AllDynamic},
    {"Celu", 12, 17, convertCelu, false, AllDynamic},
    {"Clip", 1, 17, convertClip, false, AllDynamic},
    {"Compress", 9, 17, convertCompress, false, Dynamic0},
    {"Concat", 1, 17, convertConcat, false, AllDynamic},
    {"ConcatFromSequence", 11, 17, convertConcatFromSequence, true},
    {"Constant", 1, 17, convertConstant},
    {"ConstantOfShape", 9, 17, convertConstantOfShape},
    {"Conv", 1, 17, convertConv, false, Dynamic0And2},
    {"ConvInteger", 10, 17, convertConvInteger},
    {"ConvTranspose", 1, 17, convertConvTranspose, false, Dynamic0},
    {"Cos", 7, 17, withParam<convertUnary, ops::cos>, false, AllDynamic},
    {"Cosh", 9, 17, withParam<convertHyperbolic, ops::add>, false, AllDynamic},
    {"CumSum", 11, 17, convertCumSum},
    {"DFT", 17, 17, convertDFT},
    {"DepthToSpace", 1, 17, convertDepthToSpace},
    {"Det", 11, 17, convertDet},
    {"DequantizeLinear", 10, 17, convertDequantize},
    {"Div", 1, 17, withParam<convertBinary, ops::divide>, false, AllDynamic},
    {"Dropout", 1, 17, convertDropout, false, Dynamic0},
    {"DynamicQuantizeLinear", 11, 17, convertDynamicQuantize},
    {"Einsum", 12, 17, convertEinsum},
    {"Elu", 1, 17, convertElu, false, AllDynamic},
    {"Equal", 1, 17, withParam<convertBinary, ops::equal>, false, AllDynamic},
    {"Erf", 9, 17, withParam<convertUnary, ops::erf>, false, AllDynamic},
    {"Exp", 1, 17, withParam<convertUnary, ops::exp>, false, AllDynamic},
    {"Expand", 8, 17, convertExpand},
    {"EyeLike", 9, 17, convertEyeLike},
    {"Flatten", 1, 17, convertFlatten, false, Dynamic0},
    {"Floor", 1, 17, withParam<convertUnary, ops::floor>, false, AllDynamic},
    {"GRU", 1, 17, withParam<convertRecurrent, RecurrentKind::GRU>,
     false, DynamicBatch},
    {"Gather", 1, 17, convertGather, false, AllDynamic},
    {"GatherElements", 11, 17, convertGatherElements},
    {"GatherND", 11, 17, convertGatherND},
    {"Gemm", 1, 17, convertGemm, false, Dynamic0And2},
    {"GlobalAveragePool", 1, 17, withParam<convertGlobalPool, ops::mean>,
     false, Dynamic0},
    {"GlobalMaxPool", 1, 17, withParam<convertGlobalPool, ops::max>,
     false, Dynamic0},
    {"Greater", 1, 17, withParam<convertBinary, ops::greater>,
     false, AllDynamic},
    {"GreaterOrEqual", 12, 17, withParam<convertBinary, ops::greaterEqual>,
     false, AllDynamic},
    {"GridSample", 16, 17, convertGridSample},
    {"HammingWindow", 17, 17, withParam<convertWindow, CosineWindow::Hamming>},
    {"HannWindow", 17, 17, withParam<convertWindow, CosineWindow::Hann>},
    {"HardSigmoid", 1, 17, convertHardSigmoid, false, AllDynamic},
    {"HardSwish", 14, 17, convertHardSwish, false, AllDynamic},
    {"Hardmax", 1, 17, convertHardmax},
    {"Identity", 1, 17, convertIdentity, true, AllDynamic},
    {"If", 1, 17, convertIf},
    {"InstanceNormalization", 1, 17, convertInstanceNorm, false, Dynamic0},
    {"IsInf", 10, 17, convertIsInf, false, AllDynamic},
    {"IsNaN", 9, 17, withParam<convertUnary, ops::isNaN>, false, AllDynamic},
    {"LRN", 1, 17, convertLRN, false, Dynamic0},
    {"LSTM", 1, 17, withParam<convertRecurrent, RecurrentKind::LSTM>,
     false, DynamicBatch},
    {"LayerNormalization", 17, 17, convertLayerNorm, false, Dynamic0},
    {"LeakyRelu", 1, 17, convertLeakyRelu, false, AllDynamic},
    {"Less", 1, 17, withParam<convertBinary, ops::less>, false, AllDynamic},
    {"LessOrEqual", 12, 17, withParam<convertBinary, ops::lessEqual>,
     false, AllDynamic},
    {"Log", 1, 17, withParam<convertUnary, ops::log>, false, AllDynamic},
    {"LogSoftmax", 1, 17, withParam<convertSoftmax, ops::logSoftmax>,
     false, Dynamic0},
    {"Loop", 1, 17, convertLoop, true},
    {"MatMul", 1, 17, convertMatMul, false, AllDynamic},
    {"MatMulInteger", 10, 17, convertMatMulInteger},
    {"Max", 1, 17, withParam<convertVariadic, ops::maximum>, false, AllDynamic},
    {"MaxPool", 1, 17, withParam<convertPool, PoolKind::Max>, false, Dynamic0},
    {"MaxUnpool", 9, 17, convertMaxUnpool},
    {"Mean", 1, 17, convertMean, false, AllDynamic},
    {"MeanVarianceNormalization", 9, 17, convertMeanVarianceNorm},
    {"MelWeightMatrix", 17, 17, convertMelWeightMatrix},
    {"Min", 1, 17, withParam<convertVariadic, ops::minimum>, false, AllDynamic},
    {"Mod", 10, 17, convertMod, false, AllDynamic},
    {"Mul", 1, 17, withParam<convertBinary, ops::multiply>, false, AllDynamic},
    {"Neg", 1, 17, withParam<convertUnary, ops::negative>, false, AllDynamic},
    {"NegativeLogLikelihoodLoss", 12, 17, convertNLLLoss},
    {"NonMaxSuppression", 10, 17, convertNonMaxSuppression, false,
     AllDynamic},
    {"NonZero", 9, 17, convertNonZero, false, Dynamic0},
    {"Not", 1, 17, withParam<convertUnary, ops::logicalNot>, false, AllDynamic},
    {"OneHot", 9, 17, convertOneHot},
    {"Optional", 15, 17, convertOptional, true},
    {"OptionalGetElement", 15, 17, convertOptionalGetElement, true},
    {"OptionalHasElement", 15, 17, convertOptionalHasElement, true},
    {"Or", 1, 17, withParam<convertBinary, ops::logicalOr>, false, AllDynamic},
    {"PRelu", 1, 17, convertPRelu, false, AllDynamic},
    {"Pad", 1, 17, convertPad, false, Dynamic0},
    {"Pow", 1, 17, convertPow, false, AllDynamic},
    {"QLinearConv", 10, 17, convertQLinearConv},
    {"QLinearMatMul", 10, 17, convertQLinearMatMul},
    {"QuantizeLinear", 10, 17, convertQuantize},
    {"RNN", 1, 17, withParam<convertRecurrent, RecurrentKind::RNN>,
     false, DynamicBatch},
    {"Range", 11, 17, convertRange},
    {"Reciprocal", 1, 17, convertReciprocal, false, AllDynamic},
    {"ReduceL1", 1, 17, convertReduceL1, false, Dynamic0},
    {"ReduceL2", 1, 17, convertReduceL2, false, Dynamic0},
    {"ReduceLogSum", 1, 17, convertReduceLogSum, false, Dynamic0},
    {"ReduceLogSumExp", 1, 17, convertReduceLogSumExp, false, Dynamic0},
    {"ReduceMax", 1, 17, withParam<convertReduce, ops::max>, false, Dynamic0},
    {"ReduceMean", 1, 17, withParam<convertReduce, ops::mean>, false, Dynamic0},
    {"ReduceMin", 1, 17, withParam<convertReduce, ops::min>, false, Dynamic0},
    {"ReduceProd", 1, 17, withParam<convertReduce, ops::prod>, false, Dynamic0},
    {"ReduceSum", 1, 17, convertReduceSum, false, Dynamic0},
    {"ReduceSumSquare", 1, 17, convertReduceSumSquare, false, Dynamic0},
    {"Relu", 1, 17, withParam<convertUnary, ops::relu>, false, AllDynamic},
    {"Reshape", 1, 17, convertReshape, false, Dynamic0},
    {"Resize", 10, 17, withParam<convertResize, ResizeKind::Resize>,
     false, Dynamic0},
    {"ReverseSequence", 10, 17, convertReverseSequence},
    {"RoiAlign", 10, 17, convertRoiAlign},
    {"Round", 11, 17, withParam<convertUnary, ops::round>, false, AllDynamic},
    {"STFT", 17, 17, convertSTFT},
    {"Scan", 8, 17, convertScan},
    {"Scatter", 9, 10, convertScatterElements},
    {"ScatterElements", 11, 17, convertScatterElements},
    {"ScatterND", 11, 17, convertScatterND},
    {"Selu", 1, 17, convertSelu, false, AllDynamic},
    {"SequenceAt", 11, 17, convertSequenceAt, true},
    {"SequenceConstruct", 11, 17, convertSequenceConstruct},
    {"SequenceEmpty", 11, 17, convertSequenceEmpty},
    {"SequenceErase", 11, 17, convertSequenceErase, true},
    {"SequenceInsert", 11, 17, convertSequenceInsert, true},
    {"SequenceLength", 11, 17, convertSequenceLength, true},
    {"SequenceMap", 17, 17, convertSequenceMap, true},
    {"Shape", 1, 17, convertShape, false, AllDynamic},
    {"Shrink", 9, 17, convertShrink, false, AllDynamic},
    {"Sigmoid", 1, 17, withParam<convertUnary, ops::sigmoid>,
     false, AllDynamic},
    {"Sign", 9, 17, withParam<convertUnary, ops::sign>, false, AllDynamic},
    {"Sin", 7, 17, withParam<convertUnary, ops::sin>, false, AllDynamic},
    {"Sinh", 9, 17, withParam<convertHyperbolic, ops::subtract>,
     false, AllDynamic},
    {"Size", 1, 17, convertSize, false, AllDynamic},
    {"Slice", 1, 17, convertSlice, false, Dynamic0},
    {"Softmax", 1, 17, withParam<convertSoftmax, ops::softmax>,
     false, Dynamic0},
    {"SoftmaxCrossEntropyLoss", 12, 17, convertSoftmaxCrossEntropy},
    {"Softplus", 1, 17, convertSoftplus, false, AllDynamic},
    {"Softsign", 1, 17, convertSoftsign, false, AllDynamic},
    {"SpaceToDepth", 1, 17, convertSpaceToDepth},
    {"Split", 1, 17, convertSplit, false, Dynamic0},
    {"SplitToSequence", 11, 17, convertSplitToSequence},
    {"Sqrt", 1, 17, withParam<convertUnary, ops::sqrt>, false, AllDynamic},
    {"Squeeze", 1, 17, convertSqueeze, false, Dynamic0},
    {"Sub", 1, 17, withParam<convertBinary, ops::subtract>, false, AllDynamic},
    {"Sum", 1, 17, withParam<convertVariadic, ops::add>, false, AllDynamic},
    {"Tan", 7, 17, withParam<convertUnary, ops::tan>, false, AllDynamic},
    {"Tanh", 1, 17, withParam<convertUnary, ops::tanh>, false, AllDynamic},
    {"ThresholdedRelu", 10, 17, convertThresholdedRelu, false, AllDynamic},
    {"Tile", 1, 17, convertTile, false, Dynamic0},
    {"TopK", 1, 17, convertTopK},
    {"Transpose", 1, 17, convertTranspose, false, Dynamic0},
    {"Trilu", 14, 17, convertTrilu},
    {"Unique", 11, 17, convertUnique, false, Dynamic0},
    {"Unsqueeze", 1, 17, convertUnsqueeze, false, Dynamic0},
    {"Upsample", 1, 9, withParam<convertResize, ResizeKind::Upsample>},
    {"Where", 9, 17, convertWhere, false, AllDynamic},
    {"Xor", 1, 17, withParam<convertBinary, ops::logicalXor>,
     false, AllDynamic},
};

const ConverterRow *onnximport::lookupConverter(StringRef opType) {
  static const StringMap<const ConverterRow *> table = [] {
    StringMap<const ConverterRow *> map;
    for (const ConverterRow &row : kConverters) {
      bool added = map.try_emplace(row.opType, &row).second;
      assert(added && "an operator has two rows");
      (void)added;
    }
    return map;
  }();
  return table.lookup(opType);
}

StringRef onnximport::unsupportedReason(StringRef opType) {
  return StringSwitch<StringRef>(opType)
      .Cases("StringNormalizer", "TfIdfVectorizer", "RegexFullMatch",
             "strings are not supported")
      .Cases("RandomNormal", "RandomNormalLike", "RandomUniform",
             "RandomUniformLike", "Bernoulli", "Multinomial",
             "random number generation is not supported")
      .Cases("Adagrad", "Adam", "Momentum", "Gradient",
             "training operators are not supported")
      .Default("");
}
