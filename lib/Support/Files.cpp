//===- Files.cpp - Reading the files a user names -------------------------===//
//
/// \file
/// The file is opened without blocking (a FIFO without a writer would
/// otherwise hold the open) and checked with fstat on the descriptor that is
/// then read, so what is checked is what is read.
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/Files.h"

#include "llvm/Support/Errno.h"
#include "llvm/Support/FileSystem.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;
using namespace nnir;

static Error fileError(StringRef verb, StringRef path, const Twine &why) {
  return createStringError(inconvertibleErrorCode(),
                           "cannot " + verb + " '" + path + "': " + why);
}

/// What kind of file \p mode is, as an article and a noun; "" for a regular
/// file.
static StringRef describeNonRegular(mode_t mode) {
  if (S_ISREG(mode))
    return "";
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISFIFO(mode))
    return "a FIFO (named pipe)";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a file";
}

static Error notRegular(StringRef path, StringRef kind) {
  return createStringError(inconvertibleErrorCode(),
                           "'" + path + "' is not a regular file (" + kind +
                               "); nnir reads models, tensors and parameters "
                               "only from regular files");
}

Error nnir::checkRegularFile(StringRef path) {
  std::string p = path.str();
  struct stat st;
  if (::stat(p.c_str(), &st) != 0)
    return fileError("open", path, sys::StrError(errno));
  StringRef kind = describeNonRegular(st.st_mode);
  if (!kind.empty())
    return notRegular(path, kind);
  return Error::success();
}

Expected<std::unique_ptr<MemoryBuffer>>
nnir::readRegularFile(StringRef path, const ReadFileOptions &options) {
  if (options.allowStdin && path == "-") {
    ErrorOr<std::unique_ptr<MemoryBuffer>> in = MemoryBuffer::getSTDIN();
    if (!in)
      return fileError("read", "<stdin>", in.getError().message());
    return std::move(*in);
  }
  std::string p = path.str();
  int fd = ::open(p.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return fileError("open", path, sys::StrError(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return fileError("read", path, sys::StrError(e));
  }
  StringRef kind = describeNonRegular(st.st_mode);
  if (!kind.empty()) {
    ::close(fd);
    return notRegular(path, kind);
  }
  // A regular file: reads do not block, whatever O_NONBLOCK says.
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getOpenFile(
      sys::fs::convertFDToNativeFile(fd), path, uint64_t(st.st_size),
      /*RequiresNullTerminator=*/false);
  ::close(fd);
  if (!buffer)
    return fileError("read", path, buffer.getError().message());
  return std::move(*buffer);
}

namespace {
/// makeSharedBufferView's buffer.
class SharedBufferView : public MemoryBuffer {
public:
  explicit SharedBufferView(std::shared_ptr<const MemoryBuffer> buffer)
      : buffer(std::move(buffer)) {
    init(this->buffer->getBufferStart(), this->buffer->getBufferEnd(),
         /*RequiresNullTerminator=*/false);
  }
  StringRef getBufferIdentifier() const override {
    return buffer->getBufferIdentifier();
  }
  BufferKind getBufferKind() const override { return buffer->getBufferKind(); }

private:
  std::shared_ptr<const MemoryBuffer> buffer;
};
} // namespace

std::unique_ptr<MemoryBuffer>
nnir::makeSharedBufferView(std::shared_ptr<const MemoryBuffer> buffer) {
  return std::make_unique<SharedBufferView>(std::move(buffer));
}
