//===- NDArray.cpp - Dense host tensors -----------------------------------===//
//
/// \file
/// Storage, element access and TVM's binary tensor format:
///   u64 magic 0xDD5E40F096B4A13F, u64 reserved, i32 device_type (1 = CPU),
///   i32 device_id, i32 ndim, u8 code, u8 bits, u16 lanes, i64 shape[ndim],
///   i64 data_byte_size, raw little-endian row-major data.
//
//===----------------------------------------------------------------------===//

#include "nnir/Runtime/NDArray.h"

#include "nnir/Support/Base64.h"

#include "llvm/Support/Base64.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <sys/mman.h>
#endif

using namespace llvm;
using namespace nnir;

static constexpr uint64_t kTVMNDArrayMagic = 0xDD5E40F096B4A13FULL;
static constexpr int32_t kDLCPU = 1;

NDArray::Storage::~Storage() { std::free(data); }

/// \p bytes (a multiple of kAlignment) of kAlignment-aligned memory. Arrays
/// of a huge page or more start on a huge-page boundary and ask for
/// transparent huge pages (Linux's "madvise" mode, Debian's default):
/// filling a 64 MiB array then takes 32 page faults instead of 16,384, which
/// were most of the time of writing large constants. The alignment slack is
/// address space only; no page of it is touched.
static void *allocateData(size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr size_t kHugePage = size_t(2) << 20;
  if (bytes >= kHugePage) {
    void *data = nullptr;
    if (posix_memalign(&data, kHugePage, bytes) == 0) {
      (void)madvise(data, alignTo(bytes, 4096), MADV_HUGEPAGE);
      return data;
    }
  }
#endif
  return std::aligned_alloc(NDArray::kAlignment, bytes);
}

Expected<NDArray::Storage *> NDArray::makeStorage(DataType dtype,
                                                  ArrayRef<int64_t> shape,
                                                  uint64_t maxBytes) {
  if (!dtype.isSupported())
    return createStringError(inconvertibleErrorCode(),
                             "unsupported dtype '%s'", dtype.str().c_str());
  if (!isStaticShape(shape)) {
    std::string text;
    raw_string_ostream os(text);
    printShape(os, shape);
    return createStringError(inconvertibleErrorCode(),
                             "cannot allocate a tensor of dynamic shape " +
                                 text);
  }
  std::optional<int64_t> count = nnir::getNumElements(shape);
  std::optional<int64_t> bytes =
      nnir::getByteSize(shape, dtype.getStorageBytes());
  if (!count || !bytes)
    return createStringError(inconvertibleErrorCode(),
                             "tensor size overflows or has a negative extent");
  if (static_cast<uint64_t>(*bytes) > maxBytes)
    return createStringError(
        inconvertibleErrorCode(),
        formatv("tensor of {0} bytes exceeds the limit of {1} bytes", *bytes,
                maxBytes)
            .str());
  // The buffer is rounded up to the alignment (getAllocBytes).
  if (static_cast<uint64_t>(*bytes) > SIZE_MAX - kAlignment)
    return createStringError(inconvertibleErrorCode(), "tensor too large");
  auto *s = new Storage();
  s->dtype = dtype;
  s->shape.assign(shape.begin(), shape.end());
  s->numElements = *count;
  s->byteSize = static_cast<size_t>(*bytes);
  return s;
}

/// The bytes a buffer of \p byteSize bytes is allocated with (aligned_alloc
/// needs a multiple of the alignment).
static size_t getAllocBytes(size_t byteSize) {
  return alignTo(std::max<size_t>(byteSize, 1), NDArray::kAlignment);
}

Expected<NDArray> NDArray::create(DataType dtype, ArrayRef<int64_t> shape,
                                  uint64_t maxBytes, bool zeroFill) {
  Expected<Storage *> s = makeStorage(dtype, shape, maxBytes);
  if (!s)
    return s.takeError();
  NDArray array(*s);
  size_t allocBytes = getAllocBytes((*s)->byteSize);
  (*s)->data = allocateData(allocBytes);
  if (!(*s)->data)
    return createStringError(
        inconvertibleErrorCode(),
        formatv("cannot allocate a tensor of {0} bytes", (*s)->byteSize)
            .str());
  if (zeroFill)
    std::memset((*s)->data, 0, allocBytes);
  return array;
}

