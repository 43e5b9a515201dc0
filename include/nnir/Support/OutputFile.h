//===- OutputFile.h - A tool's output file, replaced by rename ---*- C++ -*-===//
//
/// \file
/// nnir's tools write their output file beside it, under a temporary name,
/// and rename it into place once it is complete: a failed run leaves the
/// old file (or none), and the output may be the tool's own input, which
/// is still mapped and read while the output is written (metadata tensors
/// are read from the input file when they are printed), so it must never
/// be truncated. `-` is standard output, and a path that names something
/// other than a regular file (/dev/null, a FIFO, a terminal) is written in
/// place, as ToolOutputFile does.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_SUPPORT_OUTPUTFILE_H
#define NNIR_SUPPORT_OUTPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <system_error>

namespace nnir {

/// llvm::ToolOutputFile's interface: open, write to os(), keep() or drop.
class OutputFile {
public:
  /// Opens the output \p path (or a temporary file beside it); \p ec says
  /// why it could not be.
  OutputFile(llvm::StringRef path, std::error_code &ec,
             llvm::sys::fs::OpenFlags flags = llvm::sys::fs::OF_Text);
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;
  /// Removes the temporary file unless keep() renamed it.
  ~OutputFile();

  llvm::raw_fd_ostream &os() { return direct ? direct->os() : *stream; }
  /// Flushes the stream and puts the file in place; an error if the rename
  /// failed (the temporary file is removed then).
  std::error_code keep();

private:
  std::string path;
  /// Writing in place.
  std::unique_ptr<llvm::ToolOutputFile> direct;
  /// Writing to a temporary file.
  std::optional<llvm::sys::fs::TempFile> temp;
  std::unique_ptr<llvm::raw_fd_ostream> stream;
};

} // namespace nnir

#endif // NNIR_SUPPORT_OUTPUTFILE_H
