//===- Compute.h - Operator computes in the TE layer -----------*- C++ -*-===//
//
/// \file
/// An operator's compute says, once, how its outputs are computed from its
/// inputs as tensor expressions (nnir/TE): Codegen calls it for every call of
/// the operator in a primitive function and inlines, fuses and emits the
/// result. Computes are attached under kTEComputeAttr (TVM's FTVMCompute),
/// next to the type relation and the pattern kind; the IR knows nothing of
/// them.
///
/// A compute receives the call's attribute record, its arguments as TE
/// tensors (a tuple argument, as concatenate takes, is the list of its
/// fields; a tensor argument a list of one) and the call's inferred result
/// type, and returns the output tensors: one for a tensor result, one per
/// field for a tuple result. It returns an error (never aborts) for what it
/// cannot compute; Codegen adds the operator name and the source location.
///
/// Shapes of the argument tensors are TE expressions: constants, or, in
/// shape-generic kernels (nnir/Codegen/Lowering.h), variables bound when the
/// kernel runs. Only two kinds of operators are lowered shape-generic:
/// - kTEBroadcastRuleAttr: the compute works from the argument shapes alone
///   by NumPy's rule (te::broadcastShape/broadcastRead) and reads no
///   attribute that names an axis or a shape, so the lowering may re-shape
///   the operands (merge and drop axes) consistently;
/// - kTEReshapeAttr: the result is the argument's elements in row-major
///   order under a new shape, which the compute reads from
///   ComputeArgs::getResultShape() (the lowering's, over runtime extents).
/// Other computes may use the static shapes of \p resultType and
/// te::getConstShape.
///
/// A primitive function whose parameter types have `?` extents is lowered
/// to one kernel over *symbolic* extents (Lowering.h): each `?` extent of a
/// parameter is a variable, and every compute's outputs have the extents
/// it derives from its arguments' (expressions of those variables). Only
/// operators that follow the broadcasting rule or are marked
/// kTESymbolicShapesAttr are lowered so; a function with any other operator
/// is specialised to concrete shapes first (nnir/ExecutionEngine/
/// Specialize.h), as are all functions when a compute refuses.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_COMPUTE_H
#define NNIR_OPS_COMPUTE_H

#include "nnir/Support/TypeId.h"
#include "nnir/TE/Tensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <vector>

namespace nnir {

class Attrs;
class Op;
class Type;

/// The arguments of one compute invocation.
struct ComputeArgs {
  /// The call's attribute record (null for operators without one).
  const Attrs *attrs;
  /// One list of tensors per argument of the call.
  llvm::ArrayRef<std::vector<te::Tensor>> args;
  /// The call's inferred type (TensorType or TupleType).
  const Type *resultType;
  /// Shape-generic lowering of a kTEReshapeAttr operator: the result's shape
  /// over the runtime extents.
  const std::vector<te::Expr> *genericResultShape = nullptr;

  /// The shape of a tensor result: genericResultShape when given, else the
  /// static shape of resultType.
  std::vector<te::Expr> getResultShape() const;
  /// The same where the result type is static; where it has a `?` extent,
  /// \p derived's (the extent a symbolic compute derives from its
  /// arguments; same rank as the result).
  std::vector<te::Expr> getResultShape(llvm::ArrayRef<te::Expr> derived) const;

  /// The only tensor of argument \p i.
  const te::Tensor &arg(unsigned i) const { return args[i].front(); }
};

using TECompute =
    std::function<llvm::Expected<std::vector<te::Tensor>>(const ComputeArgs &)>;

inline constexpr llvm::StringLiteral kTEComputeAttr = "FTECompute";

/// A bool op attribute: the compute follows NumPy's broadcasting rule alone
/// (see the file comment); calls of the operator may be lowered
/// shape-generic.
inline constexpr llvm::StringLiteral kTEBroadcastRuleAttr = "FTEBroadcastRule";

/// True if \p op is marked kTEBroadcastRuleAttr.
bool followsBroadcastRule(const Op *op);

/// A bool op attribute: the result is the first argument's elements in
/// row-major order under the result's shape (see the file comment).
inline constexpr llvm::StringLiteral kTEReshapeAttr = "FTEReshape";

/// True if \p op is marked kTEReshapeAttr.
bool isReshapeLike(const Op *op);

/// A bool op attribute: the compute works on arguments of symbolic extents
/// (te::Expr variables and expressions of them) and derives its outputs'
/// extents from its arguments' and its attributes alone, never from a `?`
/// extent of ComputeArgs::resultType (whose static extents and dtype it
/// may read); where it needs a constant extent it returns an error (the
/// function is then specialised). Set with markSymbolicShapes().
inline constexpr llvm::StringLiteral kTESymbolicShapesAttr =
    "FTESymbolicShapes";

/// True if calls of \p op may be lowered over symbolic extents: it follows
/// the broadcasting rule or is marked kTESymbolicShapesAttr.
bool computesSymbolicShapes(const Op *op);

/// Marks the registered operators \p opNames kTESymbolicShapesAttr
/// (a name no operator has is a fatal error, as in setOpCompute()).
void markSymbolicShapes(llvm::ArrayRef<llvm::StringRef> opNames);

/// The compute of \p op, or null when it has none.
const TECompute *getOpCompute(const Op *op);

/// Attaches \p compute to the registered operator \p opName. A name no
/// operator has (a misspelt registration) is an error that suggests the
/// closest names: "cannot attach a compute to 'nn.conv2dd': no such
/// operator; did you mean 'nn.conv2d'?"; so is an empty compute.
llvm::Error attachOpCompute(llvm::StringRef opName, TECompute compute);

/// attachOpCompute() for registration code (the families'
/// register...Computes(), called by registerAllOps(), and plugins): an
/// error is a programming error, reported with llvm::report_fatal_error in
/// every build, so a misspelt registration stops the tool at start-up
/// instead of leaving the operator without a compute.
void setOpCompute(llvm::StringRef opName, TECompute compute);

/// An error for computes ("compute of <op>: ..." is added by the caller).
llvm::Error computeError(const llvm::Twine &message);

/// The dtype in which operators keep the sums of elements of \p dtype that
/// they divide by or take the logarithm of (mean, variance, normalisation
/// statistics, average pools, softmax denominators): float32 for float16
/// and bfloat16, whose sums overflow past 65504 and whose counts round (a
/// float16 count above 65504 is infinite, a bfloat16 count keeps 8 bits),
/// as NumPy's mean of float16 does; \p dtype itself otherwise. Results are
/// cast back to \p dtype.
DataType getAccumulationType(DataType dtype);

/// Registers the computes of the operator families (called by
/// registerAllOps(), after the operators themselves).
void registerReductionComputes();
void registerDataMovementComputes();
void registerNNComputes();
void registerImageComputes();
void registerAnnotationComputes();
void registerAlgorithmComputes();
void registerVisionComputes();

} // namespace nnir

NNIR_DECLARE_EXPLICIT_TYPE_ID(nnir::TECompute)

#endif // NNIR_OPS_COMPUTE_H
