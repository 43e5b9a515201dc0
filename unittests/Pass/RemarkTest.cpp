//===- RemarkTest.cpp - Remarks, their sink and the streamer --------------===//
//
/// \file
/// Remark messages and arguments, PassContext's routing to its sink (nothing
/// without one; only enabled kinds and passes), and RemarkStreamer: the
/// regexes per kind, located and unlocated printing, the YAML it writes
/// through LLVM's serializer (with and without a location), the output
/// filter, and invalid patterns.
//
//===----------------------------------------------------------------------===//

#include "nnir/Pass/Remark.h"
#include "nnir/Pass/PassContext.h"
#include "nnir/Pass/RemarkStreamer.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace nnir;

namespace {

/// Records what it is given; enabled for passes named in \p passes.
struct RecordingSink : RemarkSink {
  explicit RecordingSink(StringRef pass) : pass(pass) {}
  bool isEnabled(RemarkKind kind, StringRef name) const override {
    return kind != RemarkKind::Analysis && name == pass;
  }
  void emit(const Remark &remark) override {
    messages.push_back(remark.getMessage());
  }
  std::string pass;
  std::vector<std::string> messages;
};

TEST(RemarkTest, MessageAndArguments) {
  Remark remark(RemarkKind::Missed, "Pass", "Name", SMLoc());
  remark << "folded " << RemarkArg("Calls", 3) << " calls of "
         << RemarkArg("Bytes", uint64_t(1) << 40) << " bytes"
         << RemarkArg("Op", "add");
  EXPECT_EQ(remark.getMessage(), "folded 3 calls of 1099511627776 bytesadd");
  ASSERT_EQ(remark.getArgs().size(), 6u);
  EXPECT_EQ(remark.getArgs()[0].key, "String");
  EXPECT_EQ(remark.getArgs()[1].key, "Calls");
  EXPECT_EQ(remark.getArgs()[5].value, "add");
  EXPECT_EQ(getRemarkKindName(RemarkKind::Missed), "Missed");
}

TEST(RemarkTest, ContextRoutesToItsSink) {
  Ref<PassContext> ctx = PassContext::create();
  // No sink: nothing is enabled, emitting does nothing.
  EXPECT_FALSE(ctx->isRemarkEnabled(RemarkKind::Passed, "A"));
  ctx->emitRemark(Remark(RemarkKind::Passed, "A", "N", SMLoc()) << "x");
  auto sink = std::make_shared<RecordingSink>("A");
  ctx->setRemarkSink(sink);
  EXPECT_EQ(ctx->getRemarkSink(), sink.get());
  EXPECT_TRUE(ctx->isRemarkEnabled(RemarkKind::Passed, "A"));
  EXPECT_FALSE(ctx->isRemarkEnabled(RemarkKind::Passed, "B"));
  EXPECT_FALSE(ctx->isRemarkEnabled(RemarkKind::Analysis, "A"));
  ctx->emitRemark(Remark(RemarkKind::Passed, "A", "N", SMLoc()) << "kept");
  ctx->emitRemark(Remark(RemarkKind::Passed, "B", "N", SMLoc()) << "other");
  ctx->emitRemark(Remark(RemarkKind::Analysis, "A", "N", SMLoc()) << "kind");
  EXPECT_EQ(sink->messages, std::vector<std::string>{"kept"});
}

class RemarkStreamerTest : public ::testing::Test {
protected:
  void SetUp() override {
    sm.AddNewSourceBuffer(
        MemoryBuffer::getMemBufferCopy("line one\n  line two\n", "in.nnir"),
        SMLoc());
    start = sm.getMemoryBuffer(1)->getBufferStart();
  }

  SMLoc at(size_t offset) { return SMLoc::getFromPointer(start + offset); }

