//===- InstrumentsTest.cpp - Built-in pass instruments --------------------===//
//
/// \file
/// Tests the built-in instruments: the timing tree (nesting, TVM's and
/// MLIR's layouts, rendering inside a pass), IR printing before and after
/// selected passes, print-changed (only changing passes, diffs) and its line
/// diff, and verify-each (naming the pass that broke the module).
//
//===----------------------------------------------------------------------===//

#include "nnir/Pass/Instruments.h"

#include "nnir/IR/Expr.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Printer.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Parser/Parser.h"
#include "nnir/Pass/Pass.h"
#include "nnir/Pass/PassContext.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <chrono>
#include <random>
#include <regex>
#include <thread>

using namespace llvm;
using namespace nnir;

namespace {

constexpr StringLiteral kModuleText = R"(#[version = "0.0.5"]
def @helper(%a: Tensor[(2), float32]) {
  negative(%a)
}

def @main(%x: Tensor[(2), float32]) {
  %0 = add(%x, %x);
  %1 = multiply(%0, %0);
  @helper(%1)
}
)";

/// The same module with `multiply` replaced by `subtract`.
constexpr StringLiteral kChangedText = R"(#[version = "0.0.5"]
def @helper(%a: Tensor[(2), float32]) {
  negative(%a)
}

def @main(%x: Tensor[(2), float32]) {
  %0 = add(%x, %x);
  %1 = subtract(%0, %0);
  @helper(%1)
}
)";

class InstrumentsTest : public ::testing::Test {
protected:
  void SetUp() override {
    registerAllOps();
    module = parse(kModuleText);
    ASSERT_TRUE(module);
  }

  Ref<IRModule> parse(StringRef text) {
    Expected<Ref<IRModule>> parsed = parseModule(text, sourceMgr);
    if (!parsed) {
      ADD_FAILURE() << toString(parsed.takeError());
      return nullptr;
    }
    return *parsed;
  }

  /// Runs \p pass on the module under a new context with \p instruments.
  Expected<Ref<IRModule>>
  runWith(const Ref<Pass> &pass,
          std::vector<std::shared_ptr<PassInstrument>> instruments) {
    Ref<PassContext> ctx = PassContext::create();
    ctx->setInstruments(std::move(instruments));
    Expected<PassContextScope> scope = PassContext::enter(ctx);
    if (!scope)
      return scope.takeError();
    Expected<Ref<IRModule>> result = pass->run(module, *ctx);
    if (Error err = scope->exit()) {
      consumeError(result.takeError());
      return err;
    }
    return result;
  }

  /// The error of \p result rendered as nnir-opt renders it.
  std::string render(Error err) {
    std::string out;
    raw_string_ostream os(out);
    printErrors(std::move(err), sourceMgr, "nnir-opt", os);
    return out;
  }

  SourceMgr sourceMgr;
  Ref<IRModule> module;
};

/// A module pass named \p name that returns its input.
Ref<Pass> identityPass(StringRef name) {
  return createModulePass(
      [](Ref<IRModule> m, PassContext &) -> Expected<Ref<IRModule>> {
        return m;
      },
      PassInfo(name, 0));
}

/// A module pass named \p name that returns \p result.
Ref<Pass> replacingPass(StringRef name, Ref<IRModule> result) {
  return createModulePass(
      [result](Ref<IRModule>, PassContext &) -> Expected<Ref<IRModule>> {
        return result;
      },
      PassInfo(name, 0));
}

/// A module pass named \p name that sleeps \p micros, then runs \p inner (if
/// any) on its input.
Ref<Pass> sleepingPass(StringRef name, int micros, Ref<Pass> inner = nullptr) {
  return createModulePass(
      [micros, inner](Ref<IRModule> m,
                      PassContext &ctx) -> Expected<Ref<IRModule>> {
        std::this_thread::sleep_for(std::chrono::microseconds(micros));
        if (inner)
          return inner->run(m, ctx);
        return m;
      },
      PassInfo(name, 0));
}

