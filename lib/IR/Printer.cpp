//===- Printer.cpp - Relay text format printer ----------------------------===//
//
/// \file
/// Prints modules and expressions in the Relay text format v0.0.5 the way
/// TVM's RelayTextPrinter does (graph normal form with `%N = ...;` bindings,
/// `let`, `if`, `fn`, keyword attributes, `/* ty=... */` comments), with
/// bit-exact scalar literals and nnir's inline `dense<...> : type` constants.
///
/// Printing one unit (a module function, or the expression given to
/// printExpr) takes two phases, neither recursive on dataflow depth:
///
/// 1. Analysis. An iterative depth-first walk in TVM's printing order (call
///    arguments, then attribute expressions, then the callee; a let's value
///    before its body; an if's condition before its branches) counts the uses
///    of every node, names variables, numbers metadata constants and records
///    the order in which TVM would finish printing each node. A node is bound
///    to a `%N` when it has several uses or sits where TVM never inlines (a
///    call argument, a callee, a tuple field, a projected tuple, a condition,
///    an attribute value). Walking the nodes users-first then places each
///    binding in the innermost block (function body, if branch, parenthesised
///    let) that encloses all of its uses, so a node shared by both branches of
///    an `if` is bound before the `if` rather than inside the first branch as
///    TVM does; this keeps the text valid for a parser that scopes graph
///    bindings by block. `%N` numbers follow TVM's order: one counter per
///    printed module, in the order nodes finish printing.
///
///    Blocks nest no deeper than kMaxBlockDepth (nor indentation deeper than
///    theirs, whatever the input's nesting): a chain of single-use
///    functions (`%1 = fn () { %0 }` ...), ifs or parenthesised lets would
///    otherwise print as deeply nested as the chain is long, however flat the
///    input was. A node that would open a block deeper than that is bound in
///    the innermost block where every variable it uses is in scope instead
///    (a bottom-up pass records which binders, functions and lets, each node
///    depends on).
///
/// 2. Emission writes each block's lines in that order. It recurses only on
///    block nesting, bounded as above (or by the binders' own nesting);
///    chains of bindings and of lets are loops.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Printer.h"

#include "nnir/IR/AttrValue.h"
#include "nnir/IR/Attrs.h"
#include "nnir/IR/Expr.h"
#include "nnir/IR/Metadata.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Type.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

using namespace llvm;
using namespace nnir;

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

/// Prints element \p index of \p array as a `dense<...>` element: integers
/// plain, bools as True/False, floats of every width with the fewest digits
/// that read back to the same bits in the element's own type (`0.1`, `inf`,
/// `-nan`, `nan:0x1`; nnir/Support/Numbers.h). \p suffix follows a float.
static void printElement(raw_ostream &os, const NDArray &array, int64_t index,
                         StringRef suffix = "") {
  DataType dtype = array.getDType();
  if (dtype.isBool()) {
    os << (array.getElementBits(index) ? "True" : "False");
    return;
  }
  if (dtype == DataType::uint64()) {
    os << array.getElementBits(index);
    return;
  }
  if (dtype.isInteger()) {
    os << array.getElementAsInt(index);
    return;
  }
  os << formatFloatBits(*dtype.getFloatSemantics(), array.getElementBits(index),
                        suffix);
}

/// True if \p c prints as one of TVM's scalar literals (`3f`, `2i64`,
/// `True`). With \p tvmSyntax (an inline constant limit of 0), a NaN does
/// not: TVM cannot read `nanf`, so it goes to the metadata section.
static bool hasScalarLiteral(const Constant *c, bool tvmSyntax) {
  if (!c->isScalar())
    return false;
  const NDArray &data = c->getData();
  DataType t = data.getDType();
  if (!t.isBool() && t.getLiteralSuffix().empty())
    return false;
  return !tvmSyntax || !t.isFloat() || !std::isnan(data.getElementAsDouble(0));
}

/// Prints a constant accepted by hasScalarLiteral.
static void printScalarLiteral(raw_ostream &os, const Constant *c) {
  const NDArray &data = c->getData();
  DataType t = data.getDType();
  if (t.isFloatingPoint())
    return printElement(os, data, 0, t.getPrintedLiteralSuffix());
  printElement(os, data, 0);
  os << t.getPrintedLiteralSuffix();
}

/// Prints the elements of dimensions [dim, rank) starting at element
/// \p offset as nested brackets (recursion on the rank only).
static void printNestedElements(raw_ostream &os, const NDArray &data,
                                ArrayRef<int64_t> shape, unsigned dim,
                                int64_t offset) {
  if (dim == shape.size()) {
    printElement(os, data, offset);
    return;
  }
  int64_t stride = 1;
  for (unsigned i = dim + 1; i < shape.size(); ++i)
    stride *= shape[i];
  os << '[';
  for (int64_t i = 0; i < shape[dim]; ++i) {
    if (i)
      os << ", ";
    printNestedElements(os, data, shape, dim + 1, offset + i * stride);
  }
  os << ']';
}

/// `dense<[[1, 2], [3, 4]]> : Tensor[(2, 2), float32]`, `dense<0> : ...`.
static void printDense(raw_ostream &os, const Constant *c) {
  const NDArray &data = c->getData();
  os << "dense<";
  if (data.isRepeated())
    printElement(os, data, 0);
  else
    printNestedElements(os, data, data.getShape(), 0, 0);
  os << "> : ";
  c->getType()->print(os);
}

