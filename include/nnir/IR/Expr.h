//===- Expr.h - Expressions of the graph IR ----------------------*- C++ -*-===//
//
/// \file
/// Relay's expression language: Constant, Var, GlobalVar, Op, Call, Tuple,
/// TupleGetItem, Let, If and Function. Nodes are immutable and shared: a
/// rewrite builds new nodes and keeps the unchanged ones, so pointer identity
/// can key memo tables. LLVM-style RTTI works on them (isa<Call>(e)).
///
/// Every node may carry a source location and the type inferred for it
/// (its "checked type"). Because nodes are immutable, the checked type is
/// fixed when the node is built; type inference rebuilds the nodes whose type
/// is missing or changed, and returns the very same nodes when nothing did.
/// Neither the location nor the checked type takes part in structural
/// equality.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_EXPR_H
#define NNIR_IR_EXPR_H

#include "nnir/IR/Attrs.h"
#include "nnir/IR/Object.h"
#include "nnir/IR/Type.h"
#include "nnir/Runtime/NDArray.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"

#include <memory>
#include <string>

namespace nnir {

class Op;

class Expr : public Object {
public:
  enum class Kind : uint8_t {
    Constant,
    Var,
    GlobalVar,
    Op,
    Call,
    Tuple,
    TupleGetItem,
    Let,
    If,
    Function,
  };

  Kind getKind() const { return kind; }
  llvm::SMLoc getLoc() const { return loc; }

  /// The type inferred for this node, or null if it was not inferred.
  const Ref<Type> &getCheckedType() const { return checkedType; }

  /// A node kind's name ("Call"), for diagnostics.
  static llvm::StringRef getKindName(Kind kind);

protected:
  Expr(Kind kind, llvm::SMLoc loc, Ref<Type> checkedType)
      : kind(kind), loc(loc), checkedType(std::move(checkedType)) {}

private:
  Kind kind;
  llvm::SMLoc loc;
  Ref<Type> checkedType;
};

/// A tensor constant. Its checked type is always its TensorType.
class Constant final : public Expr {
public:
  static Ref<Constant> get(NDArray data, llvm::SMLoc loc = {});
  /// A 0-d constant of \p dtype holding \p value.
  static Ref<Constant> getScalar(DataType dtype, double value,
                                 llvm::SMLoc loc = {});

  const NDArray &getData() const { return data; }
  const TensorType *getType() const {
    return llvm::cast<TensorType>(getCheckedType().get());
  }
  bool isScalar() const { return data.getRank() == 0; }

  static bool classof(const Expr *e) { return e->getKind() == Kind::Constant; }

private:
  Constant(NDArray data, llvm::SMLoc loc, Ref<Type> type)
      : Expr(Kind::Constant, loc, std::move(type)), data(std::move(data)) {}
  NDArray data;
};

/// A local variable: a function parameter or a let binder. Identity is the
/// node itself; the name is only a hint for printing.
class Var final : public Expr {
public:
  /// \p annotation is the type written in the source (may be null). The
  /// checked type defaults to the annotation. \p virtualDevice is where the
  /// value lives (see nnir/IR/VirtualDevice.h; None: unconstrained).
  static Ref<Var> get(llvm::StringRef nameHint, Ref<Type> annotation = nullptr,
                      llvm::SMLoc loc = {}, Ref<Type> checkedType = nullptr,
                      AttrValue virtualDevice = AttrValue());

  llvm::StringRef getNameHint() const { return nameHint; }
  const Ref<Type> &getTypeAnnotation() const { return annotation; }
  /// TVM's `virtual_device_`: None when fully unconstrained.
  const AttrValue &getVirtualDevice() const;
  /// Sets the virtual device *in place*. Nodes are immutable: this is only
  /// for a frontend finishing a variable it has just built, before any pass
  /// or table has seen it (TVM scripts' `x.virtual_device_ = tvm.cpu()`).
  void setVirtualDeviceInPlace(AttrValue device);

  static bool classof(const Expr *e) { return e->getKind() == Kind::Var; }

private:
  Var(llvm::StringRef nameHint, Ref<Type> annotation, llvm::SMLoc loc,
      Ref<Type> checkedType)
      : Expr(Kind::Var, loc, std::move(checkedType)), nameHint(nameHint),
        annotation(std::move(annotation)) {}
  std::string nameHint;
  Ref<Type> annotation;
  /// Null when unconstrained (most variables): a pointer keeps Var small.
  std::unique_ptr<const AttrValue> virtualDevice;
};

/// A reference to a function of an IRModule, by name (`@main`).
class GlobalVar final : public Expr {
public:
  static Ref<GlobalVar> get(llvm::StringRef name, llvm::SMLoc loc = {},
                            Ref<Type> checkedType = nullptr);

  llvm::StringRef getName() const { return name; }