/// The lines of \p text.
std::vector<std::string> lines(StringRef text) {
  SmallVector<StringRef, 16> parts;
  text.split(parts, '\n', -1, /*KeepEmpty=*/false);
  return std::vector<std::string>(parts.begin(), parts.end());
}

//===----------------------------------------------------------------------===//
// PassTimingInstrument
//===----------------------------------------------------------------------===//

/// One line of TVM's render(): tabs, name, total, self, two percentages.
const std::regex kTvmLine(
    R"(^(\t*)([A-Za-z.]+): ([0-9]+)us \[([0-9]+)us\] \(([0-9]+\.[0-9]{2})%; ([0-9]+\.[0-9]{2})%\)$)");

struct TvmLine {
  size_t depth;
  std::string name;
  long total, self;
  double totalPct, parentPct;
};

std::vector<TvmLine> parseTvmRender(StringRef text) {
  std::vector<TvmLine> result;
  for (const std::string &line : lines(text)) {
    std::smatch m;
    EXPECT_TRUE(std::regex_match(line, m, kTvmLine)) << "bad line: " << line;
    if (m.empty())
      continue;
    result.push_back({size_t(m[1].length()), m[2].str(), std::stol(m[3].str()),
                      std::stol(m[4].str()), std::stod(m[5].str()),
                      std::stod(m[6].str())});
  }
  return result;
}

TEST_F(InstrumentsTest, TimingNestsPassesRunInsideOthers) {
  auto timing = PassTimingInstrument::create();
  EXPECT_EQ(timing->getName(), "PassTimingInstrument");
  Ref<Pass> inner = sleepingPass("Inner", 3000);
  Ref<Pass> pipeline = createSequential(
      {sleepingPass("Outer", 1000, inner), sleepingPass("Leaf", 2000)});

  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({timing});
  Expected<PassContextScope> scope = PassContext::enter(ctx);
  ASSERT_TRUE(bool(scope));
  ASSERT_TRUE(bool(pipeline->run(module, *ctx)));

  Expected<std::string> text = timing->render();
  ASSERT_TRUE(bool(text)) << toString(text.takeError());
  std::vector<TvmLine> parsed = parseTvmRender(*text);
  ASSERT_EQ(parsed.size(), 4u) << *text;
  EXPECT_EQ(parsed[0].name, "sequential");
  EXPECT_EQ(parsed[0].depth, 0u);
  EXPECT_EQ(parsed[1].name, "Outer");
  EXPECT_EQ(parsed[1].depth, 1u);
  EXPECT_EQ(parsed[2].name, "Inner");
  EXPECT_EQ(parsed[2].depth, 2u);
  EXPECT_EQ(parsed[3].name, "Leaf");
  EXPECT_EQ(parsed[3].depth, 1u);

  // The only top-level pass is all of the time, and its own parent.
  EXPECT_EQ(parsed[0].totalPct, 100.0);
  EXPECT_EQ(parsed[0].parentPct, 100.0);
  // Durations include the sleeps and nest.
  EXPECT_GE(parsed[2].total, 3000);
  EXPECT_GE(parsed[1].total, parsed[2].total + 1000 - 1);
  EXPECT_GE(parsed[3].total, 2000);
  EXPECT_GE(parsed[0].total, parsed[1].total + parsed[3].total - 1);
  // Self time excludes the children (up to rounding to whole us).
  EXPECT_LE(std::abs(parsed[1].self - (parsed[1].total - parsed[2].total)), 1);
  EXPECT_GE(parsed[1].self, 1000 - 1);
  EXPECT_EQ(parsed[2].self, parsed[2].total);
  // Percentages: Inner is part of Outer, which is part of the whole.
  EXPECT_GT(parsed[2].parentPct, parsed[2].totalPct);
  EXPECT_NEAR(parsed[2].parentPct,
              100.0 * parsed[2].total / std::max(parsed[1].total, 1L), 1.0);
  // Each child's share of the whole is its time over the root's; the rest
  // of the root's time is the Sequential's own overhead, which a loaded
  // machine (or a sanitizer) makes arbitrarily large, so it is not assumed
  // small.
  for (size_t i : {1, 2, 3})
    EXPECT_NEAR(parsed[i].totalPct,
                100.0 * parsed[i].total / std::max(parsed[0].total, 1L), 0.5)
        << *text;
  EXPECT_LE(parsed[1].totalPct + parsed[3].totalPct, 100.0 + 0.5);

  // Leaving the context clears the profile (TVM).
  ASSERT_FALSE(scope->exit());
  Expected<std::string> after = timing->render();
  ASSERT_TRUE(bool(after));
  EXPECT_EQ(*after, "");
}

