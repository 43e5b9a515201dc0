//===- PassContextTest.cpp - PassContext, configs, statistics -------------===//
//
/// \file
/// PassContext: its defaults, the thread's stack of entered contexts and its
/// default context, scopes, TVM's PassEnabled order, typed config entries
/// checked against the PassConfigRegistry, per-pass statistics, and TVM's
/// text form of PassInfo.
//
//===----------------------------------------------------------------------===//

#include "PassTestUtils.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <atomic>
#include <thread>

namespace resourcetest {
struct Widget {
  int value = 0;
};
struct Gadget {};
} // namespace resourcetest
NNIR_DECLARE_EXPLICIT_TYPE_ID(resourcetest::Widget)
NNIR_DEFINE_EXPLICIT_TYPE_ID(resourcetest::Widget)
NNIR_DECLARE_EXPLICIT_TYPE_ID(resourcetest::Gadget)
NNIR_DEFINE_EXPLICIT_TYPE_ID(resourcetest::Gadget)

using namespace llvm;
using namespace nnir;
using namespace nnir::passtest;

namespace {

class PassContextTest : public ::testing::Test {
protected:
  void SetUp() override {
    registerPassInfraConfigs();
    PassConfigRegistry &configs = PassConfigRegistry::instance();
    if (!configs.lookup("unittest.ctx.bool")) {
      configs.registerOption("unittest.ctx.bool", OptionType::Bool,
                             "a bool for the unit tests");
      configs.registerOption("unittest.ctx.int", OptionType::Int,
                             "an int for the unit tests");
      configs.registerOption("unittest.ctx.float", OptionType::Float,
                             "a float for the unit tests");
      configs.registerOption("unittest.ctx.string", OptionType::String,
                             "a string for the unit tests");
      configs.registerOption("unittest.ctx.list", OptionType::StringList,
                             "a list for the unit tests");
      configs.registerIntOption("unittest.ctx.ranged",
                                IntegerRange<int64_t>(-1, 3),
                                "a ranged int for the unit tests");
    }
  }
};

std::string printInfo(const PassInfo &info) {
  std::string text;
  raw_string_ostream os(text);
  info.print(os);
  return text;
}

} // namespace

//===----------------------------------------------------------------------===//
// Defaults, current(), scopes
//===----------------------------------------------------------------------===//

TEST_F(PassContextTest, Defaults) {
  Ref<PassContext> ctx = PassContext::create();
  EXPECT_EQ(ctx->getOptLevel(), 2);
  EXPECT_TRUE(ctx->getRequiredPasses().empty());
  EXPECT_TRUE(ctx->getDisabledPasses().empty());
  EXPECT_TRUE(ctx->getInstruments().empty());
  EXPECT_TRUE(ctx->getStatistics().empty());
  EXPECT_EQ(ctx->getConfig("testing.immutable_module"), nullptr);
}

TEST_F(PassContextTest, CurrentIsTheThreadDefaultWhenNothingIsEntered) {
  PassContext &first = PassContext::current();
  EXPECT_EQ(&PassContext::current(), &first);
  EXPECT_EQ(first.getOptLevel(), 2);
  Ref<PassContext> ctx = PassContext::create();
  EXPECT_NE(&PassContext::current(), ctx.get());

  // Another thread has its own default context.
  PassContext *other = nullptr;
  std::thread([&] { other = &PassContext::current(); }).join();
  EXPECT_NE(other, &first);
}

// Changes to the default context persist (TVM's
// PassContext.current().override_instruments and friends).
TEST_F(PassContextTest, DefaultContextIsMutableAndPersists) {
  PassContext &global = PassContext::current();
  int saved = global.getOptLevel();
  global.setOptLevel(3);
  EXPECT_EQ(PassContext::current().getOptLevel(), 3);
  global.setOptLevel(saved);
}

