//===- NDArray.h - Dense host tensors ----------------------------*- C++ -*-===//
//
/// \file
/// NDArray is a dense, row-major, host tensor: a dtype, a shape and a 64-byte
/// aligned buffer shared by reference counting (copying an NDArray shares the
/// buffer). IR constants hold NDArrays; kernels read and write them.
///
/// A splat (every element the same, as `dense<1f> : Tensor[(4096, 4096),
/// float32]` writes) keeps only its element until something asks for the
/// buffer: element access, equality and the execution engine's splat runs
/// never allocate it; getData() fills it once, thread-safely.
///
/// A lazy saved array (loadBase64Lazy) keeps the base64 text it was read
/// from, in a file that stays mapped, until something asks for its bytes:
/// its dtype and shape are known at once, and printing it copies the text
/// (writeSavedBase64). A model's weights so never need to be resident when
/// a tool only reads and prints them.
///
/// save()/load() use TVM's binary format (SaveDLTensor / NDArray::Load), so
/// tensors from TVM's metadata sections and params files load unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_RUNTIME_NDARRAY_H
#define NNIR_RUNTIME_NDARRAY_H

#include "nnir/Runtime/DataType.h"
#include "nnir/Runtime/Shape.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace nnir {

class NDArray {
public:
  /// Alignment of every buffer, in bytes.
  static constexpr size_t kAlignment = 64;

  /// A null array (no storage). Most accessors require a non-null array.
  NDArray() = default;

  /// Allocates an array, zero-filled unless \p zeroFill is false (kernels
  /// that write every element skip the fill). Fails on an unsupported dtype,
  /// a negative extent, a size that overflows int64, a size above
  /// \p maxBytes, or an allocation failure; nothing is allocated then.
  static llvm::Expected<NDArray> create(DataType dtype,
                                        llvm::ArrayRef<int64_t> shape,
                                        uint64_t maxBytes = UINT64_MAX,
                                        bool zeroFill = true);

  /// Builds an array from raw row-major bytes (copied).
  static llvm::Expected<NDArray> fromBytes(DataType dtype,
                                           llvm::ArrayRef<int64_t> shape,
                                           llvm::ArrayRef<uint8_t> bytes);

  /// A 0-d array holding \p value converted to \p dtype (float16/bfloat16 are
  /// rounded to nearest even).
  static NDArray scalar(DataType dtype, double value);

  /// An array of \p shape whose every element has the raw bits
  /// \p elementBits (as setElementBits takes them). Fails as create() does,
  /// \p maxBytes bounding the size the buffer would have; an array of fewer
  /// than two elements is allocated at once.
  static llvm::Expected<NDArray> splat(DataType dtype,
                                       llvm::ArrayRef<int64_t> shape,
                                       uint64_t elementBits,
                                       uint64_t maxBytes = UINT64_MAX);

  /// Reads TVM's binary tensor format. Trailing bytes are an error.
  static llvm::Expected<NDArray> load(llvm::StringRef bytes,
                                      uint64_t maxBytes = UINT64_MAX);
  /// Reads TVM's binary tensor format from its base64 encoding (as metadata
  /// sections hold it), decoding the data straight into the new array's
  /// buffer: no copy of the decoded bytes is made. Errors are load()'s for
  /// the decoded bytes, or "invalid base64: ..." (llvm::decodeBase64's
  /// message) first when \p text is not base64.
  static llvm::Expected<NDArray> loadBase64(llvm::StringRef text,
                                            uint64_t maxBytes = UINT64_MAX);
  /// Called with a part of a lazy array's text once it has been read, so its
  /// pages can leave the resident set (nnir/Support/Heap.h's
  /// releaseMappedPages); the text must stay readable after the call.
  using TextRelease = std::function<void(llvm::StringRef)>;
  /// loadBase64(), except that the data is decoded only when first needed
  /// (getData() and what reads elements, hash(), bitwiseEqual()): \p text
  /// must stay valid and unchanged while \p keepAlive is held, which the
  /// array holds until it has decoded the data. The header is decoded and
  /// the whole text checked now, so every error is loadBase64's, here, and
  /// the later decode cannot fail. The decode calls \p release (if any)
  /// with \p text, and writeSavedBase64() with each piece it copies.
  /// Only a text that is exactly what writeSavedBase64() would stand for (the
  /// header saveHeader() writes, canonical base64) makes a lazy array;
  /// another is decoded at once, as loadBase64() does.
  static llvm::Expected<NDArray>
  loadBase64Lazy(llvm::StringRef text, std::shared_ptr<const void> keepAlive,
                 TextRelease release = {}, uint64_t maxBytes = UINT64_MAX);
  /// The length of the base64 text of the saved tensor that \p text starts
  /// with, as its header announces it (\p text may go on after it: a caller
  /// finds the end of a tensor's text without scanning it), or std::nullopt
  /// if \p text does not start with the base64 of a well-formed header.
  static std::optional<size_t> getBase64SavedLength(llvm::StringRef text);
  /// Writes TVM's binary tensor format: saveHeader(), then the data bytes.
  std::string save() const;
  /// The header of TVM's binary tensor format (what precedes the data).
  std::string saveHeader() const;
  /// If this is a lazy array whose data has not been decoded, writes the
  /// base64 text it was loaded from (the base64 of save()), a MiB at a time,
  /// releasing each piece once written, and returns true. Otherwise writes
  /// nothing and returns false. Safe while another thread decodes it.
  bool writeSavedBase64(llvm::raw_ostream &os) const;

