//===- Expr.cpp - Scalar expressions of the tensor-expression layer -------===//
//
/// \file
/// Node constructors, the builders with their local constant folding, and the
/// printer.
//
//===----------------------------------------------------------------------===//

#include "nnir/TE/Expr.h"
#include "nnir/TE/Tensor.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

using namespace llvm;
using namespace nnir;
using namespace nnir::te;

ExprNode::~ExprNode() = default;

Expr::Expr(int64_t value) : node(new IntImmNode(DataType::int64(), value)) {}

std::optional<int64_t> Expr::getConstInt() const {
  if (const auto *imm = dyn_cast_or_null<IntImmNode>(node.get()))
    return imm->getValue();
  return std::nullopt;
}

TensorReadNode::TensorReadNode(const TensorNode *tensor, ArrayRef<Expr> indices)
    : ExprNode(Kind::TensorRead, tensor->getDType()), tensor(tensor),
      indices(indices.begin(), indices.end()) {}
TensorReadNode::~TensorReadNode() = default;

StringRef te::getIntrinsicName(Intrinsic fn) {
  switch (fn) {
  case Intrinsic::Abs:
    return "abs";
  case Intrinsic::Sign:
    return "sign";
  case Intrinsic::Exp:
    return "exp";
  case Intrinsic::Log:
    return "log";
  case Intrinsic::Log2:
    return "log2";
  case Intrinsic::Log10:
    return "log10";
  case Intrinsic::Sqrt:
    return "sqrt";
  case Intrinsic::Rsqrt:
    return "rsqrt";
  case Intrinsic::Erf:
    return "erf";
  case Intrinsic::Sigmoid:
    return "sigmoid";
  case Intrinsic::Tanh:
    return "tanh";
  case Intrinsic::Sin:
    return "sin";
  case Intrinsic::Cos:
    return "cos";
  case Intrinsic::Tan:
    return "tan";
  case Intrinsic::Asin:
    return "asin";
  case Intrinsic::Acos:
    return "acos";
  case Intrinsic::Atan:
    return "atan";
  case Intrinsic::Floor:
    return "floor";
  case Intrinsic::Ceil:
    return "ceil";
  case Intrinsic::Round:
    return "round";
  case Intrinsic::Trunc:
    return "trunc";
  case Intrinsic::IsNan:
    return "isnan";
  case Intrinsic::IsInf:
    return "isinf";
  case Intrinsic::IsFinite:
    return "isfinite";
  }
  llvm_unreachable("unknown intrinsic");
}

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

Expr te::intImm(DataType dtype, int64_t value) {
  if (dtype.isBool())
    value = value != 0;
  return Expr(new IntImmNode(dtype, value));
}

Expr te::floatImm(DataType dtype, double value) {
  return Expr(new FloatImmNode(dtype, value));
}

Expr te::constant(DataType dtype, double value) {
  if (dtype.isFloatingPoint())
    return floatImm(dtype, value);
  if (dtype.isBool())
    return intImm(dtype, value != 0);
  // Saturate to the dtype's range (a_min=-inf on an integer clip).
  if (std::isnan(value))
    return intImm(dtype, 0);
  if (value <= -9.2233720368547758e18)
    return lowestValue(dtype);
  if (dtype.isUInt() && dtype.getBits() == 64) {
    if (value >= 1.8446744073709552e19)
      return highestValue(dtype);
    if (value <= 0)
      return intImm(dtype, 0);
    return intImm(dtype, static_cast<int64_t>(static_cast<uint64_t>(value)));
  }
  if (value >= 9.2233720368547758e18)
    return highestValue(dtype);
  int64_t v = static_cast<int64_t>(value);
  int64_t lo = *lowestValue(dtype).getConstInt();
  int64_t hi = *highestValue(dtype).getConstInt();
  return intImm(dtype, std::min(std::max(v, lo), hi));
}

Expr te::boolImm(bool value) { return intImm(DataType::boolean(), value); }

Expr te::lowestValue(DataType dtype) {
  if (dtype.isFloatingPoint())
    return floatImm(dtype, -std::numeric_limits<double>::infinity());
  if (dtype.isBool() || dtype.isUInt())
    return intImm(dtype, 0);
  return intImm(dtype, dtype.getBits() == 64
                           ? std::numeric_limits<int64_t>::min()
                           : -(int64_t(1) << (dtype.getBits() - 1)));
}

