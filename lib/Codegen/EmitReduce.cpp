//===- EmitReduce.cpp - Reductions in LLVM IR kernels ---------------------===//
//
/// \file
/// The reductions of KernelEmitter (KernelEmitter.h): an accumulator per
/// reduction, sums of float16/bfloat16/float32 in double rounded once at the
/// end, float sums over a long innermost axis in kSumLanes independent
/// lanes, and sums at the top of a stage hoisted out of its last axis so the
/// innermost loop walks the output contiguously.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"
#include "nnir/TE/Inline.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/TargetParser/Host.h"

#include <functional>

using namespace llvm;
using namespace nnir;
using namespace nnir::codegen;

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

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

/// A hoisted float32 sum (emitHoistedSum) adds at most this many terms
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
      case te::Intrinsic::Exp:
      case te::Intrinsic::Sigmoid:
        // Arithmetic in float32 (emitFastExp).
        found |= !hasFastExp(c->getArgs()[0].getDType());
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

void KernelEmitter::emitSumLanes(const te::ReduceNode *n,
                                 const te::IterVar &axis, Value *extent,
                                 AllocaInst *acc) {
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
    Value *values;
    if (isPlainFloat(n->getSource().getDType())) {
      // As vectors where it can (loads, arithmetic, exp), else lane by lane.
      Lanes lanes(axis.var.get(), base, kSumLanes, kSumLanes);
      values = emitLanes(n->getSource(), lanes);
    } else {
      values = PoisonValue::get(FixedVectorType::get(ty, kSumLanes));
      for (unsigned l = 0; l < kSumLanes; ++l) {
        vars[axis.var.get()] = b.CreateAdd(base, b.getInt64(l));
        DenseMap<const te::ExprNode *, Value *> outer = memo;
        values = b.CreateInsertElement(values, emitExpr(n->getSource()), l);
        memo = std::move(outer);
      }
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

/// The accumulator of \p n, in the entry block (SROA promotes it), set to
/// the reduction's initial value.
Accumulator KernelEmitter::createAccumulator(const te::ReduceNode *n) {
  DataType t = n->getSource().getDType();
  te::ReduceKind kind = n->getReduceKind();
  bool isArg = kind == te::ReduceKind::ArgMax || kind == te::ReduceKind::ArgMin;
  llvm::Type *ty = computeType(t);
  bool wide = accumulatesInDouble(kind, t);
  llvm::Type *accTy = wide ? b.getDoubleTy() : ty;
  llvm::Function *f = b.GetInsertBlock()->getParent();
  IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
  Accumulator acc{accTy, entry.CreateAlloca(accTy, nullptr, "acc")};
  acc.wide = wide;
  if (isArg) {
    acc.index = entry.CreateAlloca(b.getInt64Ty(), nullptr, "acc.index");
    acc.position = entry.CreateAlloca(b.getInt64Ty(), nullptr, "acc.pos");
  }

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
    init = emitExpr(te::highestValue(t));
    break;
  case te::ReduceKind::Max:
  case te::ReduceKind::ArgMax:
    init = emitExpr(te::lowestValue(t));
    break;
  }
  b.CreateStore(init, acc.value);
  if (isArg) {
    b.CreateStore(b.getInt64(0), acc.index);
    b.CreateStore(b.getInt64(0), acc.position);
  }
  return acc;
}

/// Adds the source of \p n at the current indices into \p acc.
void KernelEmitter::emitAccumulate(const te::ReduceNode *n,
                                   const Accumulator &acc) {
  DataType t = n->getSource().getDType();
  te::ReduceKind kind = n->getReduceKind();
  Value *v = emitExpr(n->getSource());
  Value *cur = b.CreateLoad(acc.type, acc.value);
  bool isFloat = t.isFloatingPoint();
  bool isSigned = t.isInt();
  Value *next = nullptr;
  switch (kind) {
  case te::ReduceKind::Sum:
    if (acc.wide)
      v = b.CreateFPExt(v, acc.type);
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
    Value *pos = b.CreateLoad(b.getInt64Ty(), acc.position);
    b.CreateStore(b.CreateSelect(take, v, cur), acc.value);
    Value *idx = b.CreateLoad(b.getInt64Ty(), acc.index);
    b.CreateStore(b.CreateSelect(take, pos, idx), acc.index);
    b.CreateStore(b.CreateAdd(pos, b.getInt64(1)), acc.position);
    return;
  }
  }
  b.CreateStore(next, acc.value);
}

