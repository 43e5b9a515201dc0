//===- Module.h - IRModule: a set of global functions ------------*- C++ -*-===//
//
/// \file
/// An IRModule maps GlobalVars to Functions, in definition order, with lookup
/// by name. Passes take a module and return a module; a pass that changes
/// nothing returns the very same module object, and one that changes
/// something works on shallowCopy() (functions are immutable and shared).
///
/// A module is not internally synchronised: one thread mutates it at a time;
/// any number may read it concurrently when nobody mutates it.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_MODULE_H
#define NNIR_IR_MODULE_H

#include "nnir/IR/Attrs.h"
#include "nnir/IR/Expr.h"
#include "nnir/IR/Object.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace nnir {

class IRModule final : public Object {
public:
  struct Entry {
    Ref<GlobalVar> var;
    Ref<Function> func;
  };

  static Ref<IRModule> create();

  /// TVM's IRModule::FromExpr: a Function becomes the function \p name as it
  /// is; any other expression becomes the body of a new function whose
  /// parameters are the expression's free variables (in order of first use).
  static Ref<IRModule> fromExpr(Ref<Expr> expr, llvm::StringRef name = "main");

  /// Functions in definition order.
  llvm::ArrayRef<Entry> getFunctions() const { return functions; }
  size_t size() const { return functions.size(); }
  bool empty() const { return functions.empty(); }

  /// The GlobalVar named \p name, or null.
  GlobalVar *getGlobalVar(llvm::StringRef name) const;
  /// The function named \p name, or null.
  Function *lookup(llvm::StringRef name) const;
  Function *lookup(const GlobalVar *var) const;
  bool contains(llvm::StringRef name) const { return index.count(name); }

  /// Adds \p func as \p var. If a function of that name exists, \p update
  /// must be set and \p var must be the GlobalVar already registered under
  /// that name; otherwise this is an error.
  llvm::Error add(Ref<GlobalVar> var, Ref<Function> func, bool update = false);
  /// Adds or replaces the function named \p name (creating its GlobalVar).
  GlobalVar *addOrUpdate(llvm::StringRef name, Ref<Function> func);
  /// Removes the function named \p name; false if there was none.
  bool remove(llvm::StringRef name);

  /// A new module sharing this one's functions and attributes.
  Ref<IRModule> shallowCopy() const;

  /// True when every expression of every function carries an up-to-date
  /// checked type (set by type inference; cleared by add() and addOrUpdate(),
  /// and by the pass manager when a pass that does not preserve types changes
  /// the module).
  bool hasValidTypes() const { return validTypes; }
  void setValidTypes(bool valid) { validTypes = valid; }

  /// Module attributes (TVM's mod->attrs), or null.
  const Ref<DictAttrs> &getAttrs() const { return attrs; }
  void setAttrs(Ref<DictAttrs> newAttrs) { attrs = std::move(newAttrs); }

private:
  IRModule() = default;
  std::vector<Entry> functions;
  /// Name -> position in functions.
  llvm::StringMap<size_t> index;
  Ref<DictAttrs> attrs;
  bool validTypes = false;
};

} // namespace nnir

#endif // NNIR_IR_MODULE_H
