//===- ElementwiseCompute.cpp - Computes of the elementwise operators -----===//
//
/// \file
/// The TE computes of the elementwise and broadcasting operators: one scalar
/// function per operator, applied per element (unary) or over the NumPy
/// broadcast of the operands (binary, where, prelu).
///
/// This file is the example of the two simplest kinds of compute:
/// *elementwise* (`te::compute(x.shape, [&](i) { return f(x(i)); })`) and
/// *broadcast* (`te::broadcastShape` + `te::broadcastRead`). Both work from
/// the argument shapes alone, so their kernels can be shape-generic.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"
#include "nnir/IR/Type.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Compute.h"
#include "nnir/TE/Broadcast.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::te;

/// The compute of a unary operator: `out(i) = fn(x(i))`.
static TECompute unary(std::function<te::Expr(const te::Expr &)> fn) {
  return [fn](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
    const te::Tensor &x = args.arg(0);
    return std::vector<te::Tensor>{compute(
        x.getShape(), [&](ArrayRef<te::Expr> i) { return fn(x(i)); },
        "elemwise")};
  };
}

/// The compute of a broadcasting operator of any arity:
/// `out(i) = fn(a(bcast i), b(bcast i), ...)`.
static Expected<std::vector<te::Tensor>>
broadcastCompute(ArrayRef<te::Tensor> operands,
                 function_ref<te::Expr(ArrayRef<te::Expr>)> fn) {
  std::vector<te::Expr> shape = operands[0].getShape();
  for (const te::Tensor &t : operands.drop_front()) {
    std::optional<std::vector<te::Expr>> joined =
        broadcastShape(shape, t.getShape());
    if (!joined)
      return computeError("operand shapes do not broadcast");
    shape = *joined;
  }
  return std::vector<te::Tensor>{compute(
      shape,
      [&](ArrayRef<te::Expr> i) {
        SmallVector<te::Expr, 3> values;
        for (const te::Tensor &t : operands)
          values.push_back(broadcastRead(t, i));
        return fn(values);
      },
      "broadcast")};
}

static TECompute
binary(std::function<te::Expr(const te::Expr &, const te::Expr &)> fn) {
  return [fn](const ComputeArgs &args) {
    return broadcastCompute(
        {args.arg(0), args.arg(1)},
        [&](ArrayRef<te::Expr> v) { return fn(v[0], v[1]); });
  };
}

static TECompute binaryOp(BinaryOp op) {
  return binary([op](const te::Expr &a, const te::Expr &b) {
    return te::binary(op, a, b);
  });
}

static TECompute intrinsic(Intrinsic fn) {
  return unary([fn](const te::Expr &x) { return call(fn, {x}); });
}

/// floor, ceil, round and trunc leave integers unchanged.
static TECompute rounding(Intrinsic fn) {
  return unary([fn](const te::Expr &x) {
    return x.getDType().isFloatingPoint() ? call(fn, {x}) : x;
  });
}

