//===- Builders.h - Typed builders of operator calls -------------*- C++ -*-===//
//
/// \file
/// One function per operator that builds a call of it: `ops::reshape(x,
/// {2, 3})`, `ops::add(x, y)`, `ops::conv2d(x, w, attrs)`. The attributes are
/// C++ values written into the operator's own attribute record (a builder of
/// an operator with many attributes takes the record itself), so a misspelt
/// attribute name or a wrongly typed value is a compile error, not a parse
/// error at run time. The graph rewrites (Transforms' PatternUtils) and the
/// ONNX importer's converters share them, instead of each building calls
/// from operator and attribute names.
///
/// Building and checking are two steps:
///  - A builder only builds: it returns the untyped call, at the location
///    given (rewrites give the location of the call they replace). It cannot
///    fail; an operator that is not registered (the tool did not call
///    registerAllOps()) is a programming error and aborts with a message.
///  - typeCheck() types a call whose arguments are typed: it checks the
///    number of arguments, runs the operator's type relation on the argument
///    types and the call's record, and returns the call with its checked
///    type, or the relation's error.
/// The rewrites build untyped calls and leave them to InferType, as before
/// (a pass has no use for an error path per built call); the ONNX converters,
/// whose next step reads the result's shape, pass every call through
/// typeCheck() (NodeContext::typed()). Keeping the builders infallible keeps
/// both kinds of caller to one line per call: an Expected from every builder
/// would put an error check after each call in the passes for errors that
/// only InferType can report well (with the whole function typed).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_BUILDERS_H
#define NNIR_OPS_BUILDERS_H

#include "nnir/IR/Expr.h"
#include "nnir/Ops/Attrs.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SMLoc.h"

#include <optional>
#include <string>
#include <vector>

