//===- EmitLLVM.cpp - te::Tensor expressions to LLVM IR kernels ----------===//
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
/// round once at the end (EmitReduce.cpp).
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"
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
using namespace nnir;
using namespace nnir::codegen;

//===----------------------------------------------------------------------===//
// Scheduling
//===----------------------------------------------------------------------===//

namespace {
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

bool codegen::readsAlongLastAxis(const te::Expr &e, const te::ExprNode *var) {
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

//===----------------------------------------------------------------------===//
// The emitter
//===----------------------------------------------------------------------===//

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
                   ONNX, LLVMStorage, LLVMCompute, ...)                        \
  if (t == DataType::Factory())                                                \
    return b.get##LLVMCompute##Ty();
#include "nnir/Runtime/DataTypes.def"
  llvm_unreachable("a dtype outside DataTypes.def");
}

llvm::Type *KernelEmitter::storageType(DataType t) {
#define NNIR_DTYPE(Factory, Name, Code, Bits, NpyDescr, Suffix, PrintedSuffix,  \
                   ONNX, LLVMStorage, LLVMCompute, ...)                        \
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
    r = hasFastExp(t) ? emitFastExp(b, x)
                      : intrinsic(llvm::Intrinsic::exp, {x});
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
    r = hasFastExp(t)
            ? emitFastSigmoid(b, x)
            : b.CreateFDiv(fconst(1),
                           b.CreateFAdd(fconst(1),
                                        intrinsic(llvm::Intrinsic::exp,
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

bool KernelEmitter::isOuterCondition(const te::Expr &cond) {
  if (outerAxes.empty())
    return false;
  bool outer = true, any = false;
  te::visit(cond, [&](const te::ExprNode *n) {
    if (isa<te::VarNode>(n)) {
      any = true;
      outer &= outerAxes.contains(n);
    }
    outer &= !isa<te::TensorReadNode>(n) && !isa<te::ReduceNode>(n);
  });
  return any && outer;
}

Value *KernelEmitter::emitBranches(Value *cond, const te::Expr &onTrue,
                                   const te::Expr &onFalse) {
  llvm::Function *f = b.GetInsertBlock()->getParent();
  BasicBlock *thenBB = BasicBlock::Create(ctx, "select.true", f);
  BasicBlock *elseBB = BasicBlock::Create(ctx, "select.false", f);
  BasicBlock *join = BasicBlock::Create(ctx, "select.end", f);
  b.CreateCondBr(cond, thenBB, elseBB);
  // Values emitted in one branch do not dominate the join.
  auto arm = [&](BasicBlock *bb, const te::Expr &e) {
    b.SetInsertPoint(bb);
    DenseMap<const te::ExprNode *, Value *> saved = memo;
    Value *v = emitExpr(e);
    memo = std::move(saved);
    BasicBlock *end = b.GetInsertBlock();
    b.CreateBr(join);
    return std::make_pair(v, end);
  };
  auto [t, tEnd] = arm(thenBB, onTrue);
  auto [e, eEnd] = arm(elseBB, onFalse);
  b.SetInsertPoint(join);
  PHINode *phi = b.CreatePHI(t->getType(), 2);
  phi->addIncoming(t, tEnd);
  phi->addIncoming(e, eEnd);
  return phi;
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
    if (isOuterCondition(s->getCondition()))
      return emitBranches(c, s->getTrueValue(), s->getFalseValue());
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

/// The extent of loop level \p level of a compute stage: its axis's, or for
/// a jammed axis the number of its blocks of tileRows.
static te::Expr getLevelExtent(const Stage &stage, unsigned level) {
  const te::Expr &extent = stage.tensor.getShape()[stage.axisAt(level)];
  if (stage.tileRows > 1 && level + 2 == stage.tensor.getRank())
    return te::Expr(
        static_cast<int64_t>(divideCeil(*extent.getConstInt(), stage.tileRows)));
  return extent;
}

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

  outerAxes.clear();
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

  // Selects on outer axes only (a concatenate's inputs) branch: the
  // innermost loop evaluates one side, and LLVM unswitches it.
  outerAxes.clear();
  for (const te::Expr &axis : axes.drop_back(axes.empty() ? 0 : 1))
    outerAxes.insert(axis.get());
  auto emitElement = [&]() {
    DenseMap<const te::ExprNode *, Value *> outer = memo;
    Value *v = emitExpr(stage.body);
    Value *offset = emitOffset(t, axes);
    store(b.CreateInBoundsGEP(storageType(t->getDType()), out, offset), v,
          t->getDType());
    memo = std::move(outer);
  };
  std::optional<HoistedSum> hoisted = planHoistedSum(stage);
  // The jammed axis (planTiles) runs in blocks of tileRows values; its loop
  // level counts blocks.
  bool jammed = hoisted && stage.tileRows > 1;
  unsigned jamLevel = shape.size() - 2;
  auto levelExtent = [&](unsigned level) -> Value * {
    if (jammed && level == jamLevel)
      return b.getInt64(*getLevelExtent(stage, level).getConstInt());
    return extents[stage.axisAt(level)];
  };
  // Column panels (planPanels): the outermost part of the outer range.
  Value *panel = nullptr;
  auto emitJamBlock = [&](Value *block) {
    int64_t extent = *shape[stage.axisAt(jamLevel)].getConstInt();
    unsigned rows = stage.tileRows;
    Value *base = b.CreateMul(block, b.getInt64(rows));
    auto jam = [&](unsigned count) {
      SmallVector<Value *, 8> values;
      for (unsigned r = 0; r < count; ++r)
        values.push_back(r ? b.CreateAdd(base, b.getInt64(r)) : base);
      DenseMap<const te::ExprNode *, Value *> outer = memo;
      emitHoistedSum(*hoisted, stage, extents, out, values, panel);
      memo = std::move(outer);
    };
    if (extent % rows == 0) {
      jam(rows);
      return;
    }
    // The last block has fewer rows.
    llvm::Function *fn = b.GetInsertBlock()->getParent();
    BasicBlock *whole = BasicBlock::Create(ctx, "rows.whole", fn);
    BasicBlock *part = BasicBlock::Create(ctx, "rows.part", fn);
    BasicBlock *join = BasicBlock::Create(ctx, "rows.end", fn);
    b.CreateCondBr(
        b.CreateICmpSLE(b.CreateAdd(base, b.getInt64(rows)), b.getInt64(extent)),
        whole, part);
    b.SetInsertPoint(whole);
    jam(rows);
    b.CreateBr(join);
    b.SetInsertPoint(part);
    jam(extent % rows);
    b.CreateBr(join);
    b.SetInsertPoint(join);
  };
  std::function<void(unsigned)> inner = [&](unsigned level) {
    if (hoisted && level + 1 == shape.size()) {
      emitHoistedSum(*hoisted, stage, extents, out, {});
      return;
    }
    if (level == shape.size()) {
      emitElement();
      return;
    }
    unsigned axis = stage.axisAt(level);
    emitLoop(b.getInt64(0), levelExtent(level), "i" + Twine(level).str(),
             [&](Value *iv) {
               DenseMap<const te::ExprNode *, Value *> outer = memo;
               if (jammed && level == jamLevel) {
                 emitJamBlock(iv);
               } else {
                 vars[axes[axis].get()] = iv;
                 inner(level + 1);
               }
               memo = std::move(outer);
             });
  };
  if (shape.empty()) {
    emitLoop(begin, end, "one", [&](Value *) { emitElement(); });
  } else {
    // The outer loop runs over the collapsed leading levels.
    unsigned p = stage.collapsed;
    emitLoop(begin, end, "outer", [&](Value *iv) {
      Value *rest = iv;
      if (stage.panels > 1) {
        int64_t blocks = 1;
        for (unsigned i = 0; i < p; ++i)
          blocks *= *getLevelExtent(stage, i).getConstInt();
        panel = b.CreateUDiv(iv, b.getInt64(blocks));
        rest = b.CreateURem(iv, b.getInt64(blocks));
      }
      Value *jamBlock = nullptr;
      for (unsigned i = p; i-- > 0;) {
        Value *value = rest;
        if (i) {
          value = b.CreateURem(rest, levelExtent(i));
          rest = b.CreateUDiv(rest, levelExtent(i));
        }
        if (jammed && i == jamLevel)
          jamBlock = value;
        else
          vars[axes[stage.axisAt(i)].get()] = value;
      }
      DenseMap<const te::ExprNode *, Value *> outer = memo;
      if (jamBlock)
        emitJamBlock(jamBlock);
      else
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

/// Collapses the leading axes of each compute stage into its outer range,
/// decides which stages run in parallel, and estimates their work.
void KernelEmitter::estimateStages(KernelInfo &info) {
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
    else if (!constShape && fn.symbolic && !info.outputWork.empty())
      // An inner stage of a symbolic kernel (a fused convolution's sum):
      // its work grows with the run's shapes, as the first output's does.
      info.outputWork[0] = SaturatingAdd(info.outputWork[0], stage.cost);
    else
      info.fixedWork = SaturatingAdd(info.fixedWork, stage.work);
    planTiles(stage);
    // Collapse leading loop levels until the outer range has enough
    // iterations (a jammed axis counts its blocks); run-time extents: every
    // axis but the innermost.
    unsigned p = shape.empty() ? 0 : 1;
    if (constShape) {
      auto levelExtent = [&](unsigned level) {
        return *getLevelExtent(stage, level).getConstInt();
      };
      int64_t range = shape.empty() ? 1 : levelExtent(0);
      while (p + 1 < shape.size() && range < 256) {
        range *= levelExtent(p);
        ++p;
      }
    } else if (shape.size() > 1) {
      p = shape.size() - 1;
    }
    stage.collapsed = p;
    // Panels run in the outer range, with the jammed axis.
    if (p + 1 != shape.size())
      stage.panelTiles = 0, stage.panels = 1;
    // Shape-generic stages may see any size: nnir_parallel_for splits them
    // only when the run-time extent is worth it.
    // A tiled stage does a vector's lanes of its scalar work per operation.
    stage.parallel =
        options.parallelWork && !shape.empty() &&
        (!constShape || stage.work / stage.lanes >= options.parallelWork);
  }
}

/// The runtime's nnir_parallel_for (KernelABI.h), declared in \p m.
static FunctionCallee getParallelFor(Module &m) {
  LLVMContext &ctx = m.getContext();
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto *ptr = PointerType::getUnqual(ctx);
  return m.getOrInsertFunction(
      "nnir_parallel_for",
      FunctionType::get(llvm::Type::getVoidTy(ctx), {i64, i64, ptr, ptr},
                        false));
}

/// Runs \p stage from the kernel: a call of \p stageFn over its outer range
/// with \p ioArgs (the buffers and dims), directly or through
/// nnir_parallel_for.
void KernelEmitter::emitStageCall(const Stage &stage, llvm::Function *stageFn,
                                  ArrayRef<Value *> ioArgs, KernelInfo &info) {
  ++info.numStages;
  info.work = SaturatingAdd(info.work, stage.work);
  // An extern stage's loops are its own: count them as a small loop nest.
  info.codeSize = SaturatingAdd<uint64_t>(
      info.codeSize, stage.externOp ? 64 : countOperations(stage.body));
  // The shape in loop order.
  SmallVector<te::Expr, 4> loopShape;
  if (!stage.externOp)
    for (unsigned i = 0; i < stage.tensor.getRank(); ++i)
      loopShape.push_back(getLevelExtent(stage, i));
  Value *range = b.getInt64(1);
  if (!stage.externOp)
    range = b.CreateMul(
        emitShapeProduct(ArrayRef(loopShape).take_front(stage.collapsed)),
        b.getInt64(stage.panels));
  SmallVector<Value *, 16> args(ioArgs.begin(), ioArgs.end());
  if (!stage.parallel) {
    args.push_back(b.getInt64(0));
    args.push_back(range);
    b.CreateCall(stageFn, args);
    return;
  }
  ++info.numParallelStages;
  // The closure: buffer pointers and dims, 8 bytes each.
  llvm::Function *kernel = b.GetInsertBlock()->getParent();
  IRBuilder<> eb(&kernel->getEntryBlock(), kernel->getEntryBlock().begin());
  AllocaInst *closure =
      eb.CreateAlloca(eb.getInt64Ty(), eb.getInt32(args.size()), "closure");
  for (unsigned j = 0; j < args.size(); ++j)
    b.CreateStore(args[j],
                  b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), closure, j));
  // Aim for chunks of about 256K scalar operations: an outer iteration
  // runs the inner axes, whose size may be known only at run time.
  const uint64_t chunk = uint64_t(1) << 18;
  ArrayRef<te::Expr> innerShape = ArrayRef(loopShape).drop_front(stage.collapsed);
  Value *grain;
  if (auto s = te::getConstShape(innerShape)) {
    uint64_t perIteration = std::max<uint64_t>(1, stage.cost / stage.lanes);
    for (int64_t e : *s)
      perIteration = SaturatingMultiply<uint64_t>(
          perIteration, static_cast<uint64_t>(std::max<int64_t>(e, 1)));
    perIteration = std::max<uint64_t>(1, perIteration / stage.panels);
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
  b.CreateCall(getParallelFor(m),
               {range, grain, emitTrampoline(stageFn), closure});
}

Error KernelEmitter::emit(StringRef name, KernelInfo &info) {
  if (Error e = schedule())
    return e;
  estimateStages(info);

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

  // Declared in every kernel, as the calling convention's entry points are.
  getParallelFor(m);
  SmallVector<Value *, 16> args(bufferValues.begin(), bufferValues.end());
  args.append(dimValues.begin(), dimValues.end());
  for (unsigned i = 0; i < stages.size(); ++i)
    emitStageCall(stages[i], stageFns[i], args, info);
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
