//===- Builders.cpp - Typed builders of operator calls --------------------===//
//
/// \file
/// The builders of Builders.h. Each looks its operator up by name in this
/// one place, checks (once per call, by the record's type key) that the
/// record it fills is the one the operator declares, and builds the call.
//
//===----------------------------------------------------------------------===//

#include "nnir/Ops/Builders.h"

#include "nnir/IR/Op.h"
#include "nnir/IR/TypeRelation.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/ErrorHandling.h"

using namespace llvm;
using namespace nnir;

/// The registered operator \p name; a missing one is a programming error
/// (the tool did not call registerAllOps()).
static Op *getOp(StringRef name) {
  Op *op = Op::lookup(name);
  if (!op)
    report_fatal_error("operator '" + name +
                       "' is not registered (call registerAllOps())");
  return op;
}

/// A call of \p name with \p args and no attribute record.
static Ref<Expr> build(StringRef name, ArrayRef<Ref<Expr>> args, SMLoc loc) {
  return Call::get(Ref<Expr>(getOp(name)), args, nullptr, loc);
}

/// A call of \p name with \p args and the record \p attrs, which must be of
/// the type the operator declares.
template <typename AttrsT>
static Ref<Expr> build(StringRef name, ArrayRef<Ref<Expr>> args,
                       Ref<AttrsT> attrs, SMLoc loc) {
  Op *op = getOp(name);
  if (op->getAttrsTypeKey() != AttrsT::typeKey)
    report_fatal_error("the builder of '" + name + "' fills a " +
                       AttrsT::typeKey + ", the operator declares '" +
                       op->getAttrsTypeKey() + "'");
  return Call::get(Ref<Expr>(op), args, Ref<Attrs>(std::move(attrs)), loc);
}

