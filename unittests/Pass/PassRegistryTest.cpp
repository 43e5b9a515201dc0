//===- PassRegistryTest.cpp - Pass registry and pipeline text -------------===//
//
/// \file
/// Tests the PassRegistry (registration errors, lookup, spelling suggestions,
/// typed options with defaults) and parsePassPipeline (the structure it
/// builds and every located error, rendered as nnir-opt renders them).
//
//===----------------------------------------------------------------------===//

#include "nnir/Pass/PassRegistry.h"

#include "nnir/IR/Module.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/Support/Casting.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <mutex>

using namespace llvm;
using namespace nnir;

namespace {

/// The message of \p err ("" for success).
std::string message(Error err) {
  if (!err)
    return "";
  return toString(std::move(err));
}

/// A module pass named \p name that returns its input.
Ref<Pass> makeIdentityPass(StringRef name, int optLevel = 0) {
  return createModulePass(
      [](Ref<IRModule> module, PassContext &) -> Expected<Ref<IRModule>> {
        return module;
      },
      PassInfo(name, optLevel));
}

/// The options the last "reg.Opts" factory call received.
PassOptions lastOptions;

/// Registers the passes these tests use (names prefixed "reg." so that other
/// tests' registrations cannot interfere), once per process.
void registerTestPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    PassRegistry &registry = PassRegistry::instance();
    for (StringRef name : {"reg.FoldConstant", "reg.InferType", "reg.A",
                           "reg.B", "reg.C", "reg.name_with-odd.chars2"})
      ASSERT_FALSE(registry.registerPass(
          name, "a test pass", [name] { return makeIdentityPass(name); }));

    PassRegistration opts;
    opts.name = "reg.Opts";
    opts.description = "a pass with one option of each type";
    opts.options = {
        {"flag", OptionType::Bool, OptionValue(false), "a bool"},
        {"count", OptionType::Int, OptionValue(3), "an int"},
        {"ratio", OptionType::Float, OptionValue(1), "a float (int default)"},
        {"label", OptionType::String, OptionValue("x"), "a string"},
        {"names", OptionType::StringList,
         OptionValue(std::vector<std::string>{"p", "q"}), "a list"},
    };
    opts.factory = [](const PassOptions &options) -> Expected<Ref<Pass>> {
      lastOptions = options;
      return makeIdentityPass("reg.Opts");
    };
    ASSERT_FALSE(registry.registerPass(std::move(opts)));

    PassRegistration misnamed;
    misnamed.name = "reg.Misnamed";
    misnamed.factory = [](const PassOptions &) -> Expected<Ref<Pass>> {
      return makeIdentityPass("reg.SomethingElse");
    };
    ASSERT_FALSE(registry.registerPass(std::move(misnamed)));

    PassRegistration failing;
    failing.name = "reg.Failing";
    failing.options = {{"ok", OptionType::Bool, OptionValue(true), ""}};
    failing.factory = [](const PassOptions &options) -> Expected<Ref<Pass>> {
      if (!options.getBool("ok"))
        return makeError("reg.Failing cannot be built with ok=false");
      return makeIdentityPass("reg.Failing");
    };
    ASSERT_FALSE(registry.registerPass(std::move(failing)));
  });
}

class PassRegistryTest : public ::testing::Test {
protected:
  void SetUp() override { registerTestPasses(); }
  PassRegistry &registry = PassRegistry::instance();
};

//===----------------------------------------------------------------------===//
// Registration and lookup
//===----------------------------------------------------------------------===//

TEST_F(PassRegistryTest, LookupFindsRegistration) {
  const PassRegistration *reg = registry.lookup("reg.Opts");
  ASSERT_NE(reg, nullptr);
  EXPECT_EQ(reg->name, "reg.Opts");
  EXPECT_EQ(reg->description, "a pass with one option of each type");
  EXPECT_EQ(reg->origin, "nnir");
  ASSERT_EQ(reg->options.size(), 5u);
  EXPECT_EQ(reg->options[1].name, "count");
  EXPECT_EQ(registry.lookup("reg.Nope"), nullptr);
}