  SourceMgr sm;
  const char *start = nullptr;
  std::string printed;
  raw_string_ostream diagnostics{printed};
  std::string yaml;
  raw_string_ostream output{yaml};
};

TEST_F(RemarkStreamerTest, PrintsMatchingKindsAndPasses) {
  RemarkStreamerOptions options;
  options.passed = "^Fold";
  options.missed = "Fold|Fuse";
  Expected<std::unique_ptr<RemarkStreamer>> streamer =
      RemarkStreamer::create(options, sm, diagnostics, nullptr);
  ASSERT_TRUE(bool(streamer)) << toString(streamer.takeError());
  RemarkStreamer &s = **streamer;
  EXPECT_TRUE(s.isEnabled(RemarkKind::Passed, "FoldConstant"));
  EXPECT_FALSE(s.isEnabled(RemarkKind::Passed, "RefoldX"));
  EXPECT_TRUE(s.isEnabled(RemarkKind::Missed, "FuseOps"));
  EXPECT_FALSE(s.isEnabled(RemarkKind::Analysis, "FoldConstant"));
  s.emit(Remark(RemarkKind::Passed, "FoldConstant", "Folded", at(11))
         << "folded");
  s.emit(Remark(RemarkKind::Missed, "FuseOps", "NotFused", SMLoc())
         << "no location");
  EXPECT_EQ(s.getNumPrinted(), 2u);
  EXPECT_EQ(s.getNumSerialized(), 0u);
  EXPECT_EQ(printed,
            "in.nnir:2:3: remark: folded [--pass-remarks=FoldConstant]\n"
            "  line two\n"
            "  ^\n"
            "remark: no location [--pass-remarks-missed=FuseOps]\n");
}

TEST_F(RemarkStreamerTest, WritesYAMLThroughLLVM) {
  RemarkStreamerOptions options;
  options.outputFilter = "Fold";
  Expected<std::unique_ptr<RemarkStreamer>> streamer =
      RemarkStreamer::create(options, sm, diagnostics, &output);
  ASSERT_TRUE(bool(streamer)) << toString(streamer.takeError());
  RemarkStreamer &s = **streamer;
  // The output takes every kind, filtered by pass only; nothing is printed.
  EXPECT_TRUE(s.isEnabled(RemarkKind::Analysis, "FoldConstant"));
  EXPECT_FALSE(s.isEnabled(RemarkKind::Passed, "FuseOps"));
  s.emit(Remark(RemarkKind::Analysis, "FoldConstant", "Sizes", at(0))
             .setFunction("main")
         << "size " << RemarkArg("Bytes", 16));
  s.emit(Remark(RemarkKind::Missed, "FoldConstant", "Skipped", SMLoc())
         << "unlocated");
  EXPECT_EQ(printed, "");
  EXPECT_EQ(s.getNumSerialized(), 2u);
  EXPECT_EQ(yaml, "--- !Analysis\n"
                  "Pass:            FoldConstant\n"
                  "Name:            Sizes\n"
                  "DebugLoc:        { File: in.nnir, Line: 1, Column: 1 }\n"
                  "Function:        main\n"
                  "Args:\n"
                  "  - String:          'size '\n"
                  "  - Bytes:           '16'\n"
                  "...\n"
                  "--- !Missed\n"
                  "Pass:            FoldConstant\n"
                  "Name:            Skipped\n"
                  "Function:        ''\n"
                  "Args:\n"
                  "  - String:          unlocated\n"
                  "...\n");
}

TEST_F(RemarkStreamerTest, InvalidPatterns) {
  RemarkStreamerOptions options;
  options.analysis = "a(";
  Expected<std::unique_ptr<RemarkStreamer>> streamer =
      RemarkStreamer::create(options, sm, diagnostics, nullptr, "-pr");
  ASSERT_FALSE(bool(streamer));
  EXPECT_EQ(toString(streamer.takeError()),
            "invalid regular expression 'a(' for -pr-analysis: parentheses "
            "not balanced");
}

} // namespace
