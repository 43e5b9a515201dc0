//===- Op.h - Operators and the operator registry ----------------*- C++ -*-===//
//
/// \file
/// An Op is a primitive operator (`add`, `nn.conv2d`), registered once by name
/// in the OpRegistry with its description, arguments and attribute record
/// type. Later layers attach typed per-operator properties through attribute
/// maps (type relation, fusion pattern, stateful / non-computational flags,
/// compute); passes query those properties and never switch on names of ops
/// they do not own.
///
/// Registration is an explicit call (registerAllOps() in nnir/Ops), made by
/// tools and plugin entry points before any concurrent use; lookups are then
/// safe from any thread.
///
/// Attribute maps are keyed by a property name and checked against the value
/// type's TypeId, which must be declared explicitly
/// (NNIR_DECLARE_EXPLICIT_TYPE_ID, nnir/Support/TypeId.h) so that a plugin
/// built with -fvisibility=hidden finds the tool's maps:
///
/// \code
///   // MyProps.h                         // MyProps.cpp
///   struct MyCost { int64_t cycles; };   NNIR_DEFINE_EXPLICIT_TYPE_ID(MyCost)
///   NNIR_DECLARE_EXPLICIT_TYPE_ID(MyCost)
///
///   OpRegistry::instance().getAttrMap<MyCost>("MyCost").set(op, {4});
/// \endcode
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_OP_H
#define NNIR_IR_OP_H

#include "nnir/IR/Attrs.h"
#include "nnir/IR/Expr.h"
#include "nnir/Support/TypeId.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <cassert>
#include <memory>
#include <string>
#include <vector>

namespace nnir {

/// One formal argument of an operator, for documentation and arity checks.
struct OpArgument {
  std::string name;
  std::string typeInfo;
  std::string description;
};

class Op final : public Expr {
public:
  using AttrsCreator = llvm::Expected<Ref<Attrs>> (*)(
      llvm::ArrayRef<NamedAttrValue> kwargs, llvm::SMLoc callLoc,
      llvm::StringRef opName);
  using DefaultAttrsCreator = Ref<Attrs> (*)();

  /// The registered operator \p name, or null.
  static Op *lookup(llvm::StringRef name);

  llvm::StringRef getName() const { return name; }
  llvm::StringRef getDescription() const { return description; }
  /// Dense index in registration order; keys per-op tables.
  unsigned getIndex() const { return index; }
  /// Number of inputs, or -1 when variadic.
  int getNumInputs() const { return numInputs; }
  llvm::ArrayRef<OpArgument> getArguments() const { return arguments; }
  /// Checks that a call passes this operator's number of inputs (any number
  /// when it is variadic): "add expects 2 arguments, got 1", located at
  /// \p loc. The parser, the verifier and type inference all check arity
  /// here.
  llvm::Error checkNumArgs(size_t numArgs, llvm::SMLoc loc = {}) const;

  /// True if calls carry a typed attribute record.
  bool hasAttrsType() const { return attrsCreator != nullptr; }
  /// The record's type key, or "" when the op has none.
  llvm::StringRef getAttrsTypeKey() const { return attrsTypeKey; }
  /// The record's type (only when hasAttrsType()).
  TypeId getAttrsTypeId() const {
    assert(hasAttrsType() && "operator has no attribute record type");
    return attrsTypeId;
  }
  /// The record with every default (required fields value-initialised),
  /// shared by all callers; null when the op has no record type. A call
  /// without a record means this one (Call::getAttrsOrDefaults()).
  const Ref<Attrs> &getDefaultAttrs() const { return defaultAttrs; }

  /// Builds the op's attribute record from keyword arguments. An op without
  /// an attribute record accepts no keywords and yields null.
  llvm::Expected<Ref<Attrs>>
  createAttrs(llvm::ArrayRef<NamedAttrValue> kwargs,
              llvm::SMLoc callLoc = {}) const;
  /// A new record with all defaults (required fields zero), or null. Prefer
  /// getDefaultAttrs() unless the record is to be changed.
  Ref<Attrs> createDefaultAttrs() const;

  static bool classof(const Expr *e) { return e->getKind() == Kind::Op; }

private:
  friend class OpRegistry;
  friend class OpBuilder;
  Op(llvm::StringRef name, unsigned index)
      : Expr(Kind::Op, llvm::SMLoc(), nullptr), name(name), index(index) {}

