//===- DiagnosticsTest.cpp - Tests of diagnostic rendering ----------------===//
//
/// \file
/// printErrors' error limit, bounded messages, and columns in code points.
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/Diagnostics.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace nnir;

namespace {

/// A SourceMgr holding \p text as "input".
struct Source {
  explicit Source(StringRef text) {
    sm.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(text, "input"),
                          SMLoc());
    buffer = sm.getMemoryBuffer(1)->getBuffer();
  }
  SMLoc at(size_t offset) const {
    return SMLoc::getFromPointer(buffer.data() + offset);
  }
  SourceMgr sm;
  StringRef buffer;
};

static size_t countOf(StringRef text, StringRef needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != StringRef::npos;
       at = text.find(needle, at + 1))
    ++n;
  return n;
}

TEST(DiagnosticsTest, StopsAfterTheErrorLimit) {
  Source source("a b c\n");
  Error all = Error::success();
  for (unsigned i = 0; i < 50; ++i)
    all = joinErrors(std::move(all), makeError(source.at(2), "bad token"));
  std::string out;
  raw_string_ostream os(out);
  EXPECT_TRUE(printErrors(std::move(all), source.sm, "tool", os));
  EXPECT_EQ(countOf(out, "input:1:3: error: bad token"), 20u);
  EXPECT_EQ(countOf(out, "too many errors emitted"), 1u);
  EXPECT_TRUE(StringRef(out).ends_with(
      "tool: error: too many errors emitted, stopping now (the first 20 are "
      "shown)\n"));
}

TEST(DiagnosticsTest, LongMessagesLoseTheirMiddle) {
  std::string name(100000, 'n');
  std::string out;
  raw_string_ostream os(out);
  printErrors(makeError("unknown operator '" + name + "x'"), SourceMgr(),
              "tool", os);
  EXPECT_LT(out.size(), 1100u);
  EXPECT_TRUE(StringRef(out).starts_with("tool: error: unknown operator 'nnn"));
  EXPECT_TRUE(StringRef(out).ends_with("nnnx'\n"));
  EXPECT_NE(out.find("..."), std::string::npos);
}

TEST(DiagnosticsTest, ColumnsCountCodePoints) {
  // "é" is two bytes, "日" three; each is one column.
  Source source("\xEF\xBB\xBFx\n\xC3\xA9\xE6\x97\xA5 y\n\t\xFFz\n");
  EXPECT_EQ(getLineAndColumn(source.sm, source.at(3)), std::make_pair(1u, 1u));
  size_t y = source.buffer.find('y');
  EXPECT_EQ(getLineAndColumn(source.sm, source.at(y)), std::make_pair(2u, 4u));
  size_t z = source.buffer.find('z');
  EXPECT_EQ(getLineAndColumn(source.sm, source.at(z)), std::make_pair(3u, 3u));
}

} // namespace
