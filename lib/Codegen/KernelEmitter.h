//===- KernelEmitter.h - te::Tensor expressions to LLVM IR -------*- C++ -*-===//
//
/// \file
/// The emitter behind nnir::emitKernel, private to lib/Codegen. It is one
/// class written in two files: EmitLLVM.cpp schedules the stages and emits
/// expressions, statements, stage functions and the kernel; EmitReduce.cpp
/// emits reductions (accumulators, lanes, and sums hoisted out of the
/// innermost loop).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_LIB_CODEGEN_KERNELEMITTER_H
#define NNIR_LIB_CODEGEN_KERNELEMITTER_H

#include "nnir/Codegen/Codegen.h"
#include "nnir/TE/Stmt.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/IRBuilder.h"

#include <optional>
#include <vector>

namespace nnir {
namespace codegen {

/// One materialised stage.
struct Stage {
  /// The compute tensor (or the first output of an extern stage).
  te::Tensor tensor;
  /// Compute stages: the body with every inlined read substituted.
  te::Expr body;
  /// Extern stages.
  const te::ExternOpNode *externOp = nullptr;
  std::vector<te::Tensor> externOutputs;
  bool parallel = false;
  /// The axis each loop level runs over, outermost first (empty: in the
  /// tensor's order).
  llvm::SmallVector<unsigned, 4> order;
  /// Number of leading loop levels collapsed into the outer (parallel)
  /// range.
  unsigned collapsed = 0;
  /// A hoisted sum of vectors (planTiles): the number of vectors of a tile
  /// of the last axis, and the number of values of the axis at the loop
  /// level before it summed together (rows > 1: that axis is jammed).
  unsigned tileVectors = 0;
  unsigned tileRows = 1;
  /// The lanes of a tile's vectors (1 without tiles).
  unsigned lanes = 1;
  /// Column panels (planTiles): the last axis's whole tiles in panels of
  /// panelTiles, the outer range running every block of the jammed axis
  /// for one panel before the next (0: no panels).
  unsigned panelTiles = 0;
  int64_t panels = 1;
  /// Scalar operations per element, and in all (an estimate).
  uint64_t cost = 1;
  uint64_t work = 0;

  /// The axis of loop level \p level.
  unsigned axisAt(unsigned level) const {
    return order.empty() ? level : order[level];
  }
};

/// Whether every tensor read in \p e depends on the variable \p var only
/// through its last index, if at all: a loop over \p var then walks each
/// tensor contiguously (or by a stride, as a strided convolution) or reads
/// the same element.
bool readsAlongLastAxis(const te::Expr &e, const te::ExprNode *var);

/// Whether values of \p t are computed in their storage type (float32 and
/// float64: no widening on load, no rounding on store), so vector loads and
/// stores apply as they are.
inline bool isPlainFloat(DataType t) {
  return t.isFloat() && (t.getBits() == 32 || t.getBits() == 64);
}

/// Whether \p e mentions the variable \p var.
bool dependsOn(const te::Expr &e, const te::ExprNode *var);

/// How far the integer index \p e moves when \p var grows by one: 0 when
/// \p e does not use \p var; none unless \p e is affine in \p var (sums,
/// differences and products by constants) (EmitVector.cpp).
std::optional<int64_t> getLaneStride(const te::Expr &e,
                                     const te::ExprNode *var);

/// e^x of a float32 \p x or vector of float32, as arithmetic that LLVM
/// vectorises (EmitMath.cpp): within 1 ulp of the correctly rounded value.
llvm::Value *emitFastExp(llvm::IRBuilderBase &b, llvm::Value *x);
/// 1 / (1 + e^-x) with emitFastExp.
llvm::Value *emitFastSigmoid(llvm::IRBuilderBase &b, llvm::Value *x);

/// Whether the exp of a \p t value is emitFastExp's: float32 and the types
/// computed in float32 (float16, bfloat16).
inline bool hasFastExp(DataType t) {
  return t.isFloatingPoint() && t.getBits() <= 32;
}

/// An expression evaluated at \p width consecutive values of \p var from
/// \p first (EmitVector.cpp); memo holds the vectors emitted for its nodes.
/// Only the first \p active lanes are evaluated (and read); the others
/// hold zero.
struct Lanes {
  Lanes(const te::ExprNode *var, llvm::Value *first, unsigned width,
        unsigned active)
      : var(var), first(first), width(width), active(active) {}
  const te::ExprNode *var;
  llvm::Value *first;
  unsigned width;
  unsigned active;
  llvm::DenseMap<const te::ExprNode *, llvm::Value *> memo;
};

/// How a stage whose body is a sum runs its reduction loops outside its
/// last axis (EmitReduce.cpp).
struct HoistedSum {
  const te::ReduceNode *sum = nullptr;
  /// float32: the iterations of the outermost reduction axis summed in the
  /// output before it is flushed into a double row of rowExtent elements;
  /// 0 when the sum is short enough to need no row.
  uint64_t chunk = 0;
  int64_t rowExtent = 0;
};

/// The accumulator of a reduction being emitted.
struct Accumulator {
  llvm::Type *type;
  llvm::AllocaInst *value;
  /// argmax/argmin: the index of the best element and the current position.
  llvm::AllocaInst *index = nullptr;
  llvm::AllocaInst *position = nullptr;
  /// Whether a float sum accumulates in double.
  bool wide = false;
};

class KernelEmitter {
public:
  KernelEmitter(const TEFunction &fn, llvm::LLVMContext &ctx, llvm::Module &m,
                const CodegenOptions &options)
      : fn(fn), ctx(ctx), m(m), b(ctx), options(options) {}

