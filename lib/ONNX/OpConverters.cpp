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

static const ConverterRow kConverters[] = {
    {"Abs", 1, 17, withParam<convertUnary, ops::abs>},
    {"Acos", 7, 17, withParam<convertUnary, ops::acos>},
    {"Acosh", 9, 17, withParam<convertInverseHyperbolic, ops::subtract>},
    {"Add", 1, 17, withParam<convertBinary, ops::add>},
    {"And", 1, 17, withParam<convertBinary, ops::logicalAnd>},
    {"ArgMax", 1, 17, withParam<convertArgReduce, ops::argmax>},
    {"ArgMin", 1, 17, withParam<convertArgReduce, ops::argmin>},
    {"Asin", 7, 17, withParam<convertUnary, ops::asin>},
    {"Asinh", 9, 17, withParam<convertInverseHyperbolic, ops::add>},
    {"Atan", 7, 17, withParam<convertUnary, ops::atan>},
    {"Atanh", 9, 17, convertAtanh},
    {"AveragePool", 1, 17, withParam<convertPool, PoolKind::Average>},
    {"BatchNormalization", 1, 17, convertBatchNorm},
    {"BitShift", 11, 17, convertBitShift},
    {"BlackmanWindow", 17, 17,
     withParam<convertWindow, CosineWindow::Blackman>},
    {"Cast", 1, 17, convertCast},
    {"CastLike", 15, 17, convertCastLike},
    {"Ceil", 1, 17, withParam<convertUnary, ops::ceil>},
    {"Celu", 12, 17, convertCelu},
    {"Clip", 1, 17, convertClip},
    {"Concat", 1, 17, convertConcat},
    {"ConcatFromSequence", 11, 17, convertConcatFromSequence, true},
    {"Constant", 1, 17, convertConstant},
    {"ConstantOfShape", 9, 17, convertConstantOfShape},
    {"Conv", 1, 17, convertConv},
    {"ConvInteger", 10, 17, convertConvInteger},
    {"ConvTranspose", 1, 17, convertConvTranspose},
    {"Cos", 7, 17, withParam<convertUnary, ops::cos>},
    {"Cosh", 9, 17, withParam<convertHyperbolic, ops::add>},
    {"CumSum", 11, 17, convertCumSum},
    {"DFT", 17, 17, convertDFT},
    {"DepthToSpace", 1, 17, convertDepthToSpace},
    {"Det", 11, 17, convertDet},
    {"DequantizeLinear", 10, 17, convertDequantize},
    {"Div", 1, 17, withParam<convertBinary, ops::divide>},
    {"Dropout", 1, 17, convertDropout},
    {"DynamicQuantizeLinear", 11, 17, convertDynamicQuantize},
    {"Einsum", 12, 17, convertEinsum},
    {"Elu", 1, 17, convertElu},
    {"Equal", 1, 17, withParam<convertBinary, ops::equal>},
    {"Erf", 9, 17, withParam<convertUnary, ops::erf>},
    {"Exp", 1, 17, withParam<convertUnary, ops::exp>},
    {"Expand", 8, 17, convertExpand},
    {"EyeLike", 9, 17, convertEyeLike},
    {"Flatten", 1, 17, convertFlatten},
    {"Floor", 1, 17, withParam<convertUnary, ops::floor>},
    {"GRU", 1, 17, withParam<convertRecurrent, RecurrentKind::GRU>},
    {"Gather", 1, 17, convertGather},
    {"GatherElements", 11, 17, convertGatherElements},
    {"GatherND", 11, 17, convertGatherND},
    {"Gemm", 1, 17, convertGemm},
    {"GlobalAveragePool", 1, 17, withParam<convertGlobalPool, ops::mean>},
    {"GlobalMaxPool", 1, 17, withParam<convertGlobalPool, ops::max>},
    {"Greater", 1, 17, withParam<convertBinary, ops::greater>},
    {"GreaterOrEqual", 12, 17, withParam<convertBinary, ops::greaterEqual>},
    {"GridSample", 16, 17, convertGridSample},
    {"HammingWindow", 17, 17, withParam<convertWindow, CosineWindow::Hamming>},
    {"HannWindow", 17, 17, withParam<convertWindow, CosineWindow::Hann>},
    {"HardSigmoid", 1, 17, convertHardSigmoid},
    {"HardSwish", 14, 17, convertHardSwish},
    {"Hardmax", 1, 17, convertHardmax},
    {"Identity", 1, 17, convertIdentity, true},
    {"If", 1, 17, convertIf},
    {"InstanceNormalization", 1, 17, convertInstanceNorm},
    {"IsInf", 10, 17, convertIsInf},
    {"IsNaN", 9, 17, withParam<convertUnary, ops::isNaN>},
    {"LRN", 1, 17, convertLRN},
    {"LSTM", 1, 17, withParam<convertRecurrent, RecurrentKind::LSTM>},
    {"LayerNormalization", 17, 17, convertLayerNorm},
    {"LeakyRelu", 1, 17, convertLeakyRelu},
    {"Less", 1, 17, withParam<convertBinary, ops::less>},
    {"LessOrEqual", 12, 17, withParam<convertBinary, ops::lessEqual>},
    {"Log", 1, 17, withParam<convertUnary, ops::log>},
    {"LogSoftmax", 1, 17, withParam<convertSoftmax, ops::logSoftmax>},
    {"Loop", 1, 17, convertLoop, true},
    {"MatMul", 1, 17, convertMatMul},
    {"MatMulInteger", 10, 17, convertMatMulInteger},
    {"Max", 1, 17, withParam<convertVariadic, ops::maximum>},
    {"MaxPool", 1, 17, withParam<convertPool, PoolKind::Max>},
    {"MaxUnpool", 9, 17, convertMaxUnpool},
    {"Mean", 1, 17, convertMean},
    {"MeanVarianceNormalization", 9, 17, convertMeanVarianceNorm},
    {"MelWeightMatrix", 17, 17, convertMelWeightMatrix},
    {"Min", 1, 17, withParam<convertVariadic, ops::minimum>},
    {"Mod", 10, 17, convertMod},
    {"Mul", 1, 17, withParam<convertBinary, ops::multiply>},
    {"Neg", 1, 17, withParam<convertUnary, ops::negative>},
    {"NegativeLogLikelihoodLoss", 12, 17, convertNLLLoss},
    {"Not", 1, 17, withParam<convertUnary, ops::logicalNot>},
    {"OneHot", 9, 17, convertOneHot},
    {"Optional", 15, 17, convertOptional, true},
    {"OptionalGetElement", 15, 17, convertOptionalGetElement, true},
    {"OptionalHasElement", 15, 17, convertOptionalHasElement, true},
    {"Or", 1, 17, withParam<convertBinary, ops::logicalOr>},
    {"PRelu", 1, 17, convertPRelu},
    {"Pad", 1, 17, convertPad},
    {"Pow", 1, 17, convertPow},
    {"QLinearConv", 10, 17, convertQLinearConv},
    {"QLinearMatMul", 10, 17, convertQLinearMatMul},
    {"QuantizeLinear", 10, 17, convertQuantize},
    {"RNN", 1, 17, withParam<convertRecurrent, RecurrentKind::RNN>},
    {"Range", 11, 17, convertRange},
    {"Reciprocal", 1, 17, convertReciprocal},
    {"ReduceL1", 1, 17, convertReduceL1},
    {"ReduceL2", 1, 17, convertReduceL2},
    {"ReduceLogSum", 1, 17, convertReduceLogSum},
    {"ReduceLogSumExp", 1, 17, convertReduceLogSumExp},
    {"ReduceMax", 1, 17, withParam<convertReduce, ops::max>},
    {"ReduceMean", 1, 17, withParam<convertReduce, ops::mean>},
    {"ReduceMin", 1, 17, withParam<convertReduce, ops::min>},
    {"ReduceProd", 1, 17, withParam<convertReduce, ops::prod>},
    {"ReduceSum", 1, 17, convertReduceSum},
    {"ReduceSumSquare", 1, 17, convertReduceSumSquare},
    {"Relu", 1, 17, withParam<convertUnary, ops::relu>},
    {"Reshape", 1, 17, convertReshape},
    {"Resize", 10, 17, withParam<convertResize, ResizeKind::Resize>},
    {"ReverseSequence", 10, 17, convertReverseSequence},
    {"RoiAlign", 10, 17, convertRoiAlign},
    {"Round", 11, 17, withParam<convertUnary, ops::round>},
    {"STFT", 17, 17, convertSTFT},
    {"Scan", 8, 17, convertScan},
    {"Scatter", 9, 10, convertScatterElements},
    {"ScatterElements", 11, 17, convertScatterElements},
    {"ScatterND", 11, 17, convertScatterND},
    {"Selu", 1, 17, convertSelu},
    {"SequenceAt", 11, 17, convertSequenceAt, true},
    {"SequenceConstruct", 11, 17, convertSequenceConstruct},
    {"SequenceEmpty", 11, 17, convertSequenceEmpty},
    {"SequenceErase", 11, 17, convertSequenceErase, true},
    {"SequenceInsert", 11, 17, convertSequenceInsert, true},
    {"SequenceLength", 11, 17, convertSequenceLength, true},
    {"SequenceMap", 17, 17, convertSequenceMap, true},
    {"Shape", 1, 17, convertShape},
    {"Shrink", 9, 17, convertShrink},
    {"Sigmoid", 1, 17, withParam<convertUnary, ops::sigmoid>},
    {"Sign", 9, 17, withParam<convertUnary, ops::sign>},
    {"Sin", 7, 17, withParam<convertUnary, ops::sin>},
    {"Sinh", 9, 17, withParam<convertHyperbolic, ops::subtract>},
    {"Size", 1, 17, convertSize},
    {"Slice", 1, 17, convertSlice},
    {"Softmax", 1, 17, withParam<convertSoftmax, ops::softmax>},
    {"SoftmaxCrossEntropyLoss", 12, 17, convertSoftmaxCrossEntropy},
    {"Softplus", 1, 17, convertSoftplus},
    {"Softsign", 1, 17, convertSoftsign},
    {"SpaceToDepth", 1, 17, convertSpaceToDepth},
    {"Split", 1, 17, convertSplit},
    {"SplitToSequence", 11, 17, convertSplitToSequence},
    {"Sqrt", 1, 17, withParam<convertUnary, ops::sqrt>},
    {"Squeeze", 1, 17, convertSqueeze},
    {"Sub", 1, 17, withParam<convertBinary, ops::subtract>},
    {"Sum", 1, 17, withParam<convertVariadic, ops::add>},
    {"Tan", 7, 17, withParam<convertUnary, ops::tan>},
    {"Tanh", 1, 17, withParam<convertUnary, ops::tanh>},
    {"ThresholdedRelu", 10, 17, convertThresholdedRelu},
    {"Tile", 1, 17, convertTile},
    {"TopK", 1, 17, convertTopK},
    {"Transpose", 1, 17, convertTranspose},
    {"Trilu", 14, 17, convertTrilu},
    {"Unsqueeze", 1, 17, convertUnsqueeze},
    {"Upsample", 1, 9, withParam<convertResize, ResizeKind::Upsample>},
    {"Where", 9, 17, convertWhere},
    {"Xor", 1, 17, withParam<convertBinary, ops::logicalXor>},
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
      .Cases("NonZero", "Unique", "Compress", "NonMaxSuppression",
             "the output shape depends on the input values")
      .Cases("StringNormalizer", "TfIdfVectorizer", "RegexFullMatch",
             "strings are not supported")
      .Cases("RandomNormal", "RandomNormalLike", "RandomUniform",
             "RandomUniformLike", "Bernoulli", "Multinomial",
             "random number generation is not supported")
      .Cases("Adagrad", "Adam", "Momentum", "Gradient",
             "training operators are not supported")
      .Default("");
}