TEST_F(PassContextTest, NestedScopesInnermostWins) {
  PassContext &global = PassContext::current();
  Ref<PassContext> outer = PassContext::create();
  outer->setOptLevel(1);
  Ref<PassContext> inner = PassContext::create();
  inner->setOptLevel(3);
  {
    std::optional<PassContextScope> outerScope = enterOrFail(outer);
    ASSERT_TRUE(outerScope);
    EXPECT_EQ(&PassContext::current(), outer.get());
    EXPECT_EQ(&outerScope->getContext(), outer.get());
    {
      std::optional<PassContextScope> innerScope = enterOrFail(inner);
      ASSERT_TRUE(innerScope);
      EXPECT_EQ(&PassContext::current(), inner.get());
      EXPECT_EQ(PassContext::current().getOptLevel(), 3);
    }
    EXPECT_EQ(&PassContext::current(), outer.get());
    EXPECT_EQ(PassContext::current().getOptLevel(), 1);
  }
  EXPECT_EQ(&PassContext::current(), &global);
}

// The same context may be entered twice (TVM pushes it twice).
TEST_F(PassContextTest, SameContextEnteredTwice) {
  Ref<PassContext> ctx = PassContext::create();
  std::optional<PassContextScope> first = enterOrFail(ctx);
  ASSERT_TRUE(first);
  {
    std::optional<PassContextScope> second = enterOrFail(ctx);
    ASSERT_TRUE(second);
    EXPECT_EQ(&PassContext::current(), ctx.get());
  }
  EXPECT_EQ(&PassContext::current(), ctx.get());
  ASSERT_FALSE(bool(first->exit()));
  EXPECT_NE(&PassContext::current(), ctx.get());
}

// Entering calls enter hooks then pushes: while an instrument's enter runs,
// the context is not current yet; exit pops first, then calls exit hooks.
TEST_F(PassContextTest, EnterHooksRunBeforePushExitHooksAfterPop) {
  struct Observer : PassInstrument {
    Observer(PassContext **seen) : PassInstrument("Observer"), seen(seen) {}
    Error enterPassContext() override {
      seen[0] = &PassContext::current();
      return Error::success();
    }
    Error exitPassContext() override {
      seen[1] = &PassContext::current();
      return Error::success();
    }
    PassContext **seen;
  };
  PassContext *seen[2] = {nullptr, nullptr};
  PassContext &global = PassContext::current();
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({std::make_shared<Observer>(seen)});
  {
    std::optional<PassContextScope> scope = enterOrFail(ctx);
    ASSERT_TRUE(scope);
  }
  EXPECT_EQ(seen[0], &global);
  EXPECT_EQ(seen[1], &global);
}

TEST_F(PassContextTest, ExplicitExitThenDestructorExitsOnce) {
  auto log = std::make_shared<EventLog>();
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({makeRecorder("%1", log)});
  PassContext &global = PassContext::current();
  {
    std::optional<PassContextScope> scope = enterOrFail(ctx);
    ASSERT_TRUE(scope);
    EXPECT_EQ(&PassContext::current(), ctx.get());
    EXPECT_FALSE(bool(scope->exit()));
    EXPECT_EQ(&PassContext::current(), &global);
  }
  EXPECT_EQ(*log, (EventLog{"%1 enter ctx", "%1 exit ctx"}));
  // The instruments stay on a context that exited cleanly.
  EXPECT_EQ(ctx->getInstruments().size(), 1u);
}

TEST_F(PassContextTest, DestructorExits) {
  auto log = std::make_shared<EventLog>();
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({makeRecorder("%1", log)});
  PassContext &global = PassContext::current();
  {
    std::optional<PassContextScope> scope = enterOrFail(ctx);
    ASSERT_TRUE(scope);
  }
  EXPECT_EQ(&PassContext::current(), &global);
  EXPECT_EQ(*log, (EventLog{"%1 enter ctx", "%1 exit ctx"}));
}

