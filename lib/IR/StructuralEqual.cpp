//===- StructuralEqual.cpp - Structural equality and hashing --------------===//
//
/// \file
/// Equality walks both graphs in lockstep with an explicit stack of node
/// pairs, matching variables at their binders and graph nodes one to one;
/// hashing is an iterative post-order walk with a memo per node.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/StructuralEqual.h"

#include "nnir/IR/Expr.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Traversal.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;
using namespace nnir;

/// True for nodes matched one to one (TVM's "graph nodes"); the others are
/// values compared wherever they occur.
static bool isGraphNode(const Expr *e) {
  switch (e->getKind()) {
  case Expr::Kind::Call:
  case Expr::Kind::TupleGetItem:
  case Expr::Kind::Let:
  case Expr::Kind::If:
  case Expr::Kind::Function:
    return true;
  case Expr::Kind::Tuple:
    return cast<Tuple>(e)->size() != 0;
  default:
    return false;
  }
}

/// `%name` of a variable for messages.
static std::string varName(const Var *var) {
  return ("%" + var->getNameHint()).str();
}

static std::string typeText(const Type *type) {
  return type ? type->str() : std::string("<none>");
}

static std::string valueText(const AttrValue &value) {
  std::string text;
  raw_string_ostream os(text);
  value.print(os);
  return text;
}

static std::string shapeText(ArrayRef<int64_t> shape) {
  std::string text;
  raw_string_ostream os(text);
  printShape(os, shape);
  return text;
}

/// A null record and an empty DictAttrs both mean "no attributes".
static bool isEmptyAttrs(const Attrs *attrs) {
  if (!attrs)
    return true;
  const auto *dict = dyn_cast<DictAttrs>(attrs);
  return dict && dict->empty();
}

/// A function's attributes as structural equality sees them: without its
/// virtual device, which TVM's FunctionNode neither compares nor hashes.
/// \p storage holds the copy when one is needed.
static const Attrs *getComparedAttrs(const Function *func,
                                     Ref<DictAttrs> &storage) {
  const DictAttrs *attrs = func->getAttrs().get();
  if (!attrs || !attrs->lookup(attr::kVirtualDevice))
    return attrs;
  storage = attrs->without(attr::kVirtualDevice);
  return storage.get();
}

/// Describes how two unequal attribute records differ.
static std::string explainAttrs(const Attrs *a, const Attrs *b) {
  if (isEmptyAttrs(a))
    return ("attributes differ: none vs " + b->getTypeKey()).str();
  if (isEmptyAttrs(b))
    return ("attributes differ: " + a->getTypeKey() + " vs none").str();
  if (a->getTypeId() != b->getTypeId())
    return ("attribute records differ: " + a->getTypeKey() + " vs " +
            b->getTypeKey())
        .str();
  SmallVector<NamedAttrValue, 8> fa, fb;
  a->getFields(fa);
  b->getFields(fb);
  for (size_t i = 0, e = std::min(fa.size(), fb.size()); i != e; ++i) {
    if (fa[i].name != fb[i].name)
      return "attribute names differ: '" + fa[i].name + "' vs '" + fb[i].name +
             "'";
    if (fa[i].value != fb[i].value)
      return "attribute '" + fa[i].name +
             "' differs: " + valueText(fa[i].value) + " vs " +
             valueText(fb[i].value);
  }
  if (fa.size() != fb.size()) {
    const NamedAttrValue &extra =
        fa.size() > fb.size() ? fa[fb.size()] : fb[fa.size()];
    return "attribute '" + extra.name + "' is present on the " +
           (fa.size() > fb.size() ? "left" : "right") + " only";
  }
  // Equal as AttrValues but not as fields (e.g. -0.0 vs 0.0).
  return "attributes differ";
}

//===----------------------------------------------------------------------===//
// Equality
//===----------------------------------------------------------------------===//

namespace {
class EqualityChecker {
public:
  EqualityChecker(bool mapFreeVars, bool explain)
      : mapFreeVars(mapFreeVars), explain(explain) {}

  bool run(const Expr *lhs, const Expr *rhs);

