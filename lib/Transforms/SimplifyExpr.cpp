//===- SimplifyExpr.cpp - Algebraic simplifications -----------------------===//
//
/// \file
/// Implements SimplifyExpr (see SimplifyExpr.h): an ExprMutator whose
/// post-order call hook applies the rows of kRewrites to the call, and again
/// to what a row returns, until none applies. Every node the walk returns
/// carries its checked type (a rebuilt node takes the type of the node it
/// replaces; a built call is typed by ops::typeCheck), so each rewrite reads
/// the types of its operands, old or new, and new calls are simplified as
/// they are built (Relay reaches the same fixed point by rerunning its
/// pattern rewriter and InferType over the whole function).
//
//===----------------------------------------------------------------------===//

#include "nnir/Transforms/SimplifyExpr.h"
#include "nnir/Transforms/Passes.h"

#include "PatternUtils.h"

#include "nnir/IR/ExprMutator.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Layout.h"
#include "nnir/Ops/TypeRelations.h"
#include "nnir/Pass/PassContext.h"
#include "nnir/Pass/PassRegistry.h"

#include "llvm/ADT/SmallVector.h"

#include <cfloat>
#include <cmath>

using namespace llvm;
using namespace nnir;
using namespace nnir::patterns;

namespace {

/// The operators the rewrites match or build.
constexpr StringRef kOpNames[] = {
    "reshape",      "reverse_reshape",   "reshape_like",      "transpose",
    "layout_transform", "add",           "subtract",          "multiply",
    "divide",       "sqrt",              "rsqrt",             "cast",
    "cast_like",    "clip",              "zeros",             "ones",
    "full",         "zeros_like",        "ones_like",         "full_like",
    "broadcast_to", "broadcast_to_like", "collapse_sum_like", "collapse_sum_to"};

/// How many rewrites the calls under one node of the walk may go through
/// (those built by rewrites included), and how deep rewrites may simplify
/// the calls they build: bounds that no rewrite sequence of the table
/// reaches, kept so that a row that undoes another cannot loop forever.
constexpr unsigned kMaxRewritesPerNode = 256;
constexpr unsigned kMaxDepth = 32;

class ExprSimplifier;

/// One row of the table: Relay's name for the rewrite, and the function that
/// applies it to a typed call of an operator, returning the replacement or
/// null when the rewrite does not apply.
struct Rewrite {
  StringLiteral name;
  Ref<Expr> (*apply)(ExprSimplifier &s, const Call &call);
  /// True if the rewrite reads no extent, so it also applies to calls with
  /// `?` extents; the others would take a `?` for an extent, and TVM's
  /// patterns skip dynamic shapes too (SimplifyReshape needs a static
  /// result, ConcretizeLike a static `like`).
  bool shapeAgnostic = false;
};

//===----------------------------------------------------------------------===//
// Facts about dtypes
//===----------------------------------------------------------------------===//

/// The bits of the significand of a floating-point dtype (the integers up to
/// 2^p are exact), or 0.
unsigned getSignificandBits(DataType t) {
  if (t.isBFloat())
    return 8;
  if (!t.isFloatingPoint())
    return 0;
  return t.getBits() == 16 ? 11 : t.getBits() == 32 ? 24 : 53;
}

/// The range [lowest, highest] of a dtype (Relay's min_value/max_value).
std::pair<double, double> getRange(DataType t) {
  if (t.isBool())
    return {0, 1};
  if (t.isInt())
    return {-std::ldexp(1.0, t.getBits() - 1),
            std::ldexp(1.0, t.getBits() - 1) - 1};
  if (t.isUInt())
    return {0, std::ldexp(1.0, t.getBits()) - 1};
  double max = t.isBFloat()           ? 3.3895313892515355e38
               : t.getBits() == 16    ? 65504.0
               : t.getBits() == 32    ? double(FLT_MAX)
                                      : DBL_MAX;
  return {-max, max};
}

/// True if every value of \p from is a value of \p to, so a cast to \p to
/// and on to a third dtype is the cast to that dtype.
bool holdsEveryValue(DataType from, DataType to) {
  if (from == to || from.isBool())
    return true;
  if (from.isFloatingPoint()) {
    if (!to.isFloatingPoint())
      return false;
    if (from.isBFloat())
      return !to.isBFloat() && to.getBits() >= 32;
    return !to.isBFloat() && to.getBits() > from.getBits();
  }
  // Integers: a float holds them up to 2^significand.
  if (to.isFloatingPoint())
    return from.getBits() - (from.isInt() ? 1 : 0) <= getSignificandBits(to);
  if (to.isBool())
    return false;
  if (from.isInt())
    return to.isInt() && to.getBits() >= from.getBits();
  return to.getBits() > from.getBits() ||
         (to.isUInt() && to.getBits() == from.getBits());
}

/// Relay's IsWidenCast: the same kind and no fewer bits, or a kind later in
/// int, uint, float with no fewer bits (bfloat16 never).
bool isWidenCast(DataType from, DataType to) {
  if (from.getCode() == to.getCode() && from.getBits() <= to.getBits())
    return true;
  if (from.isBFloat() || to.isBFloat())
    return false;
  return from.getCode() < to.getCode() && from.getBits() <= to.getBits();
}

/// True if [lo, hi] lies in the range of \p t.
bool rangeHolds(DataType t, double lo, double hi) {
  auto [lowest, highest] = getRange(t);
  return hi <= highest && lo >= lowest;
}

//===----------------------------------------------------------------------===//
// Constant arithmetic (Relay folds c1 + c2 and c1 * c2 with FoldConstant)
//===----------------------------------------------------------------------===//

/// \p a + \p b or \p a * \p b with NumPy broadcasting, or nothing for an
/// unsupported dtype or a large result. Floating-point results are computed
/// in double and rounded once, which is the correctly rounded result of the
/// operation in the narrower type; integers wrap.
std::optional<NDArray> evaluateBinary(bool isAdd, const NDArray &a,
                                      const NDArray &b) {
  DataType t = a.getDType();
  if (b.getDType() != t || t.isBool() || (!t.isFloatingPoint() && !t.isInteger()))
    return std::nullopt;
  std::optional<Shape> shape = broadcastShapes(a.getShape(), b.getShape());
  if (!shape)
    return std::nullopt;
  Expected<NDArray> out = NDArray::create(t, *shape, /*maxBytes=*/1 << 24);
  if (!out) {
    consumeError(out.takeError());
    return std::nullopt;
  }
  // Row-major strides of each operand over the result's axes (0 where it
  // broadcasts).
  size_t rank = shape->size();
  auto strides = [&](ArrayRef<int64_t> s) {
    SmallVector<int64_t, 6> result(rank, 0);
    int64_t stride = 1;
    for (size_t i = 0; i < s.size(); ++i) {
      size_t axis = rank - 1 - i, dim = s.size() - 1 - i;
      result[axis] = s[dim] == 1 ? 0 : stride;
      stride *= s[dim];
    }
    return result;
  };
  SmallVector<int64_t, 6> sa = strides(a.getShape()), sb = strides(b.getShape());
  SmallVector<int64_t, 6> index(rank, 0);
  for (int64_t n = 0, e = out->getNumElements(); n != e; ++n) {
    int64_t ia = 0, ib = 0;
    for (size_t d = 0; d < rank; ++d) {
      ia += index[d] * sa[d];
      ib += index[d] * sb[d];
    }
    if (t.isFloatingPoint()) {
      double x = a.getElementAsDouble(ia), y = b.getElementAsDouble(ib);
      out->setElementFromDouble(n, isAdd ? x + y : x * y);
    } else {
      uint64_t x = a.getElementAsInt(ia), y = b.getElementAsInt(ib);
      out->setElementFromInt(n, int64_t(isAdd ? x + y : x * y));
    }
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < (*shape)[d])
        break;
      index[d] = 0;
    }
  }
  return std::move(*out);
}

