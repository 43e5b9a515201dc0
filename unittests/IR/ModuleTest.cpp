//===- ModuleTest.cpp - Tests of IRModule ---------------------------------===//
//
/// \file
/// The function table of IRModule: add / update / remove / lookup, their
/// errors, shallow copies and fromExpr.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/FreeVars.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Op.h"
#include "nnir/Ops/Ops.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace nnir;

namespace {

std::string takeMessage(Error err) {
  std::string message;
  handleAllErrors(std::move(err),
                  [&](const DiagnosticError &d) { message = d.getMessage(); });
  return message;
}

class ModuleTest : public ::testing::Test {
protected:
  void SetUp() override { registerAllOps(); }

  /// fn (%x) { nn.relu(%x) }
  static Ref<Function> makeRelu() {
    Ref<Var> x = Var::get("x");
    return Function::get({x}, Call::get(Op::lookup("nn.relu"), {x}));
  }
};

TEST_F(ModuleTest, AddAndLookup) {
  Ref<IRModule> module = IRModule::create();
  EXPECT_TRUE(module->empty());
  Ref<GlobalVar> f = GlobalVar::get("f");
  Ref<Function> func = makeRelu();
  ASSERT_FALSE(bool(module->add(f, func)));
  EXPECT_EQ(module->size(), 1u);
  EXPECT_TRUE(module->contains("f"));
  EXPECT_FALSE(module->contains("g"));
  EXPECT_EQ(module->lookup("f"), func.get());
  EXPECT_EQ(module->lookup(f.get()), func.get());
  EXPECT_EQ(module->lookup("g"), nullptr);
  EXPECT_EQ(module->lookup(static_cast<const GlobalVar *>(nullptr)), nullptr);
  EXPECT_EQ(module->getGlobalVar("f"), f.get());
  EXPECT_EQ(module->getGlobalVar("g"), nullptr);
  // Lookup by a GlobalVar goes by name.
  EXPECT_EQ(module->lookup(GlobalVar::get("f").get()), func.get());
}

TEST_F(ModuleTest, ARefusedAddLeavesTheModuleUnchanged) {
  Ref<IRModule> module = IRModule::create();
  Ref<GlobalVar> f = GlobalVar::get("f");
  Ref<Function> func = makeRelu();
  ASSERT_FALSE(bool(module->add(f, func)));
  module->setValidTypes(true);

  // A duplicate without update, and an update through another GlobalVar.
  EXPECT_EQ(takeMessage(module->add(GlobalVar::get("f"), makeRelu())),
            "duplicate definition of global function @f");
  EXPECT_EQ(
      takeMessage(module->add(GlobalVar::get("f"), makeRelu(), /*update=*/true)),
      "global function @f is already defined with another GlobalVar");
  EXPECT_EQ(module->size(), 1u);
  EXPECT_EQ(module->lookup("f"), func.get());
  EXPECT_EQ(module->getGlobalVar("f"), f.get());
  EXPECT_TRUE(module->hasValidTypes());

  // An accepted update does invalidate the types.
  ASSERT_FALSE(bool(module->add(f, makeRelu(), /*update=*/true)));
  EXPECT_NE(module->lookup("f"), func.get());
  EXPECT_FALSE(module->hasValidTypes());
}

TEST_F(ModuleTest, FunctionsKeepDefinitionOrder) {
  Ref<IRModule> module = IRModule::create();
  for (StringRef name : {"c", "a", "b"})
    module->addOrUpdate(name, makeRelu());
  ASSERT_EQ(module->size(), 3u);
  EXPECT_EQ(module->getFunctions()[0].var->getName(), "c");
  EXPECT_EQ(module->getFunctions()[1].var->getName(), "a");
  EXPECT_EQ(module->getFunctions()[2].var->getName(), "b");
}

TEST_F(ModuleTest, DuplicateDefinitionIsAnError) {
  Ref<IRModule> module = IRModule::create();
  Ref<GlobalVar> f = GlobalVar::get("f");
  Ref<Function> first = makeRelu();
  ASSERT_FALSE(bool(module->add(f, first)));
  EXPECT_EQ(takeMessage(module->add(GlobalVar::get("f"), makeRelu())),
            "duplicate definition of global function @f");
  // Even with the same GlobalVar, without update.
  EXPECT_EQ(takeMessage(module->add(f, makeRelu())),
            "duplicate definition of global function @f");
  EXPECT_EQ(module->lookup("f"), first.get());
}

TEST_F(ModuleTest, UpdateNeedsTheRegisteredGlobalVar) {
  Ref<IRModule> module = IRModule::create();
  Ref<GlobalVar> f = GlobalVar::get("f");
  ASSERT_FALSE(bool(module->add(f, makeRelu())));
  Ref<Function> second = makeRelu();
  EXPECT_EQ(takeMessage(module->add(GlobalVar::get("f"), second, true)),
            "global function @f is already defined with another GlobalVar");
  EXPECT_NE(module->lookup("f"), second.get());
  ASSERT_FALSE(bool(module->add(f, second, /*update=*/true)));
  EXPECT_EQ(module->lookup("f"), second.get());
  EXPECT_EQ(module->size(), 1u);
  // Update of a function that does not exist yet simply adds it.
  ASSERT_FALSE(bool(module->add(GlobalVar::get("g"), makeRelu(), true)));
  EXPECT_EQ(module->size(), 2u);
}

TEST_F(ModuleTest, AddOrUpdateKeepsTheGlobalVar) {
  Ref<IRModule> module = IRModule::create();
  GlobalVar *f = module->addOrUpdate("f", makeRelu());
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->getName(), "f");
  Ref<Function> second = makeRelu();
  EXPECT_EQ(module->addOrUpdate("f", second), f);
  EXPECT_EQ(module->lookup("f"), second.get());
  EXPECT_EQ(module->size(), 1u);
}