  /// The first difference found (only with explain).
  std::string reason;

private:
  bool fail(const Twine &message) {
    if (explain)
      reason = message.str();
    return false;
  }
  /// Matches two variables; \p binding is set at binders (function
  /// parameters, let vars), which may always be mapped.
  bool matchVars(const Var *l, const Var *r, bool binding);
  /// Compares the node-local fields of two nodes of the same kind and pushes
  /// their children.
  bool compareNode(const Expr *l, const Expr *r);
  void push(const Expr *l, const Expr *r) { stack.push_back({l, r}); }

  bool mapFreeVars;
  bool explain;
  /// Variables, and graph nodes shared on their side, matched so far.
  DenseMap<const Expr *, const Expr *> lhsToRhs, rhsToLhs;
  /// Shared leaf pairs already found equal (large constants compare once).
  DenseSet<std::pair<const Expr *, const Expr *>> equalLeaves;
  SmallVector<std::pair<const Expr *, const Expr *>, 64> stack;
};
} // namespace

bool EqualityChecker::matchVars(const Var *l, const Var *r, bool binding) {
  auto it = lhsToRhs.find(l);
  if (it != lhsToRhs.end()) {
    if (it->second == r)
      return true;
    return fail("variable " + varName(l) + " is matched with " +
                varName(cast<Var>(it->second)) + " but met against " +
                varName(r));
  }
  auto jt = rhsToLhs.find(r);
  if (jt != rhsToLhs.end())
    return fail("variable " + varName(r) + " on the right is matched with " +
                varName(cast<Var>(jt->second)) + " but met against " +
                varName(l));
  if (!binding && !mapFreeVars && l != r)
    return fail("free variables differ: " + varName(l) + " vs " + varName(r));
  if (!typesEqual(l->getTypeAnnotation().get(), r->getTypeAnnotation().get()))
    return fail("type annotations of " + varName(l) + " and " + varName(r) +
                " differ: " + typeText(l->getTypeAnnotation().get()) + " vs " +
                typeText(r->getTypeAnnotation().get()));
  // TVM's VarNode compares its virtual device (and does not hash it).
  if (l->getVirtualDevice() != r->getVirtualDevice())
    return fail("virtual devices of " + varName(l) + " and " + varName(r) +
                " differ: " + valueText(l->getVirtualDevice()) + " vs " +
                valueText(r->getVirtualDevice()));
  lhsToRhs[l] = r;
  rhsToLhs[r] = l;
  return true;
}

bool EqualityChecker::run(const Expr *lhs, const Expr *rhs) {
  push(lhs, rhs);
  // Hand-written: walks two graphs in lockstep, node pairs on one stack.
  while (!stack.empty()) {
    auto [l, r] = stack.pop_back_val();
    if (!l || !r) {
      if (l != r)
        return fail(Twine("one side is null: ") +
                    (l ? Expr::getKindName(l->getKind()) : "null") + " vs " +
                    (r ? Expr::getKindName(r->getKind()) : "null"));
      continue;
    }
    if (l->getKind() != r->getKind())
      return fail("kinds differ: " + Expr::getKindName(l->getKind()) + " vs " +
                  Expr::getKindName(r->getKind()));
    if (auto *lv = dyn_cast<Var>(l)) {
      if (!matchVars(lv, cast<Var>(r), /*binding=*/false))
        return false;
      continue;
    }
    // A node with a single reference is met once: only shared nodes need
    // to be remembered, on the side where they are shared.
    bool lShared = l->getRefCount() > 1, rShared = r->getRefCount() > 1;
    bool graphNode = isGraphNode(l);
    if (graphNode) {
      if (lShared) {
        auto it = lhsToRhs.find(l);
        if (it != lhsToRhs.end()) {
          if (it->second != r)
            return fail("graph shapes differ: a " +
                        Expr::getKindName(l->getKind()) +
                        " shared on the left is matched with two different "
                        "nodes on the right");
          continue;
        }
      }
      if (rShared) {
        auto [it, inserted] = rhsToLhs.try_emplace(r, l);
        if (!inserted)
          return fail("graph shapes differ: a " +
                      Expr::getKindName(r->getKind()) +
                      " shared on the right is matched with two different "
                      "nodes on the left");
      }
      if (lShared)
        lhsToRhs[l] = r;
    } else if (l == r || (lShared && rShared && equalLeaves.count({l, r}))) {
      continue;
    }
    if (!compareNode(l, r))
      return false;
    if (!graphNode && lShared && rShared)
      equalLeaves.insert({l, r});
  }
  return true;
}