  std::string name;
  std::string description;
  unsigned index;
  int numInputs = -1;
  std::vector<OpArgument> arguments;
  std::string attrsTypeKey;
  TypeId attrsTypeId = TypeId::getFromOpaquePointer(nullptr);
  AttrsCreator attrsCreator = nullptr;
  DefaultAttrsCreator defaultAttrsCreator = nullptr;
  Ref<Attrs> defaultAttrs;
};

/// Type-erased base of per-operator property tables.
class OpAttrMapBase {
public:
  virtual ~OpAttrMapBase();
  /// The type of the values.
  TypeId getValueTypeId() const { return valueTypeId; }

protected:
  explicit OpAttrMapBase(TypeId valueTypeId) : valueTypeId(valueTypeId) {}

private:
  TypeId valueTypeId;
};

/// A property of type T per operator (TVM's OpAttrMap), indexed by op index.
/// T needs an explicit TypeId (NNIR_DECLARE_EXPLICIT_TYPE_ID).
template <typename T> class OpAttrMap final : public OpAttrMapBase {
public:
  OpAttrMap() : OpAttrMapBase(TypeId::get<T>()) {}

  bool has(const Op *op) const {
    return op && op->getIndex() < values.size() &&
           values[op->getIndex()].has_value();
  }
  /// The value for \p op; it must be present (asserted).
  const T &get(const Op *op) const {
    assert(has(op) && "operator has no entry in this attribute map");
    return *values[op->getIndex()];
  }
  /// The value for \p op, or \p def when it is absent.
  T lookup(const Op *op, T def) const {
    return has(op) ? *values[op->getIndex()] : def;
  }
  void set(const Op *op, T value) {
    assert(op && "setting a property of a null operator");
    if (values.size() <= op->getIndex())
      values.resize(op->getIndex() + 1);
    values[op->getIndex()] = std::move(value);
  }

private:
  std::vector<std::optional<T>> values;
};

class OpBuilder;

/// The process-wide operator registry.
class OpRegistry {
public:
  static OpRegistry &instance();

  /// Registers operator \p name. Registering a name twice is a programming
  /// error and aborts with a message.
  OpBuilder add(llvm::StringRef name);

  /// The operator \p name, or null.
  Op *lookup(llvm::StringRef name) const;
  /// Every operator in registration order.
  llvm::ArrayRef<Ref<Op>> getOps() const { return ops; }
  /// Up to \p maxResults registered names closest to \p name (edit
  /// distance), for "did you mean" hints.
  std::vector<std::string> suggest(llvm::StringRef name,
                                   unsigned maxResults = 3) const;

  /// The property table \p key of type T, created on first use. Using one key
  /// with two different types is a programming error and aborts.
  template <typename T> OpAttrMap<T> &getAttrMap(llvm::StringRef key) {
    OpAttrMapBase *&slot = attrMaps[key];
    if (!slot) {
      owned.push_back(std::make_unique<OpAttrMap<T>>());
      slot = owned.back().get();
    }
    checkType(key, *slot, TypeId::get<T>());
    return static_cast<OpAttrMap<T> &>(*slot);
  }
  /// The table \p key if it exists with type T, else null.
  template <typename T>
  const OpAttrMap<T> *findAttrMap(llvm::StringRef key) const {
    auto it = attrMaps.find(key);
    if (it == attrMaps.end() ||
        it->second->getValueTypeId() != TypeId::get<T>())
      return nullptr;
    return static_cast<const OpAttrMap<T> *>(it->second);
  }

private:
  OpRegistry() = default;
  static void checkType(llvm::StringRef key, const OpAttrMapBase &map,
                        TypeId valueTypeId);

  std::vector<Ref<Op>> ops;
  llvm::StringMap<Op *> byName;
  llvm::StringMap<OpAttrMapBase *> attrMaps;
  std::vector<std::unique_ptr<OpAttrMapBase>> owned;
};

/// Fluent registration: OpRegistry::instance().add("add").describe(...)...
class OpBuilder {
public:
  explicit OpBuilder(Op *op) : op(op) {}

  OpBuilder &describe(llvm::StringRef text) {
    op->description = text.str();
    return *this;
  }
  OpBuilder &setNumInputs(int n) {
    op->numInputs = n;
    return *this;
  }
  OpBuilder &addArgument(llvm::StringRef name, llvm::StringRef typeInfo,
                         llvm::StringRef description = "") {
    op->arguments.push_back({name.str(), typeInfo.str(), description.str()});
    return *this;
  }
  /// Declares the attribute record type of calls of this op.
  template <typename AttrsT> OpBuilder &setAttrsType() {
    op->attrsTypeKey = AttrsT::typeKey.str();
    op->attrsTypeId = AttrsT::getStaticTypeId();
    op->attrsCreator = &AttrsT::createFromValues;
    op->defaultAttrsCreator = []() -> Ref<Attrs> { return AttrsT::create(); };
    op->defaultAttrs = AttrsT::create();
    return *this;
  }
  /// Sets property \p key of this op.
  template <typename T> OpBuilder &setAttr(llvm::StringRef key, T value) {
    OpRegistry::instance().getAttrMap<T>(key).set(op, std::move(value));
    return *this;
  }

  Op *getOp() const { return op; }

private:
  Op *op;
};

} // namespace nnir

/// Flags (TOpIsStateful, TNonComputational, ...) are OpAttrMap<bool>.
NNIR_DECLARE_EXPLICIT_TYPE_ID(bool)

#endif // NNIR_IR_OP_H
