//===- EmitVector.cpp - Expressions over consecutive lanes of one axis ----===//
//
/// \file
/// KernelEmitter::emitLanes: an expression evaluated at `width` consecutive
/// values of one variable (first, first + 1, ...) as an LLVM vector. Reads
/// whose offset moves by one element per lane become one vector load,
/// values that do not depend on the variable are emitted once and splat,
/// float arithmetic is done on vectors; anything else is evaluated lane by
/// lane with the scalar emitter and inserted, so every expression can be
/// emitted and gives exactly the scalar emitter's values. A read that moves
/// by 2 to 4 elements per lane (a strided convolution) loads the span and
/// shuffles every stride-th element out. A vector may have
/// only its first lanes active (the end of a row): loads are masked, the
/// other lanes are zero.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"
#include "nnir/TE/Inline.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::codegen;

bool codegen::dependsOn(const te::Expr &e, const te::ExprNode *var) {
  bool found = false;
  te::visit(e, [&](const te::ExprNode *n) { found |= n == var; });
  return found;
}

std::optional<int64_t> codegen::getLaneStride(const te::Expr &e,
                                              const te::ExprNode *var) {
  if (e.get() == var)
    return 1;
  if (!dependsOn(e, var))
    return 0;
  const auto *bin = dyn_cast<te::BinaryNode>(e.get());
  if (!bin || !bin->getDType().isInt())
    return std::nullopt;
  std::optional<int64_t> a = getLaneStride(bin->getLHS(), var);
  std::optional<int64_t> c = getLaneStride(bin->getRHS(), var);
  if (!a || !c)
    return std::nullopt;
  switch (bin->getOp()) {
  case te::BinaryOp::Add:
    return *a + *c;
  case te::BinaryOp::Sub:
    return *a - *c;
  case te::BinaryOp::Mul: {
    // One side must be a constant: its stride is 0 and it has a value.
    std::optional<int64_t> lhs = bin->getLHS().getConstInt();
    std::optional<int64_t> rhs = bin->getRHS().getConstInt();
    if (rhs)
      return *a * *rhs;
    if (lhs)
      return *lhs * *c;
    return std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

/// Reads whose index moves by up to this many elements per lane are loaded
/// as one span and shuffled; wider strides go lane by lane.
static constexpr int64_t kMaxLoadStride = 4;

Value *KernelEmitter::getActiveMask(const Lanes &lanes) {
  SmallVector<llvm::Constant *, 16> bits;
  for (unsigned l = 0; l < lanes.width; ++l)
    bits.push_back(b.getInt1(l < lanes.active));
  return ConstantVector::get(bits);
}

Value *KernelEmitter::emitAtLane(const te::Expr &e, const Lanes &lanes,
                                 Value *index) {
  DenseMap<const te::ExprNode *, Value *> saved = memo;
  vars[lanes.var] = index;
  Value *v = emitExpr(e);
  memo = std::move(saved);
  return v;
}

Value *KernelEmitter::emitLanes(const te::Expr &e, Lanes &lanes) {
  auto it = lanes.memo.find(e.get());
  if (it != lanes.memo.end())
    return it->second;
  Value *v = emitLanesImpl(e, lanes);
  lanes.memo[e.get()] = v;
  return v;
}

Value *KernelEmitter::emitLanesImpl(const te::Expr &e, Lanes &lanes) {
  if (!dependsOn(e, lanes.var))
    return b.CreateVectorSplat(lanes.width,
                               emitAtLane(e, lanes, lanes.first));
  DataType t = e.getDType();
  switch (e->getKind()) {
  case te::ExprNode::Kind::Binary: {
    const auto *n = cast<te::BinaryNode>(e.get());
    if (!isPlainFloat(t) || n->getLHS().getDType() != t)
      break;
    switch (n->getOp()) {
    case te::BinaryOp::Add:
      return b.CreateFAdd(emitLanes(n->getLHS(), lanes),
                          emitLanes(n->getRHS(), lanes));
    case te::BinaryOp::Sub:
      return b.CreateFSub(emitLanes(n->getLHS(), lanes),
                          emitLanes(n->getRHS(), lanes));
    case te::BinaryOp::Mul:
      return b.CreateFMul(emitLanes(n->getLHS(), lanes),
                          emitLanes(n->getRHS(), lanes));
    case te::BinaryOp::Div:
      return b.CreateFDiv(emitLanes(n->getLHS(), lanes),
                          emitLanes(n->getRHS(), lanes));
    case te::BinaryOp::Min:
      return intrinsic(Intrinsic::minimum, {emitLanes(n->getLHS(), lanes),
                                            emitLanes(n->getRHS(), lanes)});
    case te::BinaryOp::Max:
      return intrinsic(Intrinsic::maximum, {emitLanes(n->getLHS(), lanes),
                                            emitLanes(n->getRHS(), lanes)});
    default:
      break;
    }
    break;
  }
  case te::ExprNode::Kind::Cast: {
    const auto *c = cast<te::CastNode>(e.get());
    if (c->getOperand().getDType() == t)
      return emitLanes(c->getOperand(), lanes);
    break;
  }
  case te::ExprNode::Kind::Call: {
    // exp and sigmoid are arithmetic (emitFastExp); other calls go lane by
    // lane.
    const auto *c = cast<te::CallNode>(e.get());
    if (!isPlainFloat(t) || !hasFastExp(t) || c->getArgs().size() != 1 ||
        c->getArgs()[0].getDType() != t)
      break;
    if (c->getIntrinsic() == te::Intrinsic::Exp)
      return emitFastExp(b, emitLanes(c->getArgs()[0], lanes));
    if (c->getIntrinsic() == te::Intrinsic::Sigmoid)
      return emitFastSigmoid(b, emitLanes(c->getArgs()[0], lanes));
    break;
  }
  case te::ExprNode::Kind::TensorRead: {
    const auto *r = cast<te::TensorReadNode>(e.get());
    ArrayRef<te::Expr> indices = r->getIndices();
    if (!isPlainFloat(t) || indices.empty() ||
        llvm::any_of(indices.drop_back(), [&](const te::Expr &i) {
          return dependsOn(i, lanes.var);
        }))
      break;
    std::optional<int64_t> stride = getLaneStride(indices.back(), lanes.var);
    if (!stride || *stride < 1 || *stride > kMaxLoadStride)
      break;
    const te::TensorNode *tensor = r->getTensor();
    DenseMap<const te::ExprNode *, Value *> saved = memo;
    vars[lanes.var] = lanes.first;
    Value *offset = emitOffset(tensor, indices);
    memo = std::move(saved);
    llvm::Type *elt = storageType(t);
    Value *ptr = b.CreateInBoundsGEP(elt, bufferPtr(tensor), offset);
    auto *vty = FixedVectorType::get(elt, lanes.width);
    Align align(t.getStorageBytes());
    if (*stride == 1) {
      if (lanes.active == lanes.width)
        return b.CreateAlignedLoad(vty, ptr, align);
      return b.CreateMaskedLoad(vty, ptr, align, getActiveMask(lanes),
                                llvm::Constant::getNullValue(vty));
    }
    // A strided read (a convolution of stride 2): the span of stride *
    // width elements, masked after the last one read, and every stride-th.
    unsigned span = lanes.width * *stride;
    auto *wide = FixedVectorType::get(elt, span);
    SmallVector<llvm::Constant *, 64> bits;
    for (unsigned l = 0; l < span; ++l)
      bits.push_back(b.getInt1(l <= (lanes.active - 1) * *stride));
    Value *all = b.CreateMaskedLoad(wide, ptr, align, ConstantVector::get(bits),
                                    llvm::Constant::getNullValue(wide));
    // Inactive lanes take the span's last element, beyond the mask: zero.
    SmallVector<int, 16> pick;
    for (unsigned l = 0; l < lanes.width; ++l)
      pick.push_back(l < lanes.active ? l * *stride : span - 1);
    return b.CreateShuffleVector(all, pick);
  }
  default:
    break;
  }
  // Lane by lane.
  Value *v = llvm::Constant::getNullValue(
      FixedVectorType::get(computeType(t), lanes.width));
  for (unsigned l = 0; l < lanes.active; ++l)
    v = b.CreateInsertElement(
        v,
        emitAtLane(e, lanes,
                   l ? b.CreateAdd(lanes.first, b.getInt64(l)) : lanes.first),
        l);
  return v;
}
