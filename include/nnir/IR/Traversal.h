//===- Traversal.h - The children of expressions, and walks -----*- C++ -*-===//
//
/// \file
/// The one place that knows the operands of every node kind (MLIR's
/// getOperands() and walk()). A node's children, in this order:
///
///   Call          callee, arguments...
///   Tuple         fields...
///   TupleGetItem  the tuple
///   Let           var (binder), value, body
///   If            condition, then branch, else branch
///   Function      parameters (binders)..., body
///   Constant, Var, GlobalVar, Op: none
///
/// Binders (function parameters and let variables) come first; a node's
/// binders are in scope in all of its other children (a let variable in its
/// own value too, as in Relay). Each child comes with its ChildRole.
///
/// Walks that only need the operands use forEachChild() or walk() and never
/// switch on the node kind, so a new node kind is added here (and in
/// rebuildWithChildren()) rather than in every walk:
///
/// \code
///   // Count the calls of each operator in a function (DCE, CSE and FuseOps
///   // start the same way).
///   llvm::DenseMap<const Op *, unsigned> uses;
///   walk(func, [&](Expr *e) {
///     if (auto *call = llvm::dyn_cast<Call>(e))
///       if (const Op *op = call->getCalledOp())
///         ++uses[op];
///   });
///
///   // Free-variable style walks see binders through their role.
///   forEachChild(let, [&](Expr *child, ChildRole role) {
///     if (isBinder(role)) bind(llvm::cast<Var>(child)); else push(child);
///   });
/// \endcode
///
/// In ill-formed IR a child may be null (the verifier reports it);
/// forEachChild passes null children on, walk() skips them.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_TRAVERSAL_H
#define NNIR_IR_TRAVERSAL_H

#include "nnir/IR/Expr.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/PointerIntPair.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"

#include <type_traits>