//===----------------------------------------------------------------------===//
// Layouts as permutations
//===----------------------------------------------------------------------===//

/// The text of a layout's axes ("NCHW4c").
std::string getLayoutText(ArrayRef<LayoutAxis> axes) {
  std::string text;
  for (const LayoutAxis &axis : axes) {
    if (!axis.isPrimal())
      text += std::to_string(axis.factor);
    text += axis.name;
  }
  return text;
}

std::optional<Layout> parseLayout(StringRef text) {
  Expected<Layout> layout = Layout::parse(text);
  if (!layout) {
    consumeError(layout.takeError());
    return std::nullopt;
  }
  return std::move(*layout);
}

//===----------------------------------------------------------------------===//
// The simplifier
//===----------------------------------------------------------------------===//

class ExprSimplifier : public ExprMutator {
public:
  ExprSimplifier(OpSet ops, const SimplifyExprOptions &options)
      : ops(std::move(ops)), options(options) {}

  Ref<Expr> rewriteCall(Call *pre, Call *post) override {
    budget = kMaxRewritesPerNode;
    if (post == pre || post->getCheckedType() || !pre->getCheckedType())
      return simplify(Ref<Expr>(post));
    return simplify(Call::get(post->getCallee(), post->getArgs(),
                              post->getAttrs(), post->getLoc(),
                              pre->getCheckedType()));
  }
  Ref<Expr> rewriteTuple(Tuple *pre, Tuple *post) override {
    if (post == pre || post->getCheckedType() || !pre->getCheckedType())
      return post;
    return Tuple::get(post->getFields(), post->getLoc(),
                      pre->getCheckedType());
  }
  Ref<Expr> rewriteTupleGetItem(TupleGetItem *pre,
                                TupleGetItem *post) override {
    if (post == pre || post->getCheckedType() || !pre->getCheckedType())
      return post;
    return TupleGetItem::get(post->getTuple(), post->getIndex(),
                             post->getLoc(), pre->getCheckedType());
  }
  Ref<Expr> rewriteLet(Let *pre, Let *post) override {
    if (post == pre || post->getCheckedType() || !pre->getCheckedType())
      return post;
    return Let::get(post->getVar(), post->getValue(), post->getBody(),
                    post->getLoc(), pre->getCheckedType());
  }
  Ref<Expr> rewriteIf(If *pre, If *post) override {
    if (post == pre || post->getCheckedType() || !pre->getCheckedType())
      return post;
    return If::get(post->getCond(), post->getThen(), post->getElse(),
                   post->getLoc(), pre->getCheckedType());
  }

  /// Applies the table to \p e, and to each replacement, until no row
  /// applies.
  Ref<Expr> simplify(Ref<Expr> e);

  //===--------------------------------------------------------------------===//
  // What the rewrites use
  //===--------------------------------------------------------------------===//

  Op *op(StringRef name) const { return ops[name]; }
  bool allowInexact() const { return options.allowInexact; }

  /// The call \p e of the operator \p name, or null.
  const Call *callOf(const Expr *e, StringRef name) const {
    const auto *call = dyn_cast_or_null<Call>(e);
    return call && call->getCalledOp() == ops[name] ? call : nullptr;
  }

  /// True if \p e has the checked type \p type.
  static bool hasType(const Expr *e, const Type *type) {
    return e->getCheckedType() && typesEqual(e->getCheckedType().get(), type);
  }

  /// Types \p built (a call of typed arguments) and simplifies it; null if
  /// it does not type-check, or (with \p expected) has another type.
  Ref<Expr> make(const Ref<Expr> &built, const Type *expected = nullptr) {
    Expected<Ref<Expr>> typed = ops::typeCheck(built);
    if (!typed) {
      consumeError(typed.takeError());
      return nullptr;
    }
    if (expected && !hasType(typed->get(), expected))
      return nullptr;
    if (depth >= kMaxDepth)
      return *typed;
    ++depth;
    Ref<Expr> result = simplify(std::move(*typed));
    --depth;
    return result;
  }

  /// c1 + c2 or c1 * c2 of two constants, or null.
  Ref<Expr> fold(bool isAdd, const Constant &c1, const Constant &c2) {
    std::optional<NDArray> value =
        evaluateBinary(isAdd, c1.getData(), c2.getData());
    if (!value)
      return nullptr;
    return Constant::get(std::move(*value), c2.getLoc());
  }