Expr te::highestValue(DataType dtype) {
  if (dtype.isFloatingPoint())
    return floatImm(dtype, std::numeric_limits<double>::infinity());
  if (dtype.isBool())
    return intImm(dtype, 1);
  if (dtype.isUInt())
    return intImm(dtype, dtype.getBits() == 64
                             ? -1 // all ones
                             : (int64_t(1) << dtype.getBits()) - 1);
  return intImm(dtype, dtype.getBits() == 64
                           ? std::numeric_limits<int64_t>::max()
                           : (int64_t(1) << (dtype.getBits() - 1)) - 1);
}

Expr te::var(StringRef name, DataType dtype) {
  return Expr(new VarNode(name, dtype));
}

IterVar te::reduceAxis(Expr extent, StringRef name) {
  return IterVar{var(name), std::move(extent)};
}

/// A plain int64 immediate next to an operand of another dtype takes that
/// dtype (so `x * 2` works for any x).
static void unifyLiteral(Expr &a, Expr &b) {
  if (a.getDType() == b.getDType())
    return;
  auto adapt = [](Expr &lit, const Expr &other) {
    const auto *imm = dyn_cast<IntImmNode>(lit.get());
    if (!imm || imm->getDType() != DataType::int64())
      return false;
    lit = constant(other.getDType(), static_cast<double>(imm->getValue()));
    if (other.getDType().isInteger())
      lit = intImm(other.getDType(), imm->getValue());
    return true;
  };
  if (!adapt(b, a))
    adapt(a, b);
}

Expr te::neg(Expr a) {
  if (auto c = a.getConstInt(); c && a.getDType() == DataType::int64())
    return Expr(static_cast<int64_t>(0ULL - static_cast<uint64_t>(*c)));
  if (const auto *f = dyn_cast<FloatImmNode>(a.get()))
    return floatImm(f->getDType(), -f->getValue());
  return Expr(new UnaryNode(UnaryOp::Neg, std::move(a)));
}

Expr te::logicalNot(Expr a) {
  if (a.getDType().isBool())
    if (auto c = a.getConstInt())
      return boolImm(!*c);
  return Expr(new UnaryNode(UnaryOp::Not, std::move(a)));
}

static bool isComparison(BinaryOp op) {
  return op >= BinaryOp::EQ && op <= BinaryOp::GE;
}

/// Folds int64 index arithmetic on two immediates (wrapping, as the
/// generated code wraps).
static std::optional<int64_t> foldInt(BinaryOp op, int64_t a, int64_t b) {
  auto wrap = [](uint64_t v) { return static_cast<int64_t>(v); };
  switch (op) {
  case BinaryOp::Add:
    return wrap(uint64_t(a) + uint64_t(b));
  case BinaryOp::Sub:
    return wrap(uint64_t(a) - uint64_t(b));
  case BinaryOp::Mul:
    return wrap(uint64_t(a) * uint64_t(b));
  case BinaryOp::Min:
    return std::min(a, b);
  case BinaryOp::Max:
    return std::max(a, b);
  case BinaryOp::Div:
  case BinaryOp::FloorDiv:
  case BinaryOp::TruncMod:
  case BinaryOp::FloorMod: {
    if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1))
      return std::nullopt; // Leave the defined corner cases to codegen.
    int64_t q = a / b, r = a % b;
    if (op == BinaryOp::Div)
      return q;
    if (op == BinaryOp::TruncMod)
      return r;
    bool adjust = r != 0 && ((r < 0) != (b < 0));
    if (op == BinaryOp::FloorDiv)
      return adjust ? q - 1 : q;
    return adjust ? r + b : r;
  }
  default:
    return std::nullopt;
  }
}

Expr te::binary(BinaryOp op, Expr a, Expr b) {
  unifyLiteral(a, b);
  DataType dtype = a.getDType();
  assert(dtype == b.getDType() && "operands of a binary expression differ");
  DataType result = isComparison(op) ? DataType::boolean() : dtype;
  if (dtype == DataType::int64()) {
    std::optional<int64_t> ca = a.getConstInt(), cb = b.getConstInt();
    if (ca && cb)
      if (std::optional<int64_t> folded = foldInt(op, *ca, *cb))
        return Expr(*folded);
    switch (op) {
    case BinaryOp::Add:
      if (ca == 0)
        return b;
      if (cb == 0)
        return a;
      break;
    case BinaryOp::Sub:
      if (cb == 0)
        return a;
      break;
    case BinaryOp::Mul:
      if (ca == 1)
        return b;
      if (cb == 1)
        return a;
      if (ca == 0 || cb == 0)
        return Expr(int64_t(0));
      break;
    case BinaryOp::Div:
    case BinaryOp::FloorDiv:
      if (cb == 1)
        return a;
      break;
    case BinaryOp::FloorMod:
    case BinaryOp::TruncMod:
      if (cb == 1)
        return Expr(int64_t(0));
      break;
    default:
      break;
    }
  }
  return Expr(new BinaryNode(op, result, std::move(a), std::move(b)));
}