template <typename T>
static void storeAs(void *data, int64_t index, T value) {
  std::memcpy(static_cast<char *>(data) + index * sizeof(T), &value,
              sizeof(T));
}

/// Stores the low bits of \p bits, as a \p size-byte element, at \p address.
static void storeBits(void *address, size_t size, uint64_t bits) {
  switch (size) {
  case 1:
    return storeAs<uint8_t>(address, 0, bits);
  case 2:
    return storeAs<uint16_t>(address, 0, bits);
  case 4:
    return storeAs<uint32_t>(address, 0, bits);
  default:
    return storeAs<uint64_t>(address, 0, bits);
  }
}

Expected<NDArray> NDArray::splat(DataType dtype, ArrayRef<int64_t> shape,
                                 uint64_t elementBits, uint64_t maxBytes) {
  std::optional<int64_t> count = nnir::getNumElements(shape);
  if (count && *count < 2) {
    // Nothing to save: a buffer of at most one element.
    Expected<NDArray> array = create(dtype, shape, maxBytes);
    if (array && *count)
      array->setElementBits(0, elementBits);
    return array;
  }
  Expected<Storage *> s = makeStorage(dtype, shape, maxBytes);
  if (!s)
    return s.takeError();
  (*s)->splat = true;
  storeBits((*s)->element, dtype.getStorageBytes(), elementBits);
  return NDArray(*s);
}

Expected<NDArray> NDArray::fromBytes(DataType dtype, ArrayRef<int64_t> shape,
                                     ArrayRef<uint8_t> bytes) {
  Expected<NDArray> array =
      create(dtype, shape, UINT64_MAX, /*zeroFill=*/false);
  if (!array)
    return array.takeError();
  if (array->getByteSize() != bytes.size())
    return createStringError(
        inconvertibleErrorCode(),
        formatv("expected {0} bytes of data, got {1}", array->getByteSize(),
                bytes.size())
            .str());
  if (!bytes.empty())
    std::memcpy(array->getMutableData(), bytes.data(), bytes.size());
  return array;
}

NDArray NDArray::scalar(DataType dtype, double value) {
  NDArray array = cantFail(create(dtype, {}));
  array.setElementFromDouble(0, value);
  return array;
}

// A null NDArray (default-constructed, or moved from) has no storage: reading
// it is a bug of the caller, asserted here.
DataType NDArray::getDType() const {
  assert(storage && "accessing a null NDArray");
  return storage->dtype;
}
ArrayRef<int64_t> NDArray::getShape() const {
  assert(storage && "accessing a null NDArray");
  return storage->shape;
}
int64_t NDArray::getNumElements() const {
  assert(storage && "accessing a null NDArray");
  return storage->numElements;
}
size_t NDArray::getByteSize() const {
  assert(storage && "accessing a null NDArray");
  return storage->byteSize;
}

void NDArray::fillDeferred(Storage &s) {
  size_t allocBytes = getAllocBytes(s.byteSize);
  auto *out = static_cast<uint8_t *>(allocateData(allocBytes));
  if (!out)
    report_bad_alloc_error(s.saved ? "cannot decode a tensor"
                                   : "cannot fill a splat tensor");
  if (SavedText *saved = s.saved.get()) {
    // The text was checked when the array was made.
    bool decoded = decodeBase64Range(saved->text, saved->headerBytes,
                                     MutableArrayRef(out, s.byteSize));
    assert(decoded && "a checked base64 text did not decode");
    (void)decoded;
    s.data = out;
    if (saved->release)
      saved->release(saved->text);
    std::atomic_store(&saved->keepAlive, std::shared_ptr<const void>());
    return;
  }
  // Replicate the element by doubling the filled prefix (a few memcpy
  // calls for any size).
  size_t size = s.dtype.getStorageBytes();
  std::memcpy(out, s.element, size);
  for (size_t filled = size; filled < s.byteSize; filled *= 2)
    std::memcpy(out + filled, out, std::min(filled, s.byteSize - filled));
  s.data = out;
}

const void *NDArray::getData() const {
  assert(storage && "accessing a null NDArray");
  Storage &s = *storage;
  if (s.splat || s.saved)
    std::call_once(s.filled, fillDeferred, std::ref(s));
  return s.data;
}
void *NDArray::getMutableData() {
  void *data = const_cast<void *>(getData());
  storage->splat = false;
  return data;
}