TEST_F(PassRegistryTest, RegistrationsKeepTheirOrder) {
  std::vector<std::string> names;
  for (const PassRegistration *reg : registry.getRegistrations())
    if (StringRef(reg->name).starts_with("reg."))
      names.push_back(reg->name);
  std::vector<std::string> expected = {"reg.FoldConstant",
                                       "reg.InferType",
                                       "reg.A",
                                       "reg.B",
                                       "reg.C",
                                       "reg.name_with-odd.chars2",
                                       "reg.Opts",
                                       "reg.Misnamed",
                                       "reg.Failing"};
  EXPECT_EQ(names, expected);
}

TEST_F(PassRegistryTest, DuplicateNameIsAnErrorNamingBothOrigins) {
  PassRegistration again;
  again.name = "reg.A";
  again.origin = "myplugin";
  again.factory = [](const PassOptions &) -> Expected<Ref<Pass>> {
    return makeIdentityPass("reg.A");
  };
  EXPECT_EQ(message(registry.registerPass(std::move(again))),
            "pass 'reg.A' (from 'myplugin') is already registered by 'nnir'");
  // The first registration stays.
  EXPECT_EQ(registry.lookup("reg.A")->origin, "nnir");
}

TEST_F(PassRegistryTest, DefaultOriginNamesWhoRegistered) {
  // What PassPlugin::registerPasses does around a plugin's callback: a
  // registration that names no origin gets the default one, in its entry and
  // in the error about a name already taken.
  std::string previous = registry.setDefaultOrigin("otherplugin");
  EXPECT_EQ(previous, "nnir");
  EXPECT_EQ(message(registry.registerPass(
                "reg.B", "", [] { return makeIdentityPass("reg.B"); })),
            "pass 'reg.B' (from 'otherplugin') is already registered by "
            "'nnir'");
  EXPECT_FALSE(bool(registry.registerPass("origin.FromOther", "", [] {
    return makeIdentityPass("origin.FromOther");
  })));
  EXPECT_EQ(registry.setDefaultOrigin(previous), "otherplugin");
  ASSERT_NE(registry.lookup("origin.FromOther"), nullptr);
  EXPECT_EQ(registry.lookup("origin.FromOther")->origin, "otherplugin");
  EXPECT_EQ(message(registry.registerPass(
                "origin.FromOther", "",
                [] { return makeIdentityPass("origin.FromOther"); })),
            "pass 'origin.FromOther' (from 'nnir') is already registered by "
            "'otherplugin'");
}

TEST_F(PassRegistryTest, InvalidRegistrationsAreErrors) {
  auto factory = [] { return makeIdentityPass("x"); };
  EXPECT_EQ(message(registry.registerPass("", "", factory)),
            "cannot register a pass with an empty name (from 'nnir')");
  EXPECT_EQ(message(registry.registerPass("reg.bad name", "", factory)),
            "cannot register pass 'reg.bad name' (from 'nnir'): a pass name "
            "may contain only letters, digits, '_', '.' and '-'");
  EXPECT_EQ(message(registry.registerPass("Sequential", "", factory)),
            "cannot register pass 'Sequential' (from 'nnir'): the name is "
            "reserved for nested pipelines");
  EXPECT_EQ(message(registry.registerPass("reg.NoFactory", "", nullptr)),
            "cannot register pass 'reg.NoFactory' (from 'nnir') without a "
            "factory");

  PassRegistration badDefault;
  badDefault.name = "reg.BadDefault";
  badDefault.factory = [](const PassOptions &) -> Expected<Ref<Pass>> {
    return makeIdentityPass("reg.BadDefault");
  };
  badDefault.options = {{"n", OptionType::Int, OptionValue("three"), ""}};
  EXPECT_EQ(message(registry.registerPass(badDefault)),
            "option 'n' of pass 'reg.BadDefault' is declared as int but its "
            "default is a string");
  badDefault.options = {{"n", OptionType::Int, OptionValue(1), ""},
                        {"n", OptionType::Int, OptionValue(2), ""}};
  EXPECT_EQ(message(registry.registerPass(badDefault)),
            "pass 'reg.BadDefault' declares option 'n' more than once");
  badDefault.options = {{"a b", OptionType::Int, OptionValue(1), ""}};
  EXPECT_EQ(message(registry.registerPass(badDefault)),
            "pass 'reg.BadDefault' declares an option with an invalid name "
            "'a b'");
  EXPECT_EQ(registry.lookup("reg.BadDefault"), nullptr);
  EXPECT_EQ(registry.lookup("reg.NoFactory"), nullptr);
}

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

