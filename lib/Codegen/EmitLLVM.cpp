//===- EmitLLVM.cpp - te::Tensor expressions to LLVM IR kernels
//---------------===//
//
/// \file
/// Scheduling (which stages are inlined, which materialised, in which
/// order), and emission with llvm::IRBuilder: one internal function per
/// stage, `stage(buffers..., dims..., begin, end)`, whose outer loop runs
/// [begin, end) of the stage's collapsed outer iteration space, and the
/// exported kernel that allocates scratch buffers and runs the stages, each
/// directly or through nnir_parallel_for.
///
/// Values are computed in "compute types": i1 for bool, iN for integers,
/// float for float16/bfloat16/float32, double for float64. Loads widen from
/// the storage type (i8 bool, half, i16 bfloat16) and stores round back to
/// nearest even. Sums of float16/bfloat16/float32 accumulate in double and
/// round once at the end (see emitReduce).
//
//===----------------------------------------------------------------------===//

#include "nnir/Codegen/Codegen.h"
#include "nnir/Runtime/KernelABI.h"
#include "nnir/Runtime/NDArray.h"
#include "nnir/TE/Inline.h"
#include "nnir/TE/Stmt.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace llvm;
namespace te = nnir::te;
using nnir::CodegenOptions;
using nnir::DataType;
using nnir::KernelInfo;
using nnir::TEFunction;

//===----------------------------------------------------------------------===//
// Scheduling
//===----------------------------------------------------------------------===//

namespace {
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

bool containsReduce(const te::Expr &e) {
  bool found = false;
  te::visit(e, [&](const te::ExprNode *n) { found |= isa<te::ReduceNode>(n); });
  return found;
}

/// The tensors read by \p e (not entering their definitions).
void collectReads(const te::Expr &e,
                  SmallVectorImpl<const te::TensorNode *> &out) {
  te::visit(e, [&](const te::ExprNode *n) {
    if (const auto *r = dyn_cast<te::TensorReadNode>(n))
      out.push_back(r->getTensor());
  });
}

/// Whether every tensor read in \p e depends on the variable \p var only
/// through its last index, if at all: a loop over \p var then walks each
/// tensor contiguously (or by a stride, as a strided convolution) or reads
/// the same element.
bool readsAlongLastAxis(const te::Expr &e, const te::ExprNode *var) {
  auto uses = [&](const te::Expr &index) {
    bool found = false;
    te::visit(index, [&](const te::ExprNode *n) { found |= n == var; });
    return found;
  };
  bool ok = true;
  te::visit(e, [&](const te::ExprNode *n) {
    // A 0-d read has no index at all.
    if (const auto *r = dyn_cast<te::TensorReadNode>(n))
      for (const te::Expr &index :
           r->getIndices().drop_back(r->getIndices().empty() ? 0 : 1))
        ok = ok && !uses(index);
  });
  return ok;
}

/// Operations in the code of \p e (a reduction's source counted once).
uint64_t countOperations(const te::Expr &e) {
  uint64_t count = 0;
  te::visit(e, [&](const te::ExprNode *) { ++count; });
  return count;
}

/// Scalar operations of one evaluation of \p e (a reduction counts its
/// source times its extent when constant).
uint64_t estimateCost(const te::Expr &e) {
  uint64_t cost = 0;
  te::visit(e, [&](const te::ExprNode *n) {
    ++cost;
    if (const auto *r = dyn_cast<te::ReduceNode>(n)) {
      uint64_t extent = 1;
      for (const te::IterVar &axis : r->getAxes())
        extent = SaturatingMultiply<uint64_t>(
            extent,
            std::max<int64_t>(axis.extent.getConstInt().value_or(64), 1));
      cost = SaturatingAdd<uint64_t>(
          cost,
          SaturatingMultiply<uint64_t>(extent, estimateCost(r->getSource())));
    }
  });
  return cost;
}
} // namespace

//===----------------------------------------------------------------------===//
// The emitter
//===----------------------------------------------------------------------===//

namespace {
class KernelEmitter {
public:
  KernelEmitter(const TEFunction &fn, LLVMContext &ctx, Module &m,
                const CodegenOptions &options)
      : fn(fn), ctx(ctx), m(m), b(ctx), options(options) {}

  Error emit(StringRef name, KernelInfo &info);

private:
  // Scheduling.
  Error schedule();
  unsigned addBuffer(const te::Tensor &t);

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
  Value *emitReduce(const te::ReduceNode *n);
  void emitSumLanes(const te::ReduceNode *n, Value *extent, AllocaInst *acc);
  Value *emitOffset(const te::TensorNode *t, ArrayRef<te::Expr> indices);
  Value *emitShapeProduct(ArrayRef<te::Expr> shape);
  Value *bufferPtr(const te::TensorNode *t);
  Value *callMath(StringRef name, Value *x);
  Value *intrinsic(llvm::Intrinsic::ID id, ArrayRef<Value *> args);

  // Control flow.
  void emitLoop(Value *begin, Value *end, StringRef name,
                function_ref<void(Value *)> body);
  void emitStmt(const te::Stmt &s);

  // Functions.
  llvm::Function *emitStageFunction(const Stage &stage, unsigned index);
  llvm::Function *emitTrampoline(llvm::Function *stageFn);

  const TEFunction &fn;
  LLVMContext &ctx;
  Module &m;
  IRBuilder<> b;
  const CodegenOptions &options;

  /// Every buffer: inputs, outputs, then scratch buffers of stages.
  std::vector<te::Tensor> buffers;
  DenseMap<const te::TensorNode *, unsigned> bufferIndex;
  unsigned numIO = 0;
  std::vector<Stage> stages;
  /// The tensors the kernel writes as outputs, one per output buffer.
  std::vector<te::Tensor> outputTensors;

  // Per stage function.
  DenseMap<const te::TensorNode *, Value *> buffersInScope;
  DenseMap<const te::ExprNode *, Value *> vars;
  DenseMap<const te::ExprNode *, Value *> memo;
};
} // namespace

unsigned KernelEmitter::addBuffer(const te::Tensor &t) {
  auto [it, inserted] = bufferIndex.try_emplace(t.get(), buffers.size());
  if (inserted)
    buffers.push_back(t);
  return it->second;
}

Error KernelEmitter::schedule() {
  for (const te::Tensor &t : fn.inputs)
    addBuffer(t);
  // Outputs: a placeholder or a tensor already written by an earlier output
  // is copied by a stage of its own.
  DenseSet<const te::TensorNode *> seen;
  for (const te::Tensor &out : fn.outputs) {
    te::Tensor t = out;
    if (t->getKind() == te::TensorNode::Kind::Placeholder ||
        !seen.insert(t.get()).second ||
        (t->getKind() == te::TensorNode::Kind::Extern &&
         t->getExternOp()->getOutputBuffers().size() > 1)) {
      te::Tensor source = out;
      t = te::compute(
          source.getShape(), [&](ArrayRef<te::Expr> i) { return source(i); },
          "copy");
    }
    outputTensors.push_back(t);
  }
  for (const te::Tensor &t : outputTensors)
    buffers.push_back(t), bufferIndex[t.get()] = buffers.size() - 1;
  numIO = buffers.size();

  // Which tensors are materialised: outputs, reductions, extern stages and
  // their inputs. Found by a walk over everything the outputs depend on.
  DenseSet<const te::TensorNode *> materialised, visited;
  for (const te::Tensor &t : outputTensors)
    materialised.insert(t.get());
  SmallVector<const te::TensorNode *, 16> work;
  for (const te::Tensor &t : outputTensors)
    work.push_back(t.get());
  while (!work.empty()) {
    const te::TensorNode *t = work.pop_back_val();
    if (!visited.insert(t).second)
      continue;
    SmallVector<const te::TensorNode *, 8> reads;
    if (t->getKind() == te::TensorNode::Kind::Compute) {
      if (t->isMaterialized() || containsReduce(t->getBody()))
        materialised.insert(t);
      collectReads(t->getBody(), reads);
    } else if (t->getKind() == te::TensorNode::Kind::Extern) {
      materialised.insert(t);
      for (const te::Tensor &in : t->getExternOp()->getInputs()) {
        materialised.insert(in.get());
        reads.push_back(in.get());
      }
    }
    for (const te::TensorNode *r : reads)
      work.push_back(r);
  }

  te::Inliner inliner(
      [&](const te::TensorNode *t) { return !materialised.count(t); });
  // Order the materialised stages by dependencies (iterative post-order).
  DenseSet<const te::TensorNode *> scheduled;
  DenseMap<const te::TensorNode *, te::Expr> bodies;
  DenseSet<const te::ExternOpNode *> externDone;
  SmallVector<std::pair<const te::TensorNode *, bool>, 16> stack;
  for (const te::Tensor &t : llvm::reverse(outputTensors))
    stack.push_back({t.get(), false});
  while (!stack.empty()) {
    auto [t, expanded] = stack.pop_back_val();
    if (t->getKind() == te::TensorNode::Kind::Placeholder || scheduled.count(t))
      continue;
    SmallVector<const te::TensorNode *, 8> deps;
    if (t->getKind() == te::TensorNode::Kind::Compute) {
      auto it = bodies.find(t);
      if (it == bodies.end())
        it = bodies.try_emplace(t, inliner.rewrite(t->getBody())).first;
      collectReads(it->second, deps);
    } else {
      for (const te::Tensor &in : t->getExternOp()->getInputs())
        deps.push_back(in.get());
    }
    if (!expanded) {
      stack.push_back({t, true});
      for (const te::TensorNode *d : deps)
        if (!scheduled.count(d))
          stack.push_back({d, false});
      continue;
    }
    scheduled.insert(t);
    Stage stage;
    stage.tensor = te::Tensor(t);
    if (t->getKind() == te::TensorNode::Kind::Compute) {
      stage.body = bodies[t];
      if (!bufferIndex.count(t))
        addBuffer(stage.tensor);
    } else {
      const te::ExternOpNode *op = t->getExternOp();
      if (!externDone.insert(op).second)
        continue;
      stage.externOp = op;
      // Each output placeholder the body writes gets a buffer: the kernel
      // output it is, or a scratch buffer.
      for (unsigned i = 0; i < op->getOutputBuffers().size(); ++i) {
        const te::Tensor &ph = op->getOutputBuffers()[i];
        stage.externOutputs.push_back(ph);
        for (unsigned j = 0; j < outputTensors.size(); ++j) {
          const te::TensorNode *o = outputTensors[j].get();
          if (o->getKind() == te::TensorNode::Kind::Extern &&
              o->getExternOp() == op && o->getOutputIndex() == i)
            bufferIndex[ph.get()] = fn.inputs.size() + j;
        }
        if (!bufferIndex.count(ph.get()))
          addBuffer(ph);
      }
      // Reads of an extern output tensor read that buffer.
      for (const te::TensorNode *v : visited)
        if (v->getKind() == te::TensorNode::Kind::Extern &&
            v->getExternOp() == op)
          bufferIndex[v] =
              bufferIndex[op->getOutputBuffers()[v->getOutputIndex()].get()];
    }
    stages.push_back(std::move(stage));
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Types and conversions
//===----------------------------------------------------------------------===//

llvm::Type *KernelEmitter::computeType(DataType t) {
#define NNIR_DTYPE(Factory, Name, Code, Bits, NpyDescr, Suffix, PrintedSuffix,  \
                   ONNX, LLVMStorage, LLVMCompute)                             \
  if (t == DataType::Factory())                                                \
    return b.get##LLVMCompute##Ty();
#include "nnir/Runtime/DataTypes.def"
  llvm_unreachable("a dtype outside DataTypes.def");
}

llvm::Type *KernelEmitter::storageType(DataType t) {
#define NNIR_DTYPE(Factory, Name, Code, Bits, NpyDescr, Suffix, PrintedSuffix,  \
                   ONNX, LLVMStorage, LLVMCompute)                             \
  if (t == DataType::Factory())                                                \
    return b.get##LLVMStorage##Ty();
#include "nnir/Runtime/DataTypes.def"
  llvm_unreachable("a dtype outside DataTypes.def");
}

