//===- QNN.h - Quantized operators and their lowering -----------*- C++ -*-===//
//
/// \file
/// The quantized operators (qnn.quantize, qnn.dequantize, qnn.requantize,
/// qnn.add, qnn.subtract, qnn.mul, qnn.dense, qnn.conv2d) are registered
/// like every operator (name, arguments, record, type relation), but have no
/// compute: as in TVM, they run by being *canonicalized*, each call rewritten
/// into primitive operators (cast, round, clip, multiply, nn.dense, ...)
/// by the function registered under kQnnCanonicalizeAttr (TVM's
/// FTVMQnnCanonicalize). The QnnCanonicalize pass (nnir/Transforms) applies
/// them; the Executor runs it before compiling a module that has QNN calls,
/// so nnir-run, FoldConstant(fold_qnn=true) and the Python executor run QNN.
///
/// The arithmetic of quantization is written once, here, as builders of
/// primitive calls: the canonicalizations and the ONNX importer's
/// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear and QLinear*
/// converters share it. Like the builders of nnir/Ops/Builders.h they build
/// untyped calls and cannot fail.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_QNN_H
#define NNIR_OPS_QNN_H

#include "nnir/IR/Expr.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/Runtime/DataType.h"
#include "nnir/Support/TypeId.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SMLoc.h"

#include <functional>

namespace nnir {

class Op;
class Type;

/// Rewrites a call of a QNN operator into primitive operators. It receives
/// the call (whose arguments may have been rewritten) and the checked types
/// of its arguments and of its result; it returns the untyped replacement,
/// or a located error (a scale that is not a constant where the lowering
/// needs its value, an unsupported rounding mode).
using QnnCanonicalizeFn = CallRewriteFn;

inline constexpr llvm::StringLiteral kQnnCanonicalizeAttr =
    "FTVMQnnCanonicalize";

/// The canonicalization of \p op, or null when it is not a QNN operator.
const QnnCanonicalizeFn *getQnnCanonicalization(const Op *op);

/// Registers the qnn.* operators (called by registerAllOps()).
void registerQNNOps();

namespace qnn {

/// The smallest and largest values of the integer \p dtype.
double getQMin(DataType dtype);
double getQMax(DataType dtype);

/// \p values (1-D, or a scalar) laid along axis \p axis of a tensor of rank
/// \p rank: a 1-D of \p length becomes [length, 1, ..., 1] (rank - axis
/// extents), which broadcasts against that axis; a scalar is returned as it
/// is.
Ref<Expr> alongAxis(Ref<Expr> values, unsigned valuesRank, int64_t length,
                    unsigned rank, unsigned axis, llvm::SMLoc loc = {});

/// cast(clip(v, qmin, qmax), dtype): \p v saturated to the integer \p dtype.
Ref<Expr> saturate(Ref<Expr> v, DataType dtype, llvm::SMLoc loc = {});

/// saturate(round(v) + zeroPoint): a real value already divided by its
/// scale, rounded half to even (ONNX's and TVM's quantize) and offset by
/// \p zeroPoint (any integer dtype, converted to v's; none: 0).
Ref<Expr> roundToQuantized(Ref<Expr> v, Ref<Expr> zeroPoint, DataType dtype,
                           DataType realType, llvm::SMLoc loc = {});

/// quantize: roundToQuantized(x / scale, zeroPoint); \p scale and
/// \p zeroPoint already laid along the axis (alongAxis()).
Ref<Expr> quantize(Ref<Expr> x, Ref<Expr> scale, Ref<Expr> zeroPoint,
                   DataType dtype, DataType realType, llvm::SMLoc loc = {});

/// dequantize: (int32(x) - zeroPoint) as \p realType, times \p scale (both
/// laid along the axis; no zero point: 0); float32 results of other real
/// types are saturated to \p outType.
Ref<Expr> dequantize(Ref<Expr> x, Ref<Expr> scale, Ref<Expr> zeroPoint,
                     DataType realType, DataType outType,
                     llvm::SMLoc loc = {});

/// x - zeroPoint in int32 (no zero point: int32(x)).
Ref<Expr> centerInt32(Ref<Expr> x, Ref<Expr> zeroPoint, llvm::SMLoc loc = {});

/// How requantize rounds a product that falls half-way.
enum class Rounding { Upward, ToNearest };

/// x * multiplier for an int32 \p x and real multipliers (one, or one per
/// index of axis \p axis of a tensor of rank \p rank), in TVM's fixed point:
/// each multiplier is a 31-bit significand and a shift, the product is taken
/// in int64 and shifted back with the rounding \p rounding (Upward: half
/// towards +inf; ToNearest: half away from zero). The result is int32.
Ref<Expr> fixedPointMultiply(Ref<Expr> x, llvm::ArrayRef<double> multipliers,
                             unsigned rank, unsigned axis, Rounding rounding,
                             llvm::SMLoc loc = {});

} // namespace qnn
} // namespace nnir

NNIR_DECLARE_EXPLICIT_TYPE_ID(nnir::QnnCanonicalizeFn)

#endif // NNIR_OPS_QNN_H