// A moved-from scope does not exit; the scope it moved into does, once.
TEST_F(PassContextTest, MovedScopeExitsOnce) {
  auto log = std::make_shared<EventLog>();
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({makeRecorder("%1", log)});
  PassContext &global = PassContext::current();
  {
    Expected<PassContextScope> scope = PassContext::enter(ctx);
    ASSERT_TRUE(bool(scope)) << toString(scope.takeError());
    {
      PassContextScope moved(std::move(*scope));
      EXPECT_EQ(&moved.getContext(), ctx.get());
      EXPECT_EQ(&PassContext::current(), ctx.get());
    }
    EXPECT_EQ(&PassContext::current(), &global);
  }
  EXPECT_EQ(*log, (EventLog{"%1 enter ctx", "%1 exit ctx"}));
}

// The context stays alive while entered even if the caller drops it.
TEST_F(PassContextTest, ScopeKeepsContextAlive) {
  std::optional<PassContextScope> scope = enterOrFail(PassContext::create());
  ASSERT_TRUE(scope);
  PassContext::current().setOptLevel(0);
  EXPECT_EQ(scope->getContext().getOptLevel(), 0);
  EXPECT_EQ(&PassContext::current(), &scope->getContext());
}

//===----------------------------------------------------------------------===//
// isEnabled
//===----------------------------------------------------------------------===//

// TVM's PassEnabled: disabled beats required beats the opt level.
TEST_F(PassContextTest, IsEnabledOrder) {
  Ref<PassContext> ctx = PassContext::create();
  PassInfo level3("A", 3);
  PassInfo level2("B", 2);
  EXPECT_FALSE(ctx->isEnabled(level3));
  EXPECT_TRUE(ctx->isEnabled(level2));

  ctx->setOptLevel(3);
  EXPECT_TRUE(ctx->isEnabled(level3));
  ctx->setOptLevel(1);
  EXPECT_FALSE(ctx->isEnabled(level2));

  ctx->setRequiredPasses({"A", "B"});
  EXPECT_TRUE(ctx->isRequired("A"));
  EXPECT_TRUE(ctx->isEnabled(level3));
  EXPECT_TRUE(ctx->isEnabled(level2));

  ctx->setDisabledPasses({"A"});
  EXPECT_TRUE(ctx->isDisabled("A"));
  EXPECT_FALSE(ctx->isDisabled("B"));
  EXPECT_FALSE(ctx->isEnabled(level3));
  EXPECT_TRUE(ctx->isEnabled(level2));

  // Disabled wins even at a level that would enable the pass.
  ctx->setOptLevel(4);
  ctx->setRequiredPasses({});
  EXPECT_FALSE(ctx->isEnabled(level3));
  EXPECT_FALSE(ctx->isEnabled(PassInfo("A", 0)));
}

// Names are compared exactly; unknown names are not validated.
TEST_F(PassContextTest, IsEnabledComparesExactNames) {
  Ref<PassContext> ctx = PassContext::create();
  ctx->setDisabledPasses({"Fold", "NoSuchPass"});
  ctx->setRequiredPasses({"foldconstant"});
  EXPECT_TRUE(ctx->isEnabled(PassInfo("FoldConstant", 2)));
  EXPECT_FALSE(ctx->isEnabled(PassInfo("FoldConstant", 3)));
  EXPECT_FALSE(ctx->isEnabled(PassInfo("Fold", 0)));
}

//===----------------------------------------------------------------------===//
// Config entries
//===----------------------------------------------------------------------===//