void nnir::registerElementwiseComputes() {
  auto set = [](StringRef name, TECompute compute) {
    setOpCompute(name, std::move(compute));
  };

  // Unary math.
  const std::pair<const char *, Intrinsic> intrinsics[] = {
      {"abs", Intrinsic::Abs},          {"sign", Intrinsic::Sign},
      {"exp", Intrinsic::Exp},          {"fast_exp", Intrinsic::Exp},
      {"log", Intrinsic::Log},          {"log2", Intrinsic::Log2},
      {"log10", Intrinsic::Log10},      {"sqrt", Intrinsic::Sqrt},
      {"rsqrt", Intrinsic::Rsqrt},      {"erf", Intrinsic::Erf},
      {"fast_erf", Intrinsic::Erf},     {"sigmoid", Intrinsic::Sigmoid},
      {"tanh", Intrinsic::Tanh},        {"fast_tanh", Intrinsic::Tanh},
      {"sin", Intrinsic::Sin},          {"cos", Intrinsic::Cos},
      {"tan", Intrinsic::Tan},          {"asin", Intrinsic::Asin},
      {"acos", Intrinsic::Acos},        {"atan", Intrinsic::Atan},
      {"isnan", Intrinsic::IsNan},      {"isinf", Intrinsic::IsInf},
      {"isfinite", Intrinsic::IsFinite}};
  for (const auto &[name, fn] : intrinsics)
    set(name, intrinsic(fn));
  set("floor", rounding(Intrinsic::Floor));
  set("ceil", rounding(Intrinsic::Ceil));
  set("round", rounding(Intrinsic::Round));
  set("trunc", rounding(Intrinsic::Trunc));
  set("negative", unary([](const te::Expr &x) { return neg(x); }));
  set("logical_not", unary([](const te::Expr &x) { return logicalNot(x); }));
  set("bitwise_not", unary([](const te::Expr &x) { return logicalNot(x); }));
  set("copy", unary([](const te::Expr &x) { return x; }));
  set("zeros_like",
      unary([](const te::Expr &x) { return constant(x.getDType(), 0); }));
  set("ones_like",
      unary([](const te::Expr &x) { return constant(x.getDType(), 1); }));
  set("nn.relu", unary([](const te::Expr &x) {
        return max(x, constant(x.getDType(), 0));
      }));

  // Binary arithmetic, logic and comparisons.
  const std::pair<const char *, BinaryOp> binaries[] = {
      {"add", BinaryOp::Add},
      {"subtract", BinaryOp::Sub},
      {"multiply", BinaryOp::Mul},
      {"divide", BinaryOp::Div},
      {"floor_divide", BinaryOp::FloorDiv},
      {"mod", BinaryOp::TruncMod},
      {"floor_mod", BinaryOp::FloorMod},
      {"trunc_mod", BinaryOp::TruncMod},
      {"power", BinaryOp::Pow},
      {"maximum", BinaryOp::Max},
      {"minimum", BinaryOp::Min},
      {"logical_and", BinaryOp::And},
      {"logical_or", BinaryOp::Or},
      {"logical_xor", BinaryOp::Xor},
      {"bitwise_and", BinaryOp::And},
      {"bitwise_or", BinaryOp::Or},
      {"bitwise_xor", BinaryOp::Xor},
      {"left_shift", BinaryOp::Shl},
      {"right_shift", BinaryOp::Shr},
      {"equal", BinaryOp::EQ},
      {"not_equal", BinaryOp::NE},
      {"less", BinaryOp::LT},
      {"less_equal", BinaryOp::LE},
      {"greater", BinaryOp::GT},
      {"greater_equal", BinaryOp::GE}};
  for (const auto &[name, op] : binaries)
    set(name, binaryOp(op));
  // trunc_divide: truncating for integers (as divide), trunc(a / b) for
  // floats.
  set("trunc_divide", binary([](const te::Expr &a, const te::Expr &b) {
        te::Expr q = a / b;
        return a.getDType().isFloatingPoint() ? call(Intrinsic::Trunc, {q}) : q;
      }));

  set("clip", [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
    const auto *attrs = llvm::cast<ClipAttrs>(args.attrs);
    double lo = attrs->aMin, hi = attrs->aMax;
    return unary([lo, hi](const te::Expr &x) {
      DataType t = x.getDType();
      return max(min(x, constant(t, hi)), constant(t, lo));
    })(args);
  });
  set("cast", [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
    DataType to = llvm::cast<CastAttrs>(args.attrs)->dtype;
    return unary([to](const te::Expr &x) { return te::cast(to, x); })(args);
  });
  set("cast_like",
      [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
        DataType to = args.arg(1).getDType();
        return unary([to](const te::Expr &x) { return te::cast(to, x); })(args);
      });
  set("reinterpret",
      [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
        DataType to = llvm::cast<CastAttrs>(args.attrs)->dtype;
        return unary(
            [to](const te::Expr &x) { return te::reinterpret(to, x); })(args);
      });
  set("nn.leaky_relu",
      [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
        double alpha = llvm::cast<LeakyReluAttrs>(args.attrs)->alpha;
        return unary([alpha](const te::Expr &x) {
          DataType t = x.getDType();
          return select(x > constant(t, 0), x, x * constant(t, alpha));
        })(args);
      });
  set("nn.prelu",
      [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
        const te::Tensor &x = args.arg(0);
        const te::Tensor &alpha = args.arg(1);
        int64_t axis = llvm::cast<PReluAttrs>(args.attrs)->axis;
        if (axis < 0)
          axis += x.getRank();
        return std::vector<te::Tensor>{compute(
            x.getShape(),
            [&](ArrayRef<te::Expr> i) {
              te::Expr v = x(i);
              return select(v > constant(v.getDType(), 0), v,
                            v * alpha(i[axis]));
            },
            "prelu")};
      });
  set("where", [](const ComputeArgs &args) {
    return broadcastCompute(
        {args.arg(0), args.arg(1), args.arg(2)}, [](ArrayRef<te::Expr> v) {
          return select(te::cast(DataType::boolean(), v[0]), v[1], v[2]);
        });
  });
}