//===----------------------------------------------------------------------===//
// The printer
//===----------------------------------------------------------------------===//

/// The deepest block nesting the printer creates on its own (see the file
/// comment). Far below the parser's default nesting limit (1000), so the
/// text reads back, and far above what models need, so TVM's layout is kept.
static constexpr unsigned kMaxBlockDepth = 64;

/// The deepest indentation printed, in columns: that of kMaxBlockDepth
/// blocks.
static constexpr unsigned kMaxIndent = 2 * kMaxBlockDepth;

/// Nodes depending on more binders than this are never moved (tracking
/// their binders would cost too much, and such nesting is syntactic).
static constexpr unsigned kMaxTrackedBinders = 16;

namespace {

/// How a node is used by its parent; decides whether it may be inlined and in
/// which block the use sits.
enum class Use : uint8_t {
  /// Call argument, callee, tuple field, projected tuple, if condition,
  /// attribute value: never inlined.
  Bind,
  FnBody,
  Then,
  Else,
  LetValue,
  LetBody,
};

/// Analysis results for one non-atomic node. One per node of the unit
/// printed, so it is kept small (48 bytes) and trivially copyable; what only
/// some nodes need lives in side tables.
struct NodeInfo {
  explicit NodeInfo(const Expr *expr)
      : expr(expr), isRoot(false), bound(false), tooManyBinders(false) {}
  const Expr *expr;
  /// `%N` of a bound node.
  uint32_t number = 0;
  /// The node index of each child (in getChild's order), or kNoNode for an
  /// atom or a null: Printer::children[childBegin, +getNumChildren).
  unsigned childBegin = 0;
  unsigned useCount = 0;
  /// The block holding the node's text (for a bound node, its binding).
  int block = -1;
  /// Let: the block of its `let` line. If: the then-block (the else-block
  /// follows it). Function: the body.
  int inner = -1;
  union {
    /// Call, Function: its expression-valued attributes,
    /// attrExprs[attrBegin, +attrCount).
    unsigned attrBegin = 0;
    /// Let (which has no attributes): the number of nodes finished when its
    /// `let` line is printed.
    unsigned letLine;
  };
  unsigned attrCount = 0;
  /// Position in the post-order (when the node finishes printing).
  unsigned finish = 0;
  /// The functions and lets (node indices, sorted) whose variables the node
  /// uses free: binderPool[bindersBegin, +numBinders); see
  /// kMaxTrackedBinders.
  unsigned bindersBegin = 0;
  uint8_t numBinders = 0;
  Use lastUse = Use::Bind;
  bool isRoot : 1;
  bool bound : 1;
  bool tooManyBinders : 1;
};
static_assert(std::is_trivially_copyable_v<NodeInfo>,
              "NodeInfo is copied in bulk when the table grows");
static_assert(sizeof(NodeInfo) <= 48, "one per node: keep it small");

/// A line of a block before its result: `%N = ...;` or `let %x = ...;`.
struct Item {
  unsigned node : 31;
  unsigned isLet : 1;
};

/// A node index that names no node: an atom or a null child.
static constexpr unsigned kNoNode = ~0u;

/// A sequence of lines ending in a result: a function body, an if branch or
/// a parenthesised let. Blocks form a tree following syntactic nesting.
struct Block {
  int parent;
  unsigned depth;
  const Expr *root;
  /// The node index of root, or kNoNode.
  unsigned rootNode;
  SmallVector<Item, 0> items;
};

class Printer {
public:
  Printer(raw_ostream &os, const PrintOptions &options)
      : os(os), options(options) {}

  void printModule(const IRModule &module);
  void printExpr(const Expr *expr);

private:
  // Analysis.
  void analyze(const Expr *root);
  void preVisit(unsigned index);
  const Expr *getChild(const NodeInfo &info, unsigned i, Use &use,
                       bool &done) const;
  unsigned getNumChildren(const NodeInfo &info) const;
  /// Whether child \p i of \p info is an attribute's value.
  bool isAttrChild(const NodeInfo &info, unsigned i) const;
  unsigned getChildNode(const NodeInfo &info, unsigned i) const {
    return children[info.childBegin + i];
  }
  void visitAtom(const Expr *expr);
  void collectBinders();
  int getHoistBlock(const NodeInfo &info) const;
  void placeNodes();
  ArrayRef<unsigned> getBinders(const NodeInfo &info) const {
    return ArrayRef<unsigned>(binderPool)
        .slice(info.bindersBegin, info.numBinders);
  }
  void addUse(unsigned child, int block);
  int newBlock(int parent, const Expr *root, unsigned rootNode);
  int commonAncestor(int a, int b) const;
  void collectAttrExprs(const Attrs *attrs);
  void collectAttrExprs(const AttrValue &value);
  StringRef nameVar(const Var *var);
  NodeInfo *lookup(const Expr *expr) {
    auto it = nodeIndex.find(expr);
    return it == nodeIndex.end() ? nullptr : &nodes[it->second];
  }