TEST_F(InstrumentsTest, TimingRendersTheMlirTree) {
  auto timing = PassTimingInstrument::create();
  Ref<Pass> pipeline =
      createSequential({sleepingPass("Outer", 500, sleepingPass("Inner", 500)),
                        identityPass("Leaf")});
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({timing});
  Expected<PassContextScope> scope = PassContext::enter(ctx);
  ASSERT_TRUE(bool(scope));
  ASSERT_TRUE(bool(pipeline->run(module, *ctx)));
  Expected<std::string> text = timing->renderTree();
  ASSERT_TRUE(bool(text)) << toString(text.takeError());
  std::vector<std::string> got = lines(*text);
  ASSERT_EQ(got.size(), 10u) << *text;
  std::string rule = "===" + std::string(73, '-') + "===";
  EXPECT_EQ(got[0], rule);
  EXPECT_EQ(got[1], std::string(25, ' ') + "... Execution time report ...");
  EXPECT_EQ(got[2], rule);
  EXPECT_TRUE(std::regex_match(
      got[3],
      std::regex(R"(  Total Execution Time: [0-9]+\.[0-9]{4} seconds)")))
      << got[3];
  EXPECT_EQ(got[4], "  ----Wall Time----  ----Self Time----  ----Name----");
  std::string time = R"(  +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\))";
  auto row = [&](StringRef indent, StringRef name) {
    return std::regex(time + time + "  " + indent.str() + name.str());
  };
  EXPECT_TRUE(std::regex_match(got[5], row("", "sequential"))) << got[5];
  EXPECT_TRUE(std::regex_match(got[6], row("  ", "Outer"))) << got[6];
  EXPECT_TRUE(std::regex_match(got[7], row("    ", "Inner"))) << got[7];
  EXPECT_TRUE(std::regex_match(got[8], row("  ", "Leaf"))) << got[8];
  EXPECT_TRUE(std::regex_match(
      got[9], std::regex(time + std::string(19, ' ') + "  Total")))
      << got[9];
  // Columns line up: every time column is 19 characters wide.
  EXPECT_EQ(got[5].find("sequential"), 2 * 19 + 2);
  EXPECT_EQ(got[9].find("Total"), 2 * 19 + 2);
  EXPECT_NE(got[5].find("(100.0%)"), std::string::npos) << got[5];
  ASSERT_FALSE(scope->exit());
}

TEST_F(InstrumentsTest, TimingWritesItsReportWhenTheContextIsLeft) {
  std::string out;
  raw_string_ostream os(out);
  auto tree =
      PassTimingInstrument::create(os, PassTimingInstrument::Display::Tree);
  ASSERT_TRUE(bool(runWith(identityPass("Reported"), {tree})));
  std::vector<std::string> got = lines(out);
  ASSERT_EQ(got.size(), 7u) << out;
  EXPECT_EQ(got[1], std::string(25, ' ') + "... Execution time report ...");
  EXPECT_TRUE(StringRef(got[5]).ends_with("  Reported")) << got[5];
  // The profile was cleared: a context with no pass writes nothing.
  out.clear();
  Ref<PassContext> empty = PassContext::create();
  empty->setInstruments({tree});
  Expected<PassContextScope> scope = PassContext::enter(empty);
  ASSERT_TRUE(bool(scope));
  ASSERT_FALSE(scope->exit());
  EXPECT_EQ(out, "");

  std::string tvmOut;
  raw_string_ostream tvmOs(tvmOut);
  auto tvm =
      PassTimingInstrument::create(tvmOs, PassTimingInstrument::Display::TVM);
  ASSERT_TRUE(bool(runWith(identityPass("Reported"), {tvm})));
  std::vector<TvmLine> parsed = parseTvmRender(tvmOut);
  ASSERT_EQ(parsed.size(), 1u) << tvmOut;
  EXPECT_EQ(parsed[0].name, "Reported");
}