ArrayRef<uint8_t> NDArray::getBytes() const {
  return ArrayRef<uint8_t>(static_cast<const uint8_t *>(getData()),
                           storage->byteSize);
}

bool NDArray::isSplat() const {
  assert(storage && "accessing a null NDArray");
  return storage->splat;
}

/// Whether the \p count elements of \p size bytes at \p data are all equal:
/// each element equals the next one exactly when the buffer equals itself
/// shifted by one element.
static bool repeats(const uint8_t *data, int64_t count, size_t size) {
  return count >= 2 &&
         std::memcmp(data, data + size, (count - 1) * size) == 0;
}

/// Whether the \p byteSize bytes that \p text (checked base64) encodes
/// after \p headerBytes are elements of \p size bytes all equal, decoded a
/// piece at a time: an array of weights differs in its first piece.
static bool savedRepeats(StringRef text, size_t headerBytes, size_t byteSize,
                         size_t size) {
  constexpr size_t kPieceBytes = 16384;
  size_t piece = std::min(byteSize, kPieceBytes / size * size);
  uint8_t first[kPieceBytes], next[kPieceBytes];
  (void)decodeBase64Range(text, headerBytes, MutableArrayRef(first, piece));
  if (!repeats(first, piece / size, size))
    return false;
  for (size_t at = piece; at < byteSize; at += piece) {
    size_t bytes = std::min(piece, byteSize - at);
    (void)decodeBase64Range(text, headerBytes + at,
                            MutableArrayRef(next, bytes));
    if (std::memcmp(first, next, bytes))
      return false;
  }
  return true;
}

bool NDArray::isRepeated() const {
  if (isSplat())
    return true;
  // An undecoded array is read from its text, without decoding the whole.
  if (SavedText *saved = storage->saved.get();
      saved && getNumElements() >= 2)
    if (std::shared_ptr<const void> hold = std::atomic_load(&saved->keepAlive)) {
      bool result = savedRepeats(saved->text, saved->headerBytes, getByteSize(),
                                 getDType().getStorageBytes());
      if (result && saved->release)
        saved->release(saved->text); // It was all read.
      return result;
    }
  return repeats(static_cast<const uint8_t *>(getData()), getNumElements(),
                 getDType().getStorageBytes());
}

const void *NDArray::getElementAddress(int64_t index) const {
  assert(storage && "accessing a null NDArray");
  if (storage->splat)
    return storage->element;
  return static_cast<const uint8_t *>(getData()) +
         index * getDType().getStorageBytes();
}

//===----------------------------------------------------------------------===//
// Half and bfloat16 conversions
//===----------------------------------------------------------------------===//

uint16_t nnir::floatToHalf(float value) {
  uint32_t f;
  std::memcpy(&f, &value, 4);
  uint32_t sign = (f >> 16) & 0x8000;
  uint32_t exp = (f >> 23) & 0xff;
  uint32_t mant = f & 0x7fffff;
  if (exp == 0xff) // Inf or NaN (keep a quiet NaN).
    return sign | 0x7c00 | (mant ? 0x200 | (mant >> 13) : 0);
  int32_t e = static_cast<int32_t>(exp) - 127 + 15;
  if (e >= 0x1f) // Overflow to infinity.
    return sign | 0x7c00;
  if (e <= 0) {
    // Subnormal half or zero.
    if (e < -10)
      return sign;
    mant |= 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half & 1)))
      ++half;
    return sign | half;
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
    ++half; // May carry into the exponent, which is correct rounding.
  return sign | half;
}

float nnir::halfToFloat(uint16_t bits) {
  uint32_t sign = (bits & 0x8000u) << 16;
  uint32_t exp = (bits >> 10) & 0x1f;
  uint32_t mant = bits & 0x3ff;
  uint32_t f;
  if (exp == 0) {
    if (mant == 0) {
      f = sign;
    } else {
      // Normalise a subnormal.
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400));
      f = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) |
          ((mant & 0x3ff) << 13);
    }
  } else if (exp == 0x1f) {
    f = sign | 0x7f800000 | (mant << 13);
  } else {
    f = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float result;
  std::memcpy(&result, &f, 4);
  return result;
}