TEST_F(PassRegistryTest, CreateMakesTheNamedPass) {
  Expected<Ref<Pass>> pass = registry.create("reg.B");
  ASSERT_TRUE(bool(pass)) << toString(pass.takeError());
  EXPECT_EQ((*pass)->getName(), "reg.B");
  EXPECT_EQ((*pass)->getKind(), Pass::Kind::Module);
}

TEST_F(PassRegistryTest, UnknownPassSuggestsTheClosestName) {
  EXPECT_EQ(message(registry.create("reg.FoldConstan").takeError()),
            "unknown pass 'reg.FoldConstan'; did you mean 'reg.FoldConstant'?");
  // Case mistakes are close too.
  EXPECT_EQ(message(registry.create("reg.infertype").takeError()),
            "unknown pass 'reg.infertype'; did you mean 'reg.InferType'?");
  // Ties are all listed.
  EXPECT_EQ(message(registry.create("reg.D").takeError()),
            "unknown pass 'reg.D'; did you mean 'reg.A', 'reg.B' or 'reg.C'?");
  EXPECT_EQ(message(registry.create("CompletelyDifferentName").takeError()),
            "unknown pass 'CompletelyDifferentName'");
}

TEST_F(PassRegistryTest, SuggestOrdersByDistance) {
  std::vector<std::string> names = registry.suggest("reg.FoldConstan", 3);
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "reg.FoldConstant");
  std::vector<std::string> one = registry.suggest("reg.X", 1);
  EXPECT_EQ(one.size(), 1u);
  EXPECT_TRUE(registry.suggest("CompletelyDifferentName").empty());
}

TEST_F(PassRegistryTest, EveryOptionGetsItsDefault) {
  ASSERT_TRUE(bool(registry.create("reg.Opts")));
  EXPECT_EQ(lastOptions.getBool("flag"), false);
  EXPECT_EQ(lastOptions.getInt("count"), 3);
  EXPECT_EQ(lastOptions.getFloat("ratio"), 1.0);
  EXPECT_EQ(lastOptions.getString("label"), "x");
  EXPECT_EQ(lastOptions.get("names").getList(),
            (std::vector<std::string>{"p", "q"}));
}

TEST_F(PassRegistryTest, WrittenOptionsAreTyped) {
  Expected<Ref<Pass>> pass =
      registry.create("reg.Opts", {{"flag", "true"},
                                   {"count", "-12"},
                                   {"ratio", "0.25"},
                                   {"label", "hello"},
                                   {"names", "[a,b,c]"}});
  ASSERT_TRUE(bool(pass)) << toString(pass.takeError());
  EXPECT_EQ(lastOptions.get("flag"), OptionValue(true));
  EXPECT_EQ(lastOptions.get("count"), OptionValue(-12));
  EXPECT_EQ(lastOptions.get("ratio"), OptionValue(0.25));
  EXPECT_EQ(lastOptions.get("label"), OptionValue("hello"));
  EXPECT_EQ(lastOptions.get("names").getList(),
            (std::vector<std::string>{"a", "b", "c"}));
}

