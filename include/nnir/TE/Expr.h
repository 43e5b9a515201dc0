//===- Expr.h - Scalar expressions of the tensor-expression layer -*- C++
//-*-===//
//
/// \file
/// The scalar expression language in which operators say how one output
/// element is computed (TVM's PrimExpr, Halide's Expr): immediates, variables
/// (loop indices and runtime extents), arithmetic with Relay's integer
/// division and modulo variants, comparisons, logic, select, casts, bit
/// reinterpretation, math intrinsics, tensor reads and reductions.
///
/// Expressions are immutable, shared (thread-safe reference counting) and
/// typed: every node has a DataType of nnir's scalar types. Index arithmetic
/// is int64. The builders fold constants and the identities x+0, x*1, x*0
/// (integers only), so index expressions stay small; everything else is left
/// to LLVM.
///
/// The layer knows nothing of the graph IR: it depends only on Runtime
/// (DataType).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_TE_EXPR_H
#define NNIR_TE_EXPR_H

#include "nnir/Runtime/DataType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"

#include <cstdint>
#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace nnir::te {

class Expr;
class Tensor;
class TensorNode;

/// Base of every scalar expression node.
class ExprNode : public llvm::ThreadSafeRefCountedBase<ExprNode> {
public:
  enum class Kind : uint8_t {
    IntImm,
    FloatImm,
    Var,
    Unary,
    Binary,
    Select,
    Cast,
    Reinterpret,
    Call,
    TensorRead,
    Reduce,
  };
  virtual ~ExprNode();
  Kind getKind() const { return kind; }
  DataType getDType() const { return dtype; }

protected:
  ExprNode(Kind kind, DataType dtype) : kind(kind), dtype(dtype) {}

private:
  Kind kind;
  DataType dtype;
};

/// A shared, immutable scalar expression (a null Expr is "no expression").
class Expr {
public:
  Expr() = default;
  Expr(const ExprNode *node) : node(node) {}
  /// An int64 immediate (so index arithmetic can write `i + 1`).
  Expr(int64_t value);
  Expr(int value) : Expr(static_cast<int64_t>(value)) {}

  const ExprNode *get() const { return node.get(); }
  const ExprNode *operator->() const { return node.get(); }
  explicit operator bool() const { return node != nullptr; }
  DataType getDType() const { return node->getDType(); }

  /// The value if this is an integer (or bool) immediate.
  std::optional<int64_t> getConstInt() const;
  bool isConstInt(int64_t value) const { return getConstInt() == value; }

  bool sameAs(const Expr &other) const { return node == other.node; }

private:
  llvm::IntrusiveRefCntPtr<const ExprNode> node;
};

//===----------------------------------------------------------------------===//
// Nodes
//===----------------------------------------------------------------------===//

/// An integer or bool immediate (stored as int64; uint64 as its bit pattern).
class IntImmNode final : public ExprNode {
public:
  IntImmNode(DataType dtype, int64_t value)
      : ExprNode(Kind::IntImm, dtype), value(value) {}
  int64_t getValue() const { return value; }
  static bool classof(const ExprNode *e) {
    return e->getKind() == Kind::IntImm;
  }

private:
  int64_t value;
};

/// A floating-point immediate of any float dtype.
class FloatImmNode final : public ExprNode {
public:
  FloatImmNode(DataType dtype, double value)
      : ExprNode(Kind::FloatImm, dtype), value(value) {}
  double getValue() const { return value; }
  static bool classof(const ExprNode *e) {
    return e->getKind() == Kind::FloatImm;
  }

private:
  double value;
};

/// A variable: a loop index (int64), a reduction axis, or a runtime extent.
/// Variables compare by identity; the name is for printing only.
class VarNode final : public ExprNode {
public:
  VarNode(llvm::StringRef name, DataType dtype)
      : ExprNode(Kind::Var, dtype), name(name) {}
  llvm::StringRef getName() const { return name; }
  static bool classof(const ExprNode *e) { return e->getKind() == Kind::Var; }

private:
  std::string name;
};

enum class UnaryOp : uint8_t {
  /// Arithmetic negation (two's complement wrap for integers).
  Neg,
  /// Logical not for bool, bitwise not for integers.
  Not,
};

/// Integer division and modulo follow Relay's operators: Div is C's
/// truncating division for integers (and IEEE division for floats), FloorDiv
/// rounds towards negative infinity, TruncMod has the sign of the dividend
/// (C's %, fmod), FloorMod the sign of the divisor (Python's %). For every
/// integer variant, x / 0 == 0 and x mod 0 == x (so x == (x/y)*y + x mod y
/// still holds), and INT_MIN / -1 == INT_MIN with remainder 0: generated code
/// has no undefined behaviour and never traps.
enum class BinaryOp : uint8_t {
  Add,
  Sub,
  Mul,
  Div,
  FloorDiv,
  TruncMod,
  FloorMod,
  Min,
  Max,
  /// pow(a, b); integers by repeated squaring (negative exponents give 0,
  /// except for bases 1 and -1).
  Pow,
  /// Logical for bool, bitwise for integers.
  And,
  Or,
  Xor,
  /// Shifts by an amount outside [0, bits) give 0 (or -1 for an arithmetic
  /// right shift of a negative value), never poison.
  Shl,
  Shr,
  EQ,
  NE,
  LT,
  LE,
  GT,
  GE,
};