bool EqualityChecker::compareNode(const Expr *l, const Expr *r) {
  switch (l->getKind()) {
  case Expr::Kind::Var:
    return matchVars(cast<Var>(l), cast<Var>(r), /*binding=*/false);
  case Expr::Kind::Constant: {
    const NDArray &a = cast<Constant>(l)->getData();
    const NDArray &b = cast<Constant>(r)->getData();
    if (a.bitwiseEqual(b))
      return true;
    if (!a || !b)
      return fail("constant values differ");
    if (a.getDType() != b.getDType())
      return fail("constant dtypes differ: " + a.getDType().str() + " vs " +
                  b.getDType().str());
    if (a.getShape() != b.getShape())
      return fail("constant shapes differ: " + shapeText(a.getShape()) +
                  " vs " + shapeText(b.getShape()));
    return fail("constant values differ");
  }
  case Expr::Kind::GlobalVar: {
    StringRef a = cast<GlobalVar>(l)->getName();
    StringRef b = cast<GlobalVar>(r)->getName();
    if (a != b)
      return fail("global variables differ: @" + a + " vs @" + b);
    return true;
  }
  case Expr::Kind::Op:
    if (l != r)
      return fail("operators differ: " + cast<Op>(l)->getName() + " vs " +
                  cast<Op>(r)->getName());
    return true;
  case Expr::Kind::Call: {
    const auto *a = cast<Call>(l), *b = cast<Call>(r);
    if (a->getNumArgs() != b->getNumArgs())
      return fail("numbers of call arguments differ: " +
                  Twine(a->getNumArgs()) + " vs " + Twine(b->getNumArgs()));
    const Attrs *la = a->getAttrs().get(), *ra = b->getAttrs().get();
    if (!attrsEqual(la, ra)) {
      la = a->getAttrsOrDefaults();
      ra = b->getAttrsOrDefaults();
      if (!attrsEqual(la, ra))
        return fail(explainAttrs(la, ra));
    }
    break;
  }
  case Expr::Kind::Tuple: {
    const auto *a = cast<Tuple>(l), *b = cast<Tuple>(r);
    if (a->size() != b->size())
      return fail("tuple sizes differ: " + Twine(a->size()) + " vs " +
                  Twine(b->size()));
    break;
  }
  case Expr::Kind::TupleGetItem: {
    const auto *a = cast<TupleGetItem>(l), *b = cast<TupleGetItem>(r);
    if (a->getIndex() != b->getIndex())
      return fail("tuple indices differ: " + Twine(a->getIndex()) + " vs " +
                  Twine(b->getIndex()));
    break;
  }
  case Expr::Kind::Function: {
    const auto *a = cast<Function>(l), *b = cast<Function>(r);
    if (a->getNumParams() != b->getNumParams())
      return fail("numbers of function parameters differ: " +
                  Twine(a->getNumParams()) + " vs " + Twine(b->getNumParams()));
    if (!typesEqual(a->getRetType().get(), b->getRetType().get()))
      return fail(
          "function return types differ: " + typeText(a->getRetType().get()) +
          " vs " + typeText(b->getRetType().get()));
    Ref<DictAttrs> aStorage, bStorage;
    const Attrs *aAttrs = getComparedAttrs(a, aStorage);
    const Attrs *bAttrs = getComparedAttrs(b, bStorage);
    if (!attrsEqual(aAttrs, bAttrs))
      return fail("function " + explainAttrs(aAttrs, bAttrs));
    break;
  }
  case Expr::Kind::Let:
  case Expr::Kind::If:
    break;
  }
  // Same kind and, where it varies, the same number of children. Binders
  // are matched first (a let's variable is in scope in its own value, as
  // Relay's recursive let); the other children are pushed in reverse so
  // that they are compared from first to last (a call's callee first).
  SmallVector<Child, 4> lkids = getChildren(l), rkids = getChildren(r);
  assert(lkids.size() == rkids.size() && "numbers of children were compared");
  for (size_t i = 0, e = lkids.size(); i != e; ++i)
    if (isBinder(lkids[i].role) &&
        !matchVars(cast_or_null<Var>(lkids[i].expr),
                   cast_or_null<Var>(rkids[i].expr), /*binding=*/true))
      return false;
  for (size_t i = lkids.size(); i-- > 0;)
    if (!isBinder(lkids[i].role))
      push(lkids[i].expr, rkids[i].expr);
  return true;
}

