//===- FoldScaleAxis.h - Fold per-channel scales into weights ---*- C++ -*-===//
//
/// \file
/// BackwardFoldScaleAxis (Relay's) pushes a per-channel multiply that
/// follows nn.conv2d, nn.conv3d or nn.dense back into the weights:
/// `multiply(conv(x, w), s)` becomes `conv(x, multiply(w, expand(s)))`,
/// through nn.relu and nn.leaky_relu (only when the scale is a constant with
/// no negative element), add and subtract (the other operand is scaled
/// too) and nn.bias_add (the bias is scaled). Relay's legality rules apply:
/// a node passes a scale on only when it has a single user; a convolution
/// takes one when groups == 1 or it is depthwise; the channel axis comes
/// from its out_layout (else data_layout) and the weight's output axis from
/// kernel_layout; the multiplier must broadcast only along that axis. The
/// weights then hold `multiply(w, ...)` for FoldConstant to fold.
///
/// ForwardFoldScaleAxis (Relay's) does the converse: a per-channel
/// `multiply(x, s)` whose every user can absorb the scale is carried
/// forward through relu/leaky_relu (non-negative constant scale) and
/// add/subtract (the other operand is divided by the scale) into the input
/// channels of the weights of the conv2d/conv3d/dense that consumes it
/// ('I' of kernel_layout, or 'O' for a depthwise convolution).
///
/// Unlike Relay, blocked layouts (NCHW4c) are left alone, and a scale is
/// not pushed through more than 256 consecutive operators (so the rewrite,
/// which recurses along the pushed path, stays within the stack). Forward
/// folding through add/subtract needs a constant scale without zeros
/// (Relay divides by any scale, turning x * 0 + b into NaN).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TRANSFORMS_FOLDSCALEAXIS_H
#define NNIR_TRANSFORMS_FOLDSCALEAXIS_H

#include "nnir/IR/Expr.h"
#include "nnir/Pass/Pass.h"

#include "llvm/Support/Error.h"

namespace nnir {

/// Folds the scales of \p expr (whose types must have been inferred) into
/// weights; \p numFolded, if given, is incremented per folded multiply.
llvm::Expected<Ref<Expr>> backwardFoldScaleAxis(Expr *expr,
                                                int64_t *numFolded = nullptr);

/// The "BackwardFoldScaleAxis" function pass (opt level 3, requires
/// InferType).
Ref<Pass> createBackwardFoldScaleAxisPass();

/// Folds a per-channel multiply on the data input of a convolution or dense
/// (through relu, leaky_relu, add, subtract) into the weights' input
/// channels; \p numFolded, if given, is incremented per folded consumer.
llvm::Expected<Ref<Expr>> forwardFoldScaleAxis(Expr *expr,
                                               int64_t *numFolded = nullptr);

/// The "ForwardFoldScaleAxis" function pass (opt level 3, requires
/// InferType).
Ref<Pass> createForwardFoldScaleAxisPass();

} // namespace nnir

#endif // NNIR_TRANSFORMS_FOLDSCALEAXIS_H
