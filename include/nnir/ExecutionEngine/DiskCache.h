//===- DiskCache.h - The persistent kernel cache ------------------*- C++ -*-===//
//
/// \file
/// A directory of compiled kernel objects that processes of one user share,
/// so a second run compiles nothing. The engine runs the code an entry
/// holds, so the cache trusts only what the user running nnir wrote:
///
/// - The directory must be owned by that user and writable by no one else
///   (no group or other write bit); it is created with mode 0700 when
///   missing. Anything else (another user's directory, a world-writable one
///   such as /tmp, a path that is not a directory) is refused when the cache
///   is opened: an error, never a silent fallback.
/// - An entry is used only if it is a regular file (not a FIFO, device,
///   symbolic link or directory) owned by that user, writable by no one
///   else, no larger than kMaxEntryBytes, and records exactly the key it is
///   looked up by (the full key text: entry format, kernel ABI, nnir and LLVM
///   versions, target triple, CPU and its features, optimisation level and
///   the SHA-256 of the kernel's unoptimised LLVM module) with a payload
///   whose SHA-256 matches. Anything else is a miss, never a run; the entry
///   is then replaced by the newly compiled one.
///
/// Entry format: the magic "NNIRKC02", the key's length (u32 LE), the key
/// text, the payload's size (u64 LE) and SHA-256 (32 bytes), the payload (a
/// relocatable object). Entries are named by the SHA-256 of their key, are
/// written to a temporary file and renamed into place (two processes
/// writing one entry leave a valid one), and are opened relative to the
/// directory opened once, without following symbolic links and without
/// blocking, so a FIFO or device in its place neither hangs nor grows
/// memory.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_EXECUTIONENGINE_DISKCACHE_H
#define NNIR_EXECUTIONENGINE_DISKCACHE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>

namespace nnir {

class DiskCache {
public:
  /// Entries larger than this are refused unread (kernel objects are a few
  /// KiB to a few MiB).
  static constexpr uint64_t kMaxEntryBytes = uint64_t(256) << 20;

  /// Opens the cache in directory \p path, creating it (mode 0700) if
  /// missing. Errors say why the directory cannot be used or trusted.
  static llvm::Expected<std::unique_ptr<DiskCache>> open(llvm::StringRef path);
  ~DiskCache();
  DiskCache(const DiskCache &) = delete;
  DiskCache &operator=(const DiskCache &) = delete;

  enum class Status {
    Hit,
    /// No entry for the key.
    Missing,
    /// Unreadable, truncated, oversized or failing its checksum.
    Corrupt,
    /// Valid, but recorded for another key (or another format, ABI, LLVM
    /// or target): a copied or stale entry.
    OtherKey,
    /// Not a regular file of this user writable by no one else.
    Untrusted,
  };
  struct Lookup {
    Status status = Status::Missing;
    /// The object, for a hit.
    std::string object;
    /// Why the entry was not used (for Corrupt, OtherKey and Untrusted).
    std::string reason;
  };

  /// The object stored under \p key.
  Lookup lookup(llvm::StringRef key) const;
  /// Stores \p object under \p key, replacing whatever entry is there.
  /// False when it cannot be written (the cache is an optimisation: the
  /// caller goes on).
  bool store(llvm::StringRef key, llvm::StringRef object) const;

  /// The file name of \p key's entry in the directory.
  static std::string getEntryName(llvm::StringRef key);
  const std::string &getPath() const { return path; }

private:
  DiskCache(std::string path, int dirFD) : path(std::move(path)), dirFD(dirFD) {}
  std::string path;
  /// The directory, opened once: entries are opened relative to it.
  int dirFD;
};

} // namespace nnir

#endif // NNIR_EXECUTIONENGINE_DISKCACHE_H