bool nnir::structuralEqual(const Expr *lhs, const Expr *rhs, bool mapFreeVars) {
  return EqualityChecker(mapFreeVars, /*explain=*/false).run(lhs, rhs);
}

std::string nnir::explainStructuralDifference(const Expr *lhs, const Expr *rhs,
                                              bool mapFreeVars) {
  EqualityChecker checker(mapFreeVars, /*explain=*/true);
  if (checker.run(lhs, rhs))
    return "";
  return checker.reason;
}

/// Explains why two modules differ, or returns "" when they are equal. With
/// \p explain unset, returns "different" without composing a message.
static std::string compareModules(const IRModule &lhs, const IRModule &rhs,
                                  bool explain) {
  for (const IRModule::Entry &entry : lhs.getFunctions())
    if (!rhs.contains(entry.var->getName()))
      return explain ? ("function @" + entry.var->getName() +
                        " is missing on the right")
                           .str()
                     : "different";
  for (const IRModule::Entry &entry : rhs.getFunctions())
    if (!lhs.contains(entry.var->getName()))
      return explain ? ("function @" + entry.var->getName() +
                        " is missing on the left")
                           .str()
                     : "different";
  for (const IRModule::Entry &entry : lhs.getFunctions()) {
    const Function *other = rhs.lookup(entry.var->getName());
    EqualityChecker checker(/*mapFreeVars=*/false, explain);
    if (!checker.run(entry.func.get(), other))
      return explain
                 ? ("@" + entry.var->getName() + ": " + checker.reason).str()
                 : "different";
  }
  if (!attrsEqual(lhs.getAttrs().get(), rhs.getAttrs().get()))
    return explain ? "module " + explainAttrs(lhs.getAttrs().get(),
                                              rhs.getAttrs().get())
                   : "different";
  return "";
}

bool nnir::structuralEqual(const IRModule &lhs, const IRModule &rhs) {
  return compareModules(lhs, rhs, /*explain=*/false).empty();
}

std::string nnir::explainStructuralDifference(const IRModule &lhs,
                                              const IRModule &rhs) {
  return compareModules(lhs, rhs, /*explain=*/true);
}

//===----------------------------------------------------------------------===//
// Hashing
//===----------------------------------------------------------------------===//

namespace {
class Hasher {
public:
  explicit Hasher(bool mapFreeVars) : mapFreeVars(mapFreeVars) {}

  hash_code run(const Expr *root);

private:
  /// Numbers a binder in the order binders are met.
  void bind(const Var *var) { boundIndex.try_emplace(var, numBound++); }
  hash_code hashVar(const Var *var);
  /// Hashes \p e from its fields and its children's hashes \p kids (in
  /// order).
  hash_code combine(const Expr *e, ArrayRef<hash_code> kids);
  /// Pushes the children of \p e (in reverse, so that they are hashed in
  /// order), numbering binders first; returns how many were pushed.
  unsigned expand(const Expr *e);

  struct Item {
    const Expr *expr;
    /// Number of children pushed, or -1 before expansion.
    int numKids;
  };

  bool mapFreeVars;
  /// Hashes of shared nodes; a node with a single reference is reached once.
  DenseMap<const Expr *, hash_code> memo;
  DenseMap<const Var *, unsigned> boundIndex, freeIndex;
  unsigned numBound = 0;
  SmallVector<Item, 64> stack;
  /// Hashes of finished nodes whose parent is not finished yet.
  SmallVector<hash_code, 64> values;
};
} // namespace

hash_code Hasher::hashVar(const Var *var) {
  auto it = boundIndex.find(var);
  if (it != boundIndex.end())
    return hash_combine(1, it->second);
  if (!mapFreeVars)
    return hash_combine(2, static_cast<const void *>(var));
  auto [jt, inserted] = freeIndex.try_emplace(var, freeIndex.size());
  return hash_combine(3, jt->second, hashType(var->getTypeAnnotation().get()));
}