  static bool classof(const Expr *e) {
    return e->getKind() == Kind::GlobalVar;
  }

private:
  GlobalVar(llvm::StringRef name, llvm::SMLoc loc, Ref<Type> checkedType)
      : Expr(Kind::GlobalVar, loc, std::move(checkedType)), name(name) {}
  std::string name;
};

/// Calls an operator, a function or a closure-valued expression. Calls of
/// operators carry the operator's attribute record (null for operators
/// without attributes); calls of functions may carry DictAttrs.
class Call final : public Expr {
public:
  static Ref<Call> get(Ref<Expr> callee, llvm::ArrayRef<Ref<Expr>> args,
                       Ref<Attrs> attrs = nullptr, llvm::SMLoc loc = {},
                       Ref<Type> checkedType = nullptr);

  const Ref<Expr> &getCallee() const { return callee; }
  llvm::ArrayRef<Ref<Expr>> getArgs() const { return args; }
  size_t getNumArgs() const { return args.size(); }
  const Ref<Expr> &getArg(size_t i) const { return args[i]; }
  /// The record the call carries (null when it has none); see
  /// getAttrsOrDefaults() for the record it means.
  const Ref<Attrs> &getAttrs() const { return attrs; }

  /// The attribute record the call means: its own, except that a call of an
  /// operator with a record type that carries none (null, or an empty
  /// DictAttrs) means the operator's defaults (Op::getDefaultAttrs()). Null
  /// when there is no record (an operator without a record type, or a call
  /// of a non-operator without attributes). Passes, type inference,
  /// structural equality and the verifier all read records through this.
  const Attrs *getAttrsOrDefaults() const;
  /// getAttrsOrDefaults() as a T, or null when the record is not a T:
  /// `if (const auto *conv = call->getAttrsAs<Conv2DAttrs>()) ...`.
  template <typename T> const T *getAttrsAs() const {
    return llvm::dyn_cast_or_null<T>(getAttrsOrDefaults());
  }

  /// The operator called, or null if the callee is not an Op.
  Op *getCalledOp() const;

  static bool classof(const Expr *e) { return e->getKind() == Kind::Call; }

private:
  Call(Ref<Expr> callee, llvm::ArrayRef<Ref<Expr>> args, Ref<Attrs> attrs,
       llvm::SMLoc loc, Ref<Type> checkedType)
      : Expr(Kind::Call, loc, std::move(checkedType)),
        callee(std::move(callee)), args(args.begin(), args.end()),
        attrs(std::move(attrs)) {}
  Ref<Expr> callee;
  llvm::SmallVector<Ref<Expr>, 2> args;
  Ref<Attrs> attrs;
};

class Tuple final : public Expr {
public:
  static Ref<Tuple> get(llvm::ArrayRef<Ref<Expr>> fields, llvm::SMLoc loc = {},
                        Ref<Type> checkedType = nullptr);

  llvm::ArrayRef<Ref<Expr>> getFields() const { return fields; }
  size_t size() const { return fields.size(); }
  const Ref<Expr> &getField(size_t i) const { return fields[i]; }

  static bool classof(const Expr *e) { return e->getKind() == Kind::Tuple; }

private:
  Tuple(llvm::ArrayRef<Ref<Expr>> fields, llvm::SMLoc loc,
        Ref<Type> checkedType)
      : Expr(Kind::Tuple, loc, std::move(checkedType)),
        fields(fields.begin(), fields.end()) {}
  llvm::SmallVector<Ref<Expr>, 2> fields;
};

/// `%t.0`
class TupleGetItem final : public Expr {
public:
  static Ref<TupleGetItem> get(Ref<Expr> tuple, unsigned index,
                               llvm::SMLoc loc = {},
                               Ref<Type> checkedType = nullptr);

  const Ref<Expr> &getTuple() const { return tuple; }
  unsigned getIndex() const { return index; }

  static bool classof(const Expr *e) {
    return e->getKind() == Kind::TupleGetItem;
  }

private:
  TupleGetItem(Ref<Expr> tuple, unsigned index, llvm::SMLoc loc,
               Ref<Type> checkedType)
      : Expr(Kind::TupleGetItem, loc, std::move(checkedType)),
        tuple(std::move(tuple)), index(index) {}
  Ref<Expr> tuple;
  unsigned index;
};

/// `let %var = value; body`
class Let final : public Expr {
public:
  static Ref<Let> get(Ref<Var> var, Ref<Expr> value, Ref<Expr> body,
                      llvm::SMLoc loc = {}, Ref<Type> checkedType = nullptr);

  const Ref<Var> &getVar() const { return var; }
  const Ref<Expr> &getValue() const { return value; }
  const Ref<Expr> &getBody() const { return body; }

  static bool classof(const Expr *e) { return e->getKind() == Kind::Let; }

private:
  Let(Ref<Var> var, Ref<Expr> value, Ref<Expr> body, llvm::SMLoc loc,
      Ref<Type> checkedType)
      : Expr(Kind::Let, loc, std::move(checkedType)), var(std::move(var)),
        value(std::move(value)), body(std::move(body)) {}
  Ref<Var> var;
  Ref<Expr> value;
  Ref<Expr> body;
};

/// `if (cond) { thenBranch } else { elseBranch }`
class If final : public Expr {
public:
  static Ref<If> get(Ref<Expr> cond, Ref<Expr> thenBranch,
                     Ref<Expr> elseBranch, llvm::SMLoc loc = {},
                     Ref<Type> checkedType = nullptr);