  // Emission. emitBlock, emitRef, emitNode and emitFunction recurse on block
  // nesting; what does not recurse is kept out of their frames, which
  // AddressSanitizer makes several times larger.
  void emitBlock(int block, unsigned indent);
  /// \p node is the node index of \p expr when the caller knows it (a
  /// child's); otherwise it is looked up, which only nodes in nodeIndex
  /// allow.
  void emitRef(const Expr *expr, unsigned indent, unsigned node = kNoNode);
  void emitNode(const NodeInfo &info, unsigned indent);
  LLVM_ATTRIBUTE_NOINLINE void emitFlatNode(const NodeInfo &info,
                                            unsigned indent);
  LLVM_ATTRIBUTE_NOINLINE void emitAtom(const Expr *expr);
  void emitConstant(const Constant *c);
  void emitFunction(const NodeInfo &info, unsigned indent);
  LLVM_ATTRIBUTE_NOINLINE void emitFunctionHeader(const Function *fn,
                                                  unsigned indent);
  LLVM_ATTRIBUTE_NOINLINE void emitFreeVars(unsigned indent);
  LLVM_ATTRIBUTE_NOINLINE void emitVarDecl(const Var *var);
  LLVM_ATTRIBUTE_NOINLINE void emitTypeComment(const Expr *expr);
  void emitCallAttrs(const Call *call, bool &first, unsigned indent);
  void emitAttrs(ArrayRef<NamedAttrValue> attrs, bool &first, unsigned indent);
  void emitAttrValue(const AttrValue &value, unsigned indent);
  /// Numbers \p object among the objects of its type key (once).
  void noteMetaObject(const MetaObject *object);
  void emitMetadata() {
    if (options.printMetadata &&
        (!metaConstants.empty() || !metaObjects.empty())) {
      os << "\n#[metadata]\n";
      encodeMetadata(metaConstants, metaObjects, os);
    }
  }
  /// Indentation stops growing at kMaxIndent columns: input nested deeper
  /// than the printer's own blocks (40,000 `if`s each using a variable of
  /// the level around it) would otherwise print quadratically large text.
  void emitNewline(unsigned indent) {
    os << '\n';
    os.indent(std::min(indent, kMaxIndent));
  }

  /// The output must use TVM's syntax only (--inline-constant-limit=0).
  bool tvmSyntax() const { return options.inlineConstantLimit == 0; }

  raw_ostream &os;
  const PrintOptions &options;

  // State shared by every unit of a printed module.
  /// 32 bits: a module of 2^32 bound nodes would not fit in memory.
  uint32_t nextNumber = 0;
  /// TVM's name_alloc_map_: every name given out, with its last suffix.
  StringMap<unsigned> usedNames;
  std::vector<const Constant *> metaConstants;
  DenseMap<const Constant *, unsigned> metaIndex;
  /// Constants that are attribute values: always in the metadata section.
  DenseSet<const Constant *> attrConstants;
  /// Objects without a literal (VirtualDevice, ...), and the index of each
  /// among those of its type key.
  std::vector<const MetaObject *> metaObjects;
  DenseMap<const MetaObject *, unsigned> metaObjectIndex;

  // State of the unit being printed.
  // The tables of a unit grow with its nodes. SmallVector grows trivially
  // copyable elements with realloc, which extends a large buffer in place
  // when it can: no copy, and no second buffer at the peak.
  SmallVector<NodeInfo, 0> nodes;
  /// What the analysis meets in TVM's printing order: a node finishing
  /// (its index), or a let's `let` line (its index | kLetLine).
  static constexpr uint32_t kLetLine = 1u << 31;
  SmallVector<uint32_t, 0> events;
  /// The binder sets of NodeInfo::bindersBegin; a node whose set is the one
  /// stored last (a chain's nodes all depend on the same parameters) shares
  /// it.
  SmallVector<unsigned, 0> binderPool;
  /// See NodeInfo::childBegin.
  SmallVector<unsigned, 0> children;
  /// The index of each node that can be reached twice (held more than once)
  /// or is an attribute's value; a node its one parent alone holds is found
  /// through the parent's children, so a chain of a million calls needs no
  /// hashing.
  DenseMap<const Expr *, unsigned> nodeIndex;
  std::vector<Block> blocks;
  std::vector<const Expr *> attrExprs;
  /// Names of the unit's variables (keys of usedNames).
  DenseMap<const Var *, StringRef> varNames;
  /// The function or let (node index) binding each parameter or let variable.
  DenseMap<const Var *, unsigned> varBinders;
  std::vector<const Var *> freeVars;
  /// The block that starts with the `free_var` declarations.
  int freeVarBlock = 0;
};

} // namespace

/// Var, GlobalVar, Constant and Op always print inline, as in TVM.
static bool isAtomic(const Expr *e) {
  switch (e->getKind()) {
  case Expr::Kind::Constant:
  case Expr::Kind::Var:
  case Expr::Kind::GlobalVar:
  case Expr::Kind::Op:
    return true;
  default:
    return false;
  }
}

StringRef Printer::nameVar(const Var *var) {
  auto known = varNames.find(var);
  if (known != varNames.end())
    return known->second;
  // TVM prefixes a `v` when the hint does not start with a letter. nnir also
  // replaces characters the lexer does not accept in identifiers, so that
  // every printed name reads back.
  std::string name = var->getNameHint().str();
  for (char &c : name)
    if (!isAlnum(c) && c != '_' && c != '/')
      c = '_';
  if (name.empty() || !isAlpha(name[0]))
    name = "v" + name;
  // TVM's GetUniqueName: `x`, `x1`, `x2`, ... skipping names already given.
  // StringMap entries never move, so the name can be kept as a StringRef.
  auto [entry, inserted] = usedNames.try_emplace(name, 0);
  if (!inserted) {
    unsigned &suffix = entry->second;
    while (true) {
      auto [candidate, fresh] =
          usedNames.try_emplace(name + std::to_string(++suffix), 0);
      if (fresh) {
        entry = candidate;
        break;
      }
    }
  }
  return varNames[var] = entry->first();
}