  int64_t numSimplified = 0;

private:
  OpSet ops;
  SimplifyExprOptions options;
  unsigned depth = 0;
  unsigned budget = 0;
};

/// The tensor type of \p e, or null.
const TensorType *tensorTypeOf(const Expr *e) {
  return dyn_cast_or_null<TensorType>(e->getCheckedType().get());
}

Ref<Expr> refTo(const Expr *e) { return Ref<Expr>(const_cast<Expr *>(e)); }

//===----------------------------------------------------------------------===//
// ConcretizeLike: the *_like operators become their static forms
//===----------------------------------------------------------------------===//

/// cast_like(data, like) is cast(data, like's dtype): no shape involved, so
/// it applies with `?` extents (TVM's test_concretize_cast_like).
Ref<Expr> concretizeCastLike(ExprSimplifier &s, const Call &call) {
  if (call.getCalledOp() != s.op("cast_like") || call.getNumArgs() != 2)
    return nullptr;
  const TensorType *type = tensorTypeOf(&call);
  return s.make(ops::cast(call.getArg(0), type->getDType(), call.getLoc()),
                type);
}

Ref<Expr> concretizeLike(ExprSimplifier &s, const Call &call) {
  Op *op = call.getCalledOp();
  const TensorType *type = tensorTypeOf(&call);
  IntList shape(type->getShape().begin(), type->getShape().end());
  DataType dtype = type->getDType();
  SMLoc loc = call.getLoc();
  if (op == s.op("zeros_like"))
    return s.make(ops::zeros(shape, dtype, loc), type);
  if (op == s.op("ones_like"))
    return s.make(ops::ones(shape, dtype, loc), type);
  if (call.getNumArgs() != 2)
    return nullptr;
  const Ref<Expr> &data = call.getArg(0);
  if (op == s.op("full_like"))
    return s.make(ops::full(call.getArg(1), shape, dtype, loc), type);
  if (op == s.op("reshape_like"))
    return s.make(ops::reshape(data, shape, loc), type);
  if (op == s.op("broadcast_to_like"))
    return s.make(ops::broadcastTo(data, shape, loc), type);
  if (op == s.op("collapse_sum_like"))
    return s.make(ops::collapseSumTo(data, shape, loc), type);
  if (op == s.op("cast_like"))
    return s.make(ops::cast(data, dtype, loc), type);
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

/// SimplifyAdd: x + x is x * 2, exactly (for floats too: doubling rounds
/// nothing).
Ref<Expr> simplifyAdd(ExprSimplifier &s, const Call &call) {
  if (call.getCalledOp() != s.op("add") || call.getNumArgs() != 2 ||
      call.getArg(0) != call.getArg(1))
    return nullptr;
  const TensorType *type = tensorTypeOf(&call);
  if (type->getDType().isBool())
    return nullptr;
  return s.make(ops::multiply(call.getArg(0),
                              Constant::getScalar(type->getDType(), 2.0,
                                                  call.getLoc()),
                              call.getLoc()),
                type);
}

/// SimplifyRSqrt: n / sqrt(x) is n * rsqrt(x) (inexact: rsqrt rounds once
/// where sqrt and the division round twice).
Ref<Expr> simplifyRSqrt(ExprSimplifier &s, const Call &call) {
  if (!s.allowInexact() || call.getCalledOp() != s.op("divide") ||
      call.getNumArgs() != 2)
    return nullptr;
  const Call *root = s.callOf(call.getArg(1).get(), "sqrt");
  if (!root || root->getNumArgs() != 1)
    return nullptr;
  Ref<Expr> rsqrt = s.make(ops::rsqrt(root->getArg(0), root->getLoc()));
  if (!rsqrt)
    return nullptr;
  return s.make(ops::multiply(call.getArg(0), rsqrt, call.getLoc()),
                tensorTypeOf(&call));
}

/// True if \p e is a constant whose every element is \p value, or a
/// zeros/ones (_like) call of that value. Floating-point zeros match only
/// with \p value's sign (zeros() makes +0) unless \p anySign.
bool isIdentity(const ExprSimplifier &s, const Expr *e, double value,
                bool anySign) {
  auto matches = [&](double element, DataType dtype) {
    return element == value &&
           (anySign || !dtype.isFloatingPoint() ||
            std::signbit(element) == std::signbit(value));
  };
  if (const auto *constant = dyn_cast<Constant>(e)) {
    const NDArray &data = constant->getData();
    // One value repeated (a splat): its first element decides.
    int64_t n = data.isRepeated() ? 1 : data.getNumElements();
    for (int64_t i = 0; i < n; ++i)
      if (!matches(data.getElementAsDouble(i), data.getDType()))
        return false;
    return true;
  }
  bool zeros = s.callOf(e, "zeros") || s.callOf(e, "zeros_like");
  bool ones = s.callOf(e, "ones") || s.callOf(e, "ones_like");
  const TensorType *type = tensorTypeOf(e);
  if (!type || !(zeros || ones))
    return false;
  return matches(zeros ? 0.0 : 1.0, type->getDType());
}

/// EliminateIdentity: x + 0, 0 + x, x - 0, x * 1, 1 * x and x / 1 are x
/// when the result has x's type. Exact for x + (-0) and x - (+0) (x + (+0)
/// turns x = -0 into +0, x - (-0) likewise); integers have one zero. With
/// allowInexact any zero goes, as in Relay.
Ref<Expr> eliminateIdentity(ExprSimplifier &s, const Call &call) {
  Op *op = call.getCalledOp();
  bool isAdd = op == s.op("add"), isMultiply = op == s.op("multiply");
  bool isSubtract = op == s.op("subtract");
  if ((!isAdd && !isMultiply && !isSubtract && op != s.op("divide")) ||
      call.getNumArgs() != 2)
    return nullptr;
  const TensorType *type = tensorTypeOf(&call);
  double identity = isAdd ? -0.0 : isSubtract ? 0.0 : 1.0;
  bool anySign = s.allowInexact();
  if (isIdentity(s, call.getArg(1).get(), identity, anySign) &&
      ExprSimplifier::hasType(call.getArg(0).get(), type))
    return call.getArg(0);
  if ((isAdd || isMultiply) &&
      isIdentity(s, call.getArg(0).get(), identity, anySign) &&
      ExprSimplifier::hasType(call.getArg(1).get(), type))
    return call.getArg(1);
  return nullptr;
}

/// The fill value of a zeros, ones, full (of a 0-d constant) or _like call
/// \p e as a scalar constant of the call's dtype, or null.
Ref<Expr> getFillValue(const ExprSimplifier &s, const Expr *e) {
  const TensorType *type = tensorTypeOf(e);
  if (!type)
    return nullptr;
  DataType dtype = type->getDType();
  SMLoc loc = e->getLoc();
  if (s.callOf(e, "zeros") || s.callOf(e, "zeros_like"))
    return Constant::getScalar(dtype, 0.0, loc);
  if (s.callOf(e, "ones") || s.callOf(e, "ones_like"))
    return Constant::getScalar(dtype, 1.0, loc);
  const Call *full = s.callOf(e, "full");
  if (!full)
    full = s.callOf(e, "full_like");
  if (!full || full->getNumArgs() == 0)
    return nullptr;
  const auto *fill = dyn_cast<Constant>(full->getArgs().back().get());
  if (!fill || !fill->isScalar())
    return nullptr;
  DataType fillType = fill->getData().getDType();
  if (fillType == dtype)
    return refTo(fill);
  // full converts the value to its dtype; through a double only where that
  // is the same conversion.
  if (fillType.getBits() == 64 && !fillType.isFloatingPoint())
    return nullptr;
  return Constant::getScalar(dtype, fill->getData().getElementAsDouble(0), loc);
}

/// FullElementwise: a broadcasting operator with a zeros/ones/full operand
/// takes the fill value as a scalar, when the other operand has the
/// result's type (exact: the same values reach every element).
Ref<Expr> fullElementwise(ExprSimplifier &s, const Call &call) {
  if (call.getNumArgs() != 2 ||
      getOpPattern(call.getCalledOp()) != OpPatternKind::Broadcast)
    return nullptr;
  const TensorType *type = tensorTypeOf(&call);
  for (unsigned side = 0; side < 2; ++side) {
    const Ref<Expr> &x = call.getArg(1 - side);
    Ref<Expr> value = getFillValue(s, call.getArg(side).get());
    if (!value || !ExprSimplifier::hasType(x.get(), type))
      continue;
    SmallVector<Ref<Expr>, 2> args = {x, value};
    if (side == 0)
      std::swap(args[0], args[1]);
    return s.make(Call::get(call.getCallee(), args, call.getAttrs(),
                            call.getLoc()),
                  type);
  }
  return nullptr;
}

/// True if constants may be regrouped in \p type's arithmetic: integers
/// wrap, so it is associative and distributive; floats round.
bool mayReassociate(const ExprSimplifier &s, const TensorType *type) {
  return type->getDType().isInteger() || s.allowInexact();
}

/// Calls \p f(x, c) for each way \p call (of \p opName) is x op c with a
/// constant c and a non-constant x; stops at the first non-null result.
template <typename Fn>
Ref<Expr> forEachConstantOperand(const ExprSimplifier &s, const Expr *e,
                                 StringRef opName, Fn f) {
  const Call *call = s.callOf(e, opName);
  if (!call || call->getNumArgs() != 2)
    return nullptr;
  for (unsigned side = 0; side < 2; ++side) {
    const auto *c = dyn_cast<Constant>(call->getArg(1 - side).get());
    const Ref<Expr> &x = call->getArg(side);
    if (c && !isa<Constant>(x.get()))
      if (Ref<Expr> result = f(x, *c))
        return result;
  }
  return nullptr;
}

/// SwitchAddMultiply: (x + c1) * c2 is x * c2 + c1 * c2, c1 * c2 folded.
Ref<Expr> switchAddMultiply(ExprSimplifier &s, const Call &call) {
  const TensorType *type = tensorTypeOf(&call);
  if (!mayReassociate(s, type))
    return nullptr;
  return forEachConstantOperand(
      s, &call, "multiply", [&](const Ref<Expr> &sum, const Constant &c2) {
        return forEachConstantOperand(
            s, sum.get(), "add", [&](const Ref<Expr> &x, const Constant &c1) {
              Ref<Expr> folded = s.fold(/*isAdd=*/false, c1, c2);
              Ref<Expr> product =
                  folded ? s.make(ops::multiply(x, refTo(&c2), call.getLoc()))
                         : nullptr;
              if (!product)
                return Ref<Expr>();
              return s.make(ops::add(product, folded, call.getLoc()), type);
            });
      });
}

/// SimplifyAdjacentMultiplyOrAdd: (x * c1) * c2 is x * (c1 * c2), and
/// (x + c1) + c2 is x + (c1 + c2), the constants folded.
Ref<Expr> simplifyAdjacentMultiplyOrAdd(ExprSimplifier &s, const Call &call) {
  bool isAdd = call.getCalledOp() == s.op("add");
  if (!isAdd && call.getCalledOp() != s.op("multiply"))
    return nullptr;
  const TensorType *type = tensorTypeOf(&call);
  if (!mayReassociate(s, type))
    return nullptr;
  StringRef name = isAdd ? "add" : "multiply";
  return forEachConstantOperand(
      s, &call, name, [&](const Ref<Expr> &inner, const Constant &c2) {
        return forEachConstantOperand(
            s, inner.get(), name, [&](const Ref<Expr> &x, const Constant &c1) {
              Ref<Expr> folded = s.fold(isAdd, c1, c2);
              if (!folded)
                return Ref<Expr>();
              return s.make(Call::get(call.getCallee(), {x, folded}, nullptr,
                                      call.getLoc()),
                            type);
            });
      });
}

/// One term of a binomial: coefficient * u * v (no coefficient: 1).
struct Term {
  const Constant *coefficient = nullptr;
  const Expr *u = nullptr, *v = nullptr;
};

/// \p e as c * (u * v), (u * v) * c, u * (c * v) (either order at each
/// multiply), or u * v; u and v are not constants.
std::optional<Term> getTerm(const ExprSimplifier &s, const Expr *e) {
  const Call *product = s.callOf(e, "multiply");
  if (!product || product->getNumArgs() != 2)
    return std::nullopt;
  for (unsigned side = 0; side < 2; ++side) {
    const Expr *a = product->getArg(side).get();
    const Expr *b = product->getArg(1 - side).get();
    const Call *inner = s.callOf(b, "multiply");
    if (!inner || inner->getNumArgs() != 2)
      continue;
    const Expr *i0 = inner->getArg(0).get(), *i1 = inner->getArg(1).get();
    if (const auto *c = dyn_cast<Constant>(a)) {
      if (!isa<Constant>(i0) && !isa<Constant>(i1))
        return Term{c, i0, i1};
    } else {
      for (unsigned is = 0; is < 2; ++is)
        if (const auto *c = dyn_cast<Constant>(inner->getArg(is).get()))
          if (!isa<Constant>(inner->getArg(1 - is).get()))
            return Term{c, a, inner->getArg(1 - is).get()};
    }
  }
  const Expr *p0 = product->getArg(0).get(), *p1 = product->getArg(1).get();
  if (isa<Constant>(p0) || isa<Constant>(p1))
    return std::nullopt;
  return Term{nullptr, p0, p1};
}

/// SimplifyBinomial: a*x*x + b*x*y + c*y*y (any order of the terms and of
/// the factors) is a * (x + p*y) * (x + q*y) with p, q the roots of
/// a*t^2 - b*t + c, when they are real (inexact: the roots are rounded).
Ref<Expr> simplifyBinomial(ExprSimplifier &s, const Call &call) {
  if (!s.allowInexact() || call.getCalledOp() != s.op("add") ||
      call.getNumArgs() != 2)
    return nullptr;
  const TensorType *type = tensorTypeOf(&call);
  DataType dtype = type->getDType();
  if (dtype != DataType::int32() && dtype != DataType::float32() &&
      dtype != DataType::float64())
    return nullptr;
  for (unsigned side = 0; side < 2; ++side) {
    const Call *inner = s.callOf(call.getArg(side).get(), "add");
    if (!inner || inner->getNumArgs() != 2)
      continue;
    std::optional<Term> terms[] = {getTerm(s, inner->getArg(0).get()),
                                   getTerm(s, inner->getArg(1).get()),
                                   getTerm(s, call.getArg(1 - side).get())};
    if (!terms[0] || !terms[1] || !terms[2])
      continue;
    SmallVector<const Term *, 2> squares;
    const Term *cross = nullptr;
    for (const std::optional<Term> &term : terms)
      (term->u == term->v ? squares.push_back(&*term) : void(cross = &*term));
    if (squares.size() != 2 || !cross)
      continue;
    const Expr *x = squares[0]->u, *y = squares[1]->u;
    if (x == y || !((cross->u == x && cross->v == y) ||
                    (cross->u == y && cross->v == x)))
      continue;
    if (!ExprSimplifier::hasType(x, type) || !ExprSimplifier::hasType(y, type))
      continue;
    auto coefficient = [&](const Term *term, double &value) {
      if (!term->coefficient)
        return (value = 1.0), true;
      if (!term->coefficient->isScalar() ||
          term->coefficient->getData().getDType() != dtype)
        return false;
      value = term->coefficient->getData().getElementAsDouble(0);
      return true;
    };
    double a, b, c;
    if (!coefficient(squares[0], a) || !coefficient(cross, b) ||
        !coefficient(squares[1], c))
      continue;
    if (c == 1 && a > 1) {
      std::swap(x, y);
      std::swap(a, c);
    }
    double discriminant = b * b - 4 * a * c;
    if (discriminant < 0)
      return nullptr;
    bool same = discriminant < 10e-5;
    double root = std::sqrt(discriminant);
    SMLoc loc = call.getLoc();
    auto factor = [&](double p) -> Ref<Expr> {
      Ref<Expr> scaled = s.make(
          ops::multiply(refTo(y), Constant::getScalar(dtype, p, loc), loc));
      return scaled ? s.make(ops::add(refTo(x), scaled, loc)) : nullptr;
    };
    Ref<Expr> first = factor((b + root) / (2 * a));
    Ref<Expr> second = same ? first : factor((b - root) / (2 * a));
    if (!first || !second)
      return nullptr;
    Ref<Expr> product = s.make(ops::multiply(first, second, loc));
    if (!product)
      return nullptr;
    return s.make(
        ops::multiply(Constant::getScalar(dtype, a, loc), product, loc), type);
  }
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Reshapes, transposes and layouts
//===----------------------------------------------------------------------===//

/// SimplifyReshape: reshape or reverse_reshape of reshape or
/// reverse_reshape is one reshape to the (static) result shape; a reshape
/// whose result has its input's type is its input.
Ref<Expr> simplifyReshape(ExprSimplifier &s, const Call &call) {
  auto isReshape = [&](const Expr *e) -> const Call * {
    const Call *c = s.callOf(e, "reshape");
    if (!c)
      c = s.callOf(e, "reverse_reshape");
    return c && c->getNumArgs() == 1 ? c : nullptr;
  };
  if (!isReshape(&call))
    return nullptr;
  const TensorType *type = tensorTypeOf(&call);
  Ref<Expr> data = call.getArg(0);
  if (const Call *inner = isReshape(data.get()))
    data = inner->getArg(0);
  if (ExprSimplifier::hasType(data.get(), type))
    return data;
  if (data == call.getArg(0))
    return nullptr;
  IntList shape(type->getShape().begin(), type->getShape().end());
  return s.make(ops::reshape(data, std::move(shape), call.getLoc()), type);
}

/// The permutation \p call applies to a rank-\p rank tensor (result axis i
/// is input axis order[i]): a transpose, or a layout_transform between two
/// orderings of the same axes. Nothing otherwise.
std::optional<SmallVector<int64_t, 6>>
getPermutation(const ExprSimplifier &s, const Call &call, int64_t rank) {
  SmallVector<int64_t, 6> order;
  if (s.callOf(&call, "transpose")) {
    const auto *attrs = getAttrsAs<TransposeAttrs>(call);
    if (!attrs)
      return std::nullopt;
    if (!attrs->axes || attrs->axes->empty()) {
      for (int64_t i = rank - 1; i >= 0; --i)
        order.push_back(i);
      return order;
    }
    if (static_cast<int64_t>(attrs->axes->size()) != rank)
      return std::nullopt;
    for (int64_t axis : *attrs->axes)
      order.push_back(axis < 0 ? axis + rank : axis);
    return order;
  }
  const auto *attrs = s.callOf(&call, "layout_transform")
                          ? getAttrsAs<LayoutTransformAttrs>(call)
                          : nullptr;
  std::optional<Layout> src = attrs ? parseLayout(attrs->srcLayout) : std::nullopt;
  std::optional<Layout> dst = attrs ? parseLayout(attrs->dstLayout) : std::nullopt;
  if (!src || !dst || src->getRank() != rank || dst->getRank() != rank)
    return std::nullopt;
  for (const LayoutAxis &axis : dst->getAxes()) {
    int position = src->find(axis.name);
    if (position < 0 || (*src)[position].factor != axis.factor)
      return std::nullopt;
    order.push_back(position);
  }
  return order;
}

bool isIdentityOrder(ArrayRef<int64_t> order) {
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i] != static_cast<int64_t>(i))
      return false;
  return true;
}