  explicit operator bool() const { return storage != nullptr; }

  DataType getDType() const;
  llvm::ArrayRef<int64_t> getShape() const;
  unsigned getRank() const { return getShape().size(); }
  int64_t getNumElements() const;
  size_t getByteSize() const;

  /// The buffer (a splat's is filled, a lazy array's decoded, on the first
  /// call).
  const void *getData() const;
  /// Writable access. The array must not yet be shared with IR that others
  /// can see (constants are immutable once built). A splat stops being one.
  void *getMutableData();
  llvm::ArrayRef<uint8_t> getBytes() const;

  /// Made by splat() (and not written through getMutableData() since): its
  /// elements are known equal without reading a buffer.
  bool isSplat() const;
  /// At least two elements, all bitwise equal (a splat, or a buffer that
  /// happens to hold one value).
  bool isRepeated() const;

  /// Element \p index converted to double (integers exactly up to 2^53).
  double getElementAsDouble(int64_t index) const;
  /// Element \p index of an integer or bool array as int64.
  int64_t getElementAsInt(int64_t index) const;
  /// Stores \p value (converted) at \p index.
  void setElementFromDouble(int64_t index, double value);
  void setElementFromInt(int64_t index, int64_t value);
  /// The raw bits of element \p index (zero-extended; bool is one byte), and
  /// the inverse: a bit-exact way to read and write any element.
  uint64_t getElementBits(int64_t index) const;
  void setElementBits(int64_t index, uint64_t bits);

  /// Same dtype, shape and bytes.
  bool bitwiseEqual(const NDArray &other) const;
  /// Consistent with bitwiseEqual; a splat's buffer is not filled for it.
  llvm::hash_code hash() const;

  /// Two arrays share one buffer.
  bool sameAs(const NDArray &other) const { return storage == other.storage; }
  /// An address that identifies the buffer (equal exactly when sameAs), for
  /// keying tables without asking for the data.
  const void *getIdentity() const { return storage.get(); }

private:
  /// Where a lazy saved array's data is: the base64 text of save(), whose
  /// decoded header is headerBytes long. Only keepAlive, the owner of text,
  /// changes: the decode drops it (read and written atomically, as
  /// writeSavedBase64 may run meanwhile).
  struct SavedText {
    llvm::StringRef text;
    size_t headerBytes = 0;
    std::shared_ptr<const void> keepAlive;
    TextRelease release;
  };
  struct Storage : llvm::ThreadSafeRefCountedBase<Storage> {
    DataType dtype;
    Shape shape;
    int64_t numElements = 0;
    size_t byteSize = 0;
    void *data = nullptr;
    /// A splat: data stays null until getData() fills it (once) from
    /// element, the raw bits of every element.
    bool splat = false;
    alignas(8) uint8_t element[8] = {};
    /// Set for a lazy saved array (and never changed after): data stays
    /// null until getData() decodes it (once) from this text.
    std::unique_ptr<SavedText> saved;
    std::once_flag filled;
    ~Storage();
  };
  explicit NDArray(Storage *s) : storage(s) {}
  /// Fills a splat's buffer or decodes a lazy array's (getData()'s once).
  static void fillDeferred(Storage &s);
  /// The checked, unallocated storage of an array (see create()).
  static llvm::Expected<Storage *> makeStorage(DataType dtype,
                                               llvm::ArrayRef<int64_t> shape,
                                               uint64_t maxBytes);
  /// Where element \p index is: a splat's one element needs no buffer.
  const void *getElementAddress(int64_t index) const;
  llvm::IntrusiveRefCntPtr<Storage> storage;
};

/// IEEE half <-> float conversions (round to nearest even).
uint16_t floatToHalf(float value);
float halfToFloat(uint16_t bits);
/// bfloat16 <-> float conversions (round to nearest even; NaN stays NaN).
uint16_t floatToBFloat16(float value);
float bfloat16ToFloat(uint16_t bits);

} // namespace nnir

#endif // NNIR_RUNTIME_NDARRAY_H
