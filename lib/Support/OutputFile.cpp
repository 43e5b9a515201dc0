//===- OutputFile.cpp - A tool's output file, replaced by rename ----------===//
//
/// \file
/// The temporary file is `<path>.tmp-XXXXXX` in the output's directory (a
/// rename within one file system), created with the mode a new file gets
/// (0666 less the umask). A symbolic link to an existing file is followed,
/// so the file it names is replaced, not the link.
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/OutputFile.h"

#include "llvm/ADT/SmallString.h"

using namespace llvm;
using namespace nnir;

OutputFile::OutputFile(StringRef path, std::error_code &ec,
                       sys::fs::OpenFlags flags)
    : path(path.str()) {
  ec = std::error_code();
  sys::fs::file_status status;
  bool exists = !sys::fs::status(path, status) && sys::fs::exists(status);
  if (path == "-" ||
      (exists && status.type() != sys::fs::file_type::regular_file)) {
    direct = std::make_unique<ToolOutputFile>(path, ec, flags);
    return;
  }
  SmallString<256> target(path);
  if (exists && sys::fs::real_path(path, target))
    target = path;
  this->path = target.str().str();
  Expected<sys::fs::TempFile> file = sys::fs::TempFile::create(
      this->path + ".tmp-%%%%%%", sys::fs::all_read | sys::fs::all_write,
      flags);
  if (!file) {
    ec = errorToErrorCode(file.takeError());
    return;
  }
  temp.emplace(std::move(*file));
  stream = std::make_unique<raw_fd_ostream>(temp->FD, /*shouldClose=*/false);
}

OutputFile::~OutputFile() {
  if (!temp)
    return;
  // Not kept: what was written goes, and so does any error of the stream
  // (which would be fatal in its destructor).
  stream->clear_error();
  stream.reset();
  consumeError(temp->discard());
}

std::error_code OutputFile::keep() {
  if (direct) {
    direct->keep();
    return std::error_code();
  }
  if (!temp)
    return std::make_error_code(std::errc::bad_file_descriptor);
  stream->flush();
  if (std::error_code ec = stream->error())
    return ec;
  Error err = temp->keep(path);
  if (!err) {
    stream->clear_error();
    stream.reset();
    temp.reset();
    return std::error_code();
  }
  return errorToErrorCode(std::move(err));
}