Expr te::select(Expr cond, Expr t, Expr f) {
  unifyLiteral(t, f);
  if (auto c = cond.getConstInt())
    return *c ? t : f;
  return Expr(new SelectNode(std::move(cond), std::move(t), std::move(f)));
}

Expr te::cast(DataType dtype, Expr a) {
  if (a.getDType() == dtype)
    return a;
  if (auto c = a.getConstInt();
      c && dtype == DataType::int64() && a.getDType().isInt())
    return Expr(*c);
  return Expr(new CastNode(dtype, std::move(a)));
}

Expr te::reinterpret(DataType dtype, Expr a) {
  if (a.getDType() == dtype)
    return a;
  return Expr(new ReinterpretNode(dtype, std::move(a)));
}

Expr te::call(Intrinsic fn, ArrayRef<Expr> args) {
  DataType dtype = args.front().getDType();
  if (fn == Intrinsic::IsNan || fn == Intrinsic::IsInf ||
      fn == Intrinsic::IsFinite)
    dtype = DataType::boolean();
  return Expr(new CallNode(fn, dtype, args));
}

Expr te::min(Expr a, Expr b) { return binary(BinaryOp::Min, a, b); }
Expr te::max(Expr a, Expr b) { return binary(BinaryOp::Max, a, b); }
Expr te::floorDiv(Expr a, Expr b) { return binary(BinaryOp::FloorDiv, a, b); }
Expr te::floorMod(Expr a, Expr b) { return binary(BinaryOp::FloorMod, a, b); }
Expr te::truncDiv(Expr a, Expr b) { return binary(BinaryOp::Div, a, b); }
Expr te::truncMod(Expr a, Expr b) { return binary(BinaryOp::TruncMod, a, b); }
Expr te::pow(Expr a, Expr b) { return binary(BinaryOp::Pow, a, b); }

Expr te::reduce(ReduceKind kind, Expr source, ArrayRef<IterVar> axes,
                Expr condition, bool selectLast, DataType indexType) {
  DataType dtype = source.getDType();
  if (kind == ReduceKind::ArgMax || kind == ReduceKind::ArgMin)
    dtype = indexType;
  return Expr(new ReduceNode(kind, dtype, std::move(source), axes,
                             std::move(condition), selectLast));
}

Expr te::operator+(Expr a, Expr b) { return binary(BinaryOp::Add, a, b); }
Expr te::operator-(Expr a, Expr b) { return binary(BinaryOp::Sub, a, b); }
Expr te::operator*(Expr a, Expr b) { return binary(BinaryOp::Mul, a, b); }
Expr te::operator/(Expr a, Expr b) { return binary(BinaryOp::Div, a, b); }
Expr te::operator-(Expr a) { return neg(a); }
Expr te::operator==(Expr a, Expr b) { return binary(BinaryOp::EQ, a, b); }
Expr te::operator!=(Expr a, Expr b) { return binary(BinaryOp::NE, a, b); }
Expr te::operator<(Expr a, Expr b) { return binary(BinaryOp::LT, a, b); }
Expr te::operator<=(Expr a, Expr b) { return binary(BinaryOp::LE, a, b); }
Expr te::operator>(Expr a, Expr b) { return binary(BinaryOp::GT, a, b); }
Expr te::operator>=(Expr a, Expr b) { return binary(BinaryOp::GE, a, b); }
Expr te::logicalAnd(Expr a, Expr b) {
  if (a.isConstInt(1))
    return b;
  if (b.isConstInt(1))
    return a;
  return binary(BinaryOp::And, a, b);
}
Expr te::logicalOr(Expr a, Expr b) { return binary(BinaryOp::Or, a, b); }

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

static StringRef getBinaryOpName(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::FloorDiv:
    return "floordiv";
  case BinaryOp::TruncMod:
    return "%";
  case BinaryOp::FloorMod:
    return "floormod";
  case BinaryOp::Min:
    return "min";
  case BinaryOp::Max:
    return "max";
  case BinaryOp::Pow:
    return "pow";
  case BinaryOp::And:
    return "&&";
  case BinaryOp::Or:
    return "||";
  case BinaryOp::Xor:
    return "^";
  case BinaryOp::Shl:
    return "<<";
  case BinaryOp::Shr:
    return ">>";
  case BinaryOp::EQ:
    return "==";
  case BinaryOp::NE:
    return "!=";
  case BinaryOp::LT:
    return "<";
  case BinaryOp::LE:
    return "<=";
  case BinaryOp::GT:
    return ">";
  case BinaryOp::GE:
    return ">=";
  }
  llvm_unreachable("unknown binary op");
}