hash_code Hasher::combine(const Expr *e, ArrayRef<hash_code> kids) {
  hash_code h = llvm::hash_value(static_cast<unsigned>(e->getKind()));
  switch (e->getKind()) {
  case Expr::Kind::Var:
    return hashVar(cast<Var>(e));
  case Expr::Kind::Constant:
    return hash_combine(h, cast<Constant>(e)->getData().hash());
  case Expr::Kind::GlobalVar:
    return hash_combine(h, cast<GlobalVar>(e)->getName());
  case Expr::Kind::Op:
    return hash_combine(h, cast<Op>(e)->getName());
  case Expr::Kind::Call:
    h = hash_combine(h, kids.size(),
                     hashAttrs(cast<Call>(e)->getAttrsOrDefaults()));
    break;
  case Expr::Kind::Tuple:
    h = hash_combine(h, kids.size());
    break;
  case Expr::Kind::TupleGetItem:
    h = hash_combine(h, cast<TupleGetItem>(e)->getIndex());
    break;
  case Expr::Kind::Let: {
    const Var *var = cast<Let>(e)->getVar().get();
    h = hash_combine(h, hashVar(var), hashType(var->getTypeAnnotation().get()));
    break;
  }
  case Expr::Kind::If:
    break;
  case Expr::Kind::Function: {
    const auto *func = cast<Function>(e);
    Ref<DictAttrs> storage;
    h = hash_combine(h, func->getNumParams(),
                     hashType(func->getRetType().get()),
                     hashAttrs(getComparedAttrs(func, storage)));
    for (const Ref<Var> &param : func->getParams())
      h = hash_combine(h, hashVar(param.get()),
                       hashType(param->getTypeAnnotation().get()));
    break;
  }
  }
  for (hash_code kid : kids)
    h = hash_combine(h, kid);
  return h;
}

unsigned Hasher::expand(const Expr *e) {
  SmallVector<Child, 4> children = getChildren(e);
  for (const Child &child : children)
    if (isBinder(child.role))
      bind(cast_or_null<Var>(child.expr));
  unsigned numKids = 0;
  for (const Child &child : reverse(children)) {
    if (isBinder(child.role))
      continue;
    stack.push_back({child.expr, -1});
    ++numKids;
  }
  return numKids;
}

hash_code Hasher::run(const Expr *root) {
  stack.push_back({root, -1});
  // Hand-written: each use of a child hands its hash (null children too) to its
  // user on a value stack.
  while (!stack.empty()) {
    Item &top = stack.back();
    const Expr *e = top.expr;
    if (top.numKids < 0) {
      // First visit: leaves and memo hits are finished at once.
      if (!e) {
        stack.pop_back();
        values.push_back(llvm::hash_value(0));
        continue;
      }
      if (auto *var = dyn_cast<Var>(e)) {
        stack.pop_back();
        values.push_back(hashVar(var));
        continue;
      }
      bool shared = e->getRefCount() > 1;
      if (shared) {
        auto it = memo.find(e);
        if (it != memo.end()) {
          stack.pop_back();
          values.push_back(it->second);
          continue;
        }
      }
      top.numKids = 0; // `top` dies with the pushes below
      unsigned numKids = expand(e);
      stack[stack.size() - numKids - 1].numKids = numKids;
      continue;
    }
    // Second visit: the children's hashes are the last numKids values.
    unsigned numKids = top.numKids;
    stack.pop_back();
    hash_code h = combine(e, ArrayRef(values).take_back(numKids));
    values.truncate(values.size() - numKids);
    values.push_back(h);
    if (e->getRefCount() > 1)
      memo[e] = h;
  }
  return values.pop_back_val();
}

hash_code nnir::structuralHash(const Expr *expr, bool mapFreeVars) {
  return Hasher(mapFreeVars).run(expr);
}

hash_code nnir::structuralHash(const IRModule &module) {
  SmallVector<const IRModule::Entry *, 16> entries;
  for (const IRModule::Entry &entry : module.getFunctions())
    entries.push_back(&entry);
  llvm::sort(entries, [](const IRModule::Entry *a, const IRModule::Entry *b) {
    return a->var->getName() < b->var->getName();
  });
  hash_code h =
      hash_combine(entries.size(), hashAttrs(module.getAttrs().get()));
  for (const IRModule::Entry *entry : entries)
    h = hash_combine(h, entry->var->getName(),
                     structuralHash(entry->func.get()));
  return h;
}
