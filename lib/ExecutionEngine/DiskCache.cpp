//===- DiskCache.cpp - The persistent kernel cache ------------------------===//
//
/// \file
/// POSIX file operations relative to the cache directory's descriptor
/// (openat, fstat, renameat): llvm::sys::fs works on paths only, which
/// would let a symbolic link or a renamed directory redirect an entry
/// between the check and the use.
//
//===----------------------------------------------------------------------===//

#include "nnir/ExecutionEngine/DiskCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"

#include <array>
#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;
using namespace nnir;

static constexpr char kMagic[] = "NNIRKC02";
static constexpr size_t kMagicSize = 8;

static std::array<uint8_t, 32> sha256(StringRef bytes) {
  return SHA256::hash(ArrayRef<uint8_t>(bytes.bytes_begin(), bytes.bytes_end()));
}

static std::string modeString(mode_t mode) {
  char text[8];
  snprintf(text, sizeof(text), "%04o", unsigned(mode & 07777));
  return text;
}

/// Why the file of \p st cannot be trusted to hold code for this user, or
/// "" when it can.
static std::string getDistrust(const struct stat &st, StringRef what) {
  uid_t self = geteuid();
  if (st.st_uid != self)
    return formatv("{0} is owned by user {1}, not by the user running nnir "
                   "({2})",
                   what, unsigned(st.st_uid), unsigned(self))
        .str();
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return formatv("{0} is writable by other users (mode {1})", what,
                   modeString(st.st_mode))
        .str();
  return "";
}

Expected<std::unique_ptr<DiskCache>> DiskCache::open(StringRef path) {
  auto fail = [&](const Twine &why) {
    return createStringError(inconvertibleErrorCode(),
                             "cannot use '" + path +
                                 "' as the kernel cache directory: " + why);
  };
  if (path.empty())
    return fail("the path is empty");
  if (std::error_code ec = sys::fs::create_directories(
          path, /*IgnoreExisting=*/true, sys::fs::perms::owner_all))
    return fail(ec.message());
  std::string p = path.str();
  int fd = ::open(p.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return fail(errno == ENOTDIR ? "it is not a directory"
                                 : sys::StrError(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return fail(sys::StrError(e));
  }
  std::string distrust = getDistrust(st, "it");
  if (!distrust.empty()) {
    ::close(fd);
    return fail(distrust +
                "; the cache runs the code it reads, so it trusts only a "
                "directory that no other user can write (chmod go-w, or "
                "choose a directory of your own)");
  }
  return std::unique_ptr<DiskCache>(new DiskCache(std::move(p), fd));
}

DiskCache::~DiskCache() { ::close(dirFD); }

std::string DiskCache::getEntryName(StringRef key) {
  return toHex(sha256(key), /*LowerCase=*/true) + ".o";
}

/// Reads all \p size bytes of \p fd into \p out.
static bool readAll(int fd, uint64_t size, std::string &out) {
  out.resize(size);
  uint64_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, out.data() + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO; // The file ended early (it shrank).
      return false;
    }
    done += uint64_t(n);
  }
  return true;
}

DiskCache::Lookup DiskCache::lookup(StringRef key) const {
  Lookup result;
  auto reject = [&](Status status, const Twine &why) {
    result.status = status;
    result.reason = why.str();
    return std::move(result);
  };
  std::string name = getEntryName(key);
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  int fd = ::openat(dirFD, name.c_str(),
                    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT)
      return result;
    if (e == ELOOP)
      return reject(Status::Untrusted, "the entry is a symbolic link");
    return reject(Status::Corrupt, "cannot open the entry: " + sys::StrError(e));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return reject(Status::Corrupt, "cannot read the entry: " + sys::StrError(e));
  }
  std::string distrust = S_ISREG(st.st_mode)
                             ? getDistrust(st, "the entry")
                             : std::string("the entry is not a regular file");
  if (!distrust.empty()) {
    ::close(fd);
    return reject(Status::Untrusted, distrust);
  }
  if (uint64_t(st.st_size) > kMaxEntryBytes) {
    ::close(fd);
    return reject(Status::Corrupt, "the entry is larger than " +
                                       Twine(kMaxEntryBytes) + " bytes");
  }
  std::string bytes;
  bool read = readAll(fd, uint64_t(st.st_size), bytes);
  int readError = errno;
  ::close(fd);
  if (!read)
    return reject(Status::Corrupt,
                  "cannot read the entry: " + sys::StrError(readError));

  // Magic, key, payload size and checksum, payload: every size is checked
  // against what the file holds before it is used.
  StringRef rest = bytes;
  if (!rest.consume_front(StringRef(kMagic, kMagicSize)) || rest.size() < 4)
    return reject(Status::Corrupt, "the entry has no NNIRKC02 header");
  uint32_t keySize = support::endian::read32le(rest.data());
  rest = rest.drop_front(4);
  if (rest.size() < uint64_t(keySize) + 8 + 32)
    return reject(Status::Corrupt, "the entry is truncated");
  StringRef recordedKey = rest.take_front(keySize);
  rest = rest.drop_front(keySize);
  uint64_t payloadSize = support::endian::read64le(rest.data());
  StringRef sum = rest.substr(8, 32);
  StringRef payload = rest.drop_front(8 + 32);
  if (payload.size() != payloadSize)
    return reject(Status::Corrupt, "the entry's payload is " +
                                       Twine(payload.size()) +
                                       " bytes, its header says " +
                                       Twine(payloadSize));
  std::array<uint8_t, 32> actual = sha256(payload);
  if (StringRef(reinterpret_cast<const char *>(actual.data()), 32) != sum)
    return reject(Status::Corrupt, "the entry's checksum does not match");
  if (recordedKey != key)
    return reject(Status::OtherKey,
                  "the entry records another key (copied or stale)");
  result.status = Status::Hit;
  result.object = payload.str();
  return result;
}

/// Writes all of \p bytes to \p fd.
static bool writeAll(int fd, StringRef bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    bytes = bytes.drop_front(size_t(n));
  }
  return true;
}

bool DiskCache::store(StringRef key, StringRef object) const {
  if (key.size() > UINT32_MAX)
    return false;
  std::string entry(kMagic, kMagicSize);
  char word[8];
  support::endian::write32le(word, uint32_t(key.size()));
  entry.append(word, 4);
  entry += key;
  support::endian::write64le(word, object.size());
  entry.append(word, 8);
  std::array<uint8_t, 32> sum = sha256(object);
  entry.append(reinterpret_cast<const char *>(sum.data()), 32);
  entry += object;

  std::string name = getEntryName(key);
  std::string temp;
  int fd = -1;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    temp = formatv("{0}.tmp{1:x8}{2:x8}", name, sys::Process::GetRandomNumber(),
                   sys::Process::GetRandomNumber())
               .str();
    fd = ::openat(dirFD, temp.c_str(),
                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST)
      return false;
  }
  if (fd < 0)
    return false;
  bool written = writeAll(fd, entry);
  written &= ::close(fd) == 0;
  // rename replaces whatever is at the entry's name (a corrupt, foreign or
  // untrusted file, a FIFO), atomically for readers.
  if (!written || ::renameat(dirFD, temp.c_str(), dirFD, name.c_str()) != 0) {
    ::unlinkat(dirFD, temp.c_str(), 0);
    return false;
  }
  return true;
}
