//===- DiskCacheTest.cpp - Tests of the persistent kernel cache -----------===//
//
/// \file
/// What an entry must be to be used (DiskCache.h): its own key, an intact
/// payload, a regular file of this user that no one else can write; and
/// what a directory must be to be opened.
//
//===----------------------------------------------------------------------===//

#include "nnir/ExecutionEngine/DiskCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <sys/stat.h>
#include <unistd.h>

using namespace nnir;
using Status = DiskCache::Status;

namespace {

class DiskCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("nnir-disk-cache", dir));
    auto opened = DiskCache::open(dir);
    ASSERT_TRUE(bool(opened)) << llvm::toString(opened.takeError());
    cache = std::move(*opened);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::string entryPath(llvm::StringRef key) {
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, DiskCache::getEntryName(key));
    return path.str().str();
  }
  std::string readEntry(llvm::StringRef key) {
    auto buffer = llvm::MemoryBuffer::getFile(entryPath(key));
    return buffer ? (*buffer)->getBuffer().str() : "";
  }
  void writeEntry(llvm::StringRef key, llvm::StringRef bytes) {
    std::error_code ec;
    llvm::raw_fd_ostream os(entryPath(key), ec);
    ASSERT_FALSE(ec);
    os << bytes;
  }

  llvm::SmallString<128> dir;
  std::unique_ptr<DiskCache> cache;
};

TEST_F(DiskCacheTest, StoresAndFindsAnEntryByItsKey) {
  EXPECT_EQ(cache->lookup("key a").status, Status::Missing);
  ASSERT_TRUE(cache->store("key a", "object a"));
  DiskCache::Lookup hit = cache->lookup("key a");
  EXPECT_EQ(hit.status, Status::Hit);
  EXPECT_EQ(hit.object, "object a");
  EXPECT_EQ(cache->lookup("key b").status, Status::Missing);
}

TEST_F(DiskCacheTest, AnEntryCopiedUnderAnotherKeyIsAMiss) {
  ASSERT_TRUE(cache->store("key a", "object a"));
  ASSERT_TRUE(cache->store("key b", "object b"));
  writeEntry("key a", readEntry("key b"));
  DiskCache::Lookup copied = cache->lookup("key a");
  EXPECT_EQ(copied.status, Status::OtherKey);
  EXPECT_TRUE(copied.object.empty());
  // Storing replaces it.
  ASSERT_TRUE(cache->store("key a", "object a"));
  EXPECT_EQ(cache->lookup("key a").object, "object a");
}

TEST_F(DiskCacheTest, TruncatedOrAlteredEntriesAreCorrupt) {
  ASSERT_TRUE(cache->store("key", "the object's bytes"));
  std::string bytes = readEntry("key");
  for (size_t cut : {size_t(0), size_t(3), size_t(12), bytes.size() - 1}) {
    writeEntry("key", llvm::StringRef(bytes).take_front(cut));
    EXPECT_EQ(cache->lookup("key").status, Status::Corrupt) << cut;
  }
  std::string flipped = bytes;
  flipped.back() ^= 1;
  writeEntry("key", flipped);
  EXPECT_EQ(cache->lookup("key").status, Status::Corrupt);
  // A key length that runs past the end of the file.
  std::string longKey = bytes;
  longKey[8] = '\xff';
  longKey[9] = '\xff';
  writeEntry("key", longKey);
  EXPECT_EQ(cache->lookup("key").status, Status::Corrupt);
}

TEST_F(DiskCacheTest, OnlyRegularFilesNoOneElseCanWriteAreTrusted) {
  ASSERT_TRUE(cache->store("key", "object"));
  std::string path = entryPath("key");
  ASSERT_EQ(::chmod(path.c_str(), 0660), 0);
  EXPECT_EQ(cache->lookup("key").status, Status::Untrusted);
  ASSERT_EQ(::chmod(path.c_str(), 0602), 0);
  EXPECT_EQ(cache->lookup("key").status, Status::Untrusted);

  ASSERT_EQ(::unlink(path.c_str()), 0);
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  DiskCache::Lookup fifo = cache->lookup("key");
  EXPECT_EQ(fifo.status, Status::Untrusted);
  EXPECT_EQ(fifo.reason, "the entry is not a regular file");
  ASSERT_TRUE(cache->store("key", "object"));
  EXPECT_EQ(cache->lookup("key").status, Status::Hit);

  ASSERT_EQ(::unlink(path.c_str()), 0);
  ASSERT_EQ(::symlink("/dev/zero", path.c_str()), 0);
  EXPECT_EQ(cache->lookup("key").status, Status::Untrusted);
  ASSERT_TRUE(cache->store("key", "object"));
  EXPECT_EQ(cache->lookup("key").status, Status::Hit);
}

TEST_F(DiskCacheTest, DirectoriesOthersCanWriteAreRefused) {
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  auto shared = DiskCache::open(dir);
  ASSERT_FALSE(bool(shared));
  EXPECT_NE(llvm::toString(shared.takeError())
                .find("it is writable by other users (mode 0777)"),
            std::string::npos);
  ASSERT_EQ(::chmod(dir.c_str(), 0700), 0);
  EXPECT_TRUE(bool(DiskCache::open(dir)));

  auto notDir = DiskCache::open("/dev/null");
  ASSERT_FALSE(bool(notDir));
  EXPECT_NE(llvm::toString(notDir.takeError()).find("it is not a directory"),
            std::string::npos);
  auto empty = DiskCache::open("");
  EXPECT_FALSE(bool(empty));
  llvm::consumeError(empty.takeError());
}

} // namespace