TEST_F(InstrumentsTest, TimingWithNothingProfiledIsEmpty) {
  auto timing = PassTimingInstrument::create();
  Expected<std::string> text = timing->render();
  ASSERT_TRUE(bool(text));
  EXPECT_EQ(*text, "");
  Expected<std::string> tree = timing->renderTree();
  ASSERT_TRUE(bool(tree));
  EXPECT_EQ(*tree, "");
}

TEST_F(InstrumentsTest, TimingRenderInsideAPassIsAnError) {
  auto timing = PassTimingInstrument::create();
  std::string renderError, treeError;
  Ref<Pass> pass = createModulePass(
      [&](Ref<IRModule> m, PassContext &) -> Expected<Ref<IRModule>> {
        Expected<std::string> text = timing->render();
        renderError = text ? "<no error>" : toString(text.takeError());
        Expected<std::string> tree = timing->renderTree();
        treeError = tree ? "<no error>" : toString(tree.takeError());
        return m;
      },
      PassInfo("Renders", 0));
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({timing});
  Expected<PassContextScope> scope = PassContext::enter(ctx);
  ASSERT_TRUE(bool(scope));
  ASSERT_TRUE(bool(pass->run(module, *ctx)));
  EXPECT_EQ(renderError, "cannot print pass profile while still in a pass");
  EXPECT_EQ(treeError, "cannot print pass profile while still in a pass");
  // After the pass, it renders.
  Expected<std::string> text = timing->render();
  ASSERT_TRUE(bool(text));
  EXPECT_EQ(lines(*text).size(), 1u);
  ASSERT_FALSE(scope->exit());
}

TEST_F(InstrumentsTest, TimingSurvivesANestedFailureTheParentHandled) {
  auto timing = PassTimingInstrument::create();
  Ref<Pass> failing = createModulePass(
      [](Ref<IRModule>, PassContext &) -> Expected<Ref<IRModule>> {
        return makeError("failed on purpose");
      },
      PassInfo("Failing", 0));
  Ref<Pass> outer = createModulePass(
      [failing](Ref<IRModule> m, PassContext &ctx) -> Expected<Ref<IRModule>> {
        consumeError(failing->run(m, ctx).takeError());
        return m;
      },
      PassInfo("Tolerant", 0));
  Ref<PassContext> ctx = PassContext::create();
  ctx->setInstruments({timing});
  Expected<PassContextScope> scope = PassContext::enter(ctx);
  ASSERT_TRUE(bool(scope));
  ASSERT_TRUE(bool(outer->run(module, *ctx)));
  Expected<std::string> text = timing->render();
  ASSERT_TRUE(bool(text)) << toString(text.takeError());
  std::vector<TvmLine> parsed = parseTvmRender(*text);
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[0].name, "Tolerant");
  EXPECT_EQ(parsed[1].name, "Failing");
  EXPECT_EQ(parsed[1].depth, 1u);
  ASSERT_FALSE(scope->exit());
}

TEST_F(InstrumentsTest, TimingMismatchedAfterIsAnError) {
  auto timing = PassTimingInstrument::create();
  PassInfo info("NeverStarted", 0);
  EXPECT_EQ(toString(timing->runAfterPass(*module, info)),
            "mismatched enter/exit for pass profiling: pass 'NeverStarted' "
            "ended but was not running");
}

TEST_F(InstrumentsTest, TimingProfilesArePerThread) {
  auto timing = PassTimingInstrument::create();
  std::thread worker([&] {
    Ref<PassContext> ctx = PassContext::create();
    ctx->setInstruments({timing});
    Expected<PassContextScope> scope = PassContext::enter(ctx);
    ASSERT_TRUE(bool(scope));
    ASSERT_TRUE(bool(identityPass("OnWorker")->run(module, *ctx)));
    Expected<std::string> text = timing->render();
    ASSERT_TRUE(bool(text));
    EXPECT_EQ(parseTvmRender(*text).size(), 1u);
    ASSERT_FALSE(scope->exit());
  });
  worker.join();
  Expected<std::string> text = timing->render();
  ASSERT_TRUE(bool(text));
  EXPECT_EQ(*text, "");
}