/// The layouts (src, dst) of one layout_transform doing what \p outer of
/// \p inner does, at least one of them a layout_transform that is not a
/// permutation (\p innerOrder, \p outerOrder: the others' permutations).
std::optional<std::pair<std::string, std::string>>
mergeLayouts(const ExprSimplifier &s, const Call &outer, const Call &inner,
             const std::optional<SmallVector<int64_t, 6>> &outerOrder,
             const std::optional<SmallVector<int64_t, 6>> &innerOrder) {
  auto layoutsOf = [&](const Call &c) -> const LayoutTransformAttrs * {
    return s.callOf(&c, "layout_transform")
               ? getAttrsAs<LayoutTransformAttrs>(c)
               : nullptr;
  };
  const LayoutTransformAttrs *in = layoutsOf(inner), *out = layoutsOf(outer);
  // Two layout_transforms through one intermediate layout.
  if (in && out) {
    if (in->dstLayout != out->srcLayout)
      return std::nullopt;
    return std::make_pair(in->srcLayout, out->dstLayout);
  }
  // A permutation, then a layout_transform from src: the input is in the
  // layout whose permutation is src.
  if (out && innerOrder) {
    std::optional<Layout> src = parseLayout(out->srcLayout);
    if (!src || src->getRank() != innerOrder->size())
      return std::nullopt;
    SmallVector<LayoutAxis, 6> input(src->getRank());
    for (size_t i = 0; i < innerOrder->size(); ++i)
      input[(*innerOrder)[i]] = (*src)[i];
    return std::make_pair(getLayoutText(input), out->dstLayout);
  }
  // A layout_transform to dst, then a permutation of dst.
  if (in && outerOrder) {
    std::optional<Layout> dst = parseLayout(in->dstLayout);
    if (!dst || dst->getRank() != outerOrder->size())
      return std::nullopt;
    SmallVector<LayoutAxis, 6> result;
    for (int64_t axis : *outerOrder)
      result.push_back((*dst)[axis]);
    return std::make_pair(in->srcLayout, getLayoutText(result));
  }
  return std::nullopt;
}

