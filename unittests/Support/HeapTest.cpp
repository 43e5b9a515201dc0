//===- HeapTest.cpp - Tests of the heap and mapping helpers ---------------===//
//
/// \file
/// releaseMappedPages drops a mapped file's resident pages, or those of a
/// part of it (read from the mapping's Rss line in /proc/self/smaps), and
/// keeps its contents readable; it leaves a heap buffer alone.
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/Heap.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <fstream>
#include <string>

using namespace llvm;
using namespace nnir;

namespace {

/// The resident kilobytes of the mapping that holds \p address, or -1.
long residentKB(const void *address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  auto target = reinterpret_cast<uintptr_t>(address);
  bool inMapping = false;
  while (std::getline(smaps, line)) {
    StringRef text(line);
    // A mapping's header line: `begin-end perms offset dev inode path`.
    uint64_t begin, end;
    StringRef range = text.split(' ').first;
    auto [low, high] = range.split('-');
    if (!high.empty() && !low.getAsInteger(16, begin) &&
        !high.getAsInteger(16, end)) {
      inMapping = begin <= target && target < end;
      continue;
    }
    long kb;
    if (inMapping && text.consume_front("Rss:") &&
        !text.trim().split(' ').first.getAsInteger(10, kb))
      return kb;
  }
  return -1;
}

/// A file of \p size bytes whose byte i is `'a' + i % 26`.
std::string writeFile(size_t size) {
  SmallString<128> path;
  EXPECT_FALSE(sys::fs::createTemporaryFile("nnir-heap", "txt", path));
  std::error_code ec;
  raw_fd_ostream out(path, ec);
  EXPECT_FALSE(ec);
  for (size_t i = 0; i < size; ++i)
    out << char('a' + i % 26);
  return std::string(path);
}

/// \p path mapped (MemoryBuffer maps a file this large), or null.
std::unique_ptr<MemoryBuffer> mapFile(const std::string &path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> file = MemoryBuffer::getFile(
      path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!file || (*file)->getBufferKind() != MemoryBuffer::MemoryBuffer_MMap)
    return nullptr;
  return std::move(*file);
}

unsigned sumOfBytes(StringRef bytes) {
  unsigned sum = 0;
  for (char c : bytes)
    sum += static_cast<unsigned char>(c);
  return sum;
}

TEST(HeapTest, ReleaseDropsResidentPagesOfAMappedFile) {
  constexpr size_t kSize = 4 << 20;
  std::string path = writeFile(kSize);
  std::unique_ptr<MemoryBuffer> file = mapFile(path);
  ASSERT_TRUE(file);
  const MemoryBuffer &buffer = *file;
  unsigned expected = sumOfBytes(buffer.getBuffer()); // Faults every page in.
  EXPECT_GE(residentKB(buffer.getBufferStart()), long(kSize / 1024) - 8);

  releaseMappedPages(buffer);
  EXPECT_LE(residentKB(buffer.getBufferStart()), 8);
  // The contents come back from the page cache.
  EXPECT_EQ(sumOfBytes(buffer.getBuffer()), expected);
  EXPECT_EQ(buffer.getBuffer()[kSize - 1], char('a' + (kSize - 1) % 26));
  sys::fs::remove(path);
}

TEST(HeapTest, ReleaseDropsThePagesOfAPart) {
  constexpr size_t kSize = 4 << 20;
  std::string path = writeFile(kSize);
  std::unique_ptr<MemoryBuffer> file = mapFile(path);
  ASSERT_TRUE(file);
  const MemoryBuffer &buffer = *file;
  unsigned expected = sumOfBytes(buffer.getBuffer());
  long before = residentKB(buffer.getBufferStart());
  // The first half, from an unaligned offset (its first page goes too).
  releaseMappedPages(buffer, buffer.getBuffer().slice(100, kSize / 2));
  long after = residentKB(buffer.getBufferStart());
  EXPECT_LE(after, before - long(kSize / 2 / 1024) + 8);
  EXPECT_GE(after, long(kSize / 2 / 1024) - 8);
  EXPECT_EQ(sumOfBytes(buffer.getBuffer()), expected);
  // An empty part, and one at the very end, are fine.
  releaseMappedPages(buffer, buffer.getBuffer().take_back(0));
  releaseMappedPages(buffer, buffer.getBuffer().take_back(10));
  EXPECT_EQ(buffer.getBuffer()[kSize - 1], char('a' + (kSize - 1) % 26));
  sys::fs::remove(path);
}

TEST(HeapTest, ReleaseLeavesAHeapBufferAlone) {
  std::string text(1 << 20, 'x');
  std::unique_ptr<MemoryBuffer> copy =
      MemoryBuffer::getMemBufferCopy(text, "copy");
  releaseMappedPages(*copy);
  EXPECT_EQ(copy->getBuffer(), text);
}

} // namespace