uint16_t nnir::floatToBFloat16(float value) {
  uint32_t f;
  std::memcpy(&f, &value, 4);
  if (std::isnan(value))
    return static_cast<uint16_t>((f >> 16) | 0x40);
  uint32_t rounding = 0x7fff + ((f >> 16) & 1);
  return static_cast<uint16_t>((f + rounding) >> 16);
}

float nnir::bfloat16ToFloat(uint16_t bits) {
  uint32_t f = static_cast<uint32_t>(bits) << 16;
  float result;
  std::memcpy(&result, &f, 4);
  return result;
}

//===----------------------------------------------------------------------===//
// Element access
//===----------------------------------------------------------------------===//

template <typename T> static T loadAs(const void *address) {
  T value;
  std::memcpy(&value, address, sizeof(T));
  return value;
}

double NDArray::getElementAsDouble(int64_t index) const {
  DataType t = getDType();
  const void *d = getElementAddress(index);
  if (t.isBool())
    return loadAs<uint8_t>(d) ? 1.0 : 0.0;
  switch (t.getCode()) {
  case DataType::Float:
    if (t.getBits() == 16)
      return halfToFloat(loadAs<uint16_t>(d));
    if (t.getBits() == 32)
      return loadAs<float>(d);
    return loadAs<double>(d);
  case DataType::BFloat:
    return bfloat16ToFloat(loadAs<uint16_t>(d));
  case DataType::UInt:
    switch (t.getBits()) {
    case 8:
      return loadAs<uint8_t>(d);
    case 16:
      return loadAs<uint16_t>(d);
    case 32:
      return loadAs<uint32_t>(d);
    default:
      return static_cast<double>(loadAs<uint64_t>(d));
    }
  default:
    return static_cast<double>(getElementAsInt(index));
  }
}

int64_t NDArray::getElementAsInt(int64_t index) const {
  DataType t = getDType();
  const void *d = getElementAddress(index);
  if (t.isBool())
    return loadAs<uint8_t>(d) ? 1 : 0;
  if (t.isFloatingPoint())
    return static_cast<int64_t>(getElementAsDouble(index));
  bool isSigned = t.isInt();
  switch (t.getBits()) {
  // Each branch converts to int64 on its own: `c ? int32_t : uint32_t` would
  // convert the signed value to uint32_t first.
  case 8:
    return isSigned ? int64_t(loadAs<int8_t>(d))
                    : int64_t(loadAs<uint8_t>(d));
  case 16:
    return isSigned ? int64_t(loadAs<int16_t>(d))
                    : int64_t(loadAs<uint16_t>(d));
  case 32:
    return isSigned ? int64_t(loadAs<int32_t>(d))
                    : int64_t(loadAs<uint32_t>(d));
  default:
    return loadAs<int64_t>(d);
  }
}

/// Converts \p value to an integer type's range without undefined behaviour
/// (NaN becomes 0; out-of-range values saturate).
template <typename T> static T saturate(double value) {
  if (std::isnan(value))
    return 0;
  if (value <= static_cast<double>(std::numeric_limits<T>::min()))
    return std::numeric_limits<T>::min();
  if (value >= static_cast<double>(std::numeric_limits<T>::max()))
    return std::numeric_limits<T>::max();
  return static_cast<T>(value);
}

void NDArray::setElementFromDouble(int64_t index, double value) {
  DataType t = getDType();
  void *d = getMutableData();
  if (t.isBool())
    return storeAs<uint8_t>(d, index, value != 0.0 ? 1 : 0);
  switch (t.getCode()) {
  case DataType::Float:
    if (t.getBits() == 16)
      return storeAs<uint16_t>(d, index,
                               floatToHalf(static_cast<float>(value)));
    if (t.getBits() == 32)
      return storeAs<float>(d, index, static_cast<float>(value));
    return storeAs<double>(d, index, value);
  case DataType::BFloat:
    return storeAs<uint16_t>(d, index,
                             floatToBFloat16(static_cast<float>(value)));
  case DataType::Int:
    switch (t.getBits()) {
    case 8:
      return storeAs(d, index, saturate<int8_t>(value));
    case 16:
      return storeAs(d, index, saturate<int16_t>(value));
    case 32:
      return storeAs(d, index, saturate<int32_t>(value));
    default:
      return storeAs(d, index, saturate<int64_t>(value));
    }
  default:
    switch (t.getBits()) {
    case 8:
      return storeAs(d, index, saturate<uint8_t>(value));
    case 16:
      return storeAs(d, index, saturate<uint16_t>(value));
    case 32:
      return storeAs(d, index, saturate<uint32_t>(value));
    default:
      return storeAs(d, index, saturate<uint64_t>(value));
    }
  }
}