Value *KernelEmitter::load(Value *ptr, DataType t) {
  Value *v = b.CreateLoad(storageType(t), ptr);
  if (t.isBool())
    return b.CreateICmpNE(v, b.getInt8(0));
  if (t.isFloat() && t.getBits() == 16)
    return b.CreateFPExt(v, b.getFloatTy());
  if (t.isBFloat())
    return b.CreateBitCast(b.CreateShl(b.CreateZExt(v, b.getInt32Ty()), 16),
                           b.getFloatTy());
  return v;
}

/// float -> bfloat16 bits, rounding to nearest even; NaN stays a quiet NaN.
static Value *floatToBF16Bits(IRBuilder<> &b, Value *v) {
  Value *bits = b.CreateBitCast(v, b.getInt32Ty());
  Value *lsb = b.CreateAnd(b.CreateLShr(bits, 16), 1);
  Value *rounded = b.CreateAdd(bits, b.CreateAdd(lsb, b.getInt32(0x7fff)));
  Value *nan = b.CreateOr(b.CreateLShr(bits, 16), 0x40);
  Value *isNan = b.CreateFCmpUNO(v, v);
  return b.CreateTrunc(b.CreateSelect(isNan, nan, b.CreateLShr(rounded, 16)),
                       b.getInt16Ty());
}

void KernelEmitter::store(Value *ptr, Value *v, DataType t) {
  if (t.isBool())
    v = b.CreateZExt(v, b.getInt8Ty());
  else if (t.isFloat() && t.getBits() == 16)
    v = b.CreateFPTrunc(v, b.getHalfTy());
  else if (t.isBFloat())
    v = floatToBF16Bits(b, v);
  b.CreateStore(v, ptr);
}

/// Rounds a float compute value to the precision of float16/bfloat16 (an
/// explicit cast to those types rounds at once, not only on store).
Value *KernelEmitter::roundTo(Value *v, DataType t) {
  if (t.isFloat() && t.getBits() == 16)
    return b.CreateFPExt(b.CreateFPTrunc(v, b.getHalfTy()), b.getFloatTy());
  if (t.isBFloat())
    return b.CreateBitCast(
        b.CreateShl(b.CreateZExt(floatToBF16Bits(b, v), b.getInt32Ty()), 16),
        b.getFloatTy());
  return v;
}

Value *KernelEmitter::intrinsic(llvm::Intrinsic::ID id,
                                ArrayRef<Value *> args) {
  return b.CreateIntrinsic(id, {args[0]->getType()}, args);
}

