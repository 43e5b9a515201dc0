//===- EmitMath.cpp - Math functions emitted as plain arithmetic ----------===//
//
/// \file
/// float32 exp as IR arithmetic instead of a call of llvm.exp (expf): LLVM
/// vectorises a loop only over operations it has vector forms of, and
/// without a vector math library llvm.exp has none, so a softmax or a
/// sigmoid ran one libm call per element. The same instructions apply to a
/// float or to a vector of floats (emitLanes), so the vector form gives the
/// scalar form's values lane by lane.
///
/// The algorithm is Cephes' expf (as in TVM's fast_exp and MLAS): x = n ln2
/// + r with n = round(x / ln2) and r in [-ln2/2, ln2/2] (ln2 split in two so
/// n * ln2's high part is exact), e^r by a degree-7 polynomial, scaled by
/// 2^n as two powers of two (2^(n/2) 2^(n - n/2)) so results in the
/// subnormal range round once and 2^128 needs no exponent beyond float's.
/// Within 1 ulp of the correctly rounded e^x over [-87.3, 88.7] (checked
/// against NumPy by test/Run/fast-exp.nnir); inputs are clamped to
/// [-104, 89], beyond which e^x rounds to 0 or overflows to infinity anyway,
/// and NaN stays NaN.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::codegen;

Value *codegen::emitFastExp(IRBuilderBase &b, Value *x) {
  llvm::Type *ty = x->getType();
  assert(ty->getScalarType()->isFloatTy() && "fast exp is float32 only");
  llvm::Type *intTy = b.getInt32Ty();
  if (auto *v = dyn_cast<VectorType>(ty))
    intTy = VectorType::get(intTy, v->getElementCount());
  auto c = [&](double v) { return ConstantFP::get(ty, v); };
  auto i = [&](int32_t v) { return ConstantInt::getSigned(intTy, v); };
  // Clamped with compares so that NaN is not replaced (it is restored at
  // the end).
  Value *clamped = b.CreateSelect(b.CreateFCmpOGT(x, c(89.0)), c(89.0), x);
  clamped = b.CreateSelect(b.CreateFCmpOLT(clamped, c(-104.0)), c(-104.0),
                           clamped);
  Value *n = b.CreateUnaryIntrinsic(
      Intrinsic::roundeven, b.CreateFMul(clamped, c(1.44269504088896341)));
  // ln2 = 0.693359375 - 2.12194440e-4: the first has 9 significant bits, so
  // n times it (|n| <= 150) is exact and so is the subtraction.
  Value *r = b.CreateFSub(clamped, b.CreateFMul(n, c(0.693359375)));
  r = b.CreateFSub(r, b.CreateFMul(n, c(-2.12194440e-4)));
  // Cephes' minimax polynomial: e^r = 1 + r + r^2 p(r).
  static const double coefficients[] = {
      1.9875691500E-4, 1.3981999507E-3, 8.3334519073E-3,
      4.1665795894E-2, 1.6666665459E-1, 5.0000001201E-1};
  Value *p = c(coefficients[0]);
  for (double k : ArrayRef(coefficients).drop_front())
    p = b.CreateFAdd(b.CreateFMul(p, r), c(k));
  Value *y = b.CreateFAdd(
      b.CreateFAdd(b.CreateFMul(p, b.CreateFMul(r, r)), r), c(1.0));
  // 2^n in two halves, each a normal float: n in [-150, 128].
  Value *ni = b.CreateFPToSI(n, intTy);
  Value *half = b.CreateAShr(ni, i(1));
  Value *rest = b.CreateSub(ni, half);
  auto pow2 = [&](Value *k) {
    return b.CreateBitCast(b.CreateShl(b.CreateAdd(k, i(127)), i(23)), ty);
  };
  Value *result = b.CreateFMul(b.CreateFMul(y, pow2(half)), pow2(rest));
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, result);
}

Value *codegen::emitFastSigmoid(IRBuilderBase &b, Value *x) {
  Value *one = ConstantFP::get(x->getType(), 1.0);
  return b.CreateFDiv(one,
                      b.CreateFAdd(one, emitFastExp(b, b.CreateFNeg(x))));
}
