//===- NumPy.cpp - NumPy .npy and .npz files ------------------------------===//
//
/// \file
/// The `.npy` format (numpy/lib/format.py): the magic string "\x93NUMPY", a
/// major and a minor version byte, the header length (u16 in version 1, u32
/// in versions 2 and 3), then the header: a Python dict literal with the keys
/// 'descr', 'fortran_order' and 'shape', padded with spaces and ended by a
/// newline. The raw data follows. Version 3 only allows UTF-8 in the header,
/// which changes nothing for the dtypes nnir reads.
//
//===----------------------------------------------------------------------===//

#include "nnir/Runtime/NumPy.h"
#include "nnir/Support/Files.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <zip.h>

#include <cassert>
#include <cstring>

using namespace llvm;
using namespace nnir;

static constexpr char kMagic[] = "\x93NUMPY";
static constexpr size_t kMagicSize = 6;
/// NumPy aligns the start of the data to this many bytes.
static constexpr size_t kHeaderAlign = 64;

static Error npyError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// Descriptors
//===----------------------------------------------------------------------===//

std::string nnir::getNpyDescr(DataType dtype) {
  const DataTypeInfo *info = dtype.getInfo();
  assert(info && "an NDArray's dtype is supported");
  return info->npyDescr.str();
}

/// The dtype of a NumPy descriptor string, or an error that says why it is
/// not one nnir reads.
static Expected<DataType> parseDescr(StringRef descr) {
  if (descr.size() < 3)
    return npyError("unsupported dtype descriptor '" + descr + "'");
  char order = descr[0];
  char kind = descr[1];
  unsigned bytes;
  if (descr.drop_front(2).getAsInteger(10, bytes))
    return npyError("unsupported dtype descriptor '" + descr + "'");
  if (order == '>' && bytes > 1)
    return npyError("big-endian data ('" + descr +
                    "') is not supported; convert with "
                    "arr.astype(arr.dtype.newbyteorder('<'))");
  if (order != '<' && order != '|' && order != '=' && order != '>')
    return npyError("unsupported dtype descriptor '" + descr + "'");
  // The kind and size of a row's descriptor ("<f4": 'f', 4), whichever byte
  // order it is written with.
  std::optional<DataType> dtype;
  for (const DataTypeInfo &info : DataType::getAll())
    if (info.npyDescr[1] == kind && info.type.getStorageBytes() == bytes)
      dtype = info.type;
  if (!dtype)
    return npyError("unsupported dtype descriptor '" + descr +
                    "' (nnir reads bool, int8-64, uint8-64, float16/32/64 "
                    "and bfloat16 as '<V2')");
  return *dtype;
}

//===----------------------------------------------------------------------===//
// The header dict
//===----------------------------------------------------------------------===//

namespace {
/// A parser for the one Python literal a `.npy` header holds:
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.
class HeaderParser {
public:
  explicit HeaderParser(StringRef text) : rest(text) {}

  Error parse() {
    if (!consume('{'))
      return error("expected '{'");
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      if (Error e = parseString(key))
        return e;
      if (!consume(':'))
        return error("expected ':' after '" + key + "'");
      if (key == "descr") {
        skipSpace();
        if (rest.starts_with("["))
          return npyError("structured dtypes are not supported");
        if (Error e = parseString(descr))
          return e;
        haveDescr = true;
      } else if (key == "fortran_order") {
        skipSpace();
        if (rest.consume_front("True"))
          fortranOrder = true;
        else if (rest.consume_front("False"))
          fortranOrder = false;
        else
          return error("expected True or False for 'fortran_order'");
        haveOrder = true;
      } else if (key == "shape") {
        if (Error e = parseShape())
          return e;
        haveShape = true;
      } else {
        return error("unexpected key '" + key + "'");
      }
      skipSpace();
      if (consume('}'))
        break;
      if (!consume(','))
        return error("expected ',' or '}'");
    }
    skipSpace();
    if (!rest.empty())
      return error("unexpected text after the header dict");
    if (!haveDescr || !haveOrder || !haveShape)
      return error("the header lacks one of 'descr', 'fortran_order', "
                   "'shape'");
    return Error::success();
  }

