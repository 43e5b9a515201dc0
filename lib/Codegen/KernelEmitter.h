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
  /// Number of leading axes collapsed into the outer (parallel) range.
  unsigned collapsed = 0;
  /// Scalar operations per element, and in all (an estimate).
  uint64_t cost = 1;
  uint64_t work = 0;
};

/// Whether every tensor read in \p e depends on the variable \p var only
/// through its last index, if at all: a loop over \p var then walks each
/// tensor contiguously (or by a stride, as a strided convolution) or reads
/// the same element.
bool readsAlongLastAxis(const te::Expr &e, const te::ExprNode *var);

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
  Value *emitIntrinsic(const te::CallNode *n);
  Value *emitOffset(const te::TensorNode *t, llvm::ArrayRef<te::Expr> indices);
  Value *emitShapeProduct(llvm::ArrayRef<te::Expr> shape);
  Value *bufferPtr(const te::TensorNode *t);
  Value *callMath(llvm::StringRef name, Value *x);
  Value *intrinsic(llvm::Intrinsic::ID id, llvm::ArrayRef<Value *> args);

  // Reductions (EmitReduce.cpp).
  Value *emitReduce(const te::ReduceNode *n);
  Accumulator createAccumulator(const te::ReduceNode *n);
  void emitAccumulate(const te::ReduceNode *n, const Accumulator &acc);
  void emitConditionalAccumulate(const te::ReduceNode *n,
                                 const Accumulator &acc);
  void emitSumLanes(const te::ReduceNode *n, Value *extent,
                    llvm::AllocaInst *acc);
  std::optional<HoistedSum> planHoistedSum(const Stage &stage);
  void emitHoistedSum(const HoistedSum &plan, const te::TensorNode *t,
                      llvm::ArrayRef<Value *> extents, Value *out);

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
};

} // namespace codegen
} // namespace nnir

#endif // NNIR_LIB_CODEGEN_KERNELEMITTER_H