TEST_F(PassRegistryTest, OptionErrors) {
  EXPECT_EQ(message(registry.create("reg.Opts", {{"x", "1"}}).takeError()),
            "unknown option 'x' of pass reg.Opts; valid options are: flag, "
            "count, ratio, label, names");
  EXPECT_EQ(message(registry.create("reg.A", {{"x", "1"}}).takeError()),
            "unknown option 'x' of pass reg.A; reg.A takes no options");
  EXPECT_EQ(
      message(registry.create("reg.Opts", {{"count", "abc"}}).takeError()),
      "option 'count' of pass reg.Opts: expected an int, got 'abc'");
  EXPECT_EQ(
      message(registry.create("reg.Opts", {{"flag", "maybe"}}).takeError()),
      "option 'flag' of pass reg.Opts: expected a bool, got 'maybe'");
  EXPECT_EQ(
      message(registry.create("reg.Opts", {{"count", "1"}, {"count", "2"}})
                  .takeError()),
      "option 'count' of pass reg.Opts is given more than once");
}

TEST_F(PassRegistryTest, FactoryResultIsChecked) {
  EXPECT_EQ(message(registry.create("reg.Misnamed").takeError()),
            "the factory of pass 'reg.Misnamed' created a pass named "
            "'reg.SomethingElse'");
  EXPECT_EQ(
      message(registry.create("reg.Failing", {{"ok", "false"}}).takeError()),
      "reg.Failing cannot be built with ok=false");
  EXPECT_TRUE(bool(registry.create("reg.Failing")));
}

TEST(PassOptionsTest, MissingOptionHasAValue) {
  PassOptions options;
  options.set("n", OptionValue(4));
  EXPECT_EQ(options.getInt("n"), 4);
  EXPECT_EQ(options.get("undeclared"), OptionValue());
}

//===----------------------------------------------------------------------===//
// Pipeline text
//===----------------------------------------------------------------------===//

class PassPipelineTest : public PassRegistryTest {
protected:
  Expected<Ref<Pass>> parse(StringRef text) {
    return parsePassPipeline(text, sourceMgr);
  }

  /// The error of parsing \p text, rendered as nnir-opt renders it.
  std::string parseError(StringRef text) {
    Expected<Ref<Pass>> pass = parse(text);
    if (pass)
      return "<no error>";
    std::string out;
    raw_string_ostream os(out);
    printErrors(pass.takeError(), sourceMgr, "nnir-opt", os);
    return out;
  }

  /// The first line of parseError(text).
  std::string firstLine(StringRef text) {
    return StringRef(parseError(text)).split('\n').first.str();
  }

  /// The names of \p pass's children (it must be a Sequential).
  static std::vector<std::string> childNames(const Ref<Pass> &pass) {
    std::vector<std::string> names;
    for (const Ref<Pass> &child : cast<Sequential>(pass.get())->getPasses())
      names.push_back(child->getName().str());
    return names;
  }

  SourceMgr sourceMgr;
};

TEST_F(PassPipelineTest, RequiredNamesOfCreatedPassesAreResolved) {
  // A registered pass whose PassInfo requires a pass nobody registered: the
  // pipeline naming it is refused when parsed, at the pass's name, not when
  // a Sequential would run it.
  if (!registry.lookup("origin.RequiresMissing")) {
    ASSERT_FALSE(bool(registry.registerPass("origin.RequiresMissing", "", [] {
      return createModulePass(
          [](Ref<IRModule> module, PassContext &) -> Expected<Ref<IRModule>> {
            return module;
          },
          PassInfo("origin.RequiresMissing", /*optLevel=*/3,
                   {"reg.A", "reg.Nope"}));
    })));
  }
  EXPECT_EQ(firstLine("reg.A, origin.RequiresMissing"),
            "<pass pipeline>:1:8: error: pass 'origin.RequiresMissing' "
            "requires unknown pass 'reg.Nope'");
  // A Sequential's list is checked at the name in the list, at any depth.
  EXPECT_EQ(firstLine("Sequential(Sequential{name=s,required=[reg.A, "
                      "reg.Aa]}(reg.B))"),
            "<pass pipeline>:1:47: error: Sequential 's' requires unknown "
            "pass 'reg.Aa'; did you mean 'reg.A'?");
}