  std::string descr;
  bool fortranOrder = false;
  Shape shape;

private:
  Error error(const Twine &message) {
    return npyError("malformed .npy header: " + message);
  }
  void skipSpace() { rest = rest.ltrim(" \t\n\r"); }
  bool consume(char c) {
    skipSpace();
    return rest.consume_front(StringRef(&c, 1));
  }
  Error parseString(std::string &out) {
    skipSpace();
    if (rest.empty() || (rest[0] != '\'' && rest[0] != '"'))
      return error("expected a string");
    char quote = rest[0];
    size_t end = rest.find(quote, 1);
    if (end == StringRef::npos)
      return error("unterminated string");
    out = rest.substr(1, end - 1).str();
    rest = rest.drop_front(end + 1);
    return Error::success();
  }
  Error parseShape() {
    if (!consume('('))
      return error("expected '(' for 'shape'");
    while (true) {
      if (consume(')'))
        return Error::success();
      skipSpace();
      size_t digits = 0;
      while (digits < rest.size() && isDigit(rest[digits]))
        ++digits;
      int64_t extent;
      if (digits == 0 || rest.take_front(digits).getAsInteger(10, extent))
        return error("expected a non-negative integer extent in 'shape'");
      rest = rest.drop_front(digits);
      shape.push_back(extent);
      if (consume(')'))
        return Error::success();
      if (!consume(','))
        return error("expected ',' or ')' in 'shape'");
    }
  }

  StringRef rest;
  bool haveDescr = false, haveOrder = false, haveShape = false;
};
} // namespace

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

namespace {
/// What a `.npy` header declares.
struct NpyHeader {
  DataType dtype;
  Shape shape;
  /// Where the data starts, and its bytes.
  uint64_t dataOffset = 0;
  uint64_t dataBytes = 0;
};
} // namespace

/// The bytes a header needs before its length is known: magic, version and
/// the length field of versions 2 and 3.
static constexpr size_t kNpyPrefix = kMagicSize + 2 + 4;

/// The size of the header that \p bytes (at least kNpyPrefix bytes, or all
/// of a shorter file) starts: magic, version, length field and dict.
static Expected<uint64_t> getNpyHeaderSize(StringRef bytes) {
  if (bytes.size() < kMagicSize + 4 ||
      !bytes.starts_with(StringRef(kMagic, kMagicSize)))
    return npyError("not a .npy file (no \\x93NUMPY magic)");
  unsigned major = static_cast<uint8_t>(bytes[kMagicSize]);
  unsigned minor = static_cast<uint8_t>(bytes[kMagicSize + 1]);
  if (major < 1 || major > 3 || minor != 0)
    return npyError(formatv("unsupported .npy format version {0}.{1} (nnir "
                            "reads 1.0, 2.0 and 3.0)",
                            major, minor)
                        .str());
  size_t pos = kMagicSize + 2;
  if (major == 1)
    return pos + 2 + support::endian::read16le(bytes.data() + pos);
  if (bytes.size() < pos + 4)
    return npyError("truncated .npy header");
  return pos + 4 + uint64_t(support::endian::read32le(bytes.data() + pos));
}

/// Parses the header at the start of \p bytes, which must hold all of it,
/// and checks the array it declares against \p maxBytes.
static Expected<NpyHeader> parseNpyHeader(StringRef bytes, uint64_t maxBytes) {
  Expected<uint64_t> headerEnd = getNpyHeaderSize(bytes);
  if (!headerEnd)
    return headerEnd.takeError();
  size_t dictStart =
      static_cast<uint8_t>(bytes[kMagicSize]) == 1 ? kMagicSize + 4
                                                   : kMagicSize + 6;
  if (bytes.size() < *headerEnd)
    return npyError("truncated .npy header");
  HeaderParser parser(bytes.slice(dictStart, *headerEnd));
  if (Error e = parser.parse())
    return e;
  Expected<DataType> dtype = parseDescr(parser.descr);
  if (!dtype)
    return dtype.takeError();
  std::optional<int64_t> size =
      getByteSize(parser.shape, dtype->getStorageBytes());
  if (!size)
    return npyError("the array size overflows");
  // Fortran order of a 0-d or 1-d array is the same layout as C order.
  if (parser.fortranOrder && parser.shape.size() > 1)
    return npyError("Fortran-order arrays are not supported; save "
                    "numpy.ascontiguousarray(arr)");
  if (static_cast<uint64_t>(*size) > maxBytes)
    return npyError(formatv("array of {0} bytes exceeds the limit of {1} bytes",
                            *size, maxBytes)
                        .str());
  NpyHeader header;
  header.dtype = *dtype;
  header.shape = std::move(parser.shape);
  header.dataOffset = *headerEnd;
  header.dataBytes = uint64_t(*size);
  return header;
}