Expected<Ref<Expr>> ops::typeCheck(const Ref<Expr> &expr) {
  const auto *call = dyn_cast<Call>(expr.get());
  Op *op = call ? call->getCalledOp() : nullptr;
  if (!op)
    return makeError("typeCheck expects a call of an operator");
  if (Error err = op->checkNumArgs(call->getNumArgs(), call->getLoc()))
    return err;
  const TypeRelationFn *relation = getTypeRelation(op);
  if (!relation)
    return makeError(call->getLoc(), "operator '" + op->getName() +
                                         "' has no type relation");
  SmallVector<const Type *, 4> argTypes;
  for (const Ref<Expr> &arg : call->getArgs()) {
    if (!arg->getCheckedType())
      return makeError(call->getLoc(), op->getName() +
                                           ": an argument has no type");
    argTypes.push_back(arg->getCheckedType().get());
  }
  TypeRelationContext ctx{op->getName(), call->getLoc(), call->getArgs()};
  Expected<Ref<Type>> type =
      (*relation)(argTypes, call->getAttrsOrDefaults(), ctx);
  if (!type)
    return type.takeError();
  return Ref<Expr>(Call::get(call->getCallee(), call->getArgs(),
                             call->getAttrs(), call->getLoc(), *type));
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

#define NNIR_UNARY_BUILDER(NAME, OP_NAME)                                      \
  Ref<Expr> ops::NAME(Ref<Expr> x, SMLoc loc) {                                \
    return build(OP_NAME, {std::move(x)}, loc);                                \
  }
#define NNIR_BINARY_BUILDER(NAME, OP_NAME)                                     \
  Ref<Expr> ops::NAME(Ref<Expr> lhs, Ref<Expr> rhs, SMLoc loc) {               \
    return build(OP_NAME, {std::move(lhs), std::move(rhs)}, loc);              \
  }
#include "nnir/Ops/Builders.def"

Ref<Expr> ops::where(Ref<Expr> condition, Ref<Expr> x, Ref<Expr> y,
                     SMLoc loc) {
  return build("where", {std::move(condition), std::move(x), std::move(y)},
               loc);
}

Ref<Expr> ops::cast(Ref<Expr> x, DataType dtype, SMLoc loc) {
  Ref<CastAttrs> attrs = CastAttrs::create();
  attrs->dtype = dtype;
  return build("cast", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::clip(Ref<Expr> x, double aMin, double aMax, SMLoc loc) {
  Ref<ClipAttrs> attrs = ClipAttrs::create();
  attrs->aMin = aMin;
  attrs->aMax = aMax;
  return build("clip", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::leakyRelu(Ref<Expr> x, double alpha, SMLoc loc) {
  Ref<LeakyReluAttrs> attrs = LeakyReluAttrs::create();
  attrs->alpha = alpha;
  return build("nn.leaky_relu", {std::move(x)}, std::move(attrs), loc);
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

Ref<Expr> ops::reshape(Ref<Expr> x, IntList newShape, SMLoc loc) {
  Ref<ReshapeAttrs> attrs = ReshapeAttrs::create();
  attrs->newshape = std::move(newShape);
  return build("reshape", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::reverseReshape(Ref<Expr> x, IntList newShape, SMLoc loc) {
  Ref<ReshapeAttrs> attrs = ReshapeAttrs::create();
  attrs->newshape = std::move(newShape);
  return build("reverse_reshape", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::expandDims(Ref<Expr> x, int64_t axis, int64_t numNewAxis,
                          SMLoc loc) {
  Ref<ExpandDimsAttrs> attrs = ExpandDimsAttrs::create();
  attrs->axis = axis;
  attrs->numNewaxis = numNewAxis;
  return build("expand_dims", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::squeeze(Ref<Expr> x, std::optional<IntList> axes, SMLoc loc) {
  Ref<SqueezeAttrs> attrs = SqueezeAttrs::create();
  attrs->axis = std::move(axes);
  return build("squeeze", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::repeat(Ref<Expr> x, int64_t repeats, int64_t axis, SMLoc loc) {
  Ref<RepeatAttrs> attrs = RepeatAttrs::create();
  attrs->repeats = repeats;
  attrs->axis = axis;
  return build("repeat", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::transpose(Ref<Expr> x, std::optional<IntList> axes,
                         SMLoc loc) {
  Ref<TransposeAttrs> attrs = TransposeAttrs::create();
  attrs->axes = std::move(axes);
  return build("transpose", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::broadcastTo(Ref<Expr> x, IntList shape, SMLoc loc) {
  Ref<InitOpAttrs> attrs = InitOpAttrs::create();
  attrs->shape = std::move(shape);
  return build("broadcast_to", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::collapseSumTo(Ref<Expr> x, IntList shape, SMLoc loc) {
  Expected<NDArray> array =
      NDArray::create(DataType::int32(), {int64_t(shape.size())});
  if (!array)
    report_fatal_error(array.takeError());
  for (size_t i = 0; i < shape.size(); ++i)
    array->setElementFromInt(i, shape[i]);
  Ref<InitOpAttrs> attrs = InitOpAttrs::create();
  attrs->shape = std::move(shape);
  return build("collapse_sum_to",
               {std::move(x), Constant::get(std::move(*array), loc)},
               std::move(attrs), loc);
}

/// zeros or ones (\p name) of \p shape and \p dtype.
static Ref<Expr> buildInit(StringRef name, IntList shape, DataType dtype,
                           SMLoc loc) {
  Ref<InitOpAttrs> attrs = InitOpAttrs::create();
  attrs->shape = std::move(shape);
  attrs->dtype = dtype;
  return build(name, {}, std::move(attrs), loc);
}

Ref<Expr> ops::zeros(IntList shape, DataType dtype, SMLoc loc) {
  return buildInit("zeros", std::move(shape), dtype, loc);
}

Ref<Expr> ops::ones(IntList shape, DataType dtype, SMLoc loc) {
  return buildInit("ones", std::move(shape), dtype, loc);
}

Ref<Expr> ops::full(Ref<Expr> fill, IntList shape, DataType dtype,
                    SMLoc loc) {
  Ref<InitOpAttrs> attrs = InitOpAttrs::create();
  attrs->shape = std::move(shape);
  attrs->dtype = dtype;
  return build("full", {std::move(fill)}, std::move(attrs), loc);
}

Ref<Expr> ops::layoutTransform(Ref<Expr> x, StringRef srcLayout,
                               StringRef dstLayout, SMLoc loc) {
  Ref<LayoutTransformAttrs> attrs = LayoutTransformAttrs::create();
  attrs->srcLayout = srcLayout.str();
  attrs->dstLayout = dstLayout.str();
  return build("layout_transform", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::stridedSlice(Ref<Expr> x, OptionalIntList begin,
                            OptionalIntList end, IntList strides, IntList axes,
                            SMLoc loc) {
  Ref<StridedSliceAttrs> attrs = StridedSliceAttrs::create();
  attrs->begin = std::move(begin);
  attrs->end = std::move(end);
  attrs->strides = std::move(strides);
  attrs->axes = std::move(axes);
  return build("strided_slice", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::concatenate(Ref<Expr> fields, int64_t axis, SMLoc loc) {
  Ref<ConcatenateAttrs> attrs = ConcatenateAttrs::create();
  attrs->axis = axis;
  return build("concatenate", {std::move(fields)}, std::move(attrs), loc);
}

Ref<Expr> ops::stack(Ref<Expr> fields, int64_t axis, SMLoc loc) {
  Ref<StackAttrs> attrs = StackAttrs::create();
  attrs->axis = axis;
  return build("stack", {std::move(fields)}, std::move(attrs), loc);
}

Ref<Expr> ops::take(Ref<Expr> data, Ref<Expr> indices, int64_t axis,
                    StringRef mode, SMLoc loc) {
  Ref<TakeAttrs> attrs = TakeAttrs::create();
  attrs->axis = axis;
  attrs->mode = mode.str();
  return build("take", {std::move(data), std::move(indices)},
               std::move(attrs), loc);
}

Ref<Expr> ops::gather(Ref<Expr> data, Ref<Expr> indices, int64_t axis,
                      SMLoc loc) {
  Ref<GatherAttrs> attrs = GatherAttrs::create();
  attrs->axis = axis;
  return build("gather", {std::move(data), std::move(indices)},
               std::move(attrs), loc);
}

Ref<Expr> ops::gatherND(Ref<Expr> data, Ref<Expr> indices, int64_t batchDims,
                        std::optional<int64_t> indexRank, SMLoc loc) {
  Ref<GatherNDAttrs> attrs = GatherNDAttrs::create();
  attrs->batchDims = batchDims;
  attrs->indexRank = indexRank;
  return build("gather_nd", {std::move(data), std::move(indices)},
               std::move(attrs), loc);
}

Ref<Expr> ops::scatterElements(Ref<Expr> data, Ref<Expr> indices,
                               Ref<Expr> updates, int64_t axis,
                               StringRef reduction, SMLoc loc) {
  Ref<ScatterElementsAttrs> attrs = ScatterElementsAttrs::create();
  attrs->axis = axis;
  attrs->reduction = reduction.str();
  return build("scatter_elements",
               {std::move(data), std::move(indices), std::move(updates)},
               std::move(attrs), loc);
}

Ref<Expr> ops::scatterND(Ref<Expr> data, Ref<Expr> indices, Ref<Expr> updates,
                         StringRef mode, SMLoc loc) {
  Ref<ScatterNDAttrs> attrs = ScatterNDAttrs::create();
  attrs->mode = mode.str();
  return build("scatter_nd",
               {std::move(data), std::move(indices), std::move(updates)},
               std::move(attrs), loc);
}

Ref<Expr> ops::reverse(Ref<Expr> x, int64_t axis, SMLoc loc) {
  Ref<ReverseAttrs> attrs = ReverseAttrs::create();
  attrs->axis = axis;
  return build("reverse", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::reverseSequence(Ref<Expr> x, Ref<Expr> lengths, int64_t seqAxis,
                               int64_t batchAxis, SMLoc loc) {
  Ref<ReverseSequenceAttrs> attrs = ReverseSequenceAttrs::create();
  attrs->seqAxis = seqAxis;
  attrs->batchAxis = batchAxis;
  return build("reverse_sequence", {std::move(x), std::move(lengths)},
               std::move(attrs), loc);
}

Ref<Expr> ops::tile(Ref<Expr> x, IntList reps, SMLoc loc) {
  Ref<TileAttrs> attrs = TileAttrs::create();
  attrs->reps = std::move(reps);
  return build("tile", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::oneHot(Ref<Expr> indices, Ref<Expr> onValue, Ref<Expr> offValue,
                      int64_t depth, int64_t axis, DataType dtype, SMLoc loc) {
  Ref<OneHotAttrs> attrs = OneHotAttrs::create();
  attrs->depth = depth;
  attrs->axis = axis;
  attrs->dtype = dtype;
  return build("one_hot",
               {std::move(indices), std::move(onValue), std::move(offValue)},
               std::move(attrs), loc);
}

//===----------------------------------------------------------------------===//
// Reductions and algorithms
//===----------------------------------------------------------------------===//

static Ref<Expr> reduce(StringRef name, Ref<Expr> x,
                        std::optional<IntList> axes, bool keepdims,
                        SMLoc loc) {
  Ref<ReduceAttrs> attrs = ReduceAttrs::create();
  attrs->axis = std::move(axes);
  attrs->keepdims = keepdims;
  return build(name, {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::sum(Ref<Expr> x, std::optional<IntList> axes, bool keepdims,
                   SMLoc loc) {
  return reduce("sum", std::move(x), std::move(axes), keepdims, loc);
}

Ref<Expr> ops::mean(Ref<Expr> x, std::optional<IntList> axes, bool keepdims,
                    SMLoc loc) {
  return reduce("mean", std::move(x), std::move(axes), keepdims, loc);
}

Ref<Expr> ops::max(Ref<Expr> x, std::optional<IntList> axes, bool keepdims,
                   SMLoc loc) {
  return reduce("max", std::move(x), std::move(axes), keepdims, loc);
}

Ref<Expr> ops::min(Ref<Expr> x, std::optional<IntList> axes, bool keepdims,
                   SMLoc loc) {
  return reduce("min", std::move(x), std::move(axes), keepdims, loc);
}

Ref<Expr> ops::prod(Ref<Expr> x, std::optional<IntList> axes, bool keepdims,
                    SMLoc loc) {
  return reduce("prod", std::move(x), std::move(axes), keepdims, loc);
}

Ref<Expr> ops::variance(Ref<Expr> x, Ref<Expr> mean, IntList axes,
                        bool keepdims, SMLoc loc) {
  Ref<VarianceAttrs> attrs = VarianceAttrs::create();
  attrs->axis = std::move(axes);
  attrs->keepdims = keepdims;
  return build("variance", {std::move(x), std::move(mean)}, std::move(attrs),
               loc);
}

static Ref<Expr> argReduce(StringRef name, Ref<Expr> x, IntList axes,
                           bool keepdims, bool selectLastIndex, SMLoc loc) {
  Ref<ArgReduceAttrs> attrs = ArgReduceAttrs::create();
  attrs->axis = std::move(axes);
  attrs->keepdims = keepdims;
  attrs->selectLastIndex = selectLastIndex;
  return build(name, {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::argmax(Ref<Expr> x, IntList axes, bool keepdims,
                      bool selectLastIndex, SMLoc loc) {
  return argReduce("argmax", std::move(x), std::move(axes), keepdims,
                   selectLastIndex, loc);
}

Ref<Expr> ops::argmin(Ref<Expr> x, IntList axes, bool keepdims,
                      bool selectLastIndex, SMLoc loc) {
  return argReduce("argmin", std::move(x), std::move(axes), keepdims,
                   selectLastIndex, loc);
}

Ref<Expr> ops::cumsum(Ref<Expr> x, int64_t axis, bool exclusive, SMLoc loc) {
  Ref<ScanopAttrs> attrs = ScanopAttrs::create();
  attrs->axis = axis;
  attrs->exclusive = exclusive;
  return build("cumsum", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::topk(Ref<Expr> x, int64_t k, int64_t axis, StringRef retType,
                    bool isAscend, DataType indexType, SMLoc loc) {
  Ref<TopKAttrs> attrs = TopKAttrs::create();
  attrs->k = k;
  attrs->axis = axis;
  attrs->retType = retType.str();
  attrs->isAscend = isAscend;
  attrs->dtype = indexType;
  return build("topk", {std::move(x)}, std::move(attrs), loc);
}

/// The record of argsort and sort.
static Ref<ArgsortAttrs> makeArgsortAttrs(int64_t axis, bool isAscend,
                                          DataType indexType) {
  Ref<ArgsortAttrs> attrs = ArgsortAttrs::create();
  attrs->axis = axis;
  attrs->isAscend = isAscend;
  attrs->dtype = indexType;
  return attrs;
}

Ref<Expr> ops::argsort(Ref<Expr> x, int64_t axis, bool isAscend,
                       DataType indexType, SMLoc loc) {
  return build("argsort", {std::move(x)},
               makeArgsortAttrs(axis, isAscend, indexType), loc);
}

Ref<Expr> ops::sort(Ref<Expr> x, int64_t axis, bool isAscend, SMLoc loc) {
  return build("sort", {std::move(x)},
               makeArgsortAttrs(axis, isAscend, DataType::int32()), loc);
}

Ref<Expr> ops::einsum(Ref<Expr> operands, StringRef equation, SMLoc loc) {
  Ref<EinsumAttrs> attrs = EinsumAttrs::create();
  attrs->equation = equation.str();
  return build("einsum", {std::move(operands)}, std::move(attrs), loc);
}

//===----------------------------------------------------------------------===//
// Neural network operators
//===----------------------------------------------------------------------===//

Ref<Expr> ops::dense(Ref<Expr> x, Ref<Expr> weight,
                     std::optional<int64_t> units, SMLoc loc) {
  Ref<DenseAttrs> attrs = DenseAttrs::create();
  attrs->units = units;
  return build("nn.dense", {std::move(x), std::move(weight)}, std::move(attrs),
               loc);
}

Ref<Expr> ops::batchMatmul(Ref<Expr> a, Ref<Expr> b, bool transposeA,
                           bool transposeB, SMLoc loc) {
  Ref<BatchMatmulAttrs> attrs = BatchMatmulAttrs::create();
  attrs->transposeA = transposeA;
  attrs->transposeB = transposeB;
  return build("nn.batch_matmul", {std::move(a), std::move(b)},
               std::move(attrs), loc);
}

Ref<Expr> ops::conv1d(Ref<Expr> x, Ref<Expr> weight, Ref<Conv1DAttrs> attrs,
                      SMLoc loc) {
  return build("nn.conv1d", {std::move(x), std::move(weight)},
               std::move(attrs), loc);
}

Ref<Expr> ops::conv2d(Ref<Expr> x, Ref<Expr> weight, Ref<Conv2DAttrs> attrs,
                      SMLoc loc) {
  return build("nn.conv2d", {std::move(x), std::move(weight)},
               std::move(attrs), loc);
}

Ref<Expr> ops::conv3d(Ref<Expr> x, Ref<Expr> weight, Ref<Conv3DAttrs> attrs,
                      SMLoc loc) {
  return build("nn.conv3d", {std::move(x), std::move(weight)},
               std::move(attrs), loc);
}

Ref<Expr> ops::conv1dTranspose(Ref<Expr> x, Ref<Expr> weight,
                               Ref<Conv1DTransposeAttrs> attrs, SMLoc loc) {
  return build("nn.conv1d_transpose", {std::move(x), std::move(weight)},
               std::move(attrs), loc);
}

Ref<Expr> ops::conv2dTranspose(Ref<Expr> x, Ref<Expr> weight,
                               Ref<Conv2DTransposeAttrs> attrs, SMLoc loc) {
  return build("nn.conv2d_transpose", {std::move(x), std::move(weight)},
               std::move(attrs), loc);
}

Ref<Expr> ops::conv3dTranspose(Ref<Expr> x, Ref<Expr> weight,
                               Ref<Conv3DTransposeAttrs> attrs, SMLoc loc) {
  return build("nn.conv3d_transpose", {std::move(x), std::move(weight)},
               std::move(attrs), loc);
}

Ref<Expr> ops::biasAdd(Ref<Expr> x, Ref<Expr> bias, int64_t axis, SMLoc loc) {
  Ref<BiasAddAttrs> attrs = BiasAddAttrs::create();
  attrs->axis = axis;
  return build("nn.bias_add", {std::move(x), std::move(bias)},
               std::move(attrs), loc);
}

Ref<Expr> ops::maxPool2d(Ref<Expr> x, Ref<MaxPool2DAttrs> attrs, SMLoc loc) {
  return build("nn.max_pool2d", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::avgPool2d(Ref<Expr> x, Ref<AvgPool2DAttrs> attrs, SMLoc loc) {
  return build("nn.avg_pool2d", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::batchNorm(Ref<Expr> x, Ref<Expr> gamma, Ref<Expr> beta,
                         Ref<Expr> movingMean, Ref<Expr> movingVar,
                         int64_t axis, double epsilon, SMLoc loc) {
  Ref<BatchNormAttrs> attrs = BatchNormAttrs::create();
  attrs->axis = axis;
  attrs->epsilon = epsilon;
  return build("nn.batch_norm",
               {std::move(x), std::move(gamma), std::move(beta),
                std::move(movingMean), std::move(movingVar)},
               std::move(attrs), loc);
}

Ref<Expr> ops::instanceNorm(Ref<Expr> x, Ref<Expr> gamma, Ref<Expr> beta,
                            int64_t axis, double epsilon, SMLoc loc) {
  Ref<InstanceNormAttrs> attrs = InstanceNormAttrs::create();
  attrs->axis = axis;
  attrs->epsilon = epsilon;
  return build("nn.instance_norm",
               {std::move(x), std::move(gamma), std::move(beta)},
               std::move(attrs), loc);
}

Ref<Expr> ops::lrn(Ref<Expr> x, Ref<LRNAttrs> attrs, SMLoc loc) {
  return build("nn.lrn", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::softmax(Ref<Expr> x, int64_t axis, SMLoc loc) {
  Ref<SoftmaxAttrs> attrs = SoftmaxAttrs::create();
  attrs->axis = axis;
  return build("nn.softmax", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::logSoftmax(Ref<Expr> x, int64_t axis, SMLoc loc) {
  Ref<SoftmaxAttrs> attrs = SoftmaxAttrs::create();
  attrs->axis = axis;
  return build("nn.log_softmax", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::pad(Ref<Expr> x, Ref<Expr> fill, std::vector<IntList> padWidth,
                   StringRef mode, SMLoc loc) {
  Ref<PadAttrs> attrs = PadAttrs::create();
  attrs->padWidth = std::move(padWidth);
  attrs->padMode = mode.str();
  return build("nn.pad", {std::move(x), std::move(fill)}, std::move(attrs),
               loc);
}

Ref<Expr> ops::resize2d(Ref<Expr> x, Ref<Resize2DAttrs> attrs, SMLoc loc) {
  return build("image.resize2d", {std::move(x)}, std::move(attrs), loc);
}

Ref<Expr> ops::gridSample(Ref<Expr> x, Ref<Expr> grid,
                          Ref<GridSampleAttrs> attrs, SMLoc loc) {
  return build("image.grid_sample", {std::move(x), std::move(grid)},
               std::move(attrs), loc);
}

Ref<Expr> ops::roiAlign(Ref<Expr> data, Ref<Expr> rois,
                        Ref<ROIAlignAttrs> attrs, SMLoc loc) {
  return build("vision.roi_align", {std::move(data), std::move(rois)},
               std::move(attrs), loc);
}