static StringRef getReduceKindName(ReduceKind kind) {
  switch (kind) {
  case ReduceKind::Sum:
    return "sum";
  case ReduceKind::Prod:
    return "prod";
  case ReduceKind::Min:
    return "min";
  case ReduceKind::Max:
    return "max";
  case ReduceKind::Any:
    return "any";
  case ReduceKind::All:
    return "all";
  case ReduceKind::ArgMax:
    return "argmax";
  case ReduceKind::ArgMin:
    return "argmin";
  }
  llvm_unreachable("unknown reduction");
}

void te::print(raw_ostream &os, const Expr &e) {
  if (!e) {
    os << "<null>";
    return;
  }
  switch (e->getKind()) {
  case ExprNode::Kind::IntImm: {
    const auto *imm = llvm::cast<IntImmNode>(e.get());
    os << imm->getValue();
    if (imm->getDType() != DataType::int64())
      os << ':' << imm->getDType();
    return;
  }
  case ExprNode::Kind::FloatImm: {
    const auto *imm = llvm::cast<FloatImmNode>(e.get());
    os << imm->getValue() << 'f' << imm->getDType().getBits();
    return;
  }
  case ExprNode::Kind::Var:
    os << llvm::cast<VarNode>(e.get())->getName();
    return;
  case ExprNode::Kind::Unary: {
    const auto *u = llvm::cast<UnaryNode>(e.get());
    os << (u->getOp() == UnaryOp::Neg ? "-" : "!") << '(';
    print(os, u->getOperand());
    os << ')';
    return;
  }
  case ExprNode::Kind::Binary: {
    const auto *b = llvm::cast<BinaryNode>(e.get());
    StringRef name = getBinaryOpName(b->getOp());
    bool infix = !isAlpha(name[0]);
    if (!infix)
      os << name;
    os << '(';
    print(os, b->getLHS());
    os << (infix ? " " + name.str() + " " : ", ");
    print(os, b->getRHS());
    os << ')';
    return;
  }
  case ExprNode::Kind::Select: {
    const auto *s = llvm::cast<SelectNode>(e.get());
    os << "select(";
    print(os, s->getCondition());
    os << ", ";
    print(os, s->getTrueValue());
    os << ", ";
    print(os, s->getFalseValue());
    os << ')';
    return;
  }
  case ExprNode::Kind::Cast:
  case ExprNode::Kind::Reinterpret: {
    os << (isa<CastNode>(e.get()) ? "llvm::cast<" : "reinterpret<")
       << e.getDType() << ">(";
    print(os, isa<CastNode>(e.get())
                  ? llvm::cast<CastNode>(e.get())->getOperand()
                  : llvm::cast<ReinterpretNode>(e.get())->getOperand());
    os << ')';
    return;
  }
  case ExprNode::Kind::Call: {
    const auto *c = llvm::cast<CallNode>(e.get());
    os << getIntrinsicName(c->getIntrinsic()) << '(';
    for (size_t i = 0; i < c->getArgs().size(); ++i) {
      if (i)
        os << ", ";
      print(os, c->getArgs()[i]);
    }
    os << ')';
    return;
  }
  case ExprNode::Kind::TensorRead: {
    const auto *r = llvm::cast<TensorReadNode>(e.get());
    os << r->getTensor()->getName() << '[';
    for (size_t i = 0; i < r->getIndices().size(); ++i) {
      if (i)
        os << ", ";
      print(os, r->getIndices()[i]);
    }
    os << ']';
    return;
  }
  case ExprNode::Kind::Reduce: {
    const auto *r = llvm::cast<ReduceNode>(e.get());
    os << getReduceKindName(r->getReduceKind()) << '(';
    print(os, r->getSource());
    os << ", axes=[";
    for (size_t i = 0; i < r->getAxes().size(); ++i) {
      if (i)
        os << ", ";
      print(os, r->getAxes()[i].var);
      os << " < ";
      print(os, r->getAxes()[i].extent);
    }
    os << ']';
    if (r->getCondition()) {
      os << ", where=";
      print(os, r->getCondition());
    }
    os << ')';
    return;
  }
  }
}

std::string te::toString(const Expr &e) {
  std::string s;
  raw_string_ostream os(s);
  print(os, e);
  return s;
}