//===----------------------------------------------------------------------===//
// PrintIRInstrument
//===----------------------------------------------------------------------===//

TEST_F(InstrumentsTest, PrintIRBeforeAndAfterSelectedPasses) {
  std::string out;
  raw_string_ostream os(out);
  PrintIROptions options;
  options.before = {"B"};
  options.after = {"A", "Missing"};
  auto print = PrintIRInstrument::create(os, options);
  EXPECT_EQ(print->getName(), "PrintIRInstrument");
  Ref<IRModule> changed = parse(kChangedText);
  ASSERT_TRUE(
      bool(runWith(createSequential({replacingPass("A", changed),
                                     identityPass("B"), identityPass("C")}),
                   {print})));
  std::string expected =
      "// -----// IR Dump After A //----- //\n" + toString(*changed) + "\n" +
      "// -----// IR Dump Before B //----- //\n" + toString(*changed) + "\n";
  EXPECT_EQ(out, expected);
  EXPECT_NE(out.find("subtract"), std::string::npos);
}

TEST_F(InstrumentsTest, PrintIRAllPassesInRunOrder) {
  std::string out;
  raw_string_ostream os(out);
  PrintIROptions options;
  options.beforeAll = true;
  options.afterAll = true;
  auto print = PrintIRInstrument::create(os, options);
  ASSERT_TRUE(bool(runWith(
      createSequential({identityPass("A"), identityPass("B")}), {print})));
  std::vector<std::string> banners;
  for (const std::string &line : lines(out))
    if (StringRef(line).starts_with("// -----//"))
      banners.push_back(line);
  std::vector<std::string> expected = {
      "// -----// IR Dump Before sequential //----- //",
      "// -----// IR Dump Before A //----- //",
      "// -----// IR Dump After A //----- //",
      "// -----// IR Dump Before B //----- //",
      "// -----// IR Dump After B //----- //",
      "// -----// IR Dump After sequential //----- //",
  };
  EXPECT_EQ(banners, expected);
}

TEST_F(InstrumentsTest, PrintIRUsesThePrintOptions) {
  std::string out;
  raw_string_ostream os(out);
  PrintIROptions options;
  options.after = {"A"};
  options.printOptions.printVersion = false;
  auto print = PrintIRInstrument::create(os, options);
  ASSERT_TRUE(bool(runWith(identityPass("A"), {print})));
  EXPECT_EQ(out.find("#[version"), std::string::npos) << out;
  EXPECT_NE(out.find("def @main"), std::string::npos) << out;
}

//===----------------------------------------------------------------------===//
// PrintChangedInstrument
//===----------------------------------------------------------------------===//

TEST_F(InstrumentsTest, PrintChangedOnlyAfterChangingPasses) {
  std::string out;
  raw_string_ostream os(out);
  auto changed = PrintChangedInstrument::create(os);
  EXPECT_EQ(changed->getName(), "PrintChangedInstrument");
  Ref<IRModule> after = parse(kChangedText);
  // Same object, a copy with the same text, a real change, then the changed
  // module again.
  Ref<Pass> copy = createModulePass(
      [](Ref<IRModule> m, PassContext &) -> Expected<Ref<IRModule>> {
        return m->shallowCopy();
      },
      PassInfo("Copy", 0));
  ASSERT_TRUE(bool(runWith(
      createSequential({identityPass("Nop"), copy,
                        replacingPass("Change", after), identityPass("Nop2")}),
      {changed})));
  // The Sequential's change was shown by its child: nothing for it.
  EXPECT_EQ(out, "// -----// IR Dump After Change (changed) //----- //\n" +
                     toString(*after) + "\n");
}