/// The error for a file of \p available data bytes whose header declares
/// \p expected, or success when they agree.
static Error checkDataSize(uint64_t available, uint64_t expected) {
  if (available < expected)
    return npyError(formatv("truncated .npy data: {0} bytes, expected {1}",
                            available, expected)
                        .str());
  if (available > expected)
    return npyError(
        formatv("{0} trailing bytes after the .npy data", available - expected)
            .str());
  return Error::success();
}

Expected<NDArray> nnir::readNpy(StringRef bytes, uint64_t maxBytes,
                                NpyHeaderCheck check) {
  Expected<NpyHeader> header = parseNpyHeader(bytes, maxBytes);
  if (!header)
    return header.takeError();
  if (check)
    if (Error e = check(header->dtype, header->shape))
      return e;
  if (Error e = checkDataSize(bytes.size() - header->dataOffset,
                              header->dataBytes))
    return e;
  Expected<NDArray> array = NDArray::create(header->dtype, header->shape,
                                            maxBytes, /*zeroFill=*/false);
  if (!array)
    return array.takeError();
  if (header->dataBytes)
    std::memcpy(array->getMutableData(), bytes.data() + header->dataOffset,
                header->dataBytes);
  return array;
}

std::string nnir::writeNpy(const NDArray &array) {
  std::string header;
  raw_string_ostream os(header);
  os << "{'descr': '" << getNpyDescr(array.getDType())
     << "', 'fortran_order': False, 'shape': (";
  for (int64_t extent : array.getShape())
    os << extent << ", ";
  if (array.getRank() != 0)
    header.resize(header.size() - 2);
  if (array.getRank() == 1)
    header += ",";
  header += "), }";
  // Pad with spaces so that magic + version + length + header + '\n' is a
  // multiple of the alignment.
  unsigned major = 1;
  size_t prefix = kMagicSize + 2 + 2;
  size_t total = alignTo(prefix + header.size() + 1, kHeaderAlign);
  if (total - prefix > UINT16_MAX) {
    major = 2;
    prefix += 2;
    total = alignTo(prefix + header.size() + 1, kHeaderAlign);
  }
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';

  std::string out(kMagic, kMagicSize);
  out += static_cast<char>(major);
  out += '\0';
  char length[4];
  if (major == 1) {
    support::endian::write16le(length, static_cast<uint16_t>(header.size()));
    out.append(length, 2);
  } else {
    support::endian::write32le(length, static_cast<uint32_t>(header.size()));
    out.append(length, 4);
  }
  out += header;
  ArrayRef<uint8_t> data = array.getBytes();
  out.append(reinterpret_cast<const char *>(data.data()), data.size());
  return out;
}

Expected<NDArray> nnir::loadNpyFile(StringRef path, uint64_t maxBytes,
                                    NpyHeaderCheck check) {
  Expected<std::unique_ptr<MemoryBuffer>> buffer = readRegularFile(path);
  if (!buffer)
    return buffer.takeError();
  Expected<NDArray> array = readNpy((*buffer)->getBuffer(), maxBytes, check);
  if (!array)
    // The format's errors name the file; the check's (located) pass as
    // they are.
    return handleErrors(array.takeError(), [&](const StringError &e) {
      return createStringError(inconvertibleErrorCode(), "'%s': %s",
                               path.str().c_str(), e.getMessage().c_str());
    });
  return array;
}