class UnaryNode final : public ExprNode {
public:
  UnaryNode(UnaryOp op, Expr a)
      : ExprNode(Kind::Unary, a.getDType()), op(op), a(std::move(a)) {}
  UnaryOp getOp() const { return op; }
  const Expr &getOperand() const { return a; }
  static bool classof(const ExprNode *e) { return e->getKind() == Kind::Unary; }

private:
  UnaryOp op;
  Expr a;
};

class BinaryNode final : public ExprNode {
public:
  BinaryNode(BinaryOp op, DataType dtype, Expr a, Expr b)
      : ExprNode(Kind::Binary, dtype), op(op), a(std::move(a)),
        b(std::move(b)) {}
  BinaryOp getOp() const { return op; }
  const Expr &getLHS() const { return a; }
  const Expr &getRHS() const { return b; }
  static bool classof(const ExprNode *e) {
    return e->getKind() == Kind::Binary;
  }

private:
  BinaryOp op;
  Expr a, b;
};

/// cond ? t : f (both arms are evaluated; they have no side effects).
class SelectNode final : public ExprNode {
public:
  SelectNode(Expr cond, Expr t, Expr f)
      : ExprNode(Kind::Select, t.getDType()), cond(std::move(cond)),
        t(std::move(t)), f(std::move(f)) {}
  const Expr &getCondition() const { return cond; }
  const Expr &getTrueValue() const { return t; }
  const Expr &getFalseValue() const { return f; }
  static bool classof(const ExprNode *e) {
    return e->getKind() == Kind::Select;
  }

private:
  Expr cond, t, f;
};

/// A value conversion. Float to integer truncates towards zero and saturates
/// (NaN gives 0): no poison. Anything to bool is `!= 0`.
class CastNode final : public ExprNode {
public:
  CastNode(DataType dtype, Expr a)
      : ExprNode(Kind::Cast, dtype), a(std::move(a)) {}
  const Expr &getOperand() const { return a; }
  static bool classof(const ExprNode *e) { return e->getKind() == Kind::Cast; }

private:
  Expr a;
};

/// A bit cast between types of equal width.
class ReinterpretNode final : public ExprNode {
public:
  ReinterpretNode(DataType dtype, Expr a)
      : ExprNode(Kind::Reinterpret, dtype), a(std::move(a)) {}
  const Expr &getOperand() const { return a; }
  static bool classof(const ExprNode *e) {
    return e->getKind() == Kind::Reinterpret;
  }

private:
  Expr a;
};

/// Math intrinsics on floating-point operands (float16/bfloat16 compute in
/// float32). Abs and Sign also take integers; IsNan, IsInf and IsFinite give
/// bool.
enum class Intrinsic : uint8_t {
  Abs,
  Sign,
  Exp,
  Log,
  Log2,
  Log10,
  Sqrt,
  Rsqrt,
  Erf,
  Sigmoid,
  Tanh,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Floor,
  Ceil,
  /// Round half to even, as numpy.round and TVM's round.
  Round,
  Trunc,
  IsNan,
  IsInf,
  IsFinite,
};

/// The name of an intrinsic ("exp", "isnan", ...).
llvm::StringRef getIntrinsicName(Intrinsic fn);

class CallNode final : public ExprNode {
public:
  CallNode(Intrinsic fn, DataType dtype, llvm::ArrayRef<Expr> args)
      : ExprNode(Kind::Call, dtype), fn(fn), args(args.begin(), args.end()) {}
  Intrinsic getIntrinsic() const { return fn; }
  llvm::ArrayRef<Expr> getArgs() const { return args; }
  static bool classof(const ExprNode *e) { return e->getKind() == Kind::Call; }

private:
  Intrinsic fn;
  llvm::SmallVector<Expr, 2> args;
};

/// tensor[indices...]: one element of a tensor (a placeholder, a compute or
/// an extern stage's output). Indices are int64 and in bounds: computes that
/// read data-dependent positions (take) clamp or wrap them first.
class TensorReadNode final : public ExprNode {
public:
  TensorReadNode(const TensorNode *tensor, llvm::ArrayRef<Expr> indices);
  ~TensorReadNode() override;
  const TensorNode *getTensor() const { return tensor.get(); }
  llvm::ArrayRef<Expr> getIndices() const { return indices; }
  static bool classof(const ExprNode *e) {
    return e->getKind() == Kind::TensorRead;
  }

private:
  llvm::IntrusiveRefCntPtr<const TensorNode> tensor;
  llvm::SmallVector<Expr, 4> indices;
};