/// emitAccumulate, where the condition of \p n holds (a skipped element
/// still takes an argmax/argmin position).
void KernelEmitter::emitConditionalAccumulate(const te::ReduceNode *n,
                                              const Accumulator &acc) {
  if (!n->getCondition())
    return emitAccumulate(n, acc);
  bool isArg = acc.position != nullptr;
  Value *cond = emitExpr(n->getCondition());
  llvm::Function *fnc = b.GetInsertBlock()->getParent();
  BasicBlock *then = BasicBlock::Create(ctx, "reduce.then", fnc);
  BasicBlock *join = BasicBlock::Create(ctx, "reduce.join", fnc);
  BasicBlock *skip = isArg ? BasicBlock::Create(ctx, "reduce.skip", fnc) : join;
  b.CreateCondBr(cond, then, skip);
  b.SetInsertPoint(then);
  emitAccumulate(n, acc);
  b.CreateBr(join);
  if (isArg) {
    b.SetInsertPoint(skip);
    Value *pos = b.CreateLoad(b.getInt64Ty(), acc.position);
    b.CreateStore(b.CreateAdd(pos, b.getInt64(1)), acc.position);
    b.CreateBr(join);
  }
  b.SetInsertPoint(join);
}

Value *KernelEmitter::emitReduce(const te::ReduceNode *n) {
  DataType t = n->getSource().getDType();
  Accumulator acc = createAccumulator(n);
  // Values emitted inside the loops do not dominate the code after them.
  DenseMap<const te::ExprNode *, Value *> savedMemo = memo;
  // Axes of extent 1 (a 1x1 convolution's window) run no loop; lanes go
  // to the innermost other axis.
  ArrayRef<te::IterVar> raxes = n->getAxes();
  unsigned lanesLevel = raxes.size() - 1;
  while (lanesLevel > 0 && raxes[lanesLevel].extent.isConstInt(1))
    --lanesLevel;
  for (const te::IterVar &axis : raxes)
    if (axis.extent.isConstInt(1))
      vars[axis.var.get()] = b.getInt64(0);
  std::function<void(unsigned)> loops = [&](unsigned level) {
    if (level == raxes.size())
      return emitConditionalAccumulate(n, acc);
    const te::IterVar &axis = raxes[level];
    if (axis.extent.isConstInt(1)) {
      loops(level + 1);
      return;
    }
    Value *extent = emitExpr(axis.extent);
    // Lanes for the innermost axis unless it is too short to fill them
    // twice (a convolution's or a pool's window) or the source calls libm.
    std::optional<int64_t> constExtent = axis.extent.getConstInt();
    if (acc.wide && !n->getCondition() && level == lanesLevel &&
        (!constExtent || *constExtent >= 2 * kSumLanes) &&
        !callsLibm(n->getSource())) {
      emitSumLanes(n, axis, extent, acc.value);
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
  if (acc.index)
    return b.CreateIntCast(b.CreateLoad(b.getInt64Ty(), acc.index),
                           computeType(n->getDType()), true);
  Value *result = b.CreateLoad(acc.type, acc.value);
  // One rounding: to float, then to float16/bfloat16, which rounds as one
  // rounding would (float has at least twice their precision plus two
  // bits).
  if (acc.wide)
    result = roundTo(b.CreateFPTrunc(result, computeType(t)), t);
  return result;
}


//===----------------------------------------------------------------------===//
// Sums hoisted out of the last axis
//===----------------------------------------------------------------------===//

/// Whether \p stage's body is a sum run with its reduction loops outside
/// the stage's last axis, and how.
std::optional<HoistedSum> KernelEmitter::planHoistedSum(const Stage &stage) {
  if (stage.externOp)
    return std::nullopt;
  const te::TensorNode *t = stage.tensor.get();
  ArrayRef<te::Expr> shape = t->getShape();
  ArrayRef<te::Expr> axes = t->getAxes();
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
  // every addition). A last axis of extent 1 (a 1x1 output, keepdims) has
  // no row to walk: each element sums on its own, in lanes where long.
  const auto *topSum = dyn_cast<te::ReduceNode>(stage.body.get());
  bool hoist =
      topSum && topSum->getReduceKind() == te::ReduceKind::Sum &&
      !topSum->getCondition() && shape.size() > stage.collapsed &&
      !shape.back().isConstInt(1) &&
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
  if (!hoist)
    return std::nullopt;
  return HoistedSum{topSum, chunk, rowExtent};
}

//===----------------------------------------------------------------------===//
// Tiles of vectors
//===----------------------------------------------------------------------===//

/// A hoisted sum of float32 or float64 with a constant last extent of at
/// least half a vector runs that axis in vectors of one register (the last one masked when the
/// extent is not a multiple), a tile of up to kMaxTileVectors of them
/// summed in registers over the whole reduction: per term one load per
/// vector, where a row summed in memory loads and stores the output too.
/// Where a read of the sum walks the last axis but does not depend on
/// another axis (a convolution's input and its output channel, matmul's b
/// and the row of a), tileRows values of that axis are summed together:
/// each vector loaded feeds tileRows accumulators, the microkernel of a
/// blocked GEMM. The accumulators stay under kAccumulators, leaving the
/// other registers to the loads and splats (AVX-512 and AVX10 have 32
/// vector registers, AVX2 16).
static constexpr unsigned kMaxTileVectors = 8;
static constexpr unsigned kMaxTileRows = 8;

/// A jammed sum whose other outer axes have extent 1 (a matmul) and whose
/// reads along the last axis span more than kPanelMinBytes (the weight:
/// the reduction's length times the last extent) runs the last axis in
/// panels of about kPanelBytes of those reads: each block of rows then
/// reads its panel from the core's L2, where walking the whole row of tiles
/// per block streamed the weight from L3 once per block (rec's 40x120 by
/// 120x6625, 3.2 MB, 14 times per run).
static constexpr uint64_t kPanelMinBytes = uint64_t(1) << 20;
static constexpr uint64_t kPanelBytes = uint64_t(1) << 18;

unsigned KernelEmitter::getVectorBytes() const {
  if (options.vectorBytes)
    return options.vectorBytes;
  static const unsigned host = [] {
    StringMap<bool> features = sys::getHostCPUFeatures();
    return features.lookup("avx512f") ? 64u : 32u;
  }();
  return host;
}

void KernelEmitter::planTiles(Stage &stage) {
  if (stage.externOp || stage.tensor.getShape().size() < 2)
    return;
  std::optional<HoistedSum> plan = planHoistedSum(stage);
  const te::TensorNode *t = stage.tensor.get();
  DataType dtype = t->getDType();
  ArrayRef<te::Expr> axes = t->getAxes();
  std::optional<int64_t> extent = t->getShape().back().getConstInt();
  if (!plan || !isPlainFloat(dtype) || !extent)
    return;
  unsigned bytes = getVectorBytes();
  unsigned width = bytes / dtype.getStorageBytes();
  // A row shorter than half a vector stays a row.
  if (*extent * 2 < width)
    return;
  unsigned accumulators = bytes >= 64 ? 24 : 12;
  int64_t vectors = (*extent + width - 1) / width;
  int64_t tiles = (vectors + kMaxTileVectors - 1) / kMaxTileVectors;
  stage.tileVectors = (vectors + tiles - 1) / tiles;
  stage.lanes = width;
  // The axis to jam: the innermost other axis of constant extent that some
  // read along the last axis does not use.
  const te::ExprNode *lane = axes.back().get();
  SmallVector<const te::TensorReadNode *, 4> reads;
  te::visit(plan->sum->getSource(), [&](const te::ExprNode *n) {
    if (const auto *r = dyn_cast<te::TensorReadNode>(n))
      if (dependsOn(te::Expr(r), lane))
        reads.push_back(r);
  });
  unsigned rank = axes.size();
  for (unsigned a = rank - 1; a-- > 0;) {
    std::optional<int64_t> e = t->getShape()[a].getConstInt();
    if (!e || *e < 2 || llvm::none_of(reads, [&](const te::TensorReadNode *r) {
          return !dependsOn(te::Expr(r), axes[a].get());
        }))
      continue;
    stage.tileRows = std::max<unsigned>(
        1, std::min<int64_t>({accumulators / stage.tileVectors, kMaxTileRows,
                              *e}));
    if (stage.tileRows < 2)
      break;
    // The jammed axis runs just outside the last one.
    for (unsigned i = 0; i < rank; ++i)
      if (i != a)
        stage.order.push_back(i);
    stage.order.insert(stage.order.end() - 1, a);
    planPanels(stage, *plan, *extent, width);
    break;
  }
}

void KernelEmitter::planPanels(Stage &stage, const HoistedSum &plan,
                               int64_t extent, unsigned width) {
  ArrayRef<te::Expr> shape = stage.tensor.getShape();
  for (unsigned level = 0; level + 2 < shape.size(); ++level)
    if (!shape[stage.axisAt(level)].isConstInt(1))
      return;
  uint64_t length = 1;
  for (const te::IterVar &axis : plan.sum->getAxes()) {
    std::optional<int64_t> e = axis.extent.getConstInt();
    if (!e || *e < 1)
      return;
    length = SaturatingMultiply<uint64_t>(length, *e);
  }
  uint64_t bytes = stage.tensor.getDType().getStorageBytes();
  int64_t tiles = extent / width / stage.tileVectors;
  uint64_t tileBytes = SaturatingMultiply<uint64_t>(
      length, uint64_t(stage.tileVectors) * width * bytes);
  if (tiles < 2 || SaturatingMultiply<uint64_t>(tileBytes, tiles) <
                       kPanelMinBytes)
    return;
  stage.panelTiles = std::max<uint64_t>(1, kPanelBytes / tileBytes);
  stage.panels = divideCeil(tiles, stage.panelTiles);
  if (stage.panels < 2)
    stage.panelTiles = 0, stage.panels = 1;
}

void KernelEmitter::emitSumLoops(const HoistedSum &plan,
                                 function_ref<void()> accumulate,
                                 function_ref<void()> flush) {
  ArrayRef<te::IterVar> raxes = plan.sum->getAxes();
  std::function<void(unsigned)> reduceLoops = [&](unsigned level) {
    if (level == raxes.size()) {
      accumulate();
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
    if (!plan.chunk || level != 0) {
      axisLoop(b.getInt64(0), extent);
      return;
    }
    // Blocks of `chunk` iterations, each followed by a flush.
    Value *size = b.getInt64(plan.chunk);
    Value *blocks =
        b.CreateUDiv(b.CreateAdd(extent, b.getInt64(plan.chunk - 1)), size);
    emitLoop(b.getInt64(0), blocks, "block", [&](Value *block) {
      Value *begin = b.CreateMul(block, size);
      Value *end = b.CreateBinaryIntrinsic(Intrinsic::smin,
                                           b.CreateAdd(begin, size), extent);
      axisLoop(begin, end);
      DenseMap<const te::ExprNode *, Value *> saved = memo;
      flush();
      memo = std::move(saved);
    });
  };
  reduceLoops(0);
}

/// Emits the last axis of a hoisted sum's stage (see planHoistedSum): the
/// output row \p out of its tensor, the reduction loops around it; with
/// tiles (planTiles), for each value of the jammed axis in \p rows.
void KernelEmitter::emitHoistedSum(const HoistedSum &plan, const Stage &stage,
                                   ArrayRef<Value *> extents, Value *out,
                                   ArrayRef<Value *> rows, Value *panel) {
  const te::TensorNode *t = stage.tensor.get();
  if (!stage.tileVectors) {
    emitSumRow(plan, t, b.getInt64(0), extents.back(), out);
    return;
  }
  int64_t extent = *t->getShape().back().getConstInt();
  unsigned width = getVectorBytes() / t->getDType().getStorageBytes();
  unsigned perTile = stage.tileVectors;
  int64_t full = extent / width;
  unsigned lastActive = extent % width;
  // Whole tiles of full vectors in a loop, the rest (and a masked vector)
  // in one tile after it.
  int64_t tiles = full / perTile;
  unsigned rest = full % perTile + (lastActive ? 1 : 0);
  DenseMap<const te::ExprNode *, Value *> outer = memo;
  if (panel) {
    // The panel's whole tiles; the rest after the last panel's.
    Value *begin = b.CreateMul(panel, b.getInt64(stage.panelTiles));
    Value *end = b.CreateBinaryIntrinsic(
        Intrinsic::smin, b.CreateAdd(begin, b.getInt64(stage.panelTiles)),
        b.getInt64(tiles));
    emitLoop(begin, end, "tile", [&](Value *i) {
      emitSumTile(plan, stage, out, rows,
                  b.CreateMul(i, b.getInt64(perTile * width)), perTile, width);
    });
    memo = outer;
    if (rest) {
      llvm::Function *f = b.GetInsertBlock()->getParent();
      BasicBlock *last = BasicBlock::Create(ctx, "panel.rest", f);
      BasicBlock *join = BasicBlock::Create(ctx, "panel.end", f);
      b.CreateCondBr(b.CreateICmpEQ(panel, b.getInt64(stage.panels - 1)),
                     last, join);
      b.SetInsertPoint(last);
      emitSumTile(plan, stage, out, rows, b.getInt64(tiles * perTile * width),
                  rest, lastActive ? lastActive : width);
      b.CreateBr(join);
      b.SetInsertPoint(join);
    }
    memo = std::move(outer);
    return;
  }
  if (tiles == 1)
    emitSumTile(plan, stage, out, rows, b.getInt64(0), perTile, width);
  else if (tiles > 1)
    emitLoop(b.getInt64(0), b.getInt64(tiles), "tile", [&](Value *i) {
      emitSumTile(plan, stage, out, rows,
                  b.CreateMul(i, b.getInt64(perTile * width)), perTile, width);
    });
  memo = outer;
  if (rest)
    emitSumTile(plan, stage, out, rows, b.getInt64(tiles * perTile * width),
                rest, lastActive ? lastActive : width);
  memo = std::move(outer);
}

/// \p vectors vectors of the last axis from \p first (the last one with
/// \p lastActive lanes), for each value of the jammed axis in \p rows (or
/// the one bound), each summed in a register.
void KernelEmitter::emitSumTile(const HoistedSum &plan, const Stage &stage,
                                Value *out, ArrayRef<Value *> rows,
                                Value *first, unsigned vectors,
                                unsigned lastActive) {
  const te::TensorNode *t = stage.tensor.get();
  ArrayRef<te::Expr> axes = t->getAxes();
  const te::ExprNode *lane = axes.back().get();
  const te::ExprNode *rowVar =
      rows.empty() ? nullptr : axes[stage.axisAt(axes.size() - 2)].get();
  unsigned numRows = rows.empty() ? 1 : rows.size();
  DataType dtype = t->getDType();
  unsigned width = getVectorBytes() / dtype.getStorageBytes();
  auto *vty = FixedVectorType::get(computeType(dtype), width);
  auto *dvty = FixedVectorType::get(b.getDoubleTy(), width);
  llvm::Function *f = b.GetInsertBlock()->getParent();
  IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
  // Accumulator r * vectors + u: row r, vector u.
  SmallVector<AllocaInst *, 32> acc, wide;
  for (unsigned i = 0; i < numRows * vectors; ++i) {
    acc.push_back(entry.CreateAlloca(vty, nullptr, "tile.acc"));
    b.CreateStore(llvm::Constant::getNullValue(vty), acc.back());
    if (plan.chunk) {
      wide.push_back(entry.CreateAlloca(dvty, nullptr, "tile.row"));
      b.CreateStore(llvm::Constant::getNullValue(dvty), wide.back());
    }
  }
  // A sum of products (convolutions, matmuls) multiplies and adds in one
  // rounding, as TVM's LLVM target allows (FPOpFusion::Fast).
  const te::Expr *source = &plan.sum->getSource();
  while (const auto *c = dyn_cast<te::CastNode>(source->get())) {
    if (c->getOperand().getDType() != dtype)
      break;
    source = &c->getOperand();
  }
  const auto *product = dyn_cast<te::BinaryNode>(source->get());
  if (product && (product->getOp() != te::BinaryOp::Mul ||
                  product->getLHS().getDType() != dtype))
    product = nullptr;
  DenseMap<const te::ExprNode *, Value *> outer = memo;
  auto laneStart = [&](unsigned u) {
    return u ? b.CreateAdd(first, b.getInt64(u * width)) : first;
  };
  auto active = [&](unsigned u) {
    return u + 1 == vectors ? lastActive : width;
  };
  auto bindRow = [&](unsigned r) {
    if (rowVar)
      vars[rowVar] = rows[r];
  };
  emitSumLoops(
      plan,
      [&] {
        for (unsigned r = 0; r < numRows; ++r)
          for (unsigned u = 0; u < vectors; ++u) {
            DenseMap<const te::ExprNode *, Value *> saved = memo;
            bindRow(r);
            Lanes lanes(lane, laneStart(u), width, active(u));
            AllocaInst *slot = acc[r * vectors + u];
            Value *cur = b.CreateLoad(vty, slot);
            Value *next;
            if (product)
              next = b.CreateIntrinsic(Intrinsic::fmuladd, {vty},
                                       {emitLanes(product->getLHS(), lanes),
                                        emitLanes(product->getRHS(), lanes),
                                        cur});
            else
              next =
                  b.CreateFAdd(cur, emitLanes(plan.sum->getSource(), lanes));
            memo = std::move(saved);
            b.CreateStore(next, slot);
          }
      },
      [&] {
        for (unsigned i = 0; i < acc.size(); ++i) {
          Value *partial = b.CreateFPExt(b.CreateLoad(vty, acc[i]), dvty);
          b.CreateStore(b.CreateFAdd(b.CreateLoad(dvty, wide[i]), partial),
                        wide[i]);
          b.CreateStore(llvm::Constant::getNullValue(vty), acc[i]);
        }
      });
  memo = outer;
  for (unsigned r = 0; r < numRows; ++r)
    for (unsigned u = 0; u < vectors; ++u) {
      unsigned i = r * vectors + u;
      Value *total = plan.chunk
                         ? b.CreateFPTrunc(b.CreateLoad(dvty, wide[i]), vty)
                         : b.CreateLoad(vty, acc[i]);
      bindRow(r);
      vars[lane] = laneStart(u);
      Value *ptr = b.CreateInBoundsGEP(storageType(dtype), out,
                                       emitOffset(t, axes));
      memo = outer;
      Align align(dtype.getStorageBytes());
      if (active(u) == width) {
        b.CreateAlignedStore(total, ptr, align);
        continue;
      }
      Lanes lanes(lane, nullptr, width, active(u));
      b.CreateMaskedStore(total, ptr, align, getActiveMask(lanes));
    }
  memo = std::move(outer);
}

/// The elements [\p begin, \p end) of the last axis of \p t, the row
/// summed in the output (and a double row when the plan has one).
void KernelEmitter::emitSumRow(const HoistedSum &plan, const te::TensorNode *t,
                               Value *begin, Value *end, Value *out) {
  ArrayRef<te::Expr> axes = t->getAxes();
  unsigned last = axes.size() - 1;
  DataType dtype = t->getDType();
  llvm::Type *ty = computeType(dtype);
  llvm::Type *dty = b.getDoubleTy();
  auto element = [&](Value *j) {
    vars[axes[last].get()] = j;
    return b.CreateInBoundsGEP(storageType(dtype), out, emitOffset(t, axes));
  };
  AllocaInst *row = nullptr;
  if (plan.chunk) {
    llvm::Function *f = b.GetInsertBlock()->getParent();
    IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    row = entry.CreateAlloca(ArrayType::get(dty, plan.rowExtent), nullptr, "row");
  }
  auto rowElement = [&](Value *j) {
    return b.CreateInBoundsGEP(dty, row, j);
  };
  auto rowLoop = [&](StringRef name, function_ref<void(Value *)> body) {
    emitLoop(begin, end, name, [&](Value *j) {
      DenseMap<const te::ExprNode *, Value *> saved = memo;
      body(j);
      memo = std::move(saved);
    });
  };
  DenseMap<const te::ExprNode *, Value *> outer = memo;
  rowLoop("init", [&](Value *j) {
    store(element(j), llvm::Constant::getNullValue(ty), dtype);
    if (row)
      b.CreateStore(ConstantFP::get(dty, 0.0), rowElement(j));
  });
  memo = outer;
  emitSumLoops(
      plan,
      [&] {
        rowLoop("acc", [&](Value *j) {
          Value *ptr = element(j);
          Value *v = emitExpr(plan.sum->getSource());
          Value *cur = load(ptr, dtype);
          store(ptr,
                dtype.isFloatingPoint() ? b.CreateFAdd(cur, v)
                                        : b.CreateAdd(cur, v),
                dtype);
        });
      },
      [&] {
        rowLoop("flush", [&](Value *j) {
          Value *ptr = element(j);
          Value *partial = b.CreateFPExt(load(ptr, dtype), dty);
          Value *slot = rowElement(j);
          b.CreateStore(b.CreateFAdd(b.CreateLoad(dty, slot), partial), slot);
          store(ptr, llvm::Constant::getNullValue(ty), dtype);
        });
      });
  if (row) {
    memo = outer;
    rowLoop("final", [&](Value *j) {
      Value *total = b.CreateLoad(dty, rowElement(j));
      store(element(j), b.CreateFPTrunc(total, ty), dtype);
    });
  }
  memo = std::move(outer);
}