Error nnir::saveNpyFile(StringRef path, const NDArray &array) {
  SmallString<256> temp;
  int fd;
  SmallString<256> model(path);
  model += ".tmp%%%%%%";
  if (std::error_code ec = sys::fs::createUniqueFile(model, fd, temp))
    return createStringError(ec, "cannot write '%s': %s", path.str().c_str(),
                             ec.message().c_str());
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << writeNpy(array);
    os.close();
    if (os.has_error()) {
      std::error_code ec = os.error();
      os.clear_error();
      sys::fs::remove(temp);
      return createStringError(ec, "cannot write '%s': %s", path.str().c_str(),
                               ec.message().c_str());
    }
  }
  if (std::error_code ec = sys::fs::rename(temp, path)) {
    sys::fs::remove(temp);
    return createStringError(ec, "cannot write '%s': %s", path.str().c_str(),
                             ec.message().c_str());
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// .npz
//===----------------------------------------------------------------------===//

/// Reads exactly \p size bytes of \p member into \p out.
static bool readMember(zip_file_t *member, char *out, uint64_t size) {
  while (size) {
    zip_int64_t n = zip_fread(member, out, size);
    if (n <= 0)
      return false;
    out += n;
    size -= uint64_t(n);
  }
  return true;
}

Expected<std::vector<std::pair<std::string, NDArray>>>
nnir::loadNpzFile(StringRef path, uint64_t maxBytes, NpzMemberCheck check) {
  auto fail = [&](const Twine &message) {
    return npyError("'" + path + "': " + message);
  };
  // libzip opens the path itself: refuse a device or a FIFO first.
  if (Error e = checkRegularFile(path))
    return e;
  std::string file = path.str();
  int zerr = 0;
  zip_t *archive = zip_open(file.c_str(), ZIP_RDONLY, &zerr);
  if (!archive) {
    zip_error_t error;
    zip_error_init_with_code(&error, zerr);
    std::string message = zip_error_strerror(&error);
    zip_error_fini(&error);
    return fail("cannot open as a .npz (zip) archive: " + message);
  }
  auto closeArchive = make_scope_exit([&] { zip_discard(archive); });

  std::vector<std::pair<std::string, NDArray>> arrays;
  zip_int64_t count = zip_get_num_entries(archive, 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive, i, 0, &stat) != 0 ||
        !(stat.valid & ZIP_STAT_NAME) || !(stat.valid & ZIP_STAT_SIZE))
      return fail(
          formatv("cannot read member {0}: {1}", i, zip_strerror(archive))
              .str());
    StringRef name(stat.name);
    if (name.ends_with("/"))
      continue; // A directory entry.
    StringRef arrayName = name;
    arrayName.consume_back(".npy");
    zip_file_t *member = zip_fopen_index(archive, i, 0);
    if (!member)
      return fail(
          formatv("cannot read member '{0}': {1}", name, zip_strerror(archive))
              .str());
    auto closeMember = make_scope_exit([&] { zip_fclose(member); });
    auto memberError = [&](const Twine &message) {
      return fail(formatv("member '{0}': {1}", name, message.str()).str());
    };
    auto readError = [&] {
      return fail(formatv("cannot read member '{0}': {1}", name,
                          zip_file_strerror(member))
                      .str());
    };
    // Inflate the header alone, check what it declares (against the limit
    // and the caller's check), then inflate exactly the data it declares
    // into the array.
    std::string header(std::min<uint64_t>(stat.size, kNpyPrefix), '\0');
    if (!readMember(member, header.data(), header.size()))
      return readError();
    Expected<uint64_t> headerSize = getNpyHeaderSize(header);
    if (!headerSize)
      return memberError(toString(headerSize.takeError()));
    if (*headerSize > stat.size)
      return memberError("truncated .npy header");
    uint64_t have = header.size();
    header.resize(std::max<uint64_t>(have, *headerSize));
    if (*headerSize > have &&
        !readMember(member, header.data() + have, *headerSize - have))
      return readError();
    Expected<NpyHeader> parsed = parseNpyHeader(header, maxBytes);
    if (!parsed)
      return memberError(toString(parsed.takeError()));
    if (check)
      if (Error e = check(arrayName, parsed->dtype, parsed->shape))
        return std::move(e);
    if (Error e = checkDataSize(stat.size - parsed->dataOffset,
                                parsed->dataBytes))
      return memberError(toString(std::move(e)));
    Expected<NDArray> array = NDArray::create(parsed->dtype, parsed->shape,
                                              maxBytes, /*zeroFill=*/false);
    if (!array)
      return memberError(toString(array.takeError()));
    if (!readMember(member, static_cast<char *>(array->getMutableData()),
                    parsed->dataBytes))
      return readError();
    arrays.emplace_back(arrayName.str(), std::move(*array));
  }
  return arrays;
}