TEST_F(InstrumentsTest, PrintChangedVerbose) {
  std::string out;
  raw_string_ostream os(out);
  PrintChangedOptions options;
  options.verbose = true;
  auto changed = PrintChangedInstrument::create(os, options);
  Ref<IRModule> after = parse(kChangedText);
  ASSERT_TRUE(bool(runWith(
      createSequential({identityPass("Nop"), replacingPass("Change", after)}),
      {changed})));
  std::vector<std::string> got = lines(out);
  ASSERT_GE(got.size(), 2u);
  EXPECT_EQ(got[0], "// IR unchanged after Nop");
  EXPECT_EQ(got[1], "// -----// IR Dump After Change (changed) //----- //");
  EXPECT_EQ(out.find("sequential"), std::string::npos) << out;
}

TEST_F(InstrumentsTest, PrintChangedDiff) {
  std::string out;
  raw_string_ostream os(out);
  PrintChangedOptions options;
  options.diff = true;
  auto changed = PrintChangedInstrument::create(os, options);
  Ref<IRModule> after = parse(kChangedText);
  ASSERT_TRUE(bool(runWith(replacingPass("Change", after), {changed})));
  std::string expected =
      "// -----// IR Dump After Change (changed) //----- //\n" +
      diffLines(toString(*module), toString(*after), "before Change",
                "after Change") +
      "\n";
  EXPECT_EQ(out, expected);
  EXPECT_NE(out.find("\n-  %1 = multiply(%0, %0);\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("\n+  %1 = subtract(%0, %0);\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("--- before Change\n+++ after Change\n@@ "),
            std::string::npos)
      << out;
}

TEST_F(InstrumentsTest, PrintChangedShowsAPassThatChangedAroundANestedOne) {
  // Like a function pass that changes the module and then runs InferType
  // inside: the nested pass changes nothing, the outer one must be shown.
  std::string out;
  raw_string_ostream os(out);
  auto changed = PrintChangedInstrument::create(os);
  Ref<IRModule> after = parse(kChangedText);
  Ref<Pass> nested = identityPass("NestedNop");
  Ref<Pass> outer = createModulePass(
      [after, nested](Ref<IRModule>, PassContext &ctx)
          -> Expected<Ref<IRModule>> { return nested->run(after, ctx); },
      PassInfo("Outer", 0));
  ASSERT_TRUE(bool(runWith(createSequential({outer}), {changed})));
  EXPECT_EQ(out, "// -----// IR Dump After Outer (changed) //----- //\n" +
                     toString(*after) + "\n");
}

//===----------------------------------------------------------------------===//
// diffLines
//===----------------------------------------------------------------------===//

TEST(LineDiffTest, EqualTextsHaveNoDiff) {
  EXPECT_EQ(diffLines("a\nb\n", "a\nb\n", "x", "y"), "");
  EXPECT_EQ(diffLines("", "", "x", "y"), "");
}

TEST(LineDiffTest, OneChangedLine) {
  EXPECT_EQ(diffLines("a\nb\nc\n", "a\nB\nc\n", "before X", "after X"),
            "--- before X\n+++ after X\n"
            "@@ -1,3 +1,3 @@\n"
            " a\n-b\n+B\n c\n");
}

TEST(LineDiffTest, EmptySides) {
  EXPECT_EQ(diffLines("", "x\ny\n", "a", "b"),
            "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n");
  EXPECT_EQ(diffLines("x\n", "", "a", "b"),
            "--- a\n+++ b\n@@ -1,1 +0,0 @@\n-x\n");
}

/// "l1\n" ... "l<n>\n".
std::string numberedLines(int n) {
  std::string text;
  for (int i = 1; i <= n; ++i)
    text += "l" + std::to_string(i) + "\n";
  return text;
}

TEST(LineDiffTest, FarApartChangesMakeTwoHunksWithThreeLinesOfContext) {
  std::string a = numberedLines(20);
  std::string b = a;
  b.replace(b.find("l2\n"), 3, "L2\n");
  b.replace(b.find("l18\n"), 4, "");
  EXPECT_EQ(diffLines(a, b, "a", "b"), "--- a\n+++ b\n"
                                       "@@ -1,5 +1,5 @@\n"
                                       " l1\n-l2\n+L2\n l3\n l4\n l5\n"
                                       "@@ -15,6 +15,5 @@\n"
                                       " l15\n l16\n l17\n-l18\n l19\n l20\n");
}

TEST(LineDiffTest, CloseChangesShareAHunk) {
  std::string a = numberedLines(12);
  std::string b = a;
  b.replace(b.find("l3\n"), 3, "L3\n");
  // Six unchanged lines (l4..l9) between the changes: one hunk.
  b.replace(b.find("l10\n"), 4, "L10\n");
  EXPECT_EQ(diffLines(a, b, "a", "b"),
            "--- a\n+++ b\n"
            "@@ -1,12 +1,12 @@\n"
            " l1\n l2\n-l3\n+L3\n l4\n l5\n l6\n l7\n l8\n l9\n-l10\n+L10\n"
            " l11\n l12\n");
  // An insertion shifts the new side's line numbers.
  std::string c = "l0\n" + numberedLines(12);
  c.replace(c.find("l11\n"), 4, "L11\n");
  EXPECT_EQ(diffLines(a, c, "a", "c"), "--- a\n+++ c\n"
                                       "@@ -1,3 +1,4 @@\n"
                                       "+l0\n l1\n l2\n l3\n"
                                       "@@ -8,5 +9,5 @@\n"
                                       " l8\n l9\n l10\n-l11\n+L11\n l12\n");
}

TEST(LineDiffTest, TextWithoutFinalNewline) {
  EXPECT_EQ(diffLines("a\nb", "a\nc", "x", "y"),
            "--- x\n+++ y\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n");
}

/// Length of a longest common subsequence (the reference for minimality).
size_t lcsLength(ArrayRef<std::string> a, ArrayRef<std::string> b) {
  std::vector<std::vector<size_t>> t(a.size() + 1,
                                     std::vector<size_t>(b.size() + 1, 0));
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j)
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1
                                     : std::max(t[i - 1][j], t[i][j - 1]);
  return t[a.size()][b.size()];
}