void Printer::noteMetaObject(const MetaObject *object) {
  if (metaObjectIndex.count(object))
    return;
  unsigned index = llvm::count_if(metaObjects, [&](const MetaObject *o) {
    return o->getTypeKey() == object->getTypeKey();
  });
  metaObjectIndex[object] = index;
  metaObjects.push_back(object);
}

void Printer::collectAttrExprs(const AttrValue &value) {
  if (value.getKind() == AttrValue::Kind::Expr) {
    // TVM prints a constant in an attribute (arange's start) as
    // meta[relay.Constant][i], whatever its size.
    if (const auto *c = dyn_cast<Constant>(value.getExpr()))
      attrConstants.insert(c);
    attrExprs.push_back(value.getExpr());
  } else if (const MetaObject *object = value.getObject()) {
    noteMetaObject(object);
  } else if (value.getKind() == AttrValue::Kind::Array) {
    for (const AttrValue &element : value.getArray())
      collectAttrExprs(element);
  }
}

void Printer::collectAttrExprs(const Attrs *attrs) {
  if (!attrs)
    return;
  SmallVector<NamedAttrValue, 8> fields;
  attrs->getFields(fields, /*nonDefaultOnly=*/true);
  for (const NamedAttrValue &field : fields)
    collectAttrExprs(field.value);
}

void Printer::preVisit(unsigned index) {
  const Expr *e = nodes[index].expr;
  unsigned begin = attrExprs.size();
  if (const auto *call = dyn_cast<Call>(e)) {
    collectAttrExprs(call->getAttrs().get());
  } else if (const auto *fn = dyn_cast<Function>(e)) {
    for (const Ref<Var> &param : fn->getParams())
      if (param) {
        nameVar(param.get());
        varBinders[param.get()] = index;
      }
    collectAttrExprs(fn->getAttrs().get());
  } else if (const auto *let = dyn_cast<Let>(e)) {
    if (let->getVar()) {
      nameVar(let->getVar().get());
      varBinders[let->getVar().get()] = index;
    }
  }
  nodes[index].attrBegin = begin;
  nodes[index].attrCount = attrExprs.size() - begin;
}

const Expr *Printer::getChild(const NodeInfo &info, unsigned i, Use &use,
                              bool &done) const {
  done = false;
  use = Use::Bind;
  const Expr *e = info.expr;
  switch (e->getKind()) {
  case Expr::Kind::Call: {
    const auto *call = cast<Call>(e);
    if (i < call->getNumArgs())
      return call->getArg(i).get();
    i -= call->getNumArgs();
    if (i < info.attrCount)
      return attrExprs[info.attrBegin + i];
    if (i == info.attrCount)
      return call->getCallee().get();
    break;
  }
  case Expr::Kind::Tuple: {
    const auto *tuple = cast<Tuple>(e);
    if (i < tuple->size())
      return tuple->getField(i).get();
    break;
  }
  case Expr::Kind::TupleGetItem:
    if (i == 0)
      return cast<TupleGetItem>(e)->getTuple().get();
    break;
  case Expr::Kind::Let: {
    const auto *let = cast<Let>(e);
    if (i == 0) {
      use = Use::LetValue;
      return let->getValue().get();
    }
    if (i == 1) {
      use = Use::LetBody;
      return let->getBody().get();
    }
    break;
  }
  case Expr::Kind::If: {
    const auto *ifExpr = cast<If>(e);
    if (i == 0)
      return ifExpr->getCond().get();
    if (i == 1) {
      use = Use::Then;
      return ifExpr->getThen().get();
    }
    if (i == 2) {
      use = Use::Else;
      return ifExpr->getElse().get();
    }
    break;
  }
  case Expr::Kind::Function:
    if (i < info.attrCount)
      return attrExprs[info.attrBegin + i];
    if (i == info.attrCount) {
      use = Use::FnBody;
      return cast<Function>(e)->getBody().get();
    }
    break;
  default:
    break;
  }
  done = true;
  return nullptr;
}

unsigned Printer::getNumChildren(const NodeInfo &info) const {
  const Expr *e = info.expr;
  switch (e->getKind()) {
  case Expr::Kind::Call:
    return cast<Call>(e)->getNumArgs() + info.attrCount + 1;
  case Expr::Kind::Tuple:
    return cast<Tuple>(e)->size();
  case Expr::Kind::TupleGetItem:
    return 1;
  case Expr::Kind::Let:
    return 2;
  case Expr::Kind::If:
    return 3;
  case Expr::Kind::Function:
    return info.attrCount + 1;
  default:
    return 0;
  }
}

bool Printer::isAttrChild(const NodeInfo &info, unsigned i) const {
  if (const auto *call = dyn_cast<Call>(info.expr))
    return i >= call->getNumArgs() && i < call->getNumArgs() + info.attrCount;
  return isa<Function>(info.expr) && i < info.attrCount;
}