TEST_F(PassPipelineTest, SinglePassStaysItself) {
  Expected<Ref<Pass>> pass = parse("reg.A");
  ASSERT_TRUE(bool(pass)) << toString(pass.takeError());
  EXPECT_EQ((*pass)->getKind(), Pass::Kind::Module);
  EXPECT_EQ((*pass)->getName(), "reg.A");
}

TEST_F(PassPipelineTest, SeveralPassesBecomeASequential) {
  Expected<Ref<Pass>> pass = parse("  reg.A ,reg.B,\treg.C  ");
  ASSERT_TRUE(bool(pass)) << toString(pass.takeError());
  ASSERT_TRUE(isa<Sequential>(pass->get()));
  EXPECT_EQ((*pass)->getName(), "sequential");
  EXPECT_EQ((*pass)->getInfo().optLevel, 0);
  EXPECT_EQ(childNames(*pass),
            (std::vector<std::string>{"reg.A", "reg.B", "reg.C"}));
}

TEST_F(PassPipelineTest, NamesMayHaveDotsDashesUnderscoresAndDigits) {
  Expected<Ref<Pass>> pass = parse("reg.name_with-odd.chars2");
  ASSERT_TRUE(bool(pass)) << toString(pass.takeError());
  EXPECT_EQ((*pass)->getName(), "reg.name_with-odd.chars2");
}

TEST_F(PassPipelineTest, NestedSequentialWithOptions) {
  Expected<Ref<Pass>> pass =
      parse("reg.A, Sequential { name = inner, opt_level=3, "
            "required=[reg.B, reg.C] } ( reg.B, Sequential(reg.C) ), "
            "Sequential()");
  ASSERT_TRUE(bool(pass)) << toString(pass.takeError());
  ASSERT_TRUE(isa<Sequential>(pass->get()));
  EXPECT_EQ(childNames(*pass),
            (std::vector<std::string>{"reg.A", "inner", "sequential"}));

  const Ref<Pass> &inner = cast<Sequential>(pass->get())->getPasses()[1];
  ASSERT_TRUE(isa<Sequential>(inner.get()));
  EXPECT_EQ(inner->getInfo().optLevel, 3);
  EXPECT_EQ(inner->getInfo().required,
            (std::vector<std::string>{"reg.B", "reg.C"}));
  EXPECT_EQ(childNames(inner),
            (std::vector<std::string>{"reg.B", "sequential"}));
  const Ref<Pass> &innermost = cast<Sequential>(inner.get())->getPasses()[1];
  EXPECT_EQ(childNames(innermost), (std::vector<std::string>{"reg.C"}));
  EXPECT_TRUE(innermost->getInfo().required.empty());
  EXPECT_EQ(innermost->getInfo().optLevel, 0);

  const Ref<Pass> &empty = cast<Sequential>(pass->get())->getPasses()[2];
  EXPECT_TRUE(cast<Sequential>(empty.get())->getPasses().empty());
}

TEST_F(PassPipelineTest, SingleSequentialStaysItself) {
  Expected<Ref<Pass>> pass = parse("Sequential{name=only}(reg.A,reg.B)");
  ASSERT_TRUE(bool(pass)) << toString(pass.takeError());
  EXPECT_EQ((*pass)->getName(), "only");
  EXPECT_EQ(childNames(*pass), (std::vector<std::string>{"reg.A", "reg.B"}));
}