void NDArray::setElementFromInt(int64_t index, int64_t value) {
  DataType t = getDType();
  if (t.isFloatingPoint())
    return setElementFromDouble(index, static_cast<double>(value));
  if (t.isBool())
    return setElementBits(index, value != 0 ? 1 : 0);
  // Two's complement truncation, as a C cast to the narrower type does.
  setElementBits(index, static_cast<uint64_t>(value));
}

uint64_t NDArray::getElementBits(int64_t index) const {
  const void *d = getElementAddress(index);
  switch (getDType().getStorageBytes()) {
  case 1:
    return loadAs<uint8_t>(d);
  case 2:
    return loadAs<uint16_t>(d);
  case 4:
    return loadAs<uint32_t>(d);
  default:
    return loadAs<uint64_t>(d);
  }
}

void NDArray::setElementBits(int64_t index, uint64_t bits) {
  size_t size = getDType().getStorageBytes();
  storeBits(static_cast<uint8_t *>(getMutableData()) + index * size, size,
            bits);
}

bool NDArray::bitwiseEqual(const NDArray &other) const {
  if (sameAs(other))
    return true;
  if (!storage || !other.storage)
    return false;
  if (getDType() != other.getDType() || getShape() != other.getShape())
    return false;
  // A splat equals an array whose elements all are its element, which is
  // decided without filling its buffer.
  if (isSplat() || other.isSplat()) {
    const NDArray &splat = isSplat() ? *this : other;
    const NDArray &rest = isSplat() ? other : *this;
    return getNumElements() == 0 ||
           (splat.getElementBits(0) == rest.getElementBits(0) &&
            rest.isRepeated());
  }
  return getBytes() == other.getBytes();
}

hash_code NDArray::hash() const {
  if (!storage)
    return hash_value(0);
  hash_code header =
      hash_combine(getDType(),
                   hash_combine_range(getShape().begin(), getShape().end()));
  // Equal arrays are both repeated or both not, so a repeated one hashes
  // its element alone: a splat's buffer is never filled for it.
  if (isRepeated())
    return hash_combine(header, getElementBits(0));
  ArrayRef<uint8_t> bytes = getBytes();
  return hash_combine(header, hash_combine_range(bytes.begin(), bytes.end()));
}

//===----------------------------------------------------------------------===//
// TVM binary format
//===----------------------------------------------------------------------===//