void Printer::visitAtom(const Expr *expr) {
  if (const auto *var = dyn_cast<Var>(expr)) {
    // Binders are named before their scope is walked, so an unnamed variable
    // is free.
    if (!varNames.count(var)) {
      nameVar(var);
      freeVars.push_back(var);
    }
    return;
  }
  if (const auto *c = dyn_cast<Constant>(expr)) {
    if (metaIndex.count(c))
      return;
    bool inAttr = attrConstants.count(c);
    if (!inAttr && hasScalarLiteral(c, tvmSyntax()))
      return;
    // A limit of 0 promises TVM's syntax: even an empty constant goes to the
    // metadata section. Otherwise a constant of one repeated value prints as
    // `dense<v>` at any size.
    int64_t limit = options.inlineConstantLimit;
    if (inAttr || limit == 0 ||
        (limit > 0 && c->getData().getNumElements() > limit &&
         !c->getData().isRepeated())) {
      metaIndex[c] = metaConstants.size();
      metaConstants.push_back(c);
    }
  }
}

int Printer::newBlock(int parent, const Expr *root, unsigned rootNode) {
  unsigned depth = parent < 0 ? 0 : blocks[parent].depth + 1;
  blocks.push_back(Block{parent, depth, root, rootNode, {}});
  return blocks.size() - 1;
}

int Printer::commonAncestor(int a, int b) const {
  while (a != b) {
    if (blocks[a].depth >= blocks[b].depth)
      a = blocks[a].parent;
    else
      b = blocks[b].parent;
  }
  return a;
}

void Printer::addUse(unsigned child, int block) {
  if (child == kNoNode)
    return;
  NodeInfo &info = nodes[child];
  info.block = info.block < 0 ? block : commonAncestor(info.block, block);
}

void Printer::analyze(const Expr *root) {
  nodes.clear();
  events.clear();
  binderPool.clear();
  children.clear();
  nodeIndex.clear();
  blocks.clear();
  attrExprs.clear();
  varNames.clear();
  varBinders.clear();
  freeVars.clear();
  freeVarBlock = 0;
  if (!root || isAtomic(root)) {
    newBlock(-1, root, kNoNode);
    if (root)
      visitAtom(root);
    return;
  }
  newBlock(-1, root, 0);

  // Phase 1a: iterative DFS in TVM's printing order. Events record when a
  // node finishes (its binding would be printed) and when a let's value is
  // done (its `let` line would be printed).
  unsigned finished = 0;
  struct Frame {
    unsigned node;
    unsigned next;
  };
  std::vector<Frame> stack;

  nodeIndex[root] = 0;
  nodes.emplace_back(root);
  nodes[0].isRoot = true;
  preVisit(0);
  stack.push_back({0, 0});
  auto allocateChildren = [&](NodeInfo &info) {
    info.childBegin = children.size();
    children.resize(children.size() + getNumChildren(info), kNoNode);
  };
  allocateChildren(nodes[0]);
  // Hand-written: events between the children of a node (use counts and slots
  // per edge, a let's line after its value) that enter/exit hooks do not give.
  while (!stack.empty()) {
    unsigned index = stack.back().node;
    unsigned childIndex = stack.back().next;
    if (childIndex == 1 && isa<Let>(nodes[index].expr)) {
      events.push_back(index | kLetLine);
      nodes[index].letLine = finished;
    }
    Use use;
    bool done;
    const Expr *child = getChild(nodes[index], childIndex, use, done);
    if (done) {
      events.push_back(index);
      nodes[index].finish = finished++;
      stack.pop_back();
      continue;
    }
    ++stack.back().next;
    if (!child)
      continue;
    if (isAtomic(child)) {
      visitAtom(child);
      continue;
    }
    // A node held once is reached once: only its parent's children name it.
    unsigned childNode = nodes.size();
    bool inserted = true;
    if (child->getRefCount() != 1 || isAttrChild(nodes[index], childIndex)) {
      auto found = nodeIndex.try_emplace(child, childNode);
      childNode = found.first->second;
      inserted = found.second;
    }
    children[nodes[index].childBegin + childIndex] = childNode;
    if (inserted) {
      nodes.emplace_back(child);
      preVisit(childNode);
      allocateChildren(nodes[childNode]);
    }
    ++nodes[childNode].useCount;
    nodes[childNode].lastUse = use;
    if (inserted)
      stack.push_back({childNode, 0});
  }

  // Phase 1b: blocks and binding places, users first.
  collectBinders();
  nodes[0].block = 0;
  placeNodes();

  // Phase 1c: numbers and block lines, in TVM's order.
  for (uint32_t event : events) {
    unsigned index = event & ~kLetLine;
    NodeInfo &info = nodes[index];
    if (event & kLetLine) {
      blocks[info.inner].items.push_back({index, true});
    } else if (info.bound) {
      info.number = nextNumber++;
      blocks[info.block].items.push_back({index, false});
    }
  }
}