Value *KernelEmitter::convert(Value *v, DataType from, DataType to) {
  if (from == to)
    return v;
  llvm::Type *target = computeType(to);
  if (to.isBool()) {
    if (from.isFloatingPoint())
      return b.CreateFCmpUNE(v, ConstantFP::get(v->getType(), 0.0));
    return b.CreateICmpNE(v, ConstantInt::get(v->getType(), 0));
  }
  if (from.isBool())
    return to.isFloatingPoint() ? b.CreateUIToFP(v, target)
                                : b.CreateZExt(v, target);
  if (from.isFloatingPoint() && to.isFloatingPoint()) {
    Value *r = v->getType() == target ? v : b.CreateFPCast(v, target);
    return roundTo(r, to);
  }
  if (from.isFloatingPoint()) {
    // Saturating: NaN gives 0, out-of-range values clamp; no poison.
    return b.CreateIntrinsic(to.isInt() ? llvm::Intrinsic::fptosi_sat
                                        : llvm::Intrinsic::fptoui_sat,
                             {target, v->getType()}, {v});
  }
  if (to.isFloatingPoint())
    return roundTo(from.isInt() ? b.CreateSIToFP(v, target)
                                : b.CreateUIToFP(v, target),
                   to);
  return b.CreateIntCast(v, target, from.isInt());
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

Value *KernelEmitter::bufferPtr(const te::TensorNode *t) {
  auto it = buffersInScope.find(t);
  if (it != buffersInScope.end())
    return it->second;
  auto idx = bufferIndex.find(t);
  assert(idx != bufferIndex.end() && "reading a tensor that has no buffer");
  return buffersInScope.lookup(buffers[idx->second].get());
}

Value *KernelEmitter::emitShapeProduct(ArrayRef<te::Expr> shape) {
  Value *n = b.getInt64(1);
  for (const te::Expr &e : shape)
    n = b.CreateMul(n, emitExpr(e));
  return n;
}

Value *KernelEmitter::emitOffset(const te::TensorNode *t,
                                 ArrayRef<te::Expr> indices) {
  // Horner's rule over the row-major strides.
  Value *offset = b.getInt64(0);
  for (unsigned i = 0; i < indices.size(); ++i) {
    if (i)
      offset = b.CreateMul(offset, emitExpr(t->getShape()[i]));
    offset = b.CreateAdd(offset, emitExpr(indices[i]));
  }
  return offset;
}

Value *KernelEmitter::emitExpr(const te::Expr &e) {
  auto it = memo.find(e.get());
  if (it != memo.end())
    return it->second;
  Value *v = emitExprImpl(e);
  memo[e.get()] = v;
  return v;
}

Value *KernelEmitter::callMath(StringRef name, Value *x) {
  bool isFloat = x->getType()->isFloatTy();
  std::string symbol = (name + (isFloat ? "f" : "")).str();
  FunctionCallee f = m.getOrInsertFunction(
      symbol, FunctionType::get(x->getType(), {x->getType()}, false));
  if (auto *fnDecl = dyn_cast<llvm::Function>(f.getCallee())) {
    fnDecl->setDoesNotThrow();
    fnDecl->setOnlyAccessesInaccessibleMemory();
  }
  return b.CreateCall(f, {x});
}

Value *KernelEmitter::emitIntrinsic(const te::CallNode *n) {
  DataType t = n->getArgs()[0].getDType();
  Value *x = emitExpr(n->getArgs()[0]);
  te::Intrinsic fn = n->getIntrinsic();
  if (!t.isFloatingPoint()) {
    // Integer and bool operands.
    switch (fn) {
    case te::Intrinsic::Abs:
      return t.isInt() ? intrinsic(llvm::Intrinsic::abs, {x, b.getFalse()}) : x;
    case te::Intrinsic::Sign: {
      if (!t.isInt())
        return b.CreateZExt(
            b.CreateICmpNE(x, ConstantInt::get(x->getType(), 0)), x->getType());
      Value *one = ConstantInt::get(x->getType(), 1);
      Value *minusOne = ConstantInt::getSigned(x->getType(), -1);
      return intrinsic(llvm::Intrinsic::smax,
                       {intrinsic(llvm::Intrinsic::smin, {x, one}), minusOne});
    }
    case te::Intrinsic::IsNan:
    case te::Intrinsic::IsInf:
      return b.getFalse();
    case te::Intrinsic::IsFinite:
      return b.getTrue();
    case te::Intrinsic::Floor:
    case te::Intrinsic::Ceil:
    case te::Intrinsic::Round:
    case te::Intrinsic::Trunc:
      return x;
    default: {
      // Math on integers: in double, converted back (saturating).
      Value *d = convert(x, t, DataType::float64());
      Value *r = nullptr;
      switch (fn) {
      case te::Intrinsic::Exp:
        r = intrinsic(llvm::Intrinsic::exp, {d});
        break;
      case te::Intrinsic::Log:
        r = intrinsic(llvm::Intrinsic::log, {d});
        break;
      case te::Intrinsic::Sqrt:
        r = intrinsic(llvm::Intrinsic::sqrt, {d});
        break;
      default:
        r = callMath(te::getIntrinsicName(fn), d);
        break;
      }
      return convert(r, DataType::float64(), t);
    }
    }
  }
  llvm::Type *ty = x->getType();
  auto fconst = [&](double v) { return ConstantFP::get(ty, v); };
  Value *r = nullptr;
  switch (fn) {
  case te::Intrinsic::Abs:
    r = intrinsic(llvm::Intrinsic::fabs, {x});
    break;
  case te::Intrinsic::Sign:
    r = b.CreateSelect(
        b.CreateFCmpOGT(x, fconst(0)), fconst(1),
        b.CreateSelect(b.CreateFCmpOLT(x, fconst(0)), fconst(-1), x));
    break;
  case te::Intrinsic::Exp:
    r = intrinsic(llvm::Intrinsic::exp, {x});
    break;
  case te::Intrinsic::Log:
    r = intrinsic(llvm::Intrinsic::log, {x});
    break;
  case te::Intrinsic::Log2:
    r = intrinsic(llvm::Intrinsic::log2, {x});
    break;
  case te::Intrinsic::Log10:
    r = intrinsic(llvm::Intrinsic::log10, {x});
    break;
  case te::Intrinsic::Sqrt:
    r = intrinsic(llvm::Intrinsic::sqrt, {x});
    break;
  case te::Intrinsic::Rsqrt:
    r = b.CreateFDiv(fconst(1), intrinsic(llvm::Intrinsic::sqrt, {x}));
    break;
  case te::Intrinsic::Erf:
    r = callMath("erf", x);
    break;
  case te::Intrinsic::Sigmoid:
    r = b.CreateFDiv(fconst(1),
                     b.CreateFAdd(fconst(1), intrinsic(llvm::Intrinsic::exp,
                                                       {b.CreateFNeg(x)})));
    break;
  case te::Intrinsic::Tanh:
    r = callMath("tanh", x);
    break;
  case te::Intrinsic::Sin:
    r = intrinsic(llvm::Intrinsic::sin, {x});
    break;
  case te::Intrinsic::Cos:
    r = intrinsic(llvm::Intrinsic::cos, {x});
    break;
  case te::Intrinsic::Tan:
  case te::Intrinsic::Asin:
  case te::Intrinsic::Acos:
  case te::Intrinsic::Atan:
    r = callMath(te::getIntrinsicName(fn), x);
    break;
  case te::Intrinsic::Floor:
    r = intrinsic(llvm::Intrinsic::floor, {x});
    break;
  case te::Intrinsic::Ceil:
    r = intrinsic(llvm::Intrinsic::ceil, {x});
    break;
  case te::Intrinsic::Round:
    r = intrinsic(llvm::Intrinsic::roundeven, {x});
    break;
  case te::Intrinsic::Trunc:
    r = intrinsic(llvm::Intrinsic::trunc, {x});
    break;
  case te::Intrinsic::IsNan:
    return b.CreateFCmpUNO(x, x);
  case te::Intrinsic::IsInf:
    return b.CreateFCmpOEQ(intrinsic(llvm::Intrinsic::fabs, {x}),
                           fconst(INFINITY));
  case te::Intrinsic::IsFinite:
    return b.CreateFCmpOLT(intrinsic(llvm::Intrinsic::fabs, {x}),
                           fconst(INFINITY));
  }
  return roundTo(r, n->getDType());
}

Value *KernelEmitter::emitBinary(const te::BinaryNode *n) {
  DataType t = n->getLHS().getDType();
  Value *x = emitExpr(n->getLHS());
  Value *y = emitExpr(n->getRHS());
  llvm::Type *ty = x->getType();
  bool isFloat = t.isFloatingPoint();
  bool isSigned = t.isInt();
  auto finish = [&](Value *v) { return isFloat ? roundTo(v, t) : v; };
  auto zero = [&] { return llvm::Constant::getNullValue(ty); };

  // Integer division and remainder without UB: a zero divisor gives
  // quotient 0 and remainder x; INT_MIN / -1 gives INT_MIN, remainder 0.
  auto safeDivRem = [&](bool wantRem) -> std::pair<Value *, Value *> {
    Value *isZero = b.CreateICmpEQ(y, zero());
    Value *bad = isZero;
    if (isSigned) {
      Value *overflow = b.CreateAnd(
          b.CreateICmpEQ(
              x, ConstantInt::get(
                     ty, APInt::getSignedMinValue(ty->getIntegerBitWidth()))),
          b.CreateICmpEQ(y, ConstantInt::getSigned(ty, -1)));
      bad = b.CreateOr(isZero, overflow);
    }
    Value *safeY = b.CreateSelect(bad, ConstantInt::get(ty, 1), y);
    Value *q = isSigned ? b.CreateSDiv(x, safeY) : b.CreateUDiv(x, safeY);
    Value *r = isSigned ? b.CreateSRem(x, safeY) : b.CreateURem(x, safeY);
    // x / 1 == x and x % 1 == 0 already give the INT_MIN / -1 answers.
    q = b.CreateSelect(isZero, zero(), q);
    r = b.CreateSelect(isZero, x, r);
    (void)wantRem;
    return {q, r};
  };

  switch (n->getOp()) {
  case te::BinaryOp::Add:
    return finish(isFloat ? b.CreateFAdd(x, y) : b.CreateAdd(x, y));
  case te::BinaryOp::Sub:
    return finish(isFloat ? b.CreateFSub(x, y) : b.CreateSub(x, y));
  case te::BinaryOp::Mul:
    if (t.isBool())
      return b.CreateAnd(x, y);
    return finish(isFloat ? b.CreateFMul(x, y) : b.CreateMul(x, y));
  case te::BinaryOp::Div:
    if (isFloat)
      return finish(b.CreateFDiv(x, y));
    if (t.isBool())
      return b.CreateAnd(x, y);
    return safeDivRem(false).first;
  case te::BinaryOp::FloorDiv: {
    if (isFloat)
      return finish(intrinsic(llvm::Intrinsic::floor, {b.CreateFDiv(x, y)}));
    if (t.isBool())
      return b.CreateAnd(x, y);
    auto [q, r] = safeDivRem(false);
    if (!isSigned)
      return q;
    // Round towards -inf: subtract one when the remainder is non-zero and
    // its sign differs from the divisor's.
    Value *adjust = b.CreateAnd(b.CreateICmpNE(r, zero()),
                                b.CreateICmpSLT(b.CreateXor(r, y), zero()));
    adjust = b.CreateAnd(adjust, b.CreateICmpNE(y, zero()));
    return b.CreateSub(q, b.CreateZExt(adjust, ty));
  }
  case te::BinaryOp::TruncMod:
    if (isFloat)
      return finish(b.CreateFRem(x, y));
    if (t.isBool())
      return b.CreateAnd(x, b.CreateNot(y));
    return safeDivRem(true).second;
  case te::BinaryOp::FloorMod: {
    if (isFloat)
      return finish(b.CreateFSub(
          x, b.CreateFMul(
                 intrinsic(llvm::Intrinsic::floor, {b.CreateFDiv(x, y)}), y)));
    if (t.isBool())
      return b.CreateAnd(x, b.CreateNot(y));
    auto [q, r] = safeDivRem(true);
    (void)q;
    if (!isSigned)
      return r;
    Value *adjust = b.CreateAnd(b.CreateICmpNE(r, zero()),
                                b.CreateICmpSLT(b.CreateXor(r, y), zero()));
    adjust = b.CreateAnd(adjust, b.CreateICmpNE(y, zero()));
    return b.CreateSelect(adjust, b.CreateAdd(r, y), r);
  }
  case te::BinaryOp::Min:
    if (isFloat)
      return intrinsic(llvm::Intrinsic::minimum, {x, y});
    return intrinsic(isSigned ? llvm::Intrinsic::smin : llvm::Intrinsic::umin,
                     {x, y});
  case te::BinaryOp::Max:
    if (isFloat)
      return intrinsic(llvm::Intrinsic::maximum, {x, y});
    return intrinsic(isSigned ? llvm::Intrinsic::smax : llvm::Intrinsic::umax,
                     {x, y});
  case te::BinaryOp::Pow: {
    if (isFloat)
      return finish(intrinsic(llvm::Intrinsic::pow, {x, y}));
    if (t.isBool())
      return b.CreateOr(x, b.CreateNot(y));
    llvm::Type *i64 = b.getInt64Ty();
    FunctionCallee f =
        m.getOrInsertFunction(isSigned ? "nnir_ipow_i64" : "nnir_ipow_u64",
                              FunctionType::get(i64, {i64, i64}, false));
    Value *r = b.CreateCall(f, {b.CreateIntCast(x, i64, isSigned),
                                b.CreateIntCast(y, i64, isSigned)});
    return b.CreateTrunc(r, ty);
  }
  case te::BinaryOp::And:
    return b.CreateAnd(x, y);
  case te::BinaryOp::Or:
    return b.CreateOr(x, y);
  case te::BinaryOp::Xor:
    return b.CreateXor(x, y);
  case te::BinaryOp::Shl:
  case te::BinaryOp::Shr: {
    unsigned bits = ty->getIntegerBitWidth();
    Value *inRange = b.CreateICmpULT(y, ConstantInt::get(ty, bits));
    Value *amount = b.CreateSelect(inRange, y, zero());
    if (n->getOp() == te::BinaryOp::Shl)
      return b.CreateSelect(inRange, b.CreateShl(x, amount), zero());
    if (!isSigned)
      return b.CreateSelect(inRange, b.CreateLShr(x, amount), zero());
    Value *fill = b.CreateAShr(x, ConstantInt::get(ty, bits - 1));
    return b.CreateSelect(inRange, b.CreateAShr(x, amount), fill);
  }
  case te::BinaryOp::EQ:
    return isFloat ? b.CreateFCmpOEQ(x, y) : b.CreateICmpEQ(x, y);
  case te::BinaryOp::NE:
    return isFloat ? b.CreateFCmpUNE(x, y) : b.CreateICmpNE(x, y);
  case te::BinaryOp::LT:
    return isFloat    ? b.CreateFCmpOLT(x, y)
           : isSigned ? b.CreateICmpSLT(x, y)
                      : b.CreateICmpULT(x, y);
  case te::BinaryOp::LE:
    return isFloat    ? b.CreateFCmpOLE(x, y)
           : isSigned ? b.CreateICmpSLE(x, y)
                      : b.CreateICmpULE(x, y);
  case te::BinaryOp::GT:
    return isFloat    ? b.CreateFCmpOGT(x, y)
           : isSigned ? b.CreateICmpSGT(x, y)
                      : b.CreateICmpUGT(x, y);
  case te::BinaryOp::GE:
    return isFloat    ? b.CreateFCmpOGE(x, y)
           : isSigned ? b.CreateICmpSGE(x, y)
                      : b.CreateICmpUGE(x, y);
  }
  llvm_unreachable("unknown binary op");
}

void KernelEmitter::emitLoop(Value *begin, Value *end, StringRef name,
                             function_ref<void(Value *)> body) {
  llvm::Function *f = b.GetInsertBlock()->getParent();
  BasicBlock *pre = b.GetInsertBlock();
  BasicBlock *header = BasicBlock::Create(ctx, name + ".header", f);
  BasicBlock *bodyBB = BasicBlock::Create(ctx, name + ".body", f);
  BasicBlock *exit = BasicBlock::Create(ctx, name + ".exit", f);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  PHINode *iv = b.CreatePHI(b.getInt64Ty(), 2, name);
  iv->addIncoming(begin, pre);
  b.CreateCondBr(b.CreateICmpSLT(iv, end), bodyBB, exit);
  b.SetInsertPoint(bodyBB);
  body(iv);
  Value *next = b.CreateAdd(iv, b.getInt64(1), name + ".next", true, true);
  iv->addIncoming(next, b.GetInsertBlock());
  b.CreateBr(header);
  b.SetInsertPoint(exit);
}

/// Whether a reduction of \p kind over \p t accumulates in double: sums of
/// float16, bfloat16 and float32. A float32 accumulator loses the low bits
/// of each addend once the sum is large (2^25 ones sum to 2^24): its error
/// grows with the length, NumPy's pairwise sum's with its logarithm. A
/// double accumulator's error bound (n * 2^-53 of the sum of magnitudes)
/// stays below one float32 rounding (2^-24) up to 2^29 terms, so the one
/// rounding at the end dominates.
static bool accumulatesInDouble(te::ReduceKind kind, DataType t) {
  return kind == te::ReduceKind::Sum && t.isFloatingPoint() &&
         t.getBits() <= 32;
}

/// A hoisted float32 sum (emitStageFunction) adds at most this many terms
/// into its float32 output row before flushing the row into a double row,
/// and keeps that row on the stack up to kMaxDoubleRow elements. A run of
/// 1024 float32 additions is bounded by 1024 * 2^-24 (6e-5) of its terms'
/// magnitudes; in practice its error is a random walk (1024 values in
/// [0, 1): median 2.9e-7, 99th percentile 1.1e-6 over 20,000 sums), the
/// range of NumPy's float32 sum over 2^20 to 2^26 values (3e-7 to 1.2e-6).
/// Shorter runs cost: with 64, a 512-channel 3x3 convolution on 14x14 took
/// 33-52% longer (flushing every 7 channels); with 1024, 3.5% (every 113).
static constexpr int64_t kFloatRun = 1024;
static constexpr int64_t kMaxDoubleRow = 4096;

/// Double sums run the innermost reduction axis in this many independent
/// lanes (element k goes to lane k mod kSumLanes, the lanes are added
/// pairwise at the end, the remainder after them): a fixed order, so
/// results do not depend on the target's vector width, and one LLVM can
/// vectorise without reassociating (a single accumulator is a chain of
/// dependent additions, one per 4 cycles).
static constexpr unsigned kSumLanes = 16;

/// Whether \p e calls the math library (exp, log, erf, tanh, trigonometry,
/// pow, fmod): there lanes gain nothing (the calls bound the loop, not the
/// additions) and cost spills (every vector register is caller-saved).
static bool callsLibm(const te::Expr &e) {
  bool found = false;
  te::visit(e, [&](const te::ExprNode *n) {
    if (const auto *c = dyn_cast<te::CallNode>(n)) {
      switch (c->getIntrinsic()) {
      case te::Intrinsic::Abs:
      case te::Intrinsic::Sign:
      case te::Intrinsic::Sqrt:
      case te::Intrinsic::Rsqrt:
      case te::Intrinsic::Floor:
      case te::Intrinsic::Ceil:
      case te::Intrinsic::Round:
      case te::Intrinsic::Trunc:
      case te::Intrinsic::IsNan:
      case te::Intrinsic::IsInf:
      case te::Intrinsic::IsFinite:
        break;
      default:
        found = true;
      }
    } else if (const auto *bin = dyn_cast<te::BinaryNode>(n)) {
      te::BinaryOp op = bin->getOp();
      found |= bin->getLHS().getDType().isFloatingPoint() &&
               (op == te::BinaryOp::Pow || op == te::BinaryOp::TruncMod);
    }
  });
  return found;
}

void KernelEmitter::emitSumLanes(const te::ReduceNode *n, Value *extent,
                                 AllocaInst *acc) {
  const te::IterVar &axis = n->getAxes().back();
  llvm::Type *ty = computeType(n->getSource().getDType());
  llvm::Type *dty = b.getDoubleTy();
  auto *lanesTy = FixedVectorType::get(dty, kSumLanes);
  llvm::Function *f = b.GetInsertBlock()->getParent();
  IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
  AllocaInst *lanes = entry.CreateAlloca(lanesTy, nullptr, "acc.lanes");
  AllocaInst *rest = entry.CreateAlloca(dty, nullptr, "acc.rest");
  b.CreateStore(llvm::Constant::getNullValue(lanesTy), lanes);
  b.CreateStore(ConstantFP::get(dty, 0.0), rest);
  Value *blocks = b.CreateUDiv(extent, b.getInt64(kSumLanes));
  emitLoop(b.getInt64(0), blocks, "lanes", [&](Value *q) {
    Value *base = b.CreateMul(q, b.getInt64(kSumLanes));
    Value *values = PoisonValue::get(FixedVectorType::get(ty, kSumLanes));
    for (unsigned l = 0; l < kSumLanes; ++l) {
      vars[axis.var.get()] = b.CreateAdd(base, b.getInt64(l));
      DenseMap<const te::ExprNode *, Value *> outer = memo;
      values = b.CreateInsertElement(values, emitExpr(n->getSource()), l);
      memo = std::move(outer);
    }
    Value *wide = b.CreateFPExt(values, lanesTy);
    b.CreateStore(b.CreateFAdd(b.CreateLoad(lanesTy, lanes), wide), lanes);
  });
  emitLoop(b.CreateMul(blocks, b.getInt64(kSumLanes)), extent, "rest",
           [&](Value *k) {
             vars[axis.var.get()] = k;
             DenseMap<const te::ExprNode *, Value *> outer = memo;
             Value *v = b.CreateFPExt(emitExpr(n->getSource()), dty);
             b.CreateStore(b.CreateFAdd(b.CreateLoad(dty, rest), v), rest);
             memo = std::move(outer);
           });
  // Lanes i and i + w/2 while w > 1: the halving a vector reduction does.
  Value *sum = b.CreateLoad(lanesTy, lanes);
  for (unsigned w = kSumLanes; w > 1; w /= 2) {
    SmallVector<int, kSumLanes> low, high;
    for (unsigned i = 0; i < w / 2; ++i) {
      low.push_back(i);
      high.push_back(i + w / 2);
    }
    sum = b.CreateFAdd(b.CreateShuffleVector(sum, low),
                       b.CreateShuffleVector(sum, high));
  }
  sum = b.CreateExtractElement(sum, uint64_t(0));
  sum = b.CreateFAdd(sum, b.CreateLoad(dty, rest));
  b.CreateStore(b.CreateFAdd(b.CreateLoad(dty, acc), sum), acc);
}

Value *KernelEmitter::emitReduce(const te::ReduceNode *n) {
  DataType t = n->getSource().getDType();
  te::ReduceKind kind = n->getReduceKind();
  bool isArg = kind == te::ReduceKind::ArgMax || kind == te::ReduceKind::ArgMin;
  llvm::Type *ty = computeType(t);
  bool wide = accumulatesInDouble(kind, t);
  llvm::Type *accTy = wide ? b.getDoubleTy() : ty;
  // Accumulators live in allocas in the entry block (SROA promotes them).
  llvm::Function *f = b.GetInsertBlock()->getParent();
  IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
  AllocaInst *acc = entry.CreateAlloca(accTy, nullptr, "acc");
  AllocaInst *accIndex =
      isArg ? entry.CreateAlloca(b.getInt64Ty(), nullptr, "acc.index")
            : nullptr;
  AllocaInst *position =
      isArg ? entry.CreateAlloca(b.getInt64Ty(), nullptr, "acc.pos") : nullptr;

  auto emitConst = [&](const te::Expr &e) { return emitExpr(e); };
  Value *init = nullptr;
  switch (kind) {
  case te::ReduceKind::Sum:
  case te::ReduceKind::Any:
    init = llvm::Constant::getNullValue(accTy);
    break;
  case te::ReduceKind::Prod:
  case te::ReduceKind::All:
    init = t.isFloatingPoint() ? ConstantFP::get(ty, 1.0)
                               : ConstantInt::get(ty, 1);
    break;
  case te::ReduceKind::Min:
  case te::ReduceKind::ArgMin:
    init = emitConst(te::highestValue(t));
    break;
  case te::ReduceKind::Max:
  case te::ReduceKind::ArgMax:
    init = emitConst(te::lowestValue(t));
    break;
  }
  b.CreateStore(init, acc);
  if (isArg) {
    b.CreateStore(b.getInt64(0), accIndex);
    b.CreateStore(b.getInt64(0), position);
  }

  // Values emitted inside the loops do not dominate the code after them.
  DenseMap<const te::ExprNode *, Value *> savedMemo = memo;
  std::function<void(unsigned)> loops = [&](unsigned level) {
    if (level == n->getAxes().size()) {
      auto update = [&]() {
        Value *v = emitExpr(n->getSource());
        Value *cur = b.CreateLoad(accTy, acc);
        bool isFloat = t.isFloatingPoint();
        bool isSigned = t.isInt();
        Value *next = nullptr;
        switch (kind) {
        case te::ReduceKind::Sum:
          if (wide)
            v = b.CreateFPExt(v, accTy);
          next = isFloat      ? b.CreateFAdd(cur, v)
                 : t.isBool() ? b.CreateOr(cur, v)
                              : b.CreateAdd(cur, v);
          break;
        case te::ReduceKind::Prod:
          next = isFloat      ? b.CreateFMul(cur, v)
                 : t.isBool() ? b.CreateAnd(cur, v)
                              : b.CreateMul(cur, v);
          break;
        case te::ReduceKind::Any:
          next = b.CreateOr(cur, v);
          break;
        case te::ReduceKind::All:
          next = b.CreateAnd(cur, v);
          break;
        case te::ReduceKind::Min:
          next = isFloat ? intrinsic(llvm::Intrinsic::minimum, {cur, v})
                         : intrinsic(isSigned ? llvm::Intrinsic::smin
                                              : llvm::Intrinsic::umin,
                                     {cur, v});
          break;
        case te::ReduceKind::Max:
          next = isFloat ? intrinsic(llvm::Intrinsic::maximum, {cur, v})
                         : intrinsic(isSigned ? llvm::Intrinsic::smax
                                              : llvm::Intrinsic::umax,
                                     {cur, v});
          break;
        case te::ReduceKind::ArgMax:
        case te::ReduceKind::ArgMin: {
          bool isMax = kind == te::ReduceKind::ArgMax;
          Value *better, *equal;
          if (isFloat) {
            better = isMax ? b.CreateFCmpOGT(v, cur) : b.CreateFCmpOLT(v, cur);
            equal = b.CreateFCmpOEQ(v, cur);
            // The first NaN wins and stays.
            better = b.CreateOr(better, b.CreateFCmpUNO(v, v));
            Value *curNan = b.CreateFCmpUNO(cur, cur);
            better = b.CreateAnd(better, b.CreateNot(curNan));
            equal = b.CreateAnd(equal, b.CreateNot(curNan));
          } else {
            better = isMax ? (isSigned ? b.CreateICmpSGT(v, cur)
                                       : b.CreateICmpUGT(v, cur))
                           : (isSigned ? b.CreateICmpSLT(v, cur)
                                       : b.CreateICmpULT(v, cur));
            equal = b.CreateICmpEQ(v, cur);
          }
          Value *take = n->getSelectLast() ? b.CreateOr(better, equal) : better;
          Value *pos = b.CreateLoad(b.getInt64Ty(), position);
          b.CreateStore(b.CreateSelect(take, v, cur), acc);
          Value *idx = b.CreateLoad(b.getInt64Ty(), accIndex);
          b.CreateStore(b.CreateSelect(take, pos, idx), accIndex);
          b.CreateStore(b.CreateAdd(pos, b.getInt64(1)), position);
          return;
        }
        }
        b.CreateStore(next, acc);
      };
      if (n->getCondition()) {
        Value *cond = emitExpr(n->getCondition());
        llvm::Function *fnc = b.GetInsertBlock()->getParent();
        BasicBlock *then = BasicBlock::Create(ctx, "reduce.then", fnc);
        BasicBlock *join = BasicBlock::Create(ctx, "reduce.join", fnc);
        BasicBlock *skip =
            isArg ? BasicBlock::Create(ctx, "reduce.skip", fnc) : join;
        b.CreateCondBr(cond, then, skip);
        b.SetInsertPoint(then);
        update();
        b.CreateBr(join);
        if (isArg) {
          // A skipped element still takes a position.
          b.SetInsertPoint(skip);
          Value *pos = b.CreateLoad(b.getInt64Ty(), position);
          b.CreateStore(b.CreateAdd(pos, b.getInt64(1)), position);
          b.CreateBr(join);
        }
        b.SetInsertPoint(join);
      } else {
        update();
      }
      return;
    }
    const te::IterVar &axis = n->getAxes()[level];
    Value *extent = emitExpr(axis.extent);
    // Lanes for the innermost axis unless it is too short to fill them
    // twice (a convolution's or a pool's window) or the source calls libm.
    std::optional<int64_t> constExtent = axis.extent.getConstInt();
    if (wide && !n->getCondition() && level + 1 == n->getAxes().size() &&
        (!constExtent || *constExtent >= 2 * kSumLanes) &&
        !callsLibm(n->getSource())) {
      emitSumLanes(n, extent, acc);
      return;
    }
    emitLoop(b.getInt64(0), extent, "k", [&](Value *iv) {
      vars[axis.var.get()] = iv;
      DenseMap<const te::ExprNode *, Value *> outer = memo;
      loops(level + 1);
      memo = std::move(outer);
    });
  };
  loops(0);
  memo = std::move(savedMemo);
  if (isArg)
    return b.CreateIntCast(b.CreateLoad(b.getInt64Ty(), accIndex),
                           computeType(n->getDType()), true);
  Value *result = b.CreateLoad(accTy, acc);
  // One rounding: to float, then to float16/bfloat16, which rounds as one
  // rounding would (float has at least twice their precision plus two
  // bits).
  if (wide)
    result = roundTo(b.CreateFPTrunc(result, ty), t);
  return result;
}

Value *KernelEmitter::emitExprImpl(const te::Expr &e) {
  switch (e->getKind()) {
  case te::ExprNode::Kind::IntImm:
    return ConstantInt::get(computeType(e.getDType()),
                            llvm::cast<te::IntImmNode>(e.get())->getValue(),
                            true);
  case te::ExprNode::Kind::FloatImm: {
    double v = llvm::cast<te::FloatImmNode>(e.get())->getValue();
    DataType t = e.getDType();
    if (t.isFloat() && t.getBits() == 16)
      v = nnir::halfToFloat(nnir::floatToHalf(static_cast<float>(v)));
    else if (t.isBFloat())
      v = nnir::bfloat16ToFloat(nnir::floatToBFloat16(static_cast<float>(v)));
    return ConstantFP::get(computeType(t), v);
  }
  case te::ExprNode::Kind::Var: {
    Value *v = vars.lookup(e.get());
    assert(v && "variable not bound");
    return v;
  }
  case te::ExprNode::Kind::Unary: {
    const auto *u = llvm::cast<te::UnaryNode>(e.get());
    Value *x = emitExpr(u->getOperand());
    DataType t = u->getDType();
    if (u->getOp() == te::UnaryOp::Not)
      return b.CreateNot(x);
    if (t.isFloatingPoint())
      return b.CreateFNeg(x);
    return b.CreateNeg(x);
  }
  case te::ExprNode::Kind::Binary:
    return emitBinary(llvm::cast<te::BinaryNode>(e.get()));
  case te::ExprNode::Kind::Select: {
    const auto *s = llvm::cast<te::SelectNode>(e.get());
    Value *c = emitExpr(s->getCondition());
    Value *t = emitExpr(s->getTrueValue());
    Value *f = emitExpr(s->getFalseValue());
    return b.CreateSelect(c, t, f);
  }
  case te::ExprNode::Kind::Cast: {
    const auto *c = llvm::cast<te::CastNode>(e.get());
    return convert(emitExpr(c->getOperand()), c->getOperand().getDType(),
                   c->getDType());
  }
  case te::ExprNode::Kind::Reinterpret: {
    const auto *r = llvm::cast<te::ReinterpretNode>(e.get());
    DataType from = r->getOperand().getDType(), to = r->getDType();
    Value *x = emitExpr(r->getOperand());
    // Through the storage representation (float16/bfloat16 are rounded to
    // their bits first).
    Value *bits;
    if (from.isFloat() && from.getBits() == 16)
      bits = b.CreateBitCast(b.CreateFPTrunc(x, b.getHalfTy()), b.getInt16Ty());
    else if (from.isBFloat())
      bits = floatToBF16Bits(b, x);
    else if (from.isBool())
      bits = x;
    else
      bits = b.CreateBitCast(x, b.getIntNTy(from.getBits()));
    if (to.isFloat() && to.getBits() == 16)
      return b.CreateFPExt(b.CreateBitCast(bits, b.getHalfTy()),
                           b.getFloatTy());
    if (to.isBFloat())
      return b.CreateBitCast(
          b.CreateShl(b.CreateZExt(bits, b.getInt32Ty()), 16), b.getFloatTy());
    return b.CreateBitCast(bits, computeType(to));
  }
  case te::ExprNode::Kind::Call:
    return emitIntrinsic(llvm::cast<te::CallNode>(e.get()));
  case te::ExprNode::Kind::TensorRead: {
    const auto *r = llvm::cast<te::TensorReadNode>(e.get());
    const te::TensorNode *t = r->getTensor();
    Value *base = bufferPtr(t);
    Value *offset = emitOffset(t, r->getIndices());
    Value *ptr = b.CreateInBoundsGEP(storageType(t->getDType()), base, offset);
    return load(ptr, t->getDType());
  }
  case te::ExprNode::Kind::Reduce:
    return emitReduce(llvm::cast<te::ReduceNode>(e.get()));
  }
  llvm_unreachable("unknown expression");
}

//===----------------------------------------------------------------------===//
// Statements (extern stages)
//===----------------------------------------------------------------------===//

void KernelEmitter::emitStmt(const te::Stmt &s) {
  // Values do not dominate across statements with control flow.
  memo.clear();
  switch (s->getKind()) {
  case te::StmtNode::Kind::For: {
    const auto *f = llvm::cast<te::ForNode>(s.get());
    Value *extent = emitExpr(f->getExtent());
    emitLoop(b.getInt64(0), extent, "for", [&](Value *iv) {
      vars[f->getVar().get()] = iv;
      emitStmt(f->getBody());
    });
    memo.clear();
    return;
  }
  case te::StmtNode::Kind::Store: {
    const auto *st = llvm::cast<te::StoreNode>(s.get());
    const te::TensorNode *t = st->getBuffer().get();
    Value *v = convert(emitExpr(st->getValue()), st->getValue().getDType(),
                       t->getDType());
    Value *ptr = b.CreateInBoundsGEP(storageType(t->getDType()), bufferPtr(t),
                                     emitOffset(t, st->getIndices()));
    store(ptr, v, t->getDType());
    return;
  }
  case te::StmtNode::Kind::IfThenElse: {
    const auto *i = llvm::cast<te::IfThenElseNode>(s.get());
    Value *cond = emitExpr(i->getCondition());
    llvm::Function *f = b.GetInsertBlock()->getParent();
    BasicBlock *then = BasicBlock::Create(ctx, "if.then", f);
    BasicBlock *join = BasicBlock::Create(ctx, "if.end", f);
    BasicBlock *other =
        i->getElse() ? BasicBlock::Create(ctx, "if.else", f) : join;
    b.CreateCondBr(cond, then, other);
    b.SetInsertPoint(then);
    emitStmt(i->getThen());
    b.CreateBr(join);
    if (i->getElse()) {
      b.SetInsertPoint(other);
      emitStmt(i->getElse());
      b.CreateBr(join);
    }
    b.SetInsertPoint(join);
    memo.clear();
    return;
  }
  case te::StmtNode::Kind::Seq:
    for (const te::Stmt &c : llvm::cast<te::SeqNode>(s.get())->getStmts())
      emitStmt(c);
    return;
  case te::StmtNode::Kind::Allocate: {
    const auto *a = llvm::cast<te::AllocateNode>(s.get());
    const te::Tensor &buf = a->getBuffer();
    Value *bytes = b.CreateMul(emitShapeProduct(buf.getShape()),
                               b.getInt64(buf.getDType().getStorageBytes()));
    FunctionCallee alloc = m.getOrInsertFunction(
        "nnir_alloc", FunctionType::get(b.getPtrTy(), {b.getInt64Ty()}, false));
    FunctionCallee release = m.getOrInsertFunction(
        "nnir_free", FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false));
    Value *ptr = b.CreateCall(alloc, {bytes});
    // Scratch allocation failure inside a stage cannot be reported through
    // the stage; the statement is skipped and the kernel's own allocation
    // checks cover the common case. (Small scratch buffers.)
    buffersInScope[buf.get()] = ptr;
    llvm::Function *f = b.GetInsertBlock()->getParent();
    BasicBlock *run = BasicBlock::Create(ctx, "alloc.ok", f);
    BasicBlock *join = BasicBlock::Create(ctx, "alloc.end", f);
    b.CreateCondBr(b.CreateIsNotNull(ptr), run, join);
    b.SetInsertPoint(run);
    emitStmt(a->getBody());
    b.CreateCall(release, {ptr});
    b.CreateBr(join);
    b.SetInsertPoint(join);
    memo.clear();
    return;
  }
  }
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

llvm::Function *KernelEmitter::emitStageFunction(const Stage &stage,
                                                 unsigned index) {
  SmallVector<llvm::Type *, 16> params(buffers.size(), b.getPtrTy());
  params.append(fn.dimVars.size(), b.getInt64Ty());
  params.push_back(b.getInt64Ty()); // begin
  params.push_back(b.getInt64Ty()); // end
  auto *fty = FunctionType::get(b.getVoidTy(), params, false);
  llvm::Function *f = llvm::Function::Create(fty, GlobalValue::InternalLinkage,
                                             "stage" + Twine(index), m);
  for (unsigned i = 0; i < buffers.size(); ++i) {
    f->addParamAttr(i, Attribute::NoAlias);
    f->addParamAttr(i, Attribute::NoCapture);
    f->addParamAttr(
        i, Attribute::getWithAlignment(ctx, Align(nnir::NDArray::kAlignment)));
  }
  f->addFnAttr(Attribute::NoUnwind);
  BasicBlock *entry = BasicBlock::Create(ctx, "entry", f);
  b.SetInsertPoint(entry);
  buffersInScope.clear();
  vars.clear();
  memo.clear();
  for (unsigned i = 0; i < buffers.size(); ++i)
    buffersInScope[buffers[i].get()] = f->getArg(i);
  for (unsigned i = 0; i < fn.dimVars.size(); ++i)
    vars[fn.dimVars[i].get()] = f->getArg(buffers.size() + i);
  Value *begin = f->getArg(buffers.size() + fn.dimVars.size());
  Value *end = f->getArg(buffers.size() + fn.dimVars.size() + 1);

  if (stage.externOp) {
    emitStmt(stage.externOp->getBody());
    b.CreateRetVoid();
    return f;
  }

  const te::TensorNode *t = stage.tensor.get();
  ArrayRef<te::Expr> shape = t->getShape();
  ArrayRef<te::Expr> axes = t->getAxes();
  Value *out = bufferPtr(t);
  // Shape values, emitted once at entry.
  SmallVector<Value *, 4> extents;
  for (const te::Expr &e : shape)
    extents.push_back(emitExpr(e));
  memo.clear();

  auto emitElement = [&]() {
    DenseMap<const te::ExprNode *, Value *> outer = memo;
    Value *v = emitExpr(stage.body);
    Value *offset = emitOffset(t, axes);
    store(b.CreateInBoundsGEP(storageType(t->getDType()), out, offset), v,
          t->getDType());
    memo = std::move(outer);
  };
  // A sum at the top of the body with the last axis not collapsed is
  // emitted with the reduction loops outside the last axis:
  //   out[..., :] = 0; for k...: for j: out[..., j] += source(..., j, k...)
  // so the innermost loop walks the output (and, for convolutions and
  // matmuls, an input) contiguously and vectorises. Not where a read jumps
  // as j moves (j in one of its other indices) while the innermost
  // reduction axis is long enough for the per-element loop's lanes:
  // dense's weight [units, k] would be read a row apart per j (16 KiB for
  // k = 4096), so dense keeps the per-element loop, contiguous in k; an
  // NHWC convolution with an OIHW kernel (a 3-wide innermost axis) stays
  // hoisted. float16/bfloat16 keep the per-element order (they round after
  // every addition).
  const auto *topSum = dyn_cast<te::ReduceNode>(stage.body.get());
  bool hoist =
      topSum && topSum->getReduceKind() == te::ReduceKind::Sum &&
      !topSum->getCondition() && shape.size() > stage.collapsed &&
      !t->getDType().isBool() &&
      !(t->getDType().isFloatingPoint() && t->getDType().getBits() == 16);
  if (hoist && !readsAlongLastAxis(topSum->getSource(), axes.back().get())) {
    std::optional<int64_t> innermost =
        topSum->getAxes().back().extent.getConstInt();
    hoist = innermost && *innermost < 2 * kSumLanes;
  }
  // A float32 row accumulates at most kFloatRun additions (or one iteration
  // of the outermost reduction axis, when longer) in the output, then is
  // flushed into a double row:
  //   for each block of `chunk` k0: { for k0 in block: for k...: for j:
  //     out[j] += source; for j: { row[j] += out[j]; out[j] = 0 } }
  //   for j: out[j] = row[j]
  // so the error does not grow with the length, and the innermost loop
  // stays float32. A row longer than kMaxDoubleRow (on the stack) is not
  // hoisted: each element then sums in double (emitReduce).
  uint64_t chunk = 0;
  int64_t rowExtent = 0;
  if (hoist && t->getDType().isFloat() && t->getDType().getBits() == 32) {
    auto product = [](ArrayRef<te::IterVar> axes) -> std::optional<int64_t> {
      int64_t n = 1;
      for (const te::IterVar &axis : axes) {
        std::optional<int64_t> e = axis.extent.getConstInt();
        if (!e)
          return std::nullopt;
        n *= *e;
      }
      return n;
    };
    std::optional<int64_t> length = product(topSum->getAxes());
    std::optional<int64_t> innerLength =
        product(topSum->getAxes().drop_front());
    std::optional<int64_t> last = shape.back().getConstInt();
    if (!length || *length > kFloatRun) {
      if (length && innerLength && last && *last <= kMaxDoubleRow) {
        chunk = std::max<int64_t>(1, kFloatRun /
                                         std::max<int64_t>(*innerLength, 1));
        rowExtent = *last;
      } else {
        hoist = false;
      }
    }
  }
  auto emitHoisted = [&]() {
    unsigned last = shape.size() - 1;
    DataType dtype = t->getDType();
    llvm::Type *ty = computeType(dtype);
    llvm::Type *dty = b.getDoubleTy();
    auto element = [&](Value *j) {
      vars[axes[last].get()] = j;
      return b.CreateInBoundsGEP(storageType(dtype), out, emitOffset(t, axes));
    };
    AllocaInst *row = nullptr;
    if (chunk) {
      IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
      row = entry.CreateAlloca(ArrayType::get(dty, rowExtent), nullptr, "row");
    }
    auto rowElement = [&](Value *j) {
      return b.CreateInBoundsGEP(dty, row, j);
    };
    DenseMap<const te::ExprNode *, Value *> outer = memo;
    emitLoop(b.getInt64(0), extents[last], "init", [&](Value *j) {
      DenseMap<const te::ExprNode *, Value *> saved = memo;
      store(element(j), llvm::Constant::getNullValue(ty), dtype);
      if (row)
        b.CreateStore(ConstantFP::get(dty, 0.0), rowElement(j));
      memo = std::move(saved);
    });
    memo = outer;
    ArrayRef<te::IterVar> raxes = topSum->getAxes();
    std::function<void(unsigned)> reduceLoops = [&](unsigned level) {
      if (level == raxes.size()) {
        emitLoop(b.getInt64(0), extents[last], "acc", [&](Value *j) {
          DenseMap<const te::ExprNode *, Value *> saved = memo;
          Value *ptr = element(j);
          Value *v = emitExpr(topSum->getSource());
          Value *cur = load(ptr, dtype);
          store(ptr,
                dtype.isFloatingPoint() ? b.CreateFAdd(cur, v)
                                        : b.CreateAdd(cur, v),
                dtype);
          memo = std::move(saved);
        });
        return;
      }
      Value *extent = emitExpr(raxes[level].extent);
      auto axisLoop = [&](Value *begin, Value *end) {
        emitLoop(begin, end, "k", [&](Value *iv) {
          vars[raxes[level].var.get()] = iv;
          DenseMap<const te::ExprNode *, Value *> saved = memo;
          reduceLoops(level + 1);
          memo = std::move(saved);
        });
      };
      if (!row || level != 0) {
        axisLoop(b.getInt64(0), extent);
        return;
      }
      // Blocks of `chunk` iterations, each followed by row += out; out = 0.
      Value *size = b.getInt64(chunk);
      Value *blocks =
          b.CreateUDiv(b.CreateAdd(extent, b.getInt64(chunk - 1)), size);
      emitLoop(b.getInt64(0), blocks, "block", [&](Value *block) {
        Value *begin = b.CreateMul(block, size);
        Value *end = b.CreateBinaryIntrinsic(Intrinsic::smin,
                                             b.CreateAdd(begin, size), extent);
        axisLoop(begin, end);
        emitLoop(b.getInt64(0), extents[last], "flush", [&](Value *j) {
          DenseMap<const te::ExprNode *, Value *> saved = memo;
          Value *ptr = element(j);
          Value *partial = b.CreateFPExt(load(ptr, dtype), dty);
          Value *slot = rowElement(j);
          b.CreateStore(b.CreateFAdd(b.CreateLoad(dty, slot), partial), slot);
          store(ptr, llvm::Constant::getNullValue(ty), dtype);
          memo = std::move(saved);
        });
      });
    };
    reduceLoops(0);
    if (row) {
      memo = outer;
      emitLoop(b.getInt64(0), extents[last], "final", [&](Value *j) {
        DenseMap<const te::ExprNode *, Value *> saved = memo;
        Value *total = b.CreateLoad(dty, rowElement(j));
        store(element(j), b.CreateFPTrunc(total, ty), dtype);
        memo = std::move(saved);
      });
    }
    memo = std::move(outer);
  };
  std::function<void(unsigned)> inner = [&](unsigned level) {
    if (hoist && level + 1 == shape.size()) {
      emitHoisted();
      return;
    }
    if (level == shape.size()) {
      emitElement();
      return;
    }
    emitLoop(b.getInt64(0), extents[level], "i" + Twine(level).str(),
             [&](Value *iv) {
               vars[axes[level].get()] = iv;
               DenseMap<const te::ExprNode *, Value *> outer = memo;
               inner(level + 1);
               memo = std::move(outer);
             });
  };
  if (shape.empty()) {
    emitLoop(begin, end, "one", [&](Value *) { emitElement(); });
  } else {
    // The outer loop runs over the collapsed leading axes.
    unsigned p = stage.collapsed;
    emitLoop(begin, end, "outer", [&](Value *iv) {
      Value *rest = iv;
      for (unsigned i = p; i-- > 0;) {
        if (i == 0) {
          vars[axes[0].get()] = rest;
          break;
        }
        vars[axes[i].get()] = b.CreateURem(rest, extents[i]);
        rest = b.CreateUDiv(rest, extents[i]);
      }
      DenseMap<const te::ExprNode *, Value *> outer = memo;
      inner(p);
      memo = std::move(outer);
    });
  }
  b.CreateRetVoid();
  return f;
}

llvm::Function *KernelEmitter::emitTrampoline(llvm::Function *stageFn) {
  // void trampoline(ptr closure, i64 begin, i64 end): the closure holds the
  // buffer pointers then the dims.
  auto *fty = FunctionType::get(
      b.getVoidTy(), {b.getPtrTy(), b.getInt64Ty(), b.getInt64Ty()}, false);
  llvm::Function *f = llvm::Function::Create(
      fty, GlobalValue::InternalLinkage, stageFn->getName() + ".parallel", m);
  f->addFnAttr(Attribute::NoUnwind);
  IRBuilder<> tb(BasicBlock::Create(ctx, "entry", f));
  SmallVector<Value *, 16> args;
  unsigned n = buffers.size() + fn.dimVars.size();
  for (unsigned i = 0; i < n; ++i) {
    Value *slot =
        tb.CreateConstInBoundsGEP1_64(tb.getInt64Ty(), f->getArg(0), i);
    llvm::Type *ty = i < buffers.size() ? (llvm::Type *)tb.getPtrTy()
                                        : (llvm::Type *)tb.getInt64Ty();
    args.push_back(tb.CreateLoad(ty, slot));
  }
  args.push_back(f->getArg(1));
  args.push_back(f->getArg(2));
  tb.CreateCall(stageFn, args);
  tb.CreateRetVoid();
  return f;
}

Error KernelEmitter::emit(StringRef name, KernelInfo &info) {
  if (Error e = schedule())
    return e;
  // The output each output tensor is (for the run-time work of stages
  // whose extents are run-time values).
  DenseMap<const te::TensorNode *, unsigned> outputIndex;
  for (unsigned i = 0; i < outputTensors.size(); ++i)
    outputIndex.try_emplace(outputTensors[i].get(), i);
  info.outputWork.assign(outputTensors.size(), 0);
  // Collapse and cost each compute stage.
  for (Stage &stage : stages) {
    if (stage.externOp) {
      stage.work = 1;
      for (const te::Tensor &out : stage.externOutputs)
        if (auto s = te::getConstShape(out.getShape()))
          stage.work = SaturatingAdd<uint64_t>(
              stage.work,
              static_cast<uint64_t>(nnir::getNumElements(*s).value_or(0)));
      info.fixedWork = SaturatingAdd(info.fixedWork, stage.work);
      continue;
    }
    ArrayRef<te::Expr> shape = stage.tensor.getShape();
    uint64_t elements = 1;
    std::optional<SmallVector<int64_t, 4>> constShape =
        te::getConstShape(shape);
    if (constShape)
      for (int64_t e : *constShape)
        elements =
            SaturatingMultiply<uint64_t>(elements, std::max<int64_t>(e, 0));
    else if (fn.genericElementsHint > 0)
      elements = fn.genericElementsHint; // The first shape served.
    else
      elements = uint64_t(1) << 20;
    stage.cost = std::max<uint64_t>(1, estimateCost(stage.body));
    stage.work = SaturatingMultiply<uint64_t>(elements, stage.cost);
    auto output = outputIndex.find(stage.tensor.get());
    if (!constShape && output != outputIndex.end())
      info.outputWork[output->second] =
          SaturatingAdd(info.outputWork[output->second], stage.cost);
    else
      info.fixedWork = SaturatingAdd(info.fixedWork, stage.work);
    // Collapse leading axes until the outer range has enough iterations;
    // run-time extents: every axis but the innermost.
    unsigned p = shape.empty() ? 0 : 1;
    if (constShape) {
      int64_t range = shape.empty() ? 1 : (*constShape)[0];
      while (p + 1 < shape.size() && range < 256) {
        range *= (*constShape)[p];
        ++p;
      }
    } else if (shape.size() > 1) {
      p = shape.size() - 1;
    }
    stage.collapsed = p;
    // Shape-generic stages may see any size: nnir_parallel_for splits them
    // only when the run-time extent is worth it.
    stage.parallel = options.parallelWork && !shape.empty() &&
                     (!constShape || stage.work >= options.parallelWork);
  }

  // Stage functions.
  std::vector<llvm::Function *> stageFns;
  for (unsigned i = 0; i < stages.size(); ++i)
    stageFns.push_back(emitStageFunction(stages[i], i));

  // The kernel.
  auto *kty =
      FunctionType::get(b.getInt32Ty(), {b.getPtrTy(), b.getPtrTy()}, false);
  llvm::Function *kernel =
      llvm::Function::Create(kty, GlobalValue::ExternalLinkage, name, m);
  kernel->addFnAttr(Attribute::NoUnwind);
  BasicBlock *entry = BasicBlock::Create(ctx, "entry", kernel);
  b.SetInsertPoint(entry);
  vars.clear();
  memo.clear();
  SmallVector<Value *, 16> bufferValues;
  for (unsigned i = 0; i < numIO; ++i)
    bufferValues.push_back(b.CreateLoad(
        b.getPtrTy(),
        b.CreateConstInBoundsGEP1_64(b.getPtrTy(), kernel->getArg(0), i)));
  SmallVector<Value *, 2> dimValues;
  for (unsigned i = 0; i < fn.dimVars.size(); ++i) {
    dimValues.push_back(b.CreateLoad(
        b.getInt64Ty(),
        b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), kernel->getArg(1), i)));
    vars[fn.dimVars[i].get()] = dimValues.back();
  }
  // Scratch buffers.
  FunctionCallee alloc = m.getOrInsertFunction(
      "nnir_alloc", FunctionType::get(b.getPtrTy(), {b.getInt64Ty()}, false));
  FunctionCallee release = m.getOrInsertFunction(
      "nnir_free", FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false));
  SmallVector<Value *, 4> scratch;
  for (unsigned i = numIO; i < buffers.size(); ++i) {
    // Scratch extents are constants (shape-generic kernels materialise only
    // their outputs); one that is not is counted as unbounded.
    uint64_t constBytes = UINT64_MAX;
    if (auto shape = te::getConstShape(buffers[i].getShape()))
      if (std::optional<int64_t> size = nnir::getByteSize(
              *shape, buffers[i].getDType().getStorageBytes()))
        constBytes = uint64_t(*size);
    info.largestScratchBytes = std::max(info.largestScratchBytes, constBytes);
    Value *bytes =
        b.CreateMul(emitShapeProduct(buffers[i].getShape()),
                    b.getInt64(buffers[i].getDType().getStorageBytes()));
    Value *ptr = b.CreateCall(alloc, {bytes});
    BasicBlock *ok = BasicBlock::Create(ctx, "alloc.ok", kernel);
    BasicBlock *fail = BasicBlock::Create(ctx, "alloc.fail", kernel);
    b.CreateCondBr(b.CreateIsNull(ptr), fail, ok);
    b.SetInsertPoint(fail);
    for (Value *s : scratch)
      b.CreateCall(release, {s});
    b.CreateRet(b.getInt32(nnir::kKernelOutOfMemory));
    b.SetInsertPoint(ok);
    scratch.push_back(ptr);
    bufferValues.push_back(ptr);
  }

  FunctionCallee parallelFor = m.getOrInsertFunction(
      "nnir_parallel_for",
      FunctionType::get(
          b.getVoidTy(),
          {b.getInt64Ty(), b.getInt64Ty(), b.getPtrTy(), b.getPtrTy()}, false));
  for (unsigned i = 0; i < stages.size(); ++i) {
    const Stage &stage = stages[i];
    ++info.numStages;
    info.work = SaturatingAdd(info.work, stage.work);
    // An extern stage's loops are its own: count them as a small loop nest.
    info.codeSize = SaturatingAdd<uint64_t>(
        info.codeSize, stage.externOp ? 64 : countOperations(stage.body));
    Value *range = b.getInt64(1);
    if (!stage.externOp)
      range =
          emitShapeProduct(stage.tensor.getShape().take_front(stage.collapsed));
    SmallVector<Value *, 16> args(bufferValues.begin(), bufferValues.end());
    args.append(dimValues.begin(), dimValues.end());
    if (!stage.parallel) {
      args.push_back(b.getInt64(0));
      args.push_back(range);
      b.CreateCall(stageFns[i], args);
      continue;
    }
    ++info.numParallelStages;
    // The closure: buffer pointers and dims, 8 bytes each.
    IRBuilder<> eb(&kernel->getEntryBlock(), kernel->getEntryBlock().begin());
    AllocaInst *closure =
        eb.CreateAlloca(eb.getInt64Ty(), eb.getInt32(args.size()), "closure");
    for (unsigned j = 0; j < args.size(); ++j)
      b.CreateStore(args[j],
                    b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), closure, j));
    // Aim for chunks of about 256K scalar operations: an outer iteration
    // runs the inner axes, whose size may be known only at run time.
    const uint64_t chunk = uint64_t(1) << 18;
    ArrayRef<te::Expr> innerShape =
        stage.tensor.getShape().drop_front(stage.collapsed);
    Value *grain;
    if (auto s = te::getConstShape(innerShape)) {
      uint64_t perIteration = stage.cost;
      for (int64_t e : *s)
        perIteration = SaturatingMultiply<uint64_t>(
            perIteration, static_cast<uint64_t>(std::max<int64_t>(e, 1)));
      grain = b.getInt64(std::max<uint64_t>(1, chunk / perIteration));
    } else {
      Value *perIteration = b.CreateBinaryIntrinsic(
          Intrinsic::umax,
          b.CreateMul(emitShapeProduct(innerShape), b.getInt64(stage.cost)),
          b.getInt64(1));
      grain = b.CreateBinaryIntrinsic(
          Intrinsic::umax, b.CreateUDiv(b.getInt64(chunk), perIteration),
          b.getInt64(1));
    }
    b.CreateCall(parallelFor,
                 {range, grain, emitTrampoline(stageFns[i]), closure});
  }
  for (Value *s : scratch)
    b.CreateCall(release, {s});
  b.CreateRet(b.getInt32(nnir::kKernelOK));

  info.name = name.str();
  info.numInputs = fn.inputs.size();
  info.numOutputs = outputTensors.size();
  std::string message;
  raw_string_ostream os(message);
  if (verifyModule(m, &os))
    return createStringError(inconvertibleErrorCode(),
                             "internal error: invalid LLVM IR for kernel '" +
                                 name + "': " + message);
  return Error::success();
}

Expected<std::unique_ptr<Module>>
nnir::emitKernel(const TEFunction &fn, LLVMContext &ctx, StringRef name,
                 const CodegenOptions &options, KernelInfo &info) {
  auto m = std::make_unique<Module>(name, ctx);
  KernelEmitter emitter(fn, ctx, *m, options);
  if (Error e = emitter.emit(name, info))
    return e;
  return m;
}