TEST_F(PassPipelineTest, PassOptionsInText) {
  Expected<Ref<Pass>> pass =
      parse("reg.Opts{ count = 7 , names=[a, b], label= hello world ,"
            "flag=1,ratio=2.5}");
  ASSERT_TRUE(bool(pass)) << toString(pass.takeError());
  EXPECT_EQ(lastOptions.getInt("count"), 7);
  EXPECT_EQ(lastOptions.get("names").getList(),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(lastOptions.getString("label"), "hello world");
  EXPECT_EQ(lastOptions.getBool("flag"), true);
  EXPECT_EQ(lastOptions.getFloat("ratio"), 2.5);

  // Empty braces keep every default.
  ASSERT_TRUE(bool(parse("reg.Opts{}")));
  EXPECT_EQ(lastOptions.getInt("count"), 3);
  EXPECT_EQ(lastOptions.get("names").getList(),
            (std::vector<std::string>{"p", "q"}));
}

TEST_F(PassPipelineTest, UnknownPassIsLocatedWithASuggestion) {
  EXPECT_EQ(parseError("reg.A,    reg.FoldConstan"),
            "<pass pipeline>:1:11: error: unknown pass 'reg.FoldConstan'; did "
            "you mean 'reg.FoldConstant'?\n"
            "reg.A,    reg.FoldConstan\n"
            "          ^\n");
  EXPECT_EQ(firstLine("Sequentail(reg.A)"),
            "<pass pipeline>:1:1: error: unknown pass 'Sequentail'; did you "
            "mean 'Sequential'?");
}

TEST_F(PassPipelineTest, StructureErrors) {
  EXPECT_EQ(parseError("reg.A,,reg.B"),
            "<pass pipeline>:1:7: error: empty pass name\n"
            "reg.A,,reg.B\n"
            "      ^\n");
  EXPECT_EQ(firstLine("reg.A,"), "<pass pipeline>:1:7: error: empty pass name");
  EXPECT_EQ(firstLine(",reg.A"), "<pass pipeline>:1:1: error: empty pass name");
  EXPECT_EQ(firstLine("Sequential(reg.A,)"),
            "<pass pipeline>:1:18: error: empty pass name");
  EXPECT_EQ(firstLine("   "),
            "<pass pipeline>:1:4: error: empty pass pipeline");
  EXPECT_EQ(parseError("Sequential(reg.A"),
            "<pass pipeline>:1:17: error: expected ')'\n"
            "Sequential(reg.A\n"
            "                ^\n");
  EXPECT_EQ(firstLine("Sequential(reg.A reg.B)"),
            "<pass pipeline>:1:18: error: expected ')'");
  EXPECT_EQ(firstLine("Sequential"),
            "<pass pipeline>:1:11: error: expected '(' after Sequential");
  EXPECT_EQ(firstLine("Sequential{name=x} reg.A"),
            "<pass pipeline>:1:20: error: expected '(' after Sequential");
  EXPECT_EQ(firstLine("reg.A)"), "<pass pipeline>:1:6: error: unbalanced ')'");
  EXPECT_EQ(firstLine("reg.A reg.B"),
            "<pass pipeline>:1:7: error: expected ',' or end of pipeline");
  EXPECT_EQ(firstLine("reg.A;reg.B"),
            "<pass pipeline>:1:6: error: expected ',' or end of pipeline");
  EXPECT_EQ(firstLine(";reg.A"),
            "<pass pipeline>:1:1: error: unexpected ';' in pass pipeline");
  EXPECT_EQ(firstLine("reg.A(reg.B)"),
            "<pass pipeline>:1:6: error: pass 'reg.A' takes no nested "
            "pipeline; only Sequential does");
}

TEST_F(PassPipelineTest, OptionSyntaxErrors) {
  EXPECT_EQ(parseError("Sequential{name=x(reg.A)"),
            "<pass pipeline>:1:11: error: unbalanced '{'\n"
            "Sequential{name=x(reg.A)\n"
            "          ^\n");
  EXPECT_EQ(firstLine("reg.Opts{count=1,"),
            "<pass pipeline>:1:9: error: unbalanced '{'");
  EXPECT_EQ(firstLine("reg.Opts{count"),
            "<pass pipeline>:1:9: error: unbalanced '{'");
  EXPECT_EQ(firstLine("reg.Opts{names=[a,b}"),
            "<pass pipeline>:1:16: error: unbalanced '['");
  EXPECT_EQ(firstLine("reg.Opts{=1}"),
            "<pass pipeline>:1:10: error: expected an option name");
  EXPECT_EQ(firstLine("reg.Opts{count 1}"),
            "<pass pipeline>:1:16: error: expected '=' after option 'count'");
}

TEST_F(PassPipelineTest, OptionValueErrors) {
  EXPECT_EQ(parseError("reg.Opts{count=1, bogus=2}"),
            "<pass pipeline>:1:19: error: unknown option 'bogus' of pass "
            "reg.Opts; valid options are: flag, count, ratio, label, names\n"
            "reg.Opts{count=1, bogus=2}\n"
            "                  ^\n");
  EXPECT_EQ(firstLine("reg.A{x=1}"),
            "<pass pipeline>:1:7: error: unknown option 'x' of pass reg.A; "
            "reg.A takes no options");
  EXPECT_EQ(parseError("reg.Opts{count= abc}"),
            "<pass pipeline>:1:17: error: option 'count' of pass reg.Opts: "
            "expected an int, got 'abc'\n"
            "reg.Opts{count= abc}\n"
            "                ^\n");
  EXPECT_EQ(firstLine("reg.Opts{count=1,count=2}"),
            "<pass pipeline>:1:18: error: option 'count' of pass reg.Opts is "
            "given more than once");
  // A ranged int says its range, for a word as for a number beyond it.
  EXPECT_EQ(firstLine("Sequential{opt_level=high}(reg.A)"),
            "<pass pipeline>:1:22: error: option 'opt_level' of pass "
            "Sequential: expected an integer from 0 to 3, got 'high'");
  EXPECT_EQ(firstLine("Sequential{opt_level=4}(reg.A)"),
            "<pass pipeline>:1:22: error: option 'opt_level' of pass "
            "Sequential: expected an integer from 0 to 3, got '4'");
  EXPECT_EQ(firstLine("Sequential{level=1}(reg.A)"),
            "<pass pipeline>:1:12: error: unknown option 'level' of pass "
            "Sequential; valid options are: name, opt_level, required");
}

TEST_F(PassPipelineTest, FactoryErrorsAreLocatedAtThePass) {
  EXPECT_EQ(firstLine("reg.A, reg.Failing{ok=false}"),
            "<pass pipeline>:1:8: error: reg.Failing cannot be built with "
            "ok=false");
  EXPECT_EQ(firstLine("reg.Misnamed"),
            "<pass pipeline>:1:1: error: the factory of pass 'reg.Misnamed' "
            "created a pass named 'reg.SomethingElse'");
}

TEST_F(PassPipelineTest, DeepNestingIsAnErrorNotACrash) {
  std::string text;
  for (int i = 0; i < 1000; ++i)
    text += "Sequential(";
  text += "reg.A";
  text += std::string(1000, ')');
  std::string error = firstLine(text);
  EXPECT_NE(error.find("error: pass pipeline nested too deeply"),
            std::string::npos)
      << error;

  std::string ok;
  for (int i = 0; i < 100; ++i)
    ok += "Sequential(";
  ok += "reg.A" + std::string(100, ')');
  EXPECT_TRUE(bool(parse(ok)));
}

TEST_F(PassPipelineTest, EachParseAddsANamedBuffer) {
  ASSERT_TRUE(bool(parsePassPipeline("reg.A", sourceMgr, "--passes")));
  Expected<Ref<Pass>> bad = parsePassPipeline("reg.Q", sourceMgr, "--passes");
  ASSERT_FALSE(bool(bad));
  std::string out;
  raw_string_ostream os(out);
  printErrors(bad.takeError(), sourceMgr, "nnir-opt", os);
  EXPECT_EQ(StringRef(out).split('\n').first,
            "--passes:1:1: error: unknown pass 'reg.Q'; did you mean 'reg.A', "
            "'reg.B' or 'reg.C'?");
  EXPECT_EQ(sourceMgr.getNumBuffers(), 2u);
}

} // namespace
