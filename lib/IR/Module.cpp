//===- Module.cpp - IRModule: a set of global functions -------------------===//
//
/// \file
/// Function table management.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Module.h"

#include "nnir/IR/FreeVars.h"
#include "nnir/Support/Diagnostics.h"

using namespace llvm;
using namespace nnir;

Ref<IRModule> IRModule::create() { return Ref<IRModule>(new IRModule()); }

Ref<IRModule> IRModule::fromExpr(Ref<Expr> expr, StringRef name) {
  Ref<IRModule> module = create();
  Ref<Function> func;
  if (auto *f = dyn_cast<Function>(expr.get())) {
    func = f;
  } else {
    std::vector<Ref<Var>> params = getFreeVars(expr.get());
    func = Function::get(params, expr, nullptr, nullptr, expr->getLoc());
  }
  module->addOrUpdate(name, func);
  return module;
}

GlobalVar *IRModule::getGlobalVar(StringRef name) const {
  auto it = index.find(name);
  return it == index.end() ? nullptr : functions[it->second].var.get();
}

Function *IRModule::lookup(StringRef name) const {
  auto it = index.find(name);
  return it == index.end() ? nullptr : functions[it->second].func.get();
}

Function *IRModule::lookup(const GlobalVar *var) const {
  return var ? lookup(var->getName()) : nullptr;
}

Error IRModule::add(Ref<GlobalVar> var, Ref<Function> func, bool update) {
  // A refused add leaves the module as it was (its types stay valid).
  auto it = index.find(var->getName());
  if (it == index.end()) {
    validTypes = false;
    index[var->getName()] = functions.size();
    functions.push_back({std::move(var), std::move(func)});
    return Error::success();
  }
  Entry &entry = functions[it->second];
  if (!update)
    return makeError(var->getLoc(), "duplicate definition of global function @" +
                                        var->getName());
  if (entry.var != var)
    return makeError(var->getLoc(),
                     "global function @" + var->getName() +
                         " is already defined with another GlobalVar");
  validTypes = false;
  entry.func = std::move(func);
  return Error::success();
}

GlobalVar *IRModule::addOrUpdate(StringRef name, Ref<Function> func) {
  validTypes = false;
  auto it = index.find(name);
  if (it != index.end()) {
    functions[it->second].func = std::move(func);
    return functions[it->second].var.get();
  }
  Ref<GlobalVar> var = GlobalVar::get(name);
  index[name] = functions.size();
  functions.push_back({var, std::move(func)});
  return var.get();
}

bool IRModule::remove(StringRef name) {
  auto it = index.find(name);
  if (it == index.end())
    return false;
  size_t pos = it->second;
  functions.erase(functions.begin() + pos);
  index.erase(it);
  for (auto &entry : index)
    if (entry.second > pos)
      --entry.second;
  return true;
}

Ref<IRModule> IRModule::shallowCopy() const {
  Ref<IRModule> copy = create();
  copy->functions = functions;
  for (const auto &entry : index)
    copy->index[entry.getKey()] = entry.second;
  copy->attrs = attrs;
  copy->validTypes = validTypes;
  return copy;
}