TEST_F(PassContextTest, ConfigRegistryEntries) {
  PassConfigRegistry &configs = PassConfigRegistry::instance();
  const PassConfigRegistry::Entry *immutable =
      configs.lookup("testing.immutable_module");
  ASSERT_NE(immutable, nullptr);
  EXPECT_EQ(immutable->key, "testing.immutable_module");
  EXPECT_EQ(immutable->type, OptionType::Bool);
  EXPECT_FALSE(immutable->description.empty());
  EXPECT_EQ(configs.lookup("unittest.ctx.nope"), nullptr);

  // Registration is idempotent and keeps registration order.
  registerPassInfraConfigs();
  configs.registerOption("unittest.ctx.int", OptionType::Int,
                         "an int for the unit tests");
  int immutableCount = 0;
  int boolPos = -1, intPos = -1, listPos = -1;
  ArrayRef<PassConfigRegistry::Entry> entries = configs.getEntries();
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].key == "testing.immutable_module")
      ++immutableCount;
    if (entries[i].key == "unittest.ctx.bool")
      boolPos = i;
    if (entries[i].key == "unittest.ctx.int")
      intPos = i;
    if (entries[i].key == "unittest.ctx.list")
      listPos = i;
  }
  EXPECT_EQ(immutableCount, 1);
  EXPECT_GE(boolPos, 0);
  EXPECT_EQ(intPos, boolPos + 1);
  EXPECT_EQ(listPos, boolPos + 4);
  EXPECT_EQ(configs.lookup("unittest.ctx.list")->type, OptionType::StringList);
  EXPECT_EQ(configs.lookup("unittest.ctx.list")->description,
            "a list for the unit tests");
}

TEST_F(PassContextTest, AliasesNameTheirKeysConfig) {
  PassConfigRegistry &configs = PassConfigRegistry::instance();
  EXPECT_TRUE(configs.registerAlias("unittest.alias.int", "unittest.ctx.int"));
  EXPECT_TRUE(configs.registerAlias("unittest.alias.int", "unittest.ctx.int"));
  // Not for an unknown key, and an alias cannot be moved to another key.
  EXPECT_FALSE(configs.registerAlias("unittest.alias.nope", "unittest.nope"));
  EXPECT_FALSE(
      configs.registerAlias("unittest.alias.int", "unittest.ctx.bool"));
  EXPECT_FALSE(configs.registerAlias("unittest.ctx.bool", "unittest.ctx.int"));
  ASSERT_NE(configs.lookup("unittest.alias.int"), nullptr);
  EXPECT_EQ(configs.lookup("unittest.alias.int")->key, "unittest.ctx.int");
  for (const PassConfigRegistry::Entry &entry : configs.getEntries())
    EXPECT_NE(entry.key, "unittest.alias.int");

  Ref<PassContext> ctx = PassContext::create();
  ASSERT_FALSE(bool(ctx->setConfig("unittest.alias.int", OptionValue(7))));
  ASSERT_NE(ctx->getConfig("unittest.ctx.int"), nullptr);
  EXPECT_EQ(ctx->getConfig("unittest.ctx.int")->getInt(), 7);
  EXPECT_EQ(ctx->getConfig("unittest.alias.int")->getInt(), 7);
  std::string message =
      errorMessage(ctx->setConfig("unittest.alias.int", OptionValue(true)));
  EXPECT_NE(message.find("'unittest.alias.int' expects a value of type int"),
            std::string::npos)
      << message;
}

TEST_F(PassContextTest, SetConfigUnknownKeyListsValidKeys) {
  Ref<PassContext> ctx = PassContext::create();
  std::string message =
      errorMessage(ctx->setConfig("unittest.ctx.nope", OptionValue(true)));
  EXPECT_NE(message.find("unittest.ctx.nope"), std::string::npos) << message;
  for (const PassConfigRegistry::Entry &entry :
       PassConfigRegistry::instance().getEntries())
    EXPECT_NE(message.find(entry.key), std::string::npos)
        << "'" << entry.key << "' missing from: " << message;
  EXPECT_EQ(ctx->getConfig("unittest.ctx.nope"), nullptr);

  message = errorMessage(ctx->setConfigFromString("unittest.ctx.nope", "1"));
  EXPECT_NE(message.find("testing.immutable_module"), std::string::npos)
      << message;
}

