//===- FuseOps.h - Operator fusion ------------------------------*- C++ -*-===//
//
/// \file
/// FuseOps groups operator calls into primitive functions, each lowered as
/// one kernel (Relay's FuseOps): the dataflow graph of a function and its
/// post-dominator tree (nnir/Analysis) decide the groups by the operators'
/// pattern kinds, and every group becomes a call of
/// `fn (%p0, ..., Primitive=1) { ... }` whose parameters are the values the
/// group reads from outside (one parameter per distinct value).
///
///  - Elementwise and broadcast ops fuse into their consumers, injective
///    chains fuse, reductions are sinks (ops before them fuse into them),
///    conv2d/dense (OutEWiseFusable) take the elementwise ops after them,
///    tuples fuse into the injective op that reads them; see
///    GraphPartitioner.h for the exact rules. A group has at most
///    `FuseOps.max_depth` nodes (config, default 256).
///  - Fusion opt level 0 makes every call its own primitive function; the
///    pass's `fuse_opt_level` option (-1: the context's opt level) sets it.
///  - Existing primitive functions (and functions for an external compiler)
///    are left alone; `annotation.stop_fusion(x)` is a barrier and is
///    replaced by `x`; non-computational ops (on_device) are not fused.
///  - A tuple that ends a group stays a plain tuple; a projection of a tuple
///    made by an opaque call stays unfused.
///  - With the `FuseOps.link_params` config, constant arguments stay inside
///    the primitive function instead of becoming parameters.
///
/// The pass records `num-fused-functions` and, with `--pass-remarks=FuseOps`,
/// reports each primitive function it made (how many calls, how many
/// parameters) at the location of the group's last call.
///
/// FuseOps needs checked types (it requires InferType) and is iterative: a
/// chain of 1,000,000 calls fuses on the default stack.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TRANSFORMS_FUSEOPS_H
#define NNIR_TRANSFORMS_FUSEOPS_H

#include "nnir/IR/Expr.h"
#include "nnir/Pass/Pass.h"

#include "llvm/Support/Error.h"

#include <cstddef>

namespace nnir {

struct FuseOpsOptions {
  /// 0: every call its own group; 1 and above: fuse.
  int optLevel = 2;
  /// The largest number of nodes in one group (Relay's kMaxFusedOps).
  size_t maxDepth = 256;
  /// Keep constant arguments inside the primitive functions.
  bool linkParams = false;
};

inline constexpr llvm::StringLiteral kFuseOpsMaxDepthConfig =
    "FuseOps.max_depth";
inline constexpr llvm::StringLiteral kFuseOpsLinkParamsConfig =
    "FuseOps.link_params";

/// Fuses the operator calls of \p expr (usually a function; a Primitive
/// function is returned as it is). Returns \p expr itself when there is
/// nothing to fuse. Errors when a node that fusion needs typed has no
/// checked type.
llvm::Expected<Ref<Expr>> fuseOps(Expr *expr, const FuseOpsOptions &options);

/// The "FuseOps" function pass (opt level 0, requires InferType). A negative
/// \p fuseOptLevel uses the context's opt level; the depth limit and
/// link_params come from the context's config.
Ref<Pass> createFuseOpsPass(int fuseOptLevel = -1);

} // namespace nnir

#endif // NNIR_TRANSFORMS_FUSEOPS_H