namespace nnir {

/// What a child is to its parent node.
enum class ChildRole : uint8_t {
  Callee,       ///< Call
  Argument,     ///< Call
  Field,        ///< Tuple
  Operand,      ///< TupleGetItem's tuple
  LetVar,       ///< Let (binder)
  LetValue,     ///< Let
  LetBody,      ///< Let
  Condition,    ///< If
  Then,         ///< If
  Else,         ///< If
  Param,        ///< Function (binder)
  FunctionBody, ///< Function
};

/// True for the children that bind a variable: let vars and parameters.
inline bool isBinder(ChildRole role) {
  return role == ChildRole::LetVar || role == ChildRole::Param;
}

/// The role's name in diagnostics: "callee", "argument", "field", "operand",
/// "variable", "value", "body", "condition", "then branch", "else branch",
/// "parameter".
llvm::StringRef getChildRoleName(ChildRole role);

/// True for the kinds whose children are all plain operands (Call, Tuple,
/// TupleGetItem): the dataflow edges along which real graphs are deep, and
/// which walks expand with an explicit stack.
inline bool isDataflowNode(const Expr *e) {
  return llvm::isa<Call, Tuple, TupleGetItem>(e);
}

/// A child and what it is to its parent.
struct Child {
  Expr *expr;
  ChildRole role;
};

/// Calls \p fn on the dataflow operands of \p e: a call's arguments (not
/// its callee), a tuple's fields, a TupleGetItem's tuple; nothing for other
/// kinds. The edges along which values flow between operator calls.
template <typename Fn> void forEachOperand(const Expr *e, Fn &&fn);

/// The children of \p e in forEachChild's order, for walks that push them
/// on a stack (binders first, then the operands in reverse).
llvm::SmallVector<Child, 4> getChildren(const Expr *e);

/// The number of children of \p e.
unsigned getNumChildren(const Expr *e);
/// Child \p i of \p e (may be null in ill-formed IR).
Expr *getChild(const Expr *e, unsigned i);
/// The role of child \p i of \p e.
ChildRole getChildRole(const Expr *e, unsigned i);

/// Calls \p fn on every child of \p e in order: `fn(Expr *child)` or
/// `fn(Expr *child, ChildRole role)`.
template <typename Fn> void forEachChild(const Expr *e, Fn &&fn) {
  using llvm::cast;
  auto call = [&fn](const Ref<Expr> &child, ChildRole role) {
    if constexpr (std::is_invocable_v<Fn &, Expr *, ChildRole>)
      fn(child.get(), role);
    else
      fn(child.get());
  };
  switch (e->getKind()) {
  case Expr::Kind::Call: {
    const auto *node = cast<Call>(e);
    call(node->getCallee(), ChildRole::Callee);
    for (const Ref<Expr> &arg : node->getArgs())
      call(arg, ChildRole::Argument);
    return;
  }
  case Expr::Kind::Tuple:
    for (const Ref<Expr> &field : cast<Tuple>(e)->getFields())
      call(field, ChildRole::Field);
    return;
  case Expr::Kind::TupleGetItem:
    call(cast<TupleGetItem>(e)->getTuple(), ChildRole::Operand);
    return;
  case Expr::Kind::Let: {
    const auto *node = cast<Let>(e);
    call(node->getVar(), ChildRole::LetVar);
    call(node->getValue(), ChildRole::LetValue);
    call(node->getBody(), ChildRole::LetBody);
    return;
  }
  case Expr::Kind::If: {
    const auto *node = cast<If>(e);
    call(node->getCond(), ChildRole::Condition);
    call(node->getThen(), ChildRole::Then);
    call(node->getElse(), ChildRole::Else);
    return;
  }
  case Expr::Kind::Function: {
    const auto *node = cast<Function>(e);
    for (const Ref<Var> &param : node->getParams())
      call(param, ChildRole::Param);
    call(node->getBody(), ChildRole::FunctionBody);
    return;
  }
  case Expr::Kind::Constant:
  case Expr::Kind::Var:
  case Expr::Kind::GlobalVar:
  case Expr::Kind::Op:
    return;
  }
}

template <typename Fn> void forEachOperand(const Expr *e, Fn &&fn) {
  if (!isDataflowNode(e))
    return;
  forEachChild(e, [&fn](Expr *child, ChildRole role) {
    if (role != ChildRole::Callee)
      fn(child);
  });
}

/// A node of \p e's kind with \p children (in forEachChild's order; binders
/// must be Vars) and \p e's location and node-local fields (a call's
/// attributes, a tuple index, a function's return type and attributes).
/// Leaves have no children and are returned as they are.
///
/// The rebuilt node keeps \p e's checked type when that type is still what
/// type inference would give it, and has none otherwise. It is kept when:
///  - \p e has a checked type, and
///  - every child that changed (is another node) has a checked type equal to
///    that of the child it replaces (both present), and
///  - \p e is not a call of an operator whose type relation reads the values
///    of its arguments (typeDependsOnArgValues(): arange's result shape is
///    read from constant arguments, so replacing 1f with 2f changes it even
///    though both are float32 scalars) with an argument that changed.
/// That is sound because a node's type is a function of its node-local fields
/// (unchanged here) and its children's types only: a call of an operator is
/// typed by its relation from the argument types and the attributes, a call
/// of a function by the callee's FuncType, a tuple and a TupleGetItem by
/// their fields, a let by its body, an if by its branches, and a function by
/// its parameters' types, its return annotation and its body.
Ref<Expr> rebuildWithChildren(const Expr *e,
                              llvm::ArrayRef<Ref<Expr>> children);

/// The checked type rebuildWithChildren() gives a node rebuilt from \p e with
/// \p children: \p e's when the rule above allows, else null.
Ref<Type> getPreservedType(const Expr *e, llvm::ArrayRef<Ref<Expr>> children);

//===----------------------------------------------------------------------===//
// walk
//===----------------------------------------------------------------------===//

enum class WalkOrder : uint8_t { PreOrder, PostOrder };

/// What a walk callback tells the walk (MLIR's WalkResult).
class WalkResult {
public:
  static WalkResult advance() { return WalkResult(Advance); }
  /// Stop the walk; walk() returns interrupt().
  static WalkResult interrupt() { return WalkResult(Interrupt); }
  /// Pre-order only: do not visit the children of this node (they are still
  /// visited if reached through another node).
  static WalkResult skip() { return WalkResult(Skip); }