TEST_F(PassContextTest, SetConfigWrongTypeNamesExpectedType) {
  Ref<PassContext> ctx = PassContext::create();
  std::string message =
      errorMessage(ctx->setConfig("testing.immutable_module", OptionValue(3)));
  EXPECT_NE(message.find("testing.immutable_module"), std::string::npos)
      << message;
  EXPECT_EQ(message, "pass config 'testing.immutable_module' expects a value "
                     "of type bool, got an int");
  EXPECT_EQ(ctx->getConfig("testing.immutable_module"), nullptr);

  message = errorMessage(ctx->setConfig("unittest.ctx.int", OptionValue("x")));
  EXPECT_NE(message.find("int"), std::string::npos) << message;
  message =
      errorMessage(ctx->setConfig("unittest.ctx.list", OptionValue(true)));
  EXPECT_NE(message.find("list"), std::string::npos) << message;
  EXPECT_EQ(ctx->getConfig("unittest.ctx.int"), nullptr);
}

TEST_F(PassContextTest, SetConfigStoresTypedValues) {
  Ref<PassContext> ctx = PassContext::create();
  ASSERT_FALSE(bool(ctx->setConfig("testing.immutable_module", true)));
  ASSERT_FALSE(bool(ctx->setConfig("unittest.ctx.int", OptionValue(7))));
  ASSERT_FALSE(bool(ctx->setConfig("unittest.ctx.string", "abc")));
  const OptionValue *value = ctx->getConfig("testing.immutable_module");
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(*value, OptionValue(true));
  EXPECT_EQ(ctx->getConfig("unittest.ctx.int")->getInt(), 7);
  EXPECT_EQ(ctx->getConfig("unittest.ctx.string")->getString(), "abc");
  // Setting again replaces.
  ASSERT_FALSE(bool(ctx->setConfig("unittest.ctx.int", OptionValue(8))));
  EXPECT_EQ(ctx->getConfig("unittest.ctx.int")->getInt(), 8);
  // Each context has its own entries.
  EXPECT_EQ(PassContext::create()->getConfig("unittest.ctx.int"), nullptr);
}

TEST_F(PassContextTest, SetConfigRangedIntSaysTheRange) {
  Ref<PassContext> ctx = PassContext::create();
  const PassConfigRegistry::Entry *entry =
      PassConfigRegistry::instance().lookup("unittest.ctx.ranged");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->type, OptionType::Int);
  ASSERT_TRUE(entry->range.has_value());
  EXPECT_EQ(entry->range->str(), "-1 to 3");
  // The ends are accepted, a value beyond them is refused (as a value and
  // as text, however far beyond), and nothing is stored.
  ASSERT_FALSE(bool(ctx->setConfig("unittest.ctx.ranged", OptionValue(-1))));
  ASSERT_FALSE(bool(ctx->setConfigFromString("unittest.ctx.ranged", "3")));
  EXPECT_EQ(ctx->getConfig("unittest.ctx.ranged")->getInt(), 3);
  Ref<PassContext> fresh = PassContext::create();
  EXPECT_EQ(
      errorMessage(fresh->setConfig("unittest.ctx.ranged", OptionValue(4))),
      "pass config 'unittest.ctx.ranged': expected an integer from -1 "
      "to 3, got '4'");
  for (StringRef text : {"-2", "99999999999999999999", "x", "1.5"})
    EXPECT_EQ(
        errorMessage(fresh->setConfigFromString("unittest.ctx.ranged", text)),
        ("pass config 'unittest.ctx.ranged': expected an integer from "
         "-1 to 3, got '" +
         text + "'")
            .str());
  EXPECT_EQ(fresh->getConfig("unittest.ctx.ranged"), nullptr);
  // Keys without a range take any int64.
  EXPECT_FALSE(PassConfigRegistry::instance()
                   .lookup("unittest.ctx.int")
                   ->range.has_value());
}

