//===- Base64.h - Base64 at memory speed ------------------------*- C++ -*-===//
//
/// \file
/// Base64 (RFC 4648, '=' padding) for tensors of a hundred megabytes: the
/// decoder writes into memory the caller owns (an NDArray's buffer) and can
/// decode any byte range of the encoded stream, so a header and the data
/// that follows it go to different places without an intermediate copy; the
/// writer encodes straight into a raw_ostream, a chunk at a time.
///
/// llvm::decodeBase64/encodeBase64 build a std::vector/std::string of the
/// whole; they stay the reference for error messages (the decoder here only
/// says whether the text is canonical base64, so callers fall back to
/// llvm::decodeBase64 to describe what is wrong).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_SUPPORT_BASE64_H
#define NNIR_SUPPORT_BASE64_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace nnir {

/// The number of bytes \p text decodes to when it has the canonical form: a
/// length that is a multiple of 4 and '=' only as the one or two padding
/// characters of the last group. std::nullopt otherwise (the characters
/// themselves are checked by decodeBase64Range).
std::optional<size_t> getBase64DecodedSize(llvm::StringRef text);

/// Decodes bytes [\p offset, \p offset + out.size()) of what \p text encodes
/// into \p out. \p text must have the canonical form (getBase64DecodedSize)
/// and the range must lie within the decoded size. Returns false if a
/// character of the groups read is outside the alphabet, or if the bits a
/// padded last group leaves unused are not zero; \p out is then unspecified.
bool decodeBase64Range(llvm::StringRef text, size_t offset,
                       llvm::MutableArrayRef<uint8_t> out);

/// Whether \p text is canonical base64: the form getBase64DecodedSize
/// takes, every character but the padding in the alphabet, and the bits a
/// padded last group leaves unused zero. Exactly the texts that
/// decodeBase64Range decodes without failing, checked without decoding them
/// (10 GB/s), so that a decode deferred until later cannot fail.
bool isCanonicalBase64(llvm::StringRef text);

/// Encodes a byte stream given in pieces (a header, then data) to a
/// raw_ostream as one base64 text: bytes that do not complete a group are
/// carried to the next piece.
class Base64Writer {
public:
  explicit Base64Writer(llvm::raw_ostream &os) : os(os) {}
  Base64Writer(const Base64Writer &) = delete;
  Base64Writer &operator=(const Base64Writer &) = delete;
  /// Calls finish() if it was not called.
  ~Base64Writer() { finish(); }

  void write(llvm::ArrayRef<uint8_t> bytes);
  void write(llvm::StringRef bytes) {
    write(llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  }
  /// Writes the last, padded group.
  void finish();

private:
  llvm::raw_ostream &os;
  uint8_t carry[3] = {};
  unsigned carried = 0;
  bool finished = false;
};

} // namespace nnir

#endif // NNIR_SUPPORT_BASE64_H