/// A reduction axis: a variable that runs over [0, extent).
struct IterVar {
  Expr var; ///< a VarNode
  Expr extent;
};

enum class ReduceKind : uint8_t {
  Sum,
  Prod,
  Min,
  Max,
  /// Logical any / all over bool.
  Any,
  All,
  /// The position (row-major over the reduction axes) of the first maximum
  /// or minimum, or of the last one when ReduceNode::selectLast; the result
  /// is the node's integer dtype. NaN compares as larger than everything
  /// (numpy.argmax picks the first NaN).
  ArgMax,
  ArgMin,
};

/// A reduction of `source` over the axes. Elements for which `condition`
/// (if set) is false are skipped; an empty reduction gives the identity
/// (0 for Sum, 1 for Prod, the dtype's lowest for Max and highest for Min,
/// -inf/+inf for floats; 0 for ArgMax/ArgMin).
class ReduceNode final : public ExprNode {
public:
  ReduceNode(ReduceKind kind, DataType dtype, Expr source,
             llvm::ArrayRef<IterVar> axes, Expr condition, bool selectLast)
      : ExprNode(Kind::Reduce, dtype), kind(kind), source(std::move(source)),
        axes(axes.begin(), axes.end()), condition(std::move(condition)),
        selectLast(selectLast) {}
  ReduceKind getReduceKind() const { return kind; }
  const Expr &getSource() const { return source; }
  llvm::ArrayRef<IterVar> getAxes() const { return axes; }
  const Expr &getCondition() const { return condition; }
  bool getSelectLast() const { return selectLast; }
  static bool classof(const ExprNode *e) {
    return e->getKind() == Kind::Reduce;
  }

private:
  ReduceKind kind;
  Expr source;
  llvm::SmallVector<IterVar, 2> axes;
  Expr condition;
  bool selectLast;
};

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

/// Immediates of \p dtype (float16/bfloat16 immediates hold the value
/// rounded to that type on use).
Expr intImm(DataType dtype, int64_t value);
Expr floatImm(DataType dtype, double value);
/// An immediate of \p dtype holding \p value (integers truncate).
Expr constant(DataType dtype, double value);
Expr boolImm(bool value);
/// The smallest / largest finite-or-infinite value of \p dtype (-inf/+inf
/// for floats), the identities of max and min.
Expr lowestValue(DataType dtype);
Expr highestValue(DataType dtype);

/// A fresh variable (int64 unless \p dtype says otherwise).
Expr var(llvm::StringRef name, DataType dtype = DataType::int64());
/// A reduction axis over [0, extent).
IterVar reduceAxis(Expr extent, llvm::StringRef name = "k");

Expr neg(Expr a);
/// Logical not for bool, bitwise not for integers.
Expr logicalNot(Expr a);
Expr binary(BinaryOp op, Expr a, Expr b);
Expr select(Expr cond, Expr t, Expr f);
Expr cast(DataType dtype, Expr a);
Expr reinterpret(DataType dtype, Expr a);
Expr call(Intrinsic fn, llvm::ArrayRef<Expr> args);

Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr floorDiv(Expr a, Expr b);
Expr floorMod(Expr a, Expr b);
Expr truncDiv(Expr a, Expr b);
Expr truncMod(Expr a, Expr b);
Expr pow(Expr a, Expr b);

Expr reduce(ReduceKind kind, Expr source, llvm::ArrayRef<IterVar> axes,
            Expr condition = Expr(), bool selectLast = false,
            DataType indexType = DataType::int32());
inline Expr sum(Expr source, llvm::ArrayRef<IterVar> axes,
                Expr condition = Expr()) {
  return reduce(ReduceKind::Sum, std::move(source), axes, std::move(condition));
}
inline Expr max(Expr source, llvm::ArrayRef<IterVar> axes,
                Expr condition = Expr()) {
  return reduce(ReduceKind::Max, std::move(source), axes, std::move(condition));
}

// Operators: both operands must have one dtype (a plain integer literal
// takes the other operand's dtype).
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
/// Div (truncating for integers, as C and Relay's divide).
Expr operator/(Expr a, Expr b);
Expr operator-(Expr a);
Expr operator==(Expr a, Expr b);
Expr operator!=(Expr a, Expr b);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
/// Logical and / or of bool expressions (named functions: overloading && and
/// || would make every `if (e && ...)` on an Expr ambiguous).
Expr logicalAnd(Expr a, Expr b);
Expr logicalOr(Expr a, Expr b);

/// Prints \p e in a C-like syntax, for diagnostics and tests.
void print(llvm::raw_ostream &os, const Expr &e);
std::string toString(const Expr &e);

} // namespace nnir::te

#endif // NNIR_TE_EXPR_H