TEST_F(PassContextTest, SetConfigFromStringUsesRegisteredType) {
  Ref<PassContext> ctx = PassContext::create();
  ASSERT_FALSE(bool(ctx->setConfigFromString("unittest.ctx.bool", "true")));
  ASSERT_FALSE(bool(ctx->setConfigFromString("unittest.ctx.int", "42")));
  ASSERT_FALSE(bool(ctx->setConfigFromString("unittest.ctx.float", "0.25")));
  ASSERT_FALSE(bool(ctx->setConfigFromString("unittest.ctx.string", "42")));
  ASSERT_FALSE(bool(ctx->setConfigFromString("unittest.ctx.list", "a,b")));
  EXPECT_EQ(ctx->getConfig("unittest.ctx.bool")->getType(), OptionType::Bool);
  EXPECT_TRUE(ctx->getConfig("unittest.ctx.bool")->getBool());
  EXPECT_EQ(ctx->getConfig("unittest.ctx.int")->getType(), OptionType::Int);
  EXPECT_EQ(ctx->getConfig("unittest.ctx.int")->getInt(), 42);
  EXPECT_EQ(ctx->getConfig("unittest.ctx.float")->getType(), OptionType::Float);
  EXPECT_EQ(ctx->getConfig("unittest.ctx.float")->getFloat(), 0.25);
  EXPECT_EQ(ctx->getConfig("unittest.ctx.string")->getType(),
            OptionType::String);
  EXPECT_EQ(ctx->getConfig("unittest.ctx.string")->getString(), "42");
  EXPECT_EQ(ctx->getConfig("unittest.ctx.list")->getList(),
            (std::vector<std::string>{"a", "b"}));

  std::string message =
      errorMessage(ctx->setConfigFromString("unittest.ctx.int", "abc"));
  EXPECT_NE(message.find("expected an int, got 'abc'"), std::string::npos)
      << message;
  message = errorMessage(
      ctx->setConfigFromString("testing.immutable_module", "maybe"));
  EXPECT_NE(message.find("expected a bool, got 'maybe'"), std::string::npos)
      << message;
  EXPECT_EQ(ctx->getConfig("testing.immutable_module"), nullptr);
  // A failed set leaves the old value.
  EXPECT_EQ(ctx->getConfig("unittest.ctx.int")->getInt(), 42);
}

TEST_F(PassContextTest, GetConfigBoolAndIntDefaults) {
  Ref<PassContext> ctx = PassContext::create();
  EXPECT_FALSE(ctx->getConfigBool("testing.immutable_module", false));
  EXPECT_TRUE(ctx->getConfigBool("testing.immutable_module", true));
  EXPECT_EQ(ctx->getConfigInt("unittest.ctx.int", -5), -5);
  EXPECT_EQ(ctx->getConfigInt("unittest.ctx.never.registered", 9), 9);
  ASSERT_FALSE(bool(ctx->setConfig("testing.immutable_module", true)));
  ASSERT_FALSE(bool(ctx->setConfig("unittest.ctx.int", OptionValue(3))));
  EXPECT_TRUE(ctx->getConfigBool("testing.immutable_module", false));
  EXPECT_EQ(ctx->getConfigInt("unittest.ctx.int", -5), 3);
  ASSERT_FALSE(bool(ctx->setConfig("testing.immutable_module", false)));
  EXPECT_FALSE(ctx->getConfigBool("testing.immutable_module", true));
}

//===----------------------------------------------------------------------===//
// Statistics
//===----------------------------------------------------------------------===//