  const Ref<Expr> &getCond() const { return cond; }
  const Ref<Expr> &getThen() const { return thenBranch; }
  const Ref<Expr> &getElse() const { return elseBranch; }

  static bool classof(const Expr *e) { return e->getKind() == Kind::If; }

private:
  If(Ref<Expr> cond, Ref<Expr> thenBranch, Ref<Expr> elseBranch,
     llvm::SMLoc loc, Ref<Type> checkedType)
      : Expr(Kind::If, loc, std::move(checkedType)), cond(std::move(cond)),
        thenBranch(std::move(thenBranch)), elseBranch(std::move(elseBranch)) {}
  Ref<Expr> cond;
  Ref<Expr> thenBranch;
  Ref<Expr> elseBranch;
};

/// `fn (%x: T, ...) -> R { body }` with optional attributes (Primitive=1,
/// Compiler="...", SkipOptimization=1, ...).
class Function final : public Expr {
public:
  static Ref<Function> get(llvm::ArrayRef<Ref<Var>> params, Ref<Expr> body,
                           Ref<Type> retType = nullptr,
                           Ref<DictAttrs> attrs = nullptr,
                           llvm::SMLoc loc = {},
                           Ref<Type> checkedType = nullptr);

  llvm::ArrayRef<Ref<Var>> getParams() const { return params; }
  size_t getNumParams() const { return params.size(); }
  const Ref<Var> &getParam(size_t i) const { return params[i]; }
  const Ref<Expr> &getBody() const { return body; }
  /// The annotated result type, or null.
  const Ref<Type> &getRetType() const { return retType; }
  /// The function's attributes, or null.
  const Ref<DictAttrs> &getAttrs() const { return attrs; }

  /// The attribute \p name, or null.
  const AttrValue *getAttr(llvm::StringRef name) const;
  /// True if the attribute \p name is present and is a non-zero integer or
  /// true (TVM's `Primitive=1`).
  bool hasNonZeroAttr(llvm::StringRef name) const;
  bool isPrimitive() const { return hasNonZeroAttr("Primitive"); }
  /// TVM's `virtual_device_`, kept in the attributes under
  /// attr::kVirtualDevice (so every rebuild that keeps the attributes keeps
  /// it); None when fully unconstrained.
  const AttrValue &getVirtualDevice() const;
  /// \p attrs (may be null) with the virtual device set to \p device (last,
  /// where TVM prints it), or removed when \p device is None.
  static Ref<DictAttrs> withVirtualDevice(const DictAttrs *attrs,
                                          AttrValue device);
  /// Sets the virtual device *in place*; as Var::setVirtualDeviceInPlace,
  /// only for a frontend finishing a function it has just built.
  void setVirtualDeviceInPlace(AttrValue device);
  /// True for a function whose body graph passes (FuseOps, ToANormalForm,
  /// FoldConstant) treat as one opaque unit: a primitive function (already
  /// one kernel) or one for an external compiler (`Compiler=...`).
  bool isOpaque() const {
    return isPrimitive() || getAttr("Compiler") != nullptr;
  }

  static bool classof(const Expr *e) { return e->getKind() == Kind::Function; }

private:
  Function(llvm::ArrayRef<Ref<Var>> params, Ref<Expr> body, Ref<Type> retType,
           Ref<DictAttrs> attrs, llvm::SMLoc loc, Ref<Type> checkedType)
      : Expr(Kind::Function, loc, std::move(checkedType)),
        params(params.begin(), params.end()), body(std::move(body)),
        retType(std::move(retType)), attrs(std::move(attrs)) {}
  llvm::SmallVector<Ref<Var>, 4> params;
  Ref<Expr> body;
  Ref<Type> retType;
  Ref<DictAttrs> attrs;
};

/// The error of a call that passes \p got arguments to \p callee (an
/// operator's name, `@f`, "function"), which takes \p expected: "add expects 2
/// arguments, got 1". Every arity check words its error this way.
llvm::Error makeArityError(const llvm::Twine &callee, size_t expected,
                           size_t got, llvm::SMLoc loc = {});

/// Names of function attributes the infrastructure knows.
namespace attr {
inline constexpr llvm::StringLiteral kPrimitive = "Primitive";
inline constexpr llvm::StringLiteral kCompiler = "Compiler";
inline constexpr llvm::StringLiteral kSkipOptimization = "SkipOptimization";
inline constexpr llvm::StringLiteral kExtern = "Extern";
/// A function's virtual device (Function::getVirtualDevice()).
inline constexpr llvm::StringLiteral kVirtualDevice = "virtual_device";
} // namespace attr

} // namespace nnir

#endif // NNIR_IR_EXPR_H
