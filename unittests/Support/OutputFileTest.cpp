//===- OutputFileTest.cpp - Tests of OutputFile ---------------------------===//
//
/// \file
/// OutputFile writes a regular file beside it and renames it into place on
/// keep(): until then the old contents stay, a dropped file leaves nothing,
/// and a symbolic link is followed. Other paths are written in place.
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/OutputFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <string>
#include <vector>

#include <unistd.h>

using namespace nnir;
namespace fs = llvm::sys::fs;

namespace {

std::string readAll(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : "<unreadable>";
}

void writeAll(llvm::StringRef path, llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  ASSERT_FALSE(ec) << ec.message();
  os << text;
}

/// The names in \p dir.
std::vector<std::string> listDir(llvm::StringRef dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    names.push_back(llvm::sys::path::filename(it->path()).str());
  std::sort(names.begin(), names.end());
  return names;
}

class OutputFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(fs::createUniqueDirectory("nnir-output", dir));
  }
  void TearDown() override { fs::remove_directories(dir); }
  std::string path(llvm::StringRef name) {
    llvm::SmallString<128> p(dir);
    llvm::sys::path::append(p, name);
    return p.str().str();
  }
  llvm::SmallString<128> dir;
};

TEST_F(OutputFileTest, ReplacesTheFileOnlyWhenKept) {
  std::string out = path("out.txt");
  writeAll(out, "old");
  {
    std::error_code ec;
    OutputFile file(out, ec);
    ASSERT_FALSE(ec) << ec.message();
    file.os() << "new";
    file.os().flush();
    // Written beside the file: the old contents are still there.
    EXPECT_EQ(readAll(out), "old");
    EXPECT_EQ(listDir(dir).size(), 2u);
    EXPECT_FALSE(file.keep());
  }
  EXPECT_EQ(readAll(out), "new");
  EXPECT_EQ(listDir(dir), std::vector<std::string>{"out.txt"});
}

TEST_F(OutputFileTest, ADroppedFileLeavesTheOldOneOrNone) {
  std::string out = path("out.txt");
  writeAll(out, "old");
  {
    std::error_code ec;
    OutputFile file(out, ec);
    ASSERT_FALSE(ec);
    file.os() << "new";
  }
  EXPECT_EQ(readAll(out), "old");
  EXPECT_EQ(listDir(dir), std::vector<std::string>{"out.txt"});
  {
    std::error_code ec;
    OutputFile file(path("fresh.txt"), ec);
    ASSERT_FALSE(ec);
    file.os() << "never kept";
  }
  EXPECT_EQ(listDir(dir), std::vector<std::string>{"out.txt"});
}

TEST_F(OutputFileTest, FollowsASymbolicLink) {
  std::string target = path("target.txt"), link = path("link.txt");
  writeAll(target, "old");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  {
    std::error_code ec;
    OutputFile file(link, ec);
    ASSERT_FALSE(ec);
    file.os() << "new";
    EXPECT_FALSE(file.keep());
  }
  EXPECT_EQ(readAll(target), "new");
  fs::file_status status;
  ASSERT_FALSE(fs::status(link, status, /*follow=*/false));
  EXPECT_EQ(status.type(), fs::file_type::symlink_file);
}

TEST_F(OutputFileTest, AFolderThatDoesNotExistIsAnError) {
  std::error_code ec;
  OutputFile file(path("missing/out.txt"), ec);
  EXPECT_TRUE(ec);
}

TEST_F(OutputFileTest, NonRegularFilesAreWrittenInPlace) {
  std::error_code ec;
  OutputFile file("/dev/null", ec);
  ASSERT_FALSE(ec) << ec.message();
  file.os() << "discarded";
  EXPECT_FALSE(file.keep());
  EXPECT_TRUE(fs::exists("/dev/null"));
}

} // namespace