/// True if \p e is a constant holding one value (however it is shaped)
/// that \p pred accepts.
bool isUniformConstant(const Expr *e, bool (*pred)(double)) {
  const auto *constant = dyn_cast<Constant>(e);
  if (!constant || constant->getData().getNumElements() == 0)
    return false;
  const NDArray &data = constant->getData();
  double first = data.getElementAsDouble(0);
  for (int64_t i = 1, n = data.getNumElements(); i < n; ++i)
    if (data.getElementAsDouble(i) != first)
      return false;
  return pred(first);
}

/// argmax, argmin or argsort of qnn.dequantize(x, scale, zero_point) -> the
/// same of x (TVM's SimplifyDQArgFunc): dequantizing is increasing, so the
/// positions are those of x. Unlike TVM, only when that holds: one positive
/// constant scale and one constant zero point (a per-channel or negative
/// scale changes the order). Null when the rewrite does not apply.
Ref<Expr> simplifyDequantizeArg(ExprSimplifier &s, const Call &post) {
  static const Op *dequantize = Op::lookup("qnn.dequantize");
  static const Op *argOps[] = {Op::lookup("argmax"), Op::lookup("argmin"),
                               Op::lookup("argsort")};
  Op *op = post.getCalledOp();
  if (!op || !dequantize || !llvm::is_contained(argOps, op) ||
      post.getNumArgs() != 1)
    return nullptr;
  const auto *dq = dyn_cast<Call>(post.getArg(0).get());
  if (!dq || dq->getCalledOp() != dequantize || dq->getNumArgs() != 3 ||
      !isUniformConstant(dq->getArg(1).get(),
                         [](double scale) { return scale > 0; }) ||
      !isUniformConstant(dq->getArg(2).get(), [](double) { return true; }))
    return nullptr;
  return s.make(Call::get(post.getCallee(), {dq->getArg(0)}, post.getAttrs(),
                          post.getLoc()),
                post.getCheckedType().get());
}

