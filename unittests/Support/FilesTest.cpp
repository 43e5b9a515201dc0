//===- FilesTest.cpp - Tests of reading the files a user names ------------===//
//
/// \file
/// readRegularFile() reads regular files (and links to them) and refuses,
/// without reading or waiting, everything else: devices, FIFOs, directories.
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/Files.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <sys/stat.h>
#include <unistd.h>

using namespace nnir;

namespace {

std::string errorOf(llvm::Error error) {
  return llvm::toString(std::move(error));
}

TEST(FilesTest, ReadsRegularFilesAndRefusesTheRest) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("nnir-files", dir));
  std::string file = (dir + "/file").str(), link = (dir + "/link").str(),
              fifo = (dir + "/fifo").str();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(file, ec);
    os << "contents";
  }
  ASSERT_EQ(::symlink(file.c_str(), link.c_str()), 0);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);

  for (const std::string &path : {file, link}) {
    auto buffer = readRegularFile(path);
    ASSERT_TRUE(bool(buffer)) << errorOf(buffer.takeError());
    EXPECT_EQ((*buffer)->getBuffer(), "contents");
    EXPECT_FALSE(bool(checkRegularFile(path)));
  }

  struct Case {
    std::string path, kind;
  } cases[] = {{"/dev/zero", "a character device"},
               {fifo, "a FIFO (named pipe)"},
               {dir.str().str(), "a directory"}};
  for (const Case &c : cases) {
    std::string expected = "'" + c.path + "' is not a regular file (" +
                           c.kind + "); nnir reads models, tensors and " +
                           "parameters only from regular files";
    EXPECT_EQ(errorOf(readRegularFile(c.path).takeError()), expected);
    EXPECT_EQ(errorOf(checkRegularFile(c.path)), expected);
  }
  std::string missing = (dir + "/missing").str();
  EXPECT_EQ(errorOf(readRegularFile(missing).takeError()),
            "cannot open '" + missing + "': No such file or directory");
  llvm::sys::fs::remove_directories(dir);
}

TEST(FilesTest, ASharedBufferViewKeepsTheBufferAndItsKind) {
  std::shared_ptr<const llvm::MemoryBuffer> owner =
      llvm::MemoryBuffer::getMemBuffer("some text", "input.nnir");
  const llvm::MemoryBuffer *raw = owner.get();
  std::unique_ptr<llvm::MemoryBuffer> view = makeSharedBufferView(owner);
  owner.reset(); // The view holds it now.
  EXPECT_EQ(view->getBuffer(), "some text");
  EXPECT_EQ(view->getBufferStart(), raw->getBufferStart());
  EXPECT_EQ(view->getBufferIdentifier(), "input.nnir");
  EXPECT_EQ(view->getBufferKind(), raw->getBufferKind());
}

} // namespace