TEST_F(PassContextTest, StatisticsAddAndGet) {
  PassStatistics stats;
  EXPECT_TRUE(stats.empty());
  EXPECT_EQ(stats.get("A", "folded"), 0);
  stats.add("A", "folded", 2, "Number of folded calls");
  stats.add("A", "folded", 3);
  stats.add("B", "removed", 1, "Number of removed bindings");
  stats.add("A", "visited", 10, "Number of visited nodes");
  EXPECT_FALSE(stats.empty());
  EXPECT_EQ(stats.get("A", "folded"), 5);
  EXPECT_EQ(stats.get("A", "visited"), 10);
  EXPECT_EQ(stats.get("B", "removed"), 1);
  EXPECT_EQ(stats.get("B", "folded"), 0);
  EXPECT_EQ(stats.get("C", "folded"), 0);

  // First-use order of passes and of counters within a pass.
  ArrayRef<PassStatistics::PassCounters> counters = stats.getCounters();
  ASSERT_EQ(counters.size(), 2u);
  EXPECT_EQ(counters[0].pass, "A");
  EXPECT_EQ(counters[1].pass, "B");
  ASSERT_EQ(counters[0].counters.size(), 2u);
  EXPECT_EQ(counters[0].counters[0].name, "folded");
  EXPECT_EQ(counters[0].counters[0].value, 5);
  EXPECT_EQ(counters[0].counters[0].description, "Number of folded calls");
  EXPECT_EQ(counters[0].counters[1].name, "visited");
  stats.clear();
  EXPECT_TRUE(stats.empty());
  EXPECT_EQ(stats.get("A", "folded"), 0);
}

// LLVM's -stats layout: a banner, then one `<value> <pass> - <description>`
// line per counter with the values right-aligned (LLVM also pads the pass
// names to one width; that is allowed, not required).
TEST_F(PassContextTest, StatisticsPrintFormat) {
  PassStatistics stats;
  stats.add("FoldConstant", "folded", 3, "Number of folded calls");
  stats.add("DeadCodeElimination", "removed", 120,
            "Number of removed bindings");
  std::string text;
  raw_string_ostream os(text);
  stats.print(os);
  EXPECT_NE(text.find("... Statistics Collected ..."), std::string::npos)
      << text;
  SmallVector<StringRef, 8> lines;
  StringRef(text).split(lines, '\n');
  auto hasLine = [&](StringRef prefix, StringRef suffix) {
    for (StringRef line : lines)
      if (line.starts_with(prefix) && line.ends_with(suffix) &&
          line.drop_front(prefix.size())
                  .drop_back(suffix.size())
                  .find_first_not_of(' ') == StringRef::npos)
        return true;
    return false;
  };
  EXPECT_TRUE(hasLine("  3 FoldConstant", " - Number of folded calls")) << text;
  EXPECT_TRUE(
      hasLine("120 DeadCodeElimination", " - Number of removed bindings"))
      << text;
}

TEST_F(PassContextTest, ContextStatisticsAreSeparate) {
  Ref<PassContext> a = PassContext::create();
  Ref<PassContext> b = PassContext::create();
  a->getStatistics().add("P", "n", 1, "things");
  EXPECT_EQ(a->getStatistics().get("P", "n"), 1);
  EXPECT_EQ(b->getStatistics().get("P", "n"), 0);
}

//===----------------------------------------------------------------------===//
// PassInfo
//===----------------------------------------------------------------------===//

TEST_F(PassContextTest, PassInfoFields) {
  PassInfo info(/*name=*/"xyz", /*optLevel=*/1);
  EXPECT_EQ(info.name, "xyz");
  EXPECT_EQ(info.optLevel, 1);
  EXPECT_TRUE(info.required.empty());
  EXPECT_FALSE(info.preservesTypes);
  EXPECT_FALSE(info.establishesTypes);
  PassInfo defaulted;
  EXPECT_EQ(defaulted.optLevel, 0);
  EXPECT_TRUE(defaulted.name.empty());
}

// TVM's repr, including its layout of a non-empty required list.
TEST_F(PassContextTest, PassInfoPrint) {
  EXPECT_EQ(printInfo(PassInfo("xyz", 1)),
            "The meta data of the pass - pass name: xyz, opt_level: 1, "
            "required passes: []\n");
  EXPECT_EQ(printInfo(PassInfo("FuseOps", 0, {"InferType", "Other"})),
            "The meta data of the pass - pass name: FuseOps, opt_level: 0, "
            "required passes: [\nInferType, Other, ]\n");
}

//===----------------------------------------------------------------------===//
// Resources
//===----------------------------------------------------------------------===//

using resourcetest::Gadget;
using resourcetest::Widget;

