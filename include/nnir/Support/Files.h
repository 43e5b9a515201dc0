//===- Files.h - Reading the files a user names -------------------*- C++ -*-===//
//
/// \file
/// Every file nnir reads because a user named it (a module, an input tensor,
/// a parameter file, an archive) must be a regular file: a path to a
/// device, a FIFO, a socket or a directory (`/dev/zero`, `/dev/stdin` on a
/// terminal, a named pipe) is refused before anything is read, with an
/// error that says what it is, so that no read grows without bound or waits
/// for a writer. Symbolic links are followed to what they name. Standard
/// input, named `-` where a tool reads a module, is read as it comes.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_SUPPORT_FILES_H
#define NNIR_SUPPORT_FILES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

namespace nnir {

struct ReadFileOptions {
  /// `-` means standard input.
  bool allowStdin = false;
};

/// The contents of the regular file \p path (mapped when large). Errors name
/// the path: `cannot open 'PATH': ...`, `cannot read 'PATH': ...`, or
/// `'PATH' is not a regular file (a character device); ...`.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readRegularFile(llvm::StringRef path, const ReadFileOptions &options = {});

/// A buffer that shows \p buffer's contents, for an owner (a SourceMgr)
/// that takes a unique_ptr while others share \p buffer (tensors still in
/// the text of a mapped file). It has \p buffer's identifier and kind, so
/// releaseMappedPages (Heap.h) treats it as \p buffer.
std::unique_ptr<llvm::MemoryBuffer>
makeSharedBufferView(std::shared_ptr<const llvm::MemoryBuffer> buffer);

/// An error unless \p path names a regular file (following symbolic links),
/// for readers that open files themselves (libzip).
llvm::Error checkRegularFile(llvm::StringRef path);

} // namespace nnir

#endif // NNIR_SUPPORT_FILES_H