  bool wasInterrupted() const { return kind == Interrupt; }
  bool wasSkipped() const { return kind == Skip; }

private:
  enum Kind : uint8_t { Advance, Interrupt, Skip };
  explicit WalkResult(Kind kind) : kind(kind) {}
  Kind kind;
};

/// What an enter hook tells a PostOrderWalker about the node it was called
/// on.
enum class WalkAction : uint8_t {
  /// Walk the node's children, then exit the node.
  Descend,
  /// Walk the node's children but do not exit the node: it has nothing
  /// left to do after them. Saves a walk with an exit hook keeping every
  /// node on its stack (a scope-aware walk exits only the binding nodes).
  DescendWithoutExit,
  /// Exit the node without walking its children through it ("don't
  /// descend"); a child reached through another node is still walked.
  SkipChildren,
  /// Neither walk the children nor exit the node: it is done already (in a
  /// memo of the caller's, say).
  Skip,
  /// Stop the walk at once; walk() returns WalkResult::interrupt().
  Interrupt,
};

/// The iterative post-order walk every graph walk is built on: no recursion
/// on the C++ stack, so a 1,000,000-node chain is walked in constant stack.
///
/// From the root, each node reached is *entered* (pre-order: `enter(e,
/// parent)`, which says whether to descend), then its children are walked
/// left to right, then it is *exited* (post-order: `exit(e)`, with every
/// child exited already). A node shared by several users is entered and
/// exited once, when the first of them reaches it (the walker's memo); the
/// memo outlives walk(), so several roots walked with one walker share it,
/// and a hook may ask isVisited(). Either hook may be null (or omitted);
/// `enter` may take `(Expr *e)` or `(Expr *e, Expr *parent)` (the node that
/// reached \p e first, null for the root) and return a WalkAction or void;
/// `exit` may return a WalkResult or void.
///
/// The children followed are forEachChild()'s (binders included) unless a
/// `children` function lists others, in the order they are walked (a
/// subset, such as the dataflow operands, or another order, such as a
/// call's arguments before its callee). Null children are skipped.
///
/// \code
///   // Scope-aware walk: bind on enter, unbind on exit.
///   PostOrderWalker walker(PostOrderWalker::Memo::NodesButVars);
///   walker.walk(
///       root,
///       [&](Expr *e, Expr *user) {
///         if (auto *var = dyn_cast<Var>(e))
///           checkInScope(var, user);
///         forEachChild(e, [&](Expr *child, ChildRole role) {
///           if (isBinder(role)) bind(cast<Var>(child));
///         });
///         return WalkAction::Descend;
///       },
///       [&](Expr *e) { unbindBindersOf(e); });
/// \endcode
///
/// A rewrite walks with ExprMutator (or rewritePostOrder()), which is built
/// on this walker and keeps the memo from original to rewritten node.
class PostOrderWalker {
public:
  /// Who remembers which nodes were walked.
  enum class Memo : uint8_t {
    /// The walker: each node is entered and exited once.
    Nodes,
    /// As Nodes, but a Var is entered and exited at every use, so that a
    /// scope-aware walk checks every use against the binders in scope.
    NodesButVars,
    /// As Nodes, but the walker remembers only the nodes that can be
    /// reached more than once: those with more than one reference, and the
    /// roots. A node with a single reference is reached once, through its
    /// one user, so a chain of a million calls costs no hash set of a
    /// million nodes. isVisited() answers for the remembered nodes only;
    /// walk() and walkPostOrder() use it.
    SharedNodes,
    /// The hooks: the walker keeps no set, and `enter` is called each time
    /// a node is reached (until it is exited); it returns Skip for the
    /// nodes the caller's own memo holds. For walks that keep a memo anyway
    /// (a mutator's results), to save a second set.
    Hooks,
  };

  using EnterFn = llvm::function_ref<WalkAction(Expr *e, Expr *parent)>;
  using ExitFn = llvm::function_ref<WalkResult(Expr *e)>;
  using ChildrenFn = llvm::function_ref<void(
      Expr *e, llvm::SmallVectorImpl<Expr *> &children)>;

  explicit PostOrderWalker(Memo memo = Memo::Nodes) : memo(memo) {}