TEST(LineDiffTest, RandomDiffsAreCorrectAndMinimal) {
  std::mt19937 rng(1234);
  for (int round = 0; round < 300; ++round) {
    auto randomLines = [&] {
      std::vector<std::string> result(rng() % 25);
      for (std::string &line : result)
        line = std::string(1, char('a' + rng() % 4));
      return result;
    };
    std::vector<std::string> a = randomLines(), b = randomLines();
    std::string textA, textB;
    for (const std::string &line : a)
      textA += line + "\n";
    for (const std::string &line : b)
      textB += line + "\n";
    // Enough context for one hunk with every line.
    std::string diff = diffLines(textA, textB, "a", "b", 1000);
    if (a == b) {
      EXPECT_EQ(diff, "");
      continue;
    }
    std::vector<std::string> got = lines(diff);
    ASSERT_GE(got.size(), 3u);
    std::vector<std::string> oldSide, newSide;
    size_t changes = 0;
    for (size_t i = 3; i < got.size(); ++i) {
      char kind = got[i][0];
      std::string line = got[i].substr(1);
      if (kind != '+')
        oldSide.push_back(line);
      if (kind != '-')
        newSide.push_back(line);
      changes += kind != ' ';
    }
    EXPECT_EQ(oldSide, a) << diff;
    EXPECT_EQ(newSide, b) << diff;
    EXPECT_EQ(changes, a.size() + b.size() - 2 * lcsLength(a, b)) << diff;
  }
}

//===----------------------------------------------------------------------===//
// VerifyEachInstrument
//===----------------------------------------------------------------------===//