namespace nnir {
namespace ops {

/// Types \p call, a call of a registered operator whose arguments all have
/// checked types: checks its number of arguments and runs the operator's
/// type relation (with the call's record, or the operator's defaults). The
/// result is a copy of the call carrying its checked type, or the error the
/// arity check or the relation reports ("reshape: cannot reshape ...").
llvm::Expected<Ref<Expr>> typeCheck(const Ref<Expr> &call);

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// The signatures of the elementwise builders (converters and rewrites that
/// are parameterised by an operator take one of these).
using UnaryBuilder = Ref<Expr> (*)(Ref<Expr> x, llvm::SMLoc loc);
using BinaryBuilder = Ref<Expr> (*)(Ref<Expr> lhs, Ref<Expr> rhs,
                                    llvm::SMLoc loc);

// Unary operators without attributes (nn.relu is relu; isnan and isinf are
// isNaN and isInf).
#define NNIR_UNARY_BUILDER(NAME, OP_NAME)                                      \
  Ref<Expr> NAME(Ref<Expr> x, llvm::SMLoc loc = {});
#define NNIR_BINARY_BUILDER(NAME, OP_NAME)                                     \
  Ref<Expr> NAME(Ref<Expr> lhs, Ref<Expr> rhs, llvm::SMLoc loc = {});
#include "nnir/Ops/Builders.def"

/// where(condition, x, y)
Ref<Expr> where(Ref<Expr> condition, Ref<Expr> x, Ref<Expr> y,
                llvm::SMLoc loc = {});
Ref<Expr> cast(Ref<Expr> x, DataType dtype, llvm::SMLoc loc = {});
Ref<Expr> clip(Ref<Expr> x, double aMin, double aMax, llvm::SMLoc loc = {});
/// nn.leaky_relu
Ref<Expr> leakyRelu(Ref<Expr> x, double alpha, llvm::SMLoc loc = {});

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

Ref<Expr> reshape(Ref<Expr> x, IntList newShape, llvm::SMLoc loc = {});
/// reverse_reshape: reshape with newshape's special values read from the
/// right (Relay's contrib_reverse_reshape).
Ref<Expr> reverseReshape(Ref<Expr> x, IntList newShape, llvm::SMLoc loc = {});
Ref<Expr> expandDims(Ref<Expr> x, int64_t axis, int64_t numNewAxis = 1,
                     llvm::SMLoc loc = {});
/// squeeze: no axes drops every dimension of extent 1.
Ref<Expr> squeeze(Ref<Expr> x, std::optional<IntList> axes,
                  llvm::SMLoc loc = {});
Ref<Expr> repeat(Ref<Expr> x, int64_t repeats, int64_t axis,
                 llvm::SMLoc loc = {});
/// transpose: no axes reverses them.
Ref<Expr> transpose(Ref<Expr> x, std::optional<IntList> axes,
                    llvm::SMLoc loc = {});
Ref<Expr> broadcastTo(Ref<Expr> x, IntList shape, llvm::SMLoc loc = {});
/// collapse_sum_to(x, shape): \p shape as the attribute and as a 1-d int32
/// constant argument, as Relay's builder makes it.
Ref<Expr> collapseSumTo(Ref<Expr> x, IntList shape, llvm::SMLoc loc = {});
/// zeros, ones and full (of the 0-d \p fill; a void \p dtype is the
/// fill's) of \p shape.
Ref<Expr> zeros(IntList shape, DataType dtype, llvm::SMLoc loc = {});
Ref<Expr> ones(IntList shape, DataType dtype, llvm::SMLoc loc = {});
Ref<Expr> full(Ref<Expr> fill, IntList shape, DataType dtype,
               llvm::SMLoc loc = {});
Ref<Expr> layoutTransform(Ref<Expr> x, llvm::StringRef srcLayout,
                          llvm::StringRef dstLayout, llvm::SMLoc loc = {});
/// strided_slice of \p axes (an entry of \p begin or \p end that is
/// std::nullopt is the start or the end of its axis).
Ref<Expr> stridedSlice(Ref<Expr> x, OptionalIntList begin,
                       OptionalIntList end, IntList strides, IntList axes,
                       llvm::SMLoc loc = {});
/// concatenate and stack of the fields of the tuple \p fields.
Ref<Expr> concatenate(Ref<Expr> fields, int64_t axis, llvm::SMLoc loc = {});
Ref<Expr> stack(Ref<Expr> fields, int64_t axis, llvm::SMLoc loc = {});
/// take along \p axis; \p mode is "clip", "wrap" or "fast".
Ref<Expr> take(Ref<Expr> data, Ref<Expr> indices, int64_t axis,
               llvm::StringRef mode, llvm::SMLoc loc = {});
Ref<Expr> gather(Ref<Expr> data, Ref<Expr> indices, int64_t axis,
                 llvm::SMLoc loc = {});
Ref<Expr> gatherND(Ref<Expr> data, Ref<Expr> indices, int64_t batchDims,
                   std::optional<int64_t> indexRank, llvm::SMLoc loc = {});
Ref<Expr> scatterElements(Ref<Expr> data, Ref<Expr> indices,
                          Ref<Expr> updates, int64_t axis,
                          llvm::StringRef reduction, llvm::SMLoc loc = {});
Ref<Expr> scatterND(Ref<Expr> data, Ref<Expr> indices, Ref<Expr> updates,
                    llvm::StringRef mode, llvm::SMLoc loc = {});
Ref<Expr> reverse(Ref<Expr> x, int64_t axis, llvm::SMLoc loc = {});
Ref<Expr> reverseSequence(Ref<Expr> x, Ref<Expr> lengths, int64_t seqAxis,
                          int64_t batchAxis, llvm::SMLoc loc = {});
Ref<Expr> tile(Ref<Expr> x, IntList reps, llvm::SMLoc loc = {});
Ref<Expr> oneHot(Ref<Expr> indices, Ref<Expr> onValue, Ref<Expr> offValue,
                 int64_t depth, int64_t axis, DataType dtype,
                 llvm::SMLoc loc = {});

//===----------------------------------------------------------------------===//
// Reductions and algorithms
//===----------------------------------------------------------------------===//

/// The reductions sum, mean, max, min and prod over \p axes (none: every
/// axis).
using ReduceBuilder = Ref<Expr> (*)(Ref<Expr> x, std::optional<IntList> axes,
                                    bool keepdims, llvm::SMLoc loc);
Ref<Expr> sum(Ref<Expr> x, std::optional<IntList> axes, bool keepdims,
              llvm::SMLoc loc = {});
Ref<Expr> mean(Ref<Expr> x, std::optional<IntList> axes, bool keepdims,
               llvm::SMLoc loc = {});
Ref<Expr> max(Ref<Expr> x, std::optional<IntList> axes, bool keepdims,
              llvm::SMLoc loc = {});
Ref<Expr> min(Ref<Expr> x, std::optional<IntList> axes, bool keepdims,
              llvm::SMLoc loc = {});
Ref<Expr> prod(Ref<Expr> x, std::optional<IntList> axes, bool keepdims,
               llvm::SMLoc loc = {});
/// variance(x, mean) over \p axes (biased).
Ref<Expr> variance(Ref<Expr> x, Ref<Expr> mean, IntList axes, bool keepdims,
                   llvm::SMLoc loc = {});
/// argmax and argmin over \p axes.
using ArgReduceBuilder = Ref<Expr> (*)(Ref<Expr> x, IntList axes,
                                       bool keepdims, bool selectLastIndex,
                                       llvm::SMLoc loc);
Ref<Expr> argmax(Ref<Expr> x, IntList axes, bool keepdims,
                 bool selectLastIndex, llvm::SMLoc loc = {});
Ref<Expr> argmin(Ref<Expr> x, IntList axes, bool keepdims,
                 bool selectLastIndex, llvm::SMLoc loc = {});
Ref<Expr> cumsum(Ref<Expr> x, int64_t axis, bool exclusive,
                 llvm::SMLoc loc = {});
/// topk; \p retType is "both", "values" or "indices".
Ref<Expr> topk(Ref<Expr> x, int64_t k, int64_t axis, llvm::StringRef retType,
               bool isAscend, DataType indexType, llvm::SMLoc loc = {});
/// argsort: the indices (as \p indexType) that sort \p x along \p axis.
Ref<Expr> argsort(Ref<Expr> x, int64_t axis, bool isAscend,
                  DataType indexType = DataType::int32(), llvm::SMLoc loc = {});
/// sort: \p x sorted along \p axis.
Ref<Expr> sort(Ref<Expr> x, int64_t axis, bool isAscend, llvm::SMLoc loc = {});
/// einsum of the fields of the tuple \p operands.
Ref<Expr> einsum(Ref<Expr> operands, llvm::StringRef equation,
                 llvm::SMLoc loc = {});

//===----------------------------------------------------------------------===//
// Neural network operators
//===----------------------------------------------------------------------===//

/// nn.dense: x times the transpose of \p weight.
Ref<Expr> dense(Ref<Expr> x, Ref<Expr> weight, std::optional<int64_t> units,
                llvm::SMLoc loc = {});
Ref<Expr> batchMatmul(Ref<Expr> a, Ref<Expr> b, bool transposeA,
                      bool transposeB, llvm::SMLoc loc = {});
/// nn.conv1d, nn.conv2d, nn.conv3d and nn.conv{1,2,3}d_transpose with their
/// records.
Ref<Expr> conv1d(Ref<Expr> x, Ref<Expr> weight, Ref<Conv1DAttrs> attrs,
                 llvm::SMLoc loc = {});
Ref<Expr> conv2d(Ref<Expr> x, Ref<Expr> weight, Ref<Conv2DAttrs> attrs,
                 llvm::SMLoc loc = {});
Ref<Expr> conv3d(Ref<Expr> x, Ref<Expr> weight, Ref<Conv3DAttrs> attrs,
                 llvm::SMLoc loc = {});
Ref<Expr> conv1dTranspose(Ref<Expr> x, Ref<Expr> weight,
                          Ref<Conv1DTransposeAttrs> attrs,
                          llvm::SMLoc loc = {});
Ref<Expr> conv2dTranspose(Ref<Expr> x, Ref<Expr> weight,
                          Ref<Conv2DTransposeAttrs> attrs,
                          llvm::SMLoc loc = {});
Ref<Expr> conv3dTranspose(Ref<Expr> x, Ref<Expr> weight,
                          Ref<Conv3DTransposeAttrs> attrs,
                          llvm::SMLoc loc = {});
Ref<Expr> biasAdd(Ref<Expr> x, Ref<Expr> bias, int64_t axis,
                  llvm::SMLoc loc = {});
Ref<Expr> maxPool2d(Ref<Expr> x, Ref<MaxPool2DAttrs> attrs,
                    llvm::SMLoc loc = {});
Ref<Expr> avgPool2d(Ref<Expr> x, Ref<AvgPool2DAttrs> attrs,
                    llvm::SMLoc loc = {});
/// nn.batch_norm: a tuple (normalised data, mean, variance).
Ref<Expr> batchNorm(Ref<Expr> x, Ref<Expr> gamma, Ref<Expr> beta,
                    Ref<Expr> movingMean, Ref<Expr> movingVar, int64_t axis,
                    double epsilon, llvm::SMLoc loc = {});
Ref<Expr> instanceNorm(Ref<Expr> x, Ref<Expr> gamma, Ref<Expr> beta,
                       int64_t axis, double epsilon, llvm::SMLoc loc = {});
Ref<Expr> lrn(Ref<Expr> x, Ref<LRNAttrs> attrs, llvm::SMLoc loc = {});
/// nn.softmax and nn.log_softmax along \p axis.
Ref<Expr> softmax(Ref<Expr> x, int64_t axis, llvm::SMLoc loc = {});
Ref<Expr> logSoftmax(Ref<Expr> x, int64_t axis, llvm::SMLoc loc = {});
/// nn.pad with the 0-d \p fill; \p padWidth holds (before, after) per axis.
Ref<Expr> pad(Ref<Expr> x, Ref<Expr> fill, std::vector<IntList> padWidth,
              llvm::StringRef mode, llvm::SMLoc loc = {});
/// image.resize2d
Ref<Expr> resize2d(Ref<Expr> x, Ref<Resize2DAttrs> attrs,
                   llvm::SMLoc loc = {});
/// image.grid_sample of NCHW \p x at the (N, 2, H', W') \p grid.
Ref<Expr> gridSample(Ref<Expr> x, Ref<Expr> grid, Ref<GridSampleAttrs> attrs,
                     llvm::SMLoc loc = {});
/// vision.roi_align of \p rois (R, 5: batch index, x1, y1, x2, y2).
Ref<Expr> roiAlign(Ref<Expr> data, Ref<Expr> rois, Ref<ROIAlignAttrs> attrs,
                   llvm::SMLoc loc = {});

} // namespace ops
} // namespace nnir

#endif // NNIR_OPS_BUILDERS_H