void Printer::collectBinders() {
  // Children first (the post-order): a node's binders are its children's and
  // those of the variables it uses, less itself.
  SmallVector<unsigned, 8> merged;
  NodeInfo lastStored(nullptr);
  for (uint32_t event : events) {
    if (event & kLetLine)
      continue;
    unsigned index = event;
    NodeInfo &info = nodes[index];
    merged.clear();
    bool tooMany = false;
    Use use;
    bool done;
    for (unsigned i = 0;; ++i) {
      const Expr *child = getChild(info, i, use, done);
      if (done)
        break;
      if (!child)
        continue;
      if (const auto *var = dyn_cast<Var>(child)) {
        auto binder = varBinders.find(var);
        if (binder != varBinders.end())
          merged.push_back(binder->second);
      } else if (!isAtomic(child)) {
        const NodeInfo &childInfo = nodes[getChildNode(info, i)];
        tooMany |= childInfo.tooManyBinders;
        ArrayRef<unsigned> binders = getBinders(childInfo);
        merged.append(binders.begin(), binders.end());
      }
    }
    llvm::sort(merged);
    merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
    merged.erase(std::remove(merged.begin(), merged.end(), index),
                 merged.end());
    info.tooManyBinders = tooMany || merged.size() > kMaxTrackedBinders;
    if (info.tooManyBinders || merged.empty())
      continue;
    if (ArrayRef<unsigned>(merged) != getBinders(lastStored)) {
      lastStored.bindersBegin = binderPool.size();
      lastStored.numBinders = merged.size();
      binderPool.insert(binderPool.end(), merged.begin(), merged.end());
    }
    info.bindersBegin = lastStored.bindersBegin;
    info.numBinders = lastStored.numBinders;
  }
}

/// Where a node about to open a block too deep is bound instead: the
/// innermost block in which its binders' variables are in scope, or -1 to
/// leave it where it is.
int Printer::getHoistBlock(const NodeInfo &info) const {
  if (info.isRoot || info.tooManyBinders ||
      blocks[info.block].depth < kMaxBlockDepth)
    return -1;
  // Nothing may move above the body of the function being printed (block 0
  // holds the definition itself).
  int target = isa<Function>(nodes[0].expr) ? nodes[0].inner : 0;
  for (unsigned binder : getBinders(info)) {
    const NodeInfo &binderInfo = nodes[binder];
    // A let variable is in scope after the `let` line only: a node printed
    // in the let's value stays where it is.
    if (isa<Let>(binderInfo.expr) && info.finish < binderInfo.letLine)
      return -1;
    if (binderInfo.inner >= 0 &&
        blocks[binderInfo.inner].depth > blocks[target].depth)
      target = binderInfo.inner;
  }
  return blocks[target].depth < blocks[info.block].depth ? target : -1;
}