TEST_F(InstrumentsTest, VerifyEachNamesThePassThatLeftAnUndefinedGlobal) {
  auto verify = VerifyEachInstrument::create();
  EXPECT_EQ(verify->getName(), "VerifyEachInstrument");
  bool ranAfter = false;
  Ref<Pass> dropHelper = createModulePass(
      [](Ref<IRModule> m, PassContext &) -> Expected<Ref<IRModule>> {
        Ref<IRModule> copy = m->shallowCopy();
        copy->remove("helper");
        return copy;
      },
      PassInfo("DropHelper", 0));
  Ref<Pass> later = createModulePass(
      [&](Ref<IRModule> m, PassContext &) -> Expected<Ref<IRModule>> {
        ranAfter = true;
        return m;
      },
      PassInfo("Later", 0));
  Expected<Ref<IRModule>> result = runWith(
      createSequential({identityPass("Fine"), dropHelper, later}), {verify});
  ASSERT_FALSE(bool(result));
  EXPECT_FALSE(ranAfter);
  // Located at the use of @helper (line 9), keeping the verifier's location.
  EXPECT_EQ(StringRef(render(result.takeError())).split('\n').first.str(),
            "<string>:9:3: error: pass 'DropHelper' produced an invalid "
            "module: undefined global @helper");
}

TEST_F(InstrumentsTest, VerifyEachNamesThePassThatLeftAFreeVariable) {
  auto verify = VerifyEachInstrument::create();
  Ref<Pass> freeVar = createModulePass(
      [](Ref<IRModule> m, PassContext &) -> Expected<Ref<IRModule>> {
        Ref<IRModule> copy = m->shallowCopy();
        Function *main = copy->lookup("main");
        Ref<Function> broken =
            Function::get(main->getParams(), Var::get("stray"),
                          main->getRetType(), main->getAttrs(), main->getLoc());
        copy->addOrUpdate("main", broken);
        return copy;
      },
      PassInfo("LeakVar", 0));
  Expected<Ref<IRModule>> result = runWith(freeVar, {verify});
  ASSERT_FALSE(bool(result));
  EXPECT_EQ(StringRef(render(result.takeError())).split('\n').first.str(),
            "<string>:6:1: error: pass 'LeakVar' produced an invalid module: "
            "free variable %stray in @main");
}

TEST_F(InstrumentsTest, VerifyEachChecksTypesWhenTheModuleClaimsThem) {
  auto verify = VerifyEachInstrument::create();
  // Claims valid types without inferring any.
  PassInfo info("FakeInferType", 0);
  info.establishesTypes = true;
  Ref<Pass> fake = createModulePass(
      [](Ref<IRModule> m, PassContext &) -> Expected<Ref<IRModule>> {
        Ref<IRModule> copy = m->shallowCopy();
        copy->setValidTypes(true);
        return copy;
      },
      info);
  Expected<Ref<IRModule>> result = runWith(fake, {verify});
  ASSERT_FALSE(bool(result));
  // @helper comes first, and the function node itself has no type.
  EXPECT_EQ(StringRef(render(result.takeError())).split('\n').first.str(),
            "<string>:2:1: error: pass 'FakeInferType' produced an invalid "
            "module: the module claims valid types but a Function in @helper "
            "has no checked type");
  // Without the claim, the same module passes.
  EXPECT_TRUE(bool(runWith(identityPass("Fine"), {verify})));
}

TEST(VerifyCheckedTypesTest, FullyTypedModulePasses) {
  registerAllOps();
  Ref<Type> t = TensorType::get({2}, DataType::float32());
  Ref<Var> x = Var::get("x", t);
  Ref<Call> call = Call::get(Op::lookup("add"), {x, x}, nullptr, {}, t);
  Ref<Function> func =
      Function::get({x}, call, t, nullptr, {}, FuncType::get({t}, t));
  Ref<IRModule> module = IRModule::create();
  module->addOrUpdate("main", func);
  EXPECT_FALSE(verifyCheckedTypes(*module));

  Ref<Call> untyped = Call::get(Op::lookup("add"), {x, call});
  Ref<Function> partly =
      Function::get({x}, untyped, t, nullptr, {}, FuncType::get({t}, t));
  module->addOrUpdate("main", partly);
  EXPECT_EQ(toString(verifyCheckedTypes(*module)),
            "the module claims valid types but a Call in @main has no checked "
            "type");
}

} // namespace