  llvm::Error emit(llvm::StringRef name, KernelInfo &info);

private:
  using Value = llvm::Value;

  // Scheduling.
  llvm::Error schedule();
  unsigned addBuffer(const te::Tensor &t);
  void estimateStages(KernelInfo &info);

  // Types and conversions.
  llvm::Type *computeType(DataType t);
  llvm::Type *storageType(DataType t);
  Value *load(Value *ptr, DataType t);
  void store(Value *ptr, Value *v, DataType t);
  Value *convert(Value *v, DataType from, DataType to);
  Value *roundTo(Value *v, DataType t);

  // Expressions.
  Value *emitExpr(const te::Expr &e);
  Value *emitExprImpl(const te::Expr &e);
  Value *emitBinary(const te::BinaryNode *n);
  bool isOuterCondition(const te::Expr &cond);
  Value *emitBranches(Value *cond, const te::Expr &onTrue,
                      const te::Expr &onFalse);
  Value *emitIntrinsic(const te::CallNode *n);
  Value *emitOffset(const te::TensorNode *t, llvm::ArrayRef<te::Expr> indices);
  Value *emitShapeProduct(llvm::ArrayRef<te::Expr> shape);
  Value *bufferPtr(const te::TensorNode *t);
  Value *callMath(llvm::StringRef name, Value *x);
  Value *intrinsic(llvm::Intrinsic::ID id, llvm::ArrayRef<Value *> args);

  // Vectors over consecutive values of one variable (EmitVector.cpp).
  Value *emitLanes(const te::Expr &e, Lanes &lanes);
  Value *emitLanesImpl(const te::Expr &e, Lanes &lanes);
  Value *emitAtLane(const te::Expr &e, const Lanes &lanes, Value *index);
  Value *getActiveMask(const Lanes &lanes);

  // Reductions (EmitReduce.cpp).
  Value *emitReduce(const te::ReduceNode *n);
  Accumulator createAccumulator(const te::ReduceNode *n);
  void emitAccumulate(const te::ReduceNode *n, const Accumulator &acc);
  void emitConditionalAccumulate(const te::ReduceNode *n,
                                 const Accumulator &acc);
  void emitSumLanes(const te::ReduceNode *n, const te::IterVar &axis,
                    Value *extent, llvm::AllocaInst *acc);
  std::optional<HoistedSum> planHoistedSum(const Stage &stage);
  void planTiles(Stage &stage);
  void planPanels(Stage &stage, const HoistedSum &plan, int64_t extent,
                  unsigned width);
  unsigned getVectorBytes() const;
  void emitHoistedSum(const HoistedSum &plan, const Stage &stage,
                      llvm::ArrayRef<Value *> extents, Value *out,
                      llvm::ArrayRef<Value *> rows, Value *panel = nullptr);
  void emitSumLoops(const HoistedSum &plan,
                    llvm::function_ref<void()> accumulate,
                    llvm::function_ref<void()> flush);
  void emitSumTile(const HoistedSum &plan, const Stage &stage, Value *out,
                   llvm::ArrayRef<Value *> rows, Value *first,
                   unsigned vectors, unsigned lastActive);
  void emitSumRow(const HoistedSum &plan, const te::TensorNode *t,
                  Value *begin, Value *end, Value *out);

  // Control flow.
  void emitLoop(Value *begin, Value *end, llvm::StringRef name,
                llvm::function_ref<void(Value *)> body);
  void emitStmt(const te::Stmt &s);

  // Functions.
  llvm::Function *emitStageFunction(const Stage &stage, unsigned index);
  llvm::Function *emitTrampoline(llvm::Function *stageFn);
  void emitStageCall(const Stage &stage, llvm::Function *stageFn,
                     llvm::ArrayRef<Value *> args, KernelInfo &info);

  const TEFunction &fn;
  llvm::LLVMContext &ctx;
  llvm::Module &m;
  llvm::IRBuilder<> b;
  const CodegenOptions &options;

  /// Every buffer: inputs, outputs, then scratch buffers of stages.
  std::vector<te::Tensor> buffers;
  llvm::DenseMap<const te::TensorNode *, unsigned> bufferIndex;
  unsigned numIO = 0;
  std::vector<Stage> stages;
  /// The tensors the kernel writes as outputs, one per output buffer.
  std::vector<te::Tensor> outputTensors;

  // Per stage function.
  llvm::DenseMap<const te::TensorNode *, Value *> buffersInScope;
  llvm::DenseMap<const te::ExprNode *, Value *> vars;
  llvm::DenseMap<const te::ExprNode *, Value *> memo;
  /// The stage's axes but the last: a select whose condition uses only
  /// these branches (isOuterCondition).
  llvm::SmallPtrSet<const te::ExprNode *, 4> outerAxes;
};

} // namespace codegen
} // namespace nnir

#endif // NNIR_LIB_CODEGEN_KERNELEMITTER_H
