//===- KernelKey.cpp - Cache keys of primitive functions ------------------===//

#include "nnir/ExecutionEngine/KernelKey.h"
#include "nnir/Codegen/Lowering.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Type.h"
#include "nnir/Ops/Compute.h"

#include "llvm/ADT/DenseMap.h"

using namespace llvm;
using namespace nnir;

namespace {
enum Tag : uint64_t {
  kParam = 1,
  kConstant,
  kCall,
  kTuple,
  kItem,
  kTensorType,
  kTupleType,
  kOtherType,
  kRoot,
};

struct KeyBuilder {
  std::vector<uint64_t> &words;
  const GenericShape *generic;

  /// The type of \p e's value: dtypes and shapes, or for shape-generic
  /// kernels dtypes and the merged axes each tensor spans (their extents
  /// are kernel arguments).
  void addValueType(const Expr *e, const Type *type) {
    unsigned field = 0;
    addType(e, type, field);
  }

  void addType(const Expr *e, const Type *type, unsigned &field) {
    if (const auto *t = dyn_cast_or_null<TensorType>(type)) {
      words.push_back(kTensorType);
      DataType d = t->getDType();
      words.push_back((uint64_t(d.getCode()) << 32) | (d.getBits() << 16) |
                      d.getLanes());
      if (generic) {
        GenericShape::TensorAxes axes = generic->getAxes(e, field++);
        words.push_back((uint64_t(axes.first) << 32) | axes.count);
        words.push_back(axes.mask);
        return;
      }
      words.push_back(t->getRank());
      for (int64_t e : t->getShape())
        words.push_back(static_cast<uint64_t>(e));
      return;
    }
    if (const auto *t = dyn_cast_or_null<TupleType>(type)) {
      words.push_back(kTupleType);
      words.push_back(t->getFields().size());
      for (const Ref<Type> &f : t->getFields())
        addType(e, f.get(), field);
      return;
    }
    words.push_back(kOtherType);
  }
};
} // namespace

static const Type *typeOf(const Expr *e) {
  if (e->getCheckedType())
    return e->getCheckedType().get();
  if (const auto *v = dyn_cast<Var>(e))
    return v->getTypeAnnotation().get();
  return nullptr;
}

KernelKey KernelKey::get(const Function &fn, const GenericShape *generic) {
  KernelKey key;
  key.shapeGeneric = generic;
  key.words.reserve(64);
  KeyBuilder builder{key.words, generic};
  DenseMap<const Expr *, uint64_t> ids;
  key.words.push_back(generic ? generic->getExtents().size() : 0);
  key.words.push_back(fn.getNumParams());
  for (unsigned i = 0; i < fn.getNumParams(); ++i) {
    ids[fn.getParam(i).get()] = i;
    builder.addValueType(fn.getParam(i).get(), typeOf(fn.getParam(i).get()));
  }
  uint64_t next = fn.getNumParams();
  forEachPrimitiveNode(fn, [&](const Expr *e) {
    if (isa<Var>(e)) {
      auto it = ids.find(e);
      key.words.push_back(kParam);
      key.words.push_back(it == ids.end() ? ~uint64_t(0) : it->second);
      return;
    }
    ids[e] = next++;
    if (isa<Constant>(e)) {
      key.words.push_back(kConstant);
      builder.addValueType(e, typeOf(e));
      return;
    }
    if (const auto *call = dyn_cast<Call>(e)) {
      key.words.push_back(kCall);
      const auto *op = dyn_cast<Op>(call->getCallee().get());
      key.words.push_back(op ? op->getIndex() : ~uint64_t(0));
      key.words.push_back(call->getArgs().size());
      for (const Ref<Expr> &a : call->getArgs())
        key.words.push_back(ids.lookup(a.get()));
      // A shape-generic re-shape is defined by the shapes of its operand
      // and result alone (its newshape or axes are not read).
      Ref<Attrs> attrs = call->getAttrs();
      if (generic && op && isReshapeLike(op))
        attrs = nullptr;
      key.words.push_back(static_cast<uint64_t>(hashAttrs(attrs.get())));
      key.attrs.push_back(attrs);
      builder.addValueType(e, typeOf(e));
      return;
    }
    if (const auto *tuple = dyn_cast<Tuple>(e)) {
      key.words.push_back(kTuple);
      key.words.push_back(tuple->getFields().size());
      for (const Ref<Expr> &f : tuple->getFields())
        key.words.push_back(ids.lookup(f.get()));
      return;
    }
    if (const auto *item = dyn_cast<TupleGetItem>(e)) {
      key.words.push_back(kItem);
      key.words.push_back(item->getIndex());
      key.words.push_back(ids.lookup(item->getTuple().get()));
      return;
    }
    key.words.push_back(kOtherType);
  });
  key.words.push_back(kRoot);
  key.words.push_back(ids.lookup(fn.getBody().get()));
  key.hash = hash_combine_range(key.words.begin(), key.words.end());
  return key;
}

bool KernelKey::operator==(const KernelKey &other) const {
  if (hash != other.hash || words != other.words ||
      attrs.size() != other.attrs.size())
    return false;
  for (size_t i = 0; i < attrs.size(); ++i)
    if (!attrsEqual(attrs[i].get(), other.attrs[i].get()))
      return false;
  return true;
}