std::string NDArray::save() const {
  std::string out = saveHeader();
  ArrayRef<uint8_t> bytes = getBytes();
  out.append(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  return out;
}

std::string NDArray::saveHeader() const {
  std::string out;
  auto put = [&](auto value) {
    using T = decltype(value);
    char buf[sizeof(T)];
    support::endian::write<T, llvm::endianness::little>(buf, value);
    out.append(buf, sizeof(T));
  };
  DataType t = getDType();
  put(kTVMNDArrayMagic);
  put(uint64_t(0));
  put(int32_t(kDLCPU));
  put(int32_t(0));
  put(int32_t(getRank()));
  put(uint8_t(t.getCode()));
  put(uint8_t(t.getBits()));
  put(uint16_t(t.getLanes()));
  for (int64_t dim : getShape())
    put(dim);
  put(int64_t(getByteSize()));
  return out;
}

namespace {
/// What the header of a saved tensor says.
struct SavedHeader {
  DataType dtype;
  Shape shape;
  /// Bytes of the header; the data follows.
  size_t size = 0;
};
} // namespace

/// The largest header: 40 bytes and 64 extents.
static constexpr size_t kMaxSavedHeaderBytes = 40 + 8 * 64;

/// Reads and checks the header at the start of \p prefix, a saved tensor of
/// \p totalBytes bytes in all (of which \p prefix holds at least the first
/// min(totalBytes, kMaxSavedHeaderBytes)).
static Expected<SavedHeader> readSavedHeader(StringRef prefix,
                                             uint64_t totalBytes) {
  size_t pos = 0;
  auto truncated = [&]() {
    return createStringError(
        inconvertibleErrorCode(),
        formatv("truncated tensor data: {0} bytes", totalBytes).str());
  };
  auto get = [&](auto &value) -> bool {
    using T = std::remove_reference_t<decltype(value)>;
    if (prefix.size() - pos < sizeof(T))
      return false;
    value = support::endian::read<T, llvm::endianness::little>(prefix.data() +
                                                               pos);
    pos += sizeof(T);
    return true;
  };
  uint64_t magic, reserved;
  int32_t deviceType, deviceId, ndim;
  uint8_t code, bits;
  uint16_t lanes;
  if (!get(magic) || !get(reserved) || !get(deviceType) || !get(deviceId) ||
      !get(ndim) || !get(code) || !get(bits) || !get(lanes))
    return truncated();
  if (magic != kTVMNDArrayMagic)
    return createStringError(inconvertibleErrorCode(),
                             "invalid tensor data: bad magic number");
  if (deviceType != kDLCPU)
    return createStringError(
        inconvertibleErrorCode(),
        formatv("invalid tensor data: device type {0} is not CPU", deviceType)
            .str());
  if (ndim < 0 || ndim > 64)
    return createStringError(
        inconvertibleErrorCode(),
        formatv("invalid tensor data: rank {0}", ndim).str());
  SavedHeader header;
  header.dtype = DataType(static_cast<DataType::Code>(code), bits, lanes);
  if (!header.dtype.isSupported())
    return createStringError(
        inconvertibleErrorCode(),
        formatv("unsupported tensor dtype (code {0}, bits {1}, lanes {2})",
                code, bits, lanes)
            .str());
  for (int32_t i = 0; i < ndim; ++i) {
    int64_t dim;
    if (!get(dim))
      return truncated();
    header.shape.push_back(dim);
  }
  int64_t dataBytes;
  if (!get(dataBytes))
    return truncated();
  header.size = pos;
  std::optional<int64_t> expected =
      nnir::getByteSize(header.shape, header.dtype.getStorageBytes());
  if (!expected)
    return createStringError(inconvertibleErrorCode(),
                             "invalid tensor data: shape overflows or has a "
                             "negative extent");
  if (dataBytes != *expected)
    return createStringError(
        inconvertibleErrorCode(),
        formatv("invalid tensor data: {0} data bytes for a tensor of {1} bytes",
                dataBytes, *expected)
            .str());
  if (totalBytes - pos < static_cast<uint64_t>(dataBytes))
    return truncated();
  if (totalBytes - pos != static_cast<uint64_t>(dataBytes))
    return createStringError(
        inconvertibleErrorCode(),
        formatv("invalid tensor data: {0} trailing bytes",
                totalBytes - pos - dataBytes)
            .str());
  return header;
}

Expected<NDArray> NDArray::load(StringRef bytes, uint64_t maxBytes) {
  Expected<SavedHeader> header = readSavedHeader(bytes, bytes.size());
  if (!header)
    return header.takeError();
  // Little-endian data, as the host's: one copy.
  Expected<NDArray> array =
      create(header->dtype, header->shape, maxBytes, /*zeroFill=*/false);
  if (!array)
    return array.takeError();
  if (size_t dataBytes = array->getByteSize())
    std::memcpy(array->getMutableData(), bytes.data() + header->size,
                dataBytes);
  return array;
}

std::optional<size_t> NDArray::getBase64SavedLength(StringRef text) {
  // Only the groups that hold the header are read: what follows the text of
  // a small tensor is not base64.
  uint8_t prefix[kMaxSavedHeaderBytes];
  auto decodePrefix = [&](size_t bytes) {
    StringRef groups = text.take_front((bytes + 2) / 3 * 4);
    return groups.size() % 4 == 0 &&
           *getBase64DecodedSize(groups) >= bytes &&
           decodeBase64Range(groups, 0, MutableArrayRef(prefix, bytes));
  };
  // The rank gives the header's size and so where the data size is; the
  // header is then checked as load() checks it, against that size.
  if (!decodePrefix(28))
    return std::nullopt;
  int32_t ndim = int32_t(support::endian::read32le(prefix + 24));
  size_t headerBytes = 40 + 8 * size_t(std::clamp(ndim, 0, 64));
  if (!decodePrefix(headerBytes))
    return std::nullopt;
  uint64_t dataBytes = support::endian::read64le(prefix + headerBytes - 8);
  if (dataBytes > (uint64_t(1) << 62))
    return std::nullopt;
  uint64_t total = headerBytes + dataBytes;
  Expected<SavedHeader> header = readSavedHeader(
      StringRef(reinterpret_cast<const char *>(prefix), headerBytes), total);
  if (!header) {
    consumeError(header.takeError());
    return std::nullopt;
  }
  return size_t((total + 2) / 3 * 4);
}

/// The header of the saved tensor \p text encodes, if \p text has the
/// canonical form (getBase64DecodedSize) and starts with the base64 of a
/// header that load() accepts for the decoded size; its bytes are left in
/// \p prefix.
static std::optional<SavedHeader>
decodeBase64Header(StringRef text, uint8_t (&prefix)[kMaxSavedHeaderBytes]) {
  std::optional<size_t> size = getBase64DecodedSize(text);
  if (!size)
    return std::nullopt;
  size_t prefixBytes = std::min(*size, kMaxSavedHeaderBytes);
  if (!decodeBase64Range(text, 0, MutableArrayRef(prefix, prefixBytes)))
    return std::nullopt;
  Expected<SavedHeader> header = readSavedHeader(
      StringRef(reinterpret_cast<const char *>(prefix), prefixBytes), *size);
  if (!header) {
    consumeError(header.takeError());
    return std::nullopt;
  }
  return std::move(*header);
}

Expected<NDArray> NDArray::loadBase64(StringRef text, uint64_t maxBytes) {
  uint8_t prefix[kMaxSavedHeaderBytes];
  // A bad header or a base64 error further on is reported below.
  if (std::optional<SavedHeader> header = decodeBase64Header(text, prefix)) {
    Expected<NDArray> array =
        create(header->dtype, header->shape, maxBytes, /*zeroFill=*/false);
    if (!array)
      return array.takeError();
    auto *data = static_cast<uint8_t *>(array->getMutableData());
    if (decodeBase64Range(text, header->size,
                          MutableArrayRef(data, array->getByteSize())))
      return array;
  }
  // Text this decoder does not take (not canonical, not base64) or a bad
  // header: llvm's decoder and load() say what is wrong.
  std::vector<char> bytes;
  if (Error err = decodeBase64(text, bytes))
    return createStringError(inconvertibleErrorCode(),
                             "invalid base64: " + toString(std::move(err)));
  return load(StringRef(bytes.data(), bytes.size()), maxBytes);
}

Expected<NDArray> NDArray::loadBase64Lazy(StringRef text,
                                          std::shared_ptr<const void> keepAlive,
                                          TextRelease release,
                                          uint64_t maxBytes) {
  uint8_t prefix[kMaxSavedHeaderBytes];
  if (std::optional<SavedHeader> header = decodeBase64Header(text, prefix)) {
    // create()'s checks, without the buffer.
    Expected<Storage *> s = makeStorage(header->dtype, header->shape, maxBytes);
    if (!s)
      return s.takeError();
    NDArray array(*s);
    StringRef headerBytes(reinterpret_cast<const char *>(prefix),
                          header->size);
    if (keepAlive && array.saveHeader() == headerBytes &&
        isCanonicalBase64(text)) {
      (*s)->saved.reset(new SavedText{text, header->size, std::move(keepAlive),
                                      std::move(release)});
      return array;
    }
  }
  // Not what the printer writes, or not valid: decoded now, or the error.
  return loadBase64(text, maxBytes);
}

bool NDArray::writeSavedBase64(raw_ostream &os) const {
  SavedText *saved = storage ? storage->saved.get() : nullptr;
  if (!saved)
    return false;
  // The text stays valid while this is held, even if another thread
  // decodes the array meanwhile and drops the array's own reference.
  std::shared_ptr<const void> hold = std::atomic_load(&saved->keepAlive);
  if (!hold)
    return false;
  constexpr size_t kPieceBytes = size_t(1) << 20;
  for (size_t at = 0; at < saved->text.size(); at += kPieceBytes) {
    StringRef piece = saved->text.substr(at, kPieceBytes);
    os << piece;
    if (saved->release)
      saved->release(piece);
  }
  return true;
}
