//===- Window.h - Helpers shared by the NN operator files -------*- C++ -*-===//
//
/// \file
/// Private to lib/Ops. Spatial axes of data layouts (nnir/Ops/Layout.h), the
/// window attributes of convolution and pooling (strides, dilation, padding)
/// and sliding-window arithmetic, shared by the convolution (NN.cpp), pooling
/// (Pooling.cpp) and image (Image.cpp) operators; and the registration
/// functions of Pooling.cpp and Image.cpp, which registerNNOps() calls.
/// The helpers are defined in NN.cpp. Every error goes through the relation's
/// context, so it is located at the call and names the operator.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_WINDOW_H
#define NNIR_OPS_WINDOW_H

#include "nnir/IR/TypeRelation.h"
#include "nnir/Ops/Layout.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>

namespace nnir {
namespace window {

/// Checks that \p data fits \p layout (same rank; each sub-axis extent equals
/// its factor) and that the layout has the primal axes \p spatial ("HW"),
/// none of them split; returns their positions in the order of \p spatial.
llvm::Expected<llvm::SmallVector<unsigned, 3>>
getSpatialAxes(const TensorType *data, const Layout &layout,
               llvm::StringRef layoutText, llvm::StringRef spatial,
               const TypeRelationContext &ctx);

/// The data argument of a pooling, upsampling or resize call and the
/// positions of its H and W axes.
struct SpatialInput {
  const TensorType *data;
  llvm::SmallVector<unsigned, 3> spatial;
};

/// Reads argument 0 as the data and finds H and W through \p layoutText
/// (parseLayoutAttr + getSpatialAxes).
llvm::Expected<SpatialInput>
getSpatialInput(llvm::ArrayRef<const Type *> args, llvm::StringRef layoutText,
                const TypeRelationContext &ctx);

/// A per-dimension window attribute (strides, dilation, pool_size,
/// kernel_size, output_padding) of 1 value (every dimension) or \p rank
/// values, each at least \p minValue.
llvm::Expected<llvm::SmallVector<int64_t, 3>>
getWindowValues(llvm::ArrayRef<int64_t> values, unsigned rank,
                llvm::StringRef attrName, const TypeRelationContext &ctx,
                int64_t minValue = 1);

/// Padding of 1 value (every side), \p rank values (each dimension on both
/// sides) or 2 * \p rank values (every dimension's "before" padding, then
/// every "after" one: (top, left, bottom, right) in 2-D), non-negative; the
/// (before, after) pair of each dimension.
llvm::Expected<llvm::SmallVector<std::pair<int64_t, int64_t>, 3>>
getPadding(llvm::ArrayRef<int64_t> values, unsigned rank,
           const TypeRelationContext &ctx);

/// The output extent of a sliding window over \p in padded with \p before and
/// \p after: (in + before + after - ((kernel - 1) * dilation + 1)
/// [+ stride - 1 with \p ceilMode]) / stride + 1. \p dimName ("height")
/// names the dimension in errors.
llvm::Expected<int64_t> windowOutput(int64_t in, int64_t before, int64_t after,
                                     int64_t kernel, int64_t dilation,
                                     int64_t stride, bool ceilMode,
                                     llvm::StringRef dimName,
                                     const TypeRelationContext &ctx);

/// "depth", "height", "width" for the layout letters D, H, W.
llvm::StringRef getSpatialName(char axis);

/// An attribute list as written in the text format (`kernel_size=[1, 2]`);
/// other messages print lists as shapes print: `(1, 2)`.
std::string formatAttrList(llvm::ArrayRef<int64_t> values);

/// Checks that \p value is one of \p allowed; the error names \p attrName and
/// lists the allowed values.
llvm::Error checkOneOf(llvm::StringRef value,
                       llvm::ArrayRef<llvm::StringRef> allowed,
                       llvm::StringRef attrName,
                       const TypeRelationContext &ctx);

} // namespace window

/// Pooling.cpp: nn.max_pool2d, nn.avg_pool2d, nn.global_{avg,max}_pool2d,
/// nn.adaptive_{avg,max}_pool2d.
void registerPoolingOps();
/// Image.cpp: nn.upsampling, image.resize2d.
void registerImageOps();

} // namespace nnir

#endif // NNIR_OPS_WINDOW_H