  /// Walks the graph from \p root (nothing for null). Returns interrupt()
  /// if a hook interrupted the walk.
  template <typename EnterT, typename ExitT>
  WalkResult walk(Expr *root, EnterT &&enter, ExitT &&exit,
                  ChildrenFn children = nullptr);
  /// walk() with an enter hook only.
  template <typename EnterT> WalkResult walk(Expr *root, EnterT &&enter) {
    return walk(root, std::forward<EnterT>(enter), nullptr);
  }

  /// True if \p e was entered (Memo::Nodes; for Vars also NodesButVars;
  /// for shared nodes and roots also SharedNodes).
  bool isVisited(const Expr *e) const { return visited.count(e); }
  /// Forgets the nodes walked, to walk them again.
  void clear() { visited.clear(); }

private:
  WalkResult walkImpl(Expr *root, EnterFn enter, ExitFn exit,
                      ChildrenFn children);

  Memo memo;
  llvm::DenseSet<const Expr *> visited;
};

/// A PostOrderWalker's walk of one root with a fresh memo.
template <typename EnterT, typename ExitT>
WalkResult walkPostOrder(Expr *root, EnterT &&enter, ExitT &&exit,
                         PostOrderWalker::ChildrenFn children = nullptr) {
  return PostOrderWalker(PostOrderWalker::Memo::SharedNodes)
      .walk(root, std::forward<EnterT>(enter), std::forward<ExitT>(exit),
            children);
}

/// Calls \p fn once on every node reachable from \p root (shared nodes once,
/// binders included; null children are skipped), children in forEachChild's
/// order, in post-order (children first) or pre-order. A PostOrderWalker
/// with \p fn as its exit hook (post-order) or its enter hook (pre-order,
/// where skip() means SkipChildren). Returns interrupt() if \p fn
/// interrupted the walk.
WalkResult walk(Expr *root, llvm::function_ref<WalkResult(Expr *)> fn,
                WalkOrder order = WalkOrder::PostOrder);

/// walk() with a callback that returns nothing.
template <typename Fn>
std::enable_if_t<std::is_void_v<std::invoke_result_t<Fn &, Expr *>>>
walk(Expr *root, Fn &&fn, WalkOrder order = WalkOrder::PostOrder) {
  walk(
      root,
      [&fn](Expr *e) {
        fn(e);
        return WalkResult::advance();
      },
      order);
}

//===----------------------------------------------------------------------===//
// PostOrderWalker's hook adaptors
//===----------------------------------------------------------------------===//

template <typename EnterT, typename ExitT>
WalkResult PostOrderWalker::walk(Expr *root, EnterT &&enter, ExitT &&exit,
                                 ChildrenFn children) {
  // Each hook is adapted to the one signature walkImpl() calls, or is null.
  auto enterFn = [&enter](Expr *e, Expr *parent) -> WalkAction {
    if constexpr (std::is_null_pointer_v<std::decay_t<EnterT>>) {
      return WalkAction::Descend;
    } else if constexpr (std::is_invocable_v<EnterT &, Expr *, Expr *>) {
      if constexpr (std::is_void_v<
                        std::invoke_result_t<EnterT &, Expr *, Expr *>>) {
        enter(e, parent);
        return WalkAction::Descend;
      } else {
        return enter(e, parent);
      }
    } else if constexpr (std::is_void_v<
                             std::invoke_result_t<EnterT &, Expr *>>) {
      enter(e);
      return WalkAction::Descend;
    } else {
      return enter(e);
    }
  };
  auto exitFn = [&exit](Expr *e) -> WalkResult {
    if constexpr (std::is_null_pointer_v<std::decay_t<ExitT>>) {
      return WalkResult::advance();
    } else if constexpr (std::is_void_v<
                             std::invoke_result_t<ExitT &, Expr *>>) {
      exit(e);
      return WalkResult::advance();
    } else {
      return exit(e);
    }
  };
  EnterFn enterRef = nullptr;
  ExitFn exitRef = nullptr;
  if constexpr (!std::is_null_pointer_v<std::decay_t<EnterT>>)
    enterRef = enterFn;
  if constexpr (!std::is_null_pointer_v<std::decay_t<ExitT>>)
    exitRef = exitFn;
  return walkImpl(root, enterRef, exitRef, children);
}

} // namespace nnir

#endif // NNIR_IR_TRAVERSAL_H