TEST_F(PassContextTest, ResourcesAreKeyedByType) {
  Ref<PassContext> ctx = PassContext::create();
  EXPECT_EQ(cantFail(ctx->getResource<Widget>()), nullptr);
  auto widget = std::make_shared<Widget>();
  widget->value = 7;
  ctx->setResource(widget);
  std::shared_ptr<Widget> got = cantFail(ctx->getResource<Widget>());
  EXPECT_EQ(got, widget);
  EXPECT_EQ(got->value, 7);
  // Another type has a slot of its own.
  EXPECT_EQ(cantFail(ctx->getResource<Gadget>()), nullptr);
  // Another context shares nothing.
  EXPECT_EQ(cantFail(PassContext::create()->getResource<Widget>()), nullptr);
  ctx->setResource<Widget>(nullptr);
  EXPECT_EQ(cantFail(ctx->getResource<Widget>()), nullptr);
}

TEST_F(PassContextTest, ResourceFactoryRunsOnceOnFirstUse) {
  Ref<PassContext> ctx = PassContext::create();
  std::atomic<int> calls{0};
  ctx->setResourceFactory<Widget>(
      [&]() -> Expected<std::shared_ptr<Widget>> {
        ++calls;
        auto widget = std::make_shared<Widget>();
        widget->value = 3;
        return widget;
      });
  EXPECT_EQ(calls, 0);
  std::vector<std::thread> threads;
  std::vector<std::shared_ptr<Widget>> seen(4);
  for (int i = 0; i < 4; ++i)
    threads.emplace_back(
        [&, i] { seen[i] = cantFail(ctx->getResource<Widget>()); });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(calls, 1);
  for (const std::shared_ptr<Widget> &w : seen) {
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w, seen[0]);
    EXPECT_EQ(w->value, 3);
  }
}

TEST_F(PassContextTest, ResourceFactoryErrorIsReturnedToEveryCaller) {
  Ref<PassContext> ctx = PassContext::create();
  int calls = 0;
  ctx->setResourceFactory<Widget>(
      [&]() -> Expected<std::shared_ptr<Widget>> {
        ++calls;
        return createStringError(inconvertibleErrorCode(), "no widgets today");
      });
  for (int i = 0; i < 2; ++i) {
    Expected<std::shared_ptr<Widget>> got = ctx->getResource<Widget>();
    ASSERT_FALSE(bool(got));
    EXPECT_EQ(toString(got.takeError()), "no widgets today");
  }
  EXPECT_EQ(calls, 1);
  // Handing in a resource replaces the failed factory.
  ctx->setResource(std::make_shared<Widget>());
  EXPECT_NE(cantFail(ctx->getResource<Widget>()), nullptr);
}

TEST_F(PassContextTest, NestedContextKeepsResourcesAndFollowingInstruments) {
  struct Follower : PassInstrument {
    Follower() : PassInstrument("follower") {}
    bool followsNestedPipelines() const override { return true; }
  };
  auto follower = std::make_shared<Follower>();
  auto printer = std::make_shared<PassInstrument>("printer");
  Ref<PassContext> ctx = PassContext::create();
  ctx->setOptLevel(3);
  ctx->setDisabledPasses({"FuseOps"});
  ctx->setInstruments({printer, follower});
  int made = 0;
  ctx->setResourceFactory<Widget>([&]() -> Expected<std::shared_ptr<Widget>> {
    ++made;
    return std::make_shared<Widget>();
  });

  Ref<PassContext> nested = ctx->createNestedContext();
  EXPECT_EQ(nested->getOptLevel(), 2);
  EXPECT_TRUE(nested->getDisabledPasses().empty());
  ASSERT_EQ(nested->getInstruments().size(), 1u);
  EXPECT_EQ(nested->getInstruments()[0], follower);
  // One resource, made once, whichever context asks first.
  std::shared_ptr<Widget> inner = cantFail(nested->getResource<Widget>());
  EXPECT_EQ(cantFail(ctx->getResource<Widget>()), inner);
  EXPECT_EQ(made, 1);
}