/// SimplifyTranspose: two transposes or layout_transforms in a row are one.
/// Two permutations compose into a transpose (or nothing); otherwise the
/// pair is one layout_transform (or nothing when it maps a layout to
/// itself), kept only when its type is the pair's, which a padded
/// intermediate layout could change. Relay takes any layout_transform
/// between layouts of one length for a permutation; here only those that
/// are one.
Ref<Expr> simplifyTranspose(ExprSimplifier &s, const Call &call) {
  auto isTransposeLike = [&](const Expr *e) -> const Call * {
    const Call *c = s.callOf(e, "transpose");
    if (!c)
      c = s.callOf(e, "layout_transform");
    return c && c->getNumArgs() == 1 && tensorTypeOf(c) ? c : nullptr;
  };
  const Call *inner =
      isTransposeLike(&call) ? isTransposeLike(call.getArg(0).get()) : nullptr;
  if (!inner)
    return nullptr;
  const Ref<Expr> &x = inner->getArg(0);
  const TensorType *type = tensorTypeOf(&call), *xType = tensorTypeOf(x.get());
  if (!xType)
    return nullptr;
  auto outerOrder = getPermutation(s, call, type->getRank());
  auto innerOrder = getPermutation(s, *inner, xType->getRank());
  if (outerOrder && innerOrder) {
    // out[i] = inner[outer[i]] in terms of the inner call's input.
    IntList composed;
    for (int64_t axis : *outerOrder)
      composed.push_back((*innerOrder)[axis]);
    if (isIdentityOrder(composed))
      return ExprSimplifier::hasType(x.get(), type) ? x : nullptr;
    return s.make(ops::transpose(x, std::move(composed), call.getLoc()), type);
  }
  auto layouts = mergeLayouts(s, call, *inner, outerOrder, innerOrder);
  if (!layouts)
    return nullptr;
  if (layouts->first == layouts->second)
    return ExprSimplifier::hasType(x.get(), type) ? x : nullptr;
  return s.make(ops::layoutTransform(x, layouts->first, layouts->second,
                                     call.getLoc()),
                type);
}