TEST_F(ModuleTest, RemoveKeepsTheIndexConsistent) {
  Ref<IRModule> module = IRModule::create();
  Ref<Function> a = makeRelu(), b = makeRelu(), c = makeRelu();
  module->addOrUpdate("a", a);
  module->addOrUpdate("b", b);
  module->addOrUpdate("c", c);
  EXPECT_TRUE(module->remove("a"));
  EXPECT_FALSE(module->remove("a"));
  EXPECT_FALSE(module->remove("zzz"));
  ASSERT_EQ(module->size(), 2u);
  EXPECT_EQ(module->lookup("a"), nullptr);
  EXPECT_EQ(module->lookup("b"), b.get());
  EXPECT_EQ(module->lookup("c"), c.get());
  EXPECT_EQ(module->getFunctions()[0].var->getName(), "b");
  // The name can be defined again.
  module->addOrUpdate("a", a);
  EXPECT_EQ(module->getFunctions()[2].var->getName(), "a");
  EXPECT_EQ(module->lookup("a"), a.get());
}

TEST_F(ModuleTest, ShallowCopySharesFunctionsNotTheTable) {
  Ref<IRModule> module = IRModule::create();
  Ref<Function> f = makeRelu();
  module->addOrUpdate("f", f);
  module->setAttrs(
      DictAttrs::get({{"executor", AttrValue::string("graph"), SMLoc()}}));
  Ref<IRModule> copy = module->shallowCopy();
  ASSERT_NE(copy.get(), module.get());
  EXPECT_EQ(copy->lookup("f"), f.get());
  EXPECT_EQ(copy->getGlobalVar("f"), module->getGlobalVar("f"));
  EXPECT_EQ(copy->getAttrs(), module->getAttrs());

  Ref<Function> g = makeRelu();
  copy->addOrUpdate("f", g);
  copy->addOrUpdate("h", g);
  EXPECT_EQ(module->lookup("f"), f.get());
  EXPECT_FALSE(module->contains("h"));
  EXPECT_TRUE(copy->remove("f"));
  EXPECT_TRUE(module->contains("f"));
  EXPECT_EQ(copy->lookup("h"), g.get());
}

TEST_F(ModuleTest, FromExprWrapsFreeVarsAsParameters) {
  Ref<Var> x = Var::get("x"), y = Var::get("y");
  // add(%y, multiply(%x, %y)): free vars in order of first use: y, x.
  Ref<Expr> body = Call::get(Op::lookup("add"),
                             {y, Call::get(Op::lookup("multiply"), {x, y})});
  Ref<IRModule> module = IRModule::fromExpr(body);
  ASSERT_EQ(module->size(), 1u);
  Function *main = module->lookup("main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->getBody(), body);
  ASSERT_EQ(main->getNumParams(), 2u);
  EXPECT_EQ(main->getParam(0), y);
  EXPECT_EQ(main->getParam(1), x);

  // A let-bound variable is not free.
  Ref<Var> t = Var::get("t");
  Ref<IRModule> withLet = IRModule::fromExpr(
      Let::get(t, x, Call::get(Op::lookup("add"), {t, x})), "f");
  ASSERT_NE(withLet->lookup("f"), nullptr);
  ASSERT_EQ(withLet->lookup("f")->getNumParams(), 1u);
  EXPECT_EQ(withLet->lookup("f")->getParam(0), x);

  // A recursive let: the function's own variable is bound in its value
  // (Relay's scoping), so only what the function reads from outside is free.
  Ref<Var> loop = Var::get("loop"), n = Var::get("n");
  Ref<Function> fn = Function::get(
      {n}, Call::get(loop, {Call::get(Op::lookup("add"), {n, x})}));
  std::vector<Ref<Var>> free =
      getFreeVars(Let::get(loop, fn, Call::get(loop, {y})).get());
  ASSERT_EQ(free.size(), 2u);
  EXPECT_EQ(free[0], x);
  EXPECT_EQ(free[1], y);
  // The function alone refers to the loop variable from outside.
  std::vector<Ref<Var>> fnFree = getFreeVars(fn.get());
  EXPECT_EQ(fnFree.size(), 2u);
}

TEST_F(ModuleTest, FromExprKeepsAFunctionAsIs) {
  Ref<Function> f = makeRelu();
  Ref<IRModule> module = IRModule::fromExpr(f, "relu");
  EXPECT_EQ(module->lookup("relu"), f.get());
  EXPECT_FALSE(module->contains("main"));
}

} // namespace