void Printer::placeNodes() {
  // Users first: the post-order backwards.
  for (auto it = events.rbegin(), end = events.rend(); it != end; ++it) {
    if (*it & kLetLine)
      continue;
    NodeInfo &info = nodes[*it];
    info.bound =
        !info.isRoot && (info.useCount >= 2 || info.lastUse == Use::Bind);
    const Expr *e = info.expr;
    // A function, an if or a parenthesised let opens a block: bind it higher
    // up when that block would be too deep.
    bool opensBlock =
        isa<Function>(e) || isa<If>(e) ||
        (isa<Let>(e) && (info.bound || info.lastUse == Use::LetValue));
    if (opensBlock) {
      int hoisted = getHoistBlock(info);
      if (hoisted >= 0) {
        info.block = hoisted;
        info.bound = true;
      }
    }
    int block = info.block;
    // The blocks the node opens, then each child's use in its block.
    switch (e->getKind()) {
    case Expr::Kind::If: {
      const auto *ifExpr = cast<If>(e);
      int thenBlock =
          newBlock(block, ifExpr->getThen().get(), getChildNode(info, 1));
      int elseBlock =
          newBlock(block, ifExpr->getElse().get(), getChildNode(info, 2));
      assert(elseBlock == thenBlock + 1 && "emission finds it there");
      (void)elseBlock;
      info.inner = thenBlock;
      break;
    }
    case Expr::Kind::Function:
      info.inner = newBlock(block, cast<Function>(e)->getBody().get(),
                            getChildNode(info, info.attrCount));
      break;
    case Expr::Kind::Let: {
      // A let continues its block when it ends a scope (the chain
      // `let ...; let ...; body`); otherwise it is parenthesised.
      bool parenthesised =
          info.bound || (!info.isRoot && info.lastUse == Use::LetValue);
      info.inner = parenthesised ? newBlock(block, e, *it) : block;
      break;
    }
    default:
      break;
    }
    Use use;
    bool done;
    for (unsigned i = 0;; ++i) {
      getChild(info, i, use, done);
      if (done)
        break;
      switch (use) {
      case Use::Bind:
        addUse(getChildNode(info, i), block);
        break;
      case Use::Else:
        addUse(getChildNode(info, i), info.inner + 1);
        break;
      default: // The then-branch, a function's body, a let's value and body.
        addUse(getChildNode(info, i), info.inner);
        break;
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

void Printer::emitTypeComment(const Expr *expr) {
  if (!options.showTypes || !expr->getCheckedType())
    return;
  switch (expr->getKind()) {
  case Expr::Kind::Constant:
  case Expr::Kind::Call:
  case Expr::Kind::Var:
  case Expr::Kind::Function:
  case Expr::Kind::Tuple:
  case Expr::Kind::TupleGetItem:
    os << " /* ty=";
    expr->getCheckedType()->print(os);
    os << " */";
    return;
  default:
    return;
  }
}

void Printer::emitVarDecl(const Var *var) {
  os << '%' << nameVar(var);
  // TVM's AllocVar: `%x {virtual_device=...}: T`.
  if (!var->getVirtualDevice().isNone()) {
    // Numbered when printed: binders of every kind (free variables too).
    if (const MetaObject *object = var->getVirtualDevice().getObject())
      noteMetaObject(object);
    os << " {" << attr::kVirtualDevice << '=';
    emitAttrValue(var->getVirtualDevice(), 0);
    os << '}';
  }
  if (const Ref<Type> &annotation = var->getTypeAnnotation()) {
    os << ": ";
    annotation->print(os);
  }
  emitTypeComment(var);
}

void Printer::emitConstant(const Constant *c) {
  auto it = metaIndex.find(c);
  if (it != metaIndex.end())
    os << "meta[relay.Constant][" << it->second << ']';
  else if (hasScalarLiteral(c, tvmSyntax()))
    printScalarLiteral(os, c);
  else
    printDense(os, c);
  emitTypeComment(c);
}

void Printer::emitAtom(const Expr *expr) {
  switch (expr->getKind()) {
  case Expr::Kind::Constant:
    emitConstant(cast<Constant>(expr));
    return;
  case Expr::Kind::Var:
    os << '%' << nameVar(cast<Var>(expr));
    return;
  case Expr::Kind::GlobalVar:
    printGlobalName(os, cast<GlobalVar>(expr)->getName());
    return;
  case Expr::Kind::Op:
    os << cast<Op>(expr)->getName();
    return;
  default:
    return;
  }
}

void Printer::emitRef(const Expr *expr, unsigned indent, unsigned node) {
  if (!expr) {
    os << "<null>";
    return;
  }
  if (isAtomic(expr)) {
    emitAtom(expr);
    return;
  }
  const NodeInfo *info = node != kNoNode ? &nodes[node] : lookup(expr);
  if (!info) { // Not reached by the analysis; cannot happen for valid IR.
    os << "<unknown>";
    return;
  }
  if (info->bound) {
    os << '%' << info->number;
    return;
  }
  emitNode(*info, indent);
  emitTypeComment(expr);
}

void Printer::emitAttrValue(const AttrValue &value, unsigned indent) {
  switch (value.getKind()) {
  case AttrValue::Kind::Expr:
    emitRef(value.getExpr(), indent);
    return;
  case AttrValue::Kind::Array: {
    os << '[';
    bool first = true;
    for (const AttrValue &element : value.getArray()) {
      if (!first)
        os << ", ";
      first = false;
      emitAttrValue(element, indent);
    }
    os << ']';
    return;
  }
  case AttrValue::Kind::Object: {
    const MetaObject *object = value.getObject();
    os << "meta[" << object->getTypeKey() << "]["
       << metaObjectIndex.lookup(object) << ']';
    return;
  }
  default:
    value.print(os);
    return;
  }
}

void Printer::emitAttrs(ArrayRef<NamedAttrValue> attrs, bool &first,
                        unsigned indent) {
  for (const NamedAttrValue &attr : attrs) {
    if (!first)
      os << ", ";
    first = false;
    os << attr.name << '=';
    emitAttrValue(attr.value, indent);
  }
}

void Printer::emitCallAttrs(const Call *call, bool &first, unsigned indent) {
  // A call built without its record prints the required fields of the
  // default record (`units=None`) so that the text parses.
  SmallVector<NamedAttrValue, 8> fields;
  if (const Attrs *attrs = call->getAttrsOrDefaults())
    attrs->getFields(fields, /*nonDefaultOnly=*/true);
  emitAttrs(fields, first, indent);
}

void Printer::emitFunction(const NodeInfo &info, unsigned indent) {
  emitFunctionHeader(cast<Function>(info.expr), indent);
  os << '{';
  emitNewline(indent + 2);
  emitBlock(info.inner, indent + 2);
  emitNewline(indent);
  os << '}';
}

/// `(params, attrs) -> T ` of a function.
void Printer::emitFunctionHeader(const Function *fn, unsigned indent) {
  os << '(';
  bool first = true;
  for (const Ref<Var> &param : fn->getParams()) {
    if (!first)
      os << ", ";
    first = false;
    if (param)
      emitVarDecl(param.get());
    else
      os << "<null>";
  }
  if (const Ref<DictAttrs> &attrs = fn->getAttrs())
    emitAttrs(attrs->getEntries(), first, indent);
  os << ") ";
  const Type *retType = fn->getRetType().get();
  if (!retType && options.showTypes)
    if (const auto *fnType =
            dyn_cast_or_null<FuncType>(fn->getCheckedType().get()))
      retType = fnType->getResult();
  if (retType) {
    os << "-> ";
    retType->print(os);
    os << ' ';
  }
}

void Printer::emitNode(const NodeInfo &info, unsigned indent) {
  const Expr *e = info.expr;
  switch (e->getKind()) {
  case Expr::Kind::If: {
    const auto *ifExpr = cast<If>(e);
    os << "if (";
    emitRef(ifExpr->getCond().get(), indent, getChildNode(info, 0));
    os << ") {";
    emitNewline(indent + 2);
    emitBlock(info.inner, indent + 2);
    emitNewline(indent);
    os << "} else {";
    emitNewline(indent + 2);
    emitBlock(info.inner + 1, indent + 2);
    emitNewline(indent);
    os << '}';
    return;
  }
  case Expr::Kind::Function:
    os << "fn ";
    emitFunction(info, indent);
    return;
  case Expr::Kind::Let:
    // Only a let that does not continue a block reaches here.
    os << '(';
    emitNewline(indent + 2);
    emitBlock(info.inner, indent + 2);
    emitNewline(indent);
    os << ')';
    return;
  default:
    emitFlatNode(info, indent);
    return;
  }
}

/// A call, tuple or projection: its operands are bound or atomic, so this
/// never opens a block.
void Printer::emitFlatNode(const NodeInfo &info, unsigned indent) {
  const Expr *e = info.expr;
  switch (e->getKind()) {
  case Expr::Kind::Call: {
    const auto *call = cast<Call>(e);
    unsigned numArgs = call->getNumArgs();
    emitRef(call->getCallee().get(), indent,
            getChildNode(info, numArgs + info.attrCount));
    os << '(';
    for (unsigned i = 0; i != numArgs; ++i) {
      if (i)
        os << ", ";
      emitRef(call->getArg(i).get(), indent, getChildNode(info, i));
    }
    bool first = numArgs == 0;
    emitCallAttrs(call, first, indent);
    os << ')';
    return;
  }
  case Expr::Kind::Tuple: {
    const auto *tuple = cast<Tuple>(e);
    os << '(';
    for (size_t i = 0, n = tuple->size(); i != n; ++i) {
      if (i)
        os << ", ";
      emitRef(tuple->getField(i).get(), indent, getChildNode(info, i));
    }
    if (tuple->size() == 1)
      os << ',';
    os << ')';
    return;
  }
  case Expr::Kind::TupleGetItem: {
    const auto *item = cast<TupleGetItem>(e);
    emitRef(item->getTuple().get(), indent, getChildNode(info, 0));
    os << '.' << item->getIndex();
    return;
  }
  default:
    return;
  }
}

void Printer::emitFreeVars(unsigned indent) {
  for (const Var *var : freeVars) {
    os << "free_var ";
    emitVarDecl(var);
    os << ';';
    emitNewline(indent);
  }
}

void Printer::emitBlock(int block, unsigned indent) {
  // The caller has written the indentation of the first line.
  if (block == freeVarBlock)
    emitFreeVars(indent);
  for (const Item &item : blocks[block].items) {
    const NodeInfo &info = nodes[item.node];
    if (item.isLet) {
      const auto *let = cast<Let>(info.expr);
      os << "let ";
      if (let->getVar())
        emitVarDecl(let->getVar().get());
      else
        os << "<null>";
      os << " = ";
      emitRef(let->getValue().get(), indent, getChildNode(info, 0));
    } else {
      os << '%' << info.number << " = ";
      emitNode(info, indent);
      emitTypeComment(info.expr);
    }
    os << ';';
    emitNewline(indent);
  }
  // The result: follow the let chain that continues this block.
  const Expr *result = blocks[block].root;
  unsigned node = blocks[block].rootNode;
  while (node != kNoNode && isa<Let>(result) && nodes[node].inner == block) {
    result = cast<Let>(result)->getBody().get();
    node = getChildNode(nodes[node], 1);
  }
  emitRef(result, indent, node);
}

void Printer::printModule(const IRModule &module) {
  if (options.printVersion)
    os << "#[version = \"0.0.5\"]\n";
  // TVM prints functions sorted by name; nnir keeps definition order so that
  // printing a module never reorders it.
  bool first = true;
  for (const IRModule::Entry &entry : module.getFunctions()) {
    if (!entry.func)
      continue;
    if (!first)
      os << '\n';
    first = false;
    analyze(entry.func.get());
    freeVarBlock = nodes[0].inner;
    os << "def ";
    if (entry.var)
      printGlobalName(os, entry.var->getName());
    else
      os << "@<null>";
    emitFunction(nodes[0], 0);
    os << '\n';
  }
  emitMetadata();
}

void Printer::printExpr(const Expr *expr) {
  analyze(expr);
  emitBlock(0, 0);
  emitMetadata();
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

void nnir::printGlobalName(raw_ostream &os, StringRef name) {
  os << '@';
  // The lexer reads `@` followed by letters, digits, '_' and '/'.
  bool bare = !name.empty() && llvm::all_of(name, [](char c) {
    return isAlnum(c) || c == '_' || c == '/';
  });
  if (bare)
    os << name;
  else
    printQuotedString(os, name);
}

std::string nnir::formatGlobalName(StringRef name) {
  std::string text;
  raw_string_ostream os(text);
  printGlobalName(os, name);
  return text;
}

void nnir::printModule(const IRModule &module, raw_ostream &os,
                       const PrintOptions &options) {
  Printer(os, options).printModule(module);
}

void nnir::printExpr(const Expr *expr, raw_ostream &os,
                     const PrintOptions &options) {
  Printer(os, options).printExpr(expr);
}

std::string nnir::toString(const IRModule &module,
                           const PrintOptions &options) {
  std::string text;
  raw_string_ostream os(text);
  printModule(module, os, options);
  os.flush();
  return text;
}

std::string nnir::toString(const Expr *expr, const PrintOptions &options) {
  std::string text;
  raw_string_ostream os(text);
  printExpr(expr, os, options);
  os.flush();
  return text;
}