/// SimplifyNoOpTranspose: a transpose that keeps every axis in place, and a
/// layout_transform to its own layout, are their input.
Ref<Expr> simplifyNoOpTranspose(ExprSimplifier &s, const Call &call) {
  if (call.getNumArgs() != 1)
    return nullptr;
  const TensorType *type = tensorTypeOf(&call);
  if (s.callOf(&call, "layout_transform")) {
    const auto *attrs = getAttrsAs<LayoutTransformAttrs>(call);
    if (!attrs || attrs->srcLayout != attrs->dstLayout)
      return nullptr;
  } else if (s.callOf(&call, "transpose")) {
    auto order = getPermutation(s, call, type->getRank());
    if (!order || !isIdentityOrder(*order))
      return nullptr;
  } else {
    return nullptr;
  }
  return ExprSimplifier::hasType(call.getArg(0).get(), type) ? call.getArg(0)
                                                              : nullptr;
}

//===----------------------------------------------------------------------===//
// Casts and clips
//===----------------------------------------------------------------------===//

/// SimplifySameCast: a cast (or cast_like) to its input's dtype.
Ref<Expr> simplifySameCast(ExprSimplifier &s, const Call &call) {
  if ((!s.callOf(&call, "cast") && !s.callOf(&call, "cast_like")) ||
      call.getNumArgs() == 0)
    return nullptr;
  const TensorType *data = tensorTypeOf(call.getArg(0).get());
  return data && data->getDType() == tensorTypeOf(&call)->getDType()
             ? call.getArg(0)
             : nullptr;
}

/// SimplifyConsecutiveCast: cast(cast(x, t1), t2) is cast(x, t2) when t1
/// holds every value of x's dtype; with allowInexact, when Relay's
/// IsWidenCast holds (int32 -> float32 rounds, int8 -> uint8 wraps).
Ref<Expr> simplifyConsecutiveCast(ExprSimplifier &s, const Call &call) {
  const Call *inner = s.callOf(&call, "cast") && call.getNumArgs() == 1
                          ? s.callOf(call.getArg(0).get(), "cast")
                          : nullptr;
  if (!inner || inner->getNumArgs() != 1)
    return nullptr;
  const Ref<Expr> &x = inner->getArg(0);
  const TensorType *xType = tensorTypeOf(x.get()), *mid = tensorTypeOf(inner);
  if (!xType || !mid)
    return nullptr;
  DataType from = xType->getDType(), through = mid->getDType();
  if (!holdsEveryValue(from, through) &&
      !(s.allowInexact() && isWidenCast(from, through)))
    return nullptr;
  const TensorType *type = tensorTypeOf(&call);
  return s.make(ops::cast(x, type->getDType(), call.getLoc()), type);
}

/// True if dropping every cast of \p casts (whose dtypes hold [lo, hi])
/// after a clip of \p clipType to [lo, hi] gives the same values: the clipped
/// integers are exact in every cast dtype; or the clip is a float one and
/// every cast is to an integer type (the one truncation stays, in the cast
/// to the result's dtype).
bool dropsExactly(DataType clipType, ArrayRef<const Call *> casts, double lo,
                  double hi) {
  double magnitude = std::max(std::fabs(std::ceil(lo)), std::fabs(std::floor(hi)));
  for (const Call *cast : casts) {
    DataType t = tensorTypeOf(cast)->getDType();
    if (clipType.isFloatingPoint() ? t.isFloatingPoint()
                                   : t.isFloatingPoint() &&
                                         magnitude > std::ldexp(
                                                         1.0, getSignificandBits(t)))
      return false;
  }
  return true;
}

/// SimplifyClipAndConsecutiveCast: in cast(...cast(clip(x, lo, hi))...), a
/// cast whose dtype holds [lo, hi] goes; a cast to the result's dtype is
/// added when the last one kept has another. Exact when every cast goes and
/// dropsExactly() holds; otherwise only with allowInexact (Relay's rule
/// also drops a cast after a narrowing one that is kept).
Ref<Expr> simplifyClipAndConsecutiveCast(ExprSimplifier &s, const Call &call) {
  SmallVector<const Call *, 4> casts;
  const Expr *e = &call;
  while (const Call *cast = s.callOf(e, "cast")) {
    if (cast->getNumArgs() != 1 || !tensorTypeOf(cast))
      return nullptr;
    casts.push_back(cast);
    e = cast->getArg(0).get();
  }
  const Call *clip = s.callOf(e, "clip");
  const auto *attrs = clip ? getAttrsAs<ClipAttrs>(*clip) : nullptr;
  if (casts.empty() || !attrs || !tensorTypeOf(clip))
    return nullptr;
  SmallVector<const Call *, 4> kept; // outermost first
  for (const Call *cast : casts)
    if (!rangeHolds(tensorTypeOf(cast)->getDType(), attrs->aMin, attrs->aMax))
      kept.push_back(cast);
  DataType result = tensorTypeOf(&call)->getDType();
  DataType last = kept.empty() ? tensorTypeOf(clip)->getDType()
                               : tensorTypeOf(kept.front())->getDType();
  // The dtypes of the new chain, outermost first: nothing to do when they
  // are the old ones.
  SmallVector<DataType, 4> before, after;
  for (const Call *cast : casts)
    before.push_back(tensorTypeOf(cast)->getDType());
  if (last != result)
    after.push_back(result);
  for (const Call *cast : kept)
    after.push_back(tensorTypeOf(cast)->getDType());
  if (before == after)
    return nullptr;
  if (!s.allowInexact() &&
      !(kept.empty() && dropsExactly(tensorTypeOf(clip)->getDType(), casts,
                                     attrs->aMin, attrs->aMax)))
    return nullptr;
  Ref<Expr> rebuilt = refTo(clip);
  for (const Call *cast : llvm::reverse(kept))
    if (!(rebuilt = s.make(ops::cast(rebuilt, tensorTypeOf(cast)->getDType(),
                                     cast->getLoc()))))
      return nullptr;
  if (last != result)
    rebuilt = s.make(ops::cast(rebuilt, result, call.getLoc()));
  return rebuilt;
}

/// SimplifyClip: a clip whose bounds hold its dtype's range is its input;
/// exact for integers, only with allowInexact for floats (a clip to finite
/// bounds changes inf, and nan).
Ref<Expr> simplifyClip(ExprSimplifier &s, const Call &call) {
  const auto *attrs =
      s.callOf(&call, "clip") ? getAttrsAs<ClipAttrs>(call) : nullptr;
  if (!attrs || call.getNumArgs() != 1)
    return nullptr;
  DataType dtype = tensorTypeOf(&call)->getDType();
  auto [lowest, highest] = getRange(dtype);
  if (attrs->aMin > lowest || attrs->aMax < highest ||
      (dtype.isFloatingPoint() && !s.allowInexact()))
    return nullptr;
  return call.getArg(0);
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

/// The rewrites, in Relay's order (the first that applies wins; the result
/// is simplified again).
const Rewrite kRewrites[] = {
    {"ConcretizeCastLike", concretizeCastLike, /*shapeAgnostic=*/true},
    {"ConcretizeLike", concretizeLike},
    {"SimplifyAdd", simplifyAdd},
    {"SimplifyRSqrt", simplifyRSqrt},
    {"EliminateIdentity", eliminateIdentity},
    {"SimplifyReshape", simplifyReshape},
    {"SimplifyTranspose", simplifyTranspose},
    {"SimplifyNoOpTranspose", simplifyNoOpTranspose},
    {"SimplifySameCast", simplifySameCast, /*shapeAgnostic=*/true},
    {"SimplifyConsecutiveCast", simplifyConsecutiveCast,
     /*shapeAgnostic=*/true},
    {"FullElementwise", fullElementwise},
    {"SwitchAddMultiply", switchAddMultiply},
    {"SimplifyAdjacentMultiplyOrAdd", simplifyAdjacentMultiplyOrAdd},
    {"SimplifyClipAndConsecutiveCast", simplifyClipAndConsecutiveCast},
    {"SimplifyClip", simplifyClip},
    {"SimplifyBinomial", simplifyBinomial},
    {"SimplifyDQArgFunc", simplifyDequantizeArg},
};

Ref<Expr> ExprSimplifier::simplify(Ref<Expr> e) {
  while (budget != 0) {
    const auto *call = dyn_cast<Call>(e.get());
    if (!call || !call->getCalledOp() || !tensorTypeOf(call))
      return e;
    bool dynamic = hasDynamicShape(call->getCheckedType().get()) ||
                   any_of(call->getArgs(), [](const Ref<Expr> &arg) {
                     return hasDynamicShape(arg->getCheckedType().get());
                   });
    Ref<Expr> next;
    for (const Rewrite &rewrite : kRewrites)
      if ((!dynamic || rewrite.shapeAgnostic) &&
          (next = rewrite.apply(*this, *call)))
        break;
    if (!next || next == e)
      return e;
    --budget;
    ++numSimplified;
    e = std::move(next);
  }
  return e;
}

} // namespace

Expected<Ref<Expr>> nnir::simplifyExpr(Expr *expr,
                                       const SimplifyExprOptions &options,
                                       int64_t *numSimplified) {
  Expected<OpSet> ops = OpSet::get(kOpNames);
  if (!ops)
    return ops.takeError();
  ExprSimplifier simplifier(std::move(*ops), options);
  Ref<Expr> result = simplifier.mutate(expr);
  if (numSimplified)
    *numSimplified += simplifier.numSimplified;
  return result;
}

Ref<Pass> nnir::createSimplifyExprPass(SimplifyExprOptions options) {
  PassInfo info = getBuiltinPassInfo(BuiltinPass::SimplifyExpr, {"InferType"});
  return createFunctionPass(
      [options](Ref<Function> func, const IRModule &,
                PassContext &ctx) -> Expected<Ref<Function>> {
        SimplifyExprOptions effective = options;
        effective.allowInexact |=
            ctx.getConfigBool(kSimplifyExprAllowInexactConfig, false);
        int64_t count = 0;
        Expected<Ref<Expr>> result = simplifyExpr(func.get(), effective, &count);
        if (!result)
          return result.takeError();
        ctx.getStatistics().add("SimplifyExpr", "num-simplified", count,
                                "Number of calls simplified");
        return Ref<Function>(cast<Function>(result->get()));
      },
      std::move(info));
}

Ref<Pass> nnir::createSimplifyExprFromOptions(const PassOptions &options) {
  SimplifyExprOptions simplify;
  simplify.allowInexact = options.getBool("allow_inexact");
  return createSimplifyExprPass(simplify);
}
