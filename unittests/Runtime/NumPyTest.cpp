//===- NumPyTest.cpp - Tests of the .npy/.npz reader and writer -----------===//
//
/// \file
/// writeNpy() produces NumPy's exact bytes; readNpy() round-trips every dtype,
/// reads versions 1.0-3.0 and rejects corrupt, truncated, big-endian,
/// Fortran-order and unsupported files with a message saying why; files are
/// written atomically; .npz archives (stored and deflated members, built here
/// with libzip) load in archive order.
//
//===----------------------------------------------------------------------===//

#include "nnir/Runtime/NumPy.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <zip.h>

#include <cstring>
#include <string>

using namespace nnir;

namespace {

template <typename T> std::string errorOf(llvm::Expected<T> value) {
  if (value)
    return "";
  return llvm::toString(value.takeError());
}

/// A header as NumPy writes it: padded to 64 bytes in all.
std::string npyBytes(llvm::StringRef dict, llvm::StringRef data,
                     unsigned major = 1) {
  std::string header = dict.str();
  size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += char(major);
  out += '\0';
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  if (major != 1)
    out += std::string(2, '\0');
  return out + header + data.str();
}

TEST(NumPyTest, WritesNumPysExactBytes) {
  NDArray a = llvm::cantFail(NDArray::create(DataType::float32(), {2, 3}));
  for (int i = 0; i < 6; ++i)
    a.setElementFromDouble(i, i);
  std::string bytes = writeNpy(a);
  // np.save(f, np.arange(6, dtype=np.float32).reshape(2, 3))
  std::string header =
      "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, "
      "'shape': (2, 3), }";
  ASSERT_EQ(bytes.size(), 128u + 24u);
  EXPECT_EQ(bytes.substr(0, header.size()), header);
  EXPECT_EQ(bytes[127], '\n');
  EXPECT_EQ(bytes.substr(128),
            std::string(static_cast<const char *>(a.getData()), 24));

  // A 1-d shape keeps Python's trailing comma; a 0-d one is ().
  NDArray v = llvm::cantFail(NDArray::create(DataType::int64(), {3}));
  EXPECT_NE(writeNpy(v).find("'shape': (3,), }"), std::string::npos);
  NDArray s = NDArray::scalar(DataType::boolean(), 1);
  EXPECT_NE(writeNpy(s).find("{'descr': '|b1', 'fortran_order': False, "
                             "'shape': (), }"),
            std::string::npos);
}

TEST(NumPyTest, RoundTripsEveryDType) {
  for (const char *name :
       {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
        "uint64", "float16", "bfloat16", "float32", "float64"}) {
    DataType dtype = *DataType::parse(name);
    NDArray a = llvm::cantFail(NDArray::create(dtype, {2, 1, 3}));
    for (int i = 0; i < 6; ++i)
      a.setElementFromDouble(i, i % 2 ? i : -i);
    llvm::Expected<NDArray> b = readNpy(writeNpy(a));
    ASSERT_TRUE(bool(b)) << name << ": " << errorOf(std::move(b));
    EXPECT_TRUE(a.bitwiseEqual(*b)) << name;
  }
  EXPECT_EQ(getNpyDescr(DataType::bfloat16()), "<V2");
  EXPECT_EQ(getNpyDescr(DataType::uint8()), "|u1");
  EXPECT_EQ(getNpyDescr(DataType::float16()), "<f2");
}

TEST(NumPyTest, ReadsVersions2And3AndOtherSpellings) {
  std::string data(8, '\0');
  data[0] = 7;
  for (unsigned major : {1u, 2u, 3u}) {
    llvm::Expected<NDArray> a = readNpy(npyBytes(
        "{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<i4\"}", data,
        major));
    ASSERT_TRUE(bool(a)) << major << ": " << errorOf(std::move(a));
    EXPECT_EQ(a->getDType(), DataType::int32());
    EXPECT_EQ(a->getShape(), llvm::ArrayRef<int64_t>({2}));
    EXPECT_EQ(a->getElementAsInt(0), 7);
  }
  // Native byte order, and Fortran order of a 1-d array (the same layout).
  EXPECT_TRUE(bool(readNpy(npyBytes(
      "{'descr': '=i4', 'fortran_order': True, 'shape': (2,), }", data))));
  // A zero-element array.
  llvm::Expected<NDArray> empty = readNpy(npyBytes(
      "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4), }", ""));
  ASSERT_TRUE(bool(empty));
  EXPECT_EQ(empty->getNumElements(), 0);
}

TEST(NumPyTest, RejectsBadFiles) {
  auto err = [](llvm::StringRef bytes, uint64_t maxBytes = UINT64_MAX) {
    return errorOf(readNpy(bytes, maxBytes));
  };
  std::string f4 = std::string(8, '\0');
  EXPECT_EQ(err("PK\x03\x04 not numpy"),
            "not a .npy file (no \\x93NUMPY magic)");
  EXPECT_EQ(err(std::string("\x93NUMPY\x04\x00\x10\x00", 10)),
            "unsupported .npy format version 4.0 (nnir reads 1.0, 2.0 and "
            "3.0)");
  EXPECT_EQ(err(std::string("\x93NUMPY\x01\x00\x70\x00{'descr'", 17)),
            "truncated .npy header");
  EXPECT_EQ(
      err(npyBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
                   f4)),
      "big-endian data ('>f4') is not supported; convert with "
      "arr.astype(arr.dtype.newbyteorder('<'))");
  EXPECT_EQ(
      err(npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2), }",
                   f4)),
      "Fortran-order arrays are not supported; save "
      "numpy.ascontiguousarray(arr)");
  EXPECT_EQ(
      err(npyBytes("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }",
                   f4)),
      "unsupported dtype descriptor '|O'");
  EXPECT_EQ(
      err(npyBytes("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
                   f4)),
      "unsupported dtype descriptor '<c8' (nnir reads bool, int8-64, "
      "uint8-64, float16/32/64 and bfloat16 as '<V2')");
  EXPECT_EQ(err(npyBytes("{'descr': [('a', '<f4')], 'fortran_order': False, "
                         "'shape': (2,), }",
                         f4)),
            "structured dtypes are not supported");
  EXPECT_EQ(
      err(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                   f4)),
      "truncated .npy data: 8 bytes, expected 12");
  EXPECT_EQ(
      err(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
                   f4)),
      "4 trailing bytes after the .npy data");
  EXPECT_EQ(err(npyBytes("{'descr': '<f4', 'shape': (2,), }", f4)),
            "malformed .npy header: the header lacks one of 'descr', "
            "'fortran_order', 'shape'");
  EXPECT_EQ(
      err(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }",
                   f4)),
      "malformed .npy header: expected a non-negative integer extent in "
      "'shape'");
  EXPECT_EQ(err(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': "
                         "(4294967296, 4294967296, 4294967296), }",
                         f4)),
            "the array size overflows");
  EXPECT_EQ(
      err(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                   f4),
          4),
      "array of 8 bytes exceeds the limit of 4 bytes");
}

/// A temporary directory removed at the end of the test.
class TempDir {
public:
  TempDir() {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("nnir-npy", path));
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> p(path);
    llvm::sys::path::append(p, name);
    return std::string(p);
  }

private:
  llvm::SmallString<128> path;
};

TEST(NumPyTest, SavesAndLoadsFiles) {
  TempDir dir;
  NDArray a = llvm::cantFail(NDArray::create(DataType::uint16(), {4}));
  a.setElementFromInt(3, 65535);
  ASSERT_FALSE(bool(saveNpyFile(dir.file("a.npy"), a)));
  llvm::Expected<NDArray> b = loadNpyFile(dir.file("a.npy"));
  ASSERT_TRUE(bool(b)) << errorOf(std::move(b));
  EXPECT_TRUE(a.bitwiseEqual(*b));
  // No temporary file is left behind.
  std::error_code ec;
  int files = 0;
  for (llvm::sys::fs::directory_iterator it(dir.file(""), ec), end;
       it != end && !ec; it.increment(ec))
    ++files;
  EXPECT_EQ(files, 1);

  std::string missing = errorOf(loadNpyFile(dir.file("missing.npy")));
  EXPECT_NE(missing.find("cannot open '"), std::string::npos) << missing;
  EXPECT_NE(missing.find("missing.npy"), std::string::npos);
  EXPECT_NE(errorOf(loadNpyFile(dir.file("a.npy"), 2))
                .find("a.npy': array of 8 bytes exceeds the limit of 2 bytes"),
            std::string::npos);
  EXPECT_TRUE(bool(saveNpyFile(dir.file("no/such/dir/x.npy"), a)));
}

/// Writes a zip archive with libzip: each member's bytes, stored or
/// deflated.
void writeZip(
    const std::string &path,
    llvm::ArrayRef<std::tuple<const char *, std::string, bool>> members) {
  int err = 0;
  zip_t *z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  ASSERT_NE(z, nullptr);
  for (const auto &[name, bytes, deflate] : members) {
    zip_source_t *src = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
    zip_int64_t index = zip_file_add(z, name, src, ZIP_FL_OVERWRITE);
    ASSERT_GE(index, 0);
    zip_set_file_compression(z, index, deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE,
                             0);
  }
  ASSERT_EQ(zip_close(z), 0);
}

TEST(NumPyTest, LoadsNpzArchives) {
  TempDir dir;
  NDArray w = llvm::cantFail(NDArray::create(DataType::float32(), {64, 64}));
  for (int i = 0; i < 64 * 64; ++i)
    w.setElementFromDouble(i, i % 7);
  NDArray b = NDArray::scalar(DataType::int8(), -3);
  std::string path = dir.file("params.npz");
  writeZip(path, {{"weight.npy", writeNpy(w), true},
                  {"bias.npy", writeNpy(b), false}});
  auto arrays = loadNpzFile(path);
  ASSERT_TRUE(bool(arrays)) << errorOf(std::move(arrays));
  ASSERT_EQ(arrays->size(), 2u);
  EXPECT_EQ((*arrays)[0].first, "weight");
  EXPECT_TRUE((*arrays)[0].second.bitwiseEqual(w));
  EXPECT_EQ((*arrays)[1].first, "bias");
  EXPECT_TRUE((*arrays)[1].second.bitwiseEqual(b));

  // A member that is not a .npy names the member.
  writeZip(path, {{"x.npy", "garbage", true}});
  EXPECT_NE(errorOf(loadNpzFile(path)).find("member 'x.npy': not a .npy file"),
            std::string::npos);
  // The limit applies to each member.
  writeZip(path, {{"weight.npy", writeNpy(w), true}});
  EXPECT_NE(errorOf(loadNpzFile(path, 1024)).find("exceeds the limit"),
            std::string::npos);
  // Not a zip at all.
  ASSERT_FALSE(bool(saveNpyFile(path, w)));
  EXPECT_NE(
      errorOf(loadNpzFile(path)).find("cannot open as a .npz (zip) archive"),
      std::string::npos);
  // A truncated archive.
  writeZip(path, {{"weight.npy", writeNpy(w), true}});
  auto whole = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bool(whole));
  std::string cut = (*whole)->getBuffer().drop_back(40).str();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << cut;
  }
  EXPECT_NE(errorOf(loadNpzFile(path)), "");
}

TEST(NumPyTest, HeadersAreCheckedBeforeTheData) {
  TempDir dir;
  NDArray w = llvm::cantFail(NDArray::create(DataType::float32(), {64, 64}));
  NDArray b = NDArray::scalar(DataType::int8(), -3);
  std::string path = dir.file("params.npz");
  // A member whose data is cut short: the check sees its header first.
  std::string cutWeight = writeNpy(w).substr(0, 200);
  writeZip(path, {{"bias.npy", writeNpy(b), false},
                  {"weight.npy", cutWeight, true}});
  std::vector<std::string> seen;
  auto refuseWeight = [&](llvm::StringRef name, DataType dtype,
                          llvm::ArrayRef<int64_t> shape) -> llvm::Error {
    seen.push_back(name.str() + ":" + std::to_string(shape.size()));
    if (name == "weight")
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "weight refused");
    return llvm::Error::success();
  };
  EXPECT_EQ(errorOf(loadNpzFile(path, UINT64_MAX, refuseWeight)),
            "weight refused");
  EXPECT_EQ(seen, (std::vector<std::string>{"bias:0", "weight:2"}));
  // Accepted, the short member is reported as truncated.
  EXPECT_NE(errorOf(loadNpzFile(path)).find("truncated .npy data"),
            std::string::npos);

  // .npy files: the same check, before the size of the data is checked.
  std::string npy = dir.file("w.npy");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(npy, ec);
    os << cutWeight;
  }
  auto refuseAll = [](DataType, llvm::ArrayRef<int64_t>) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "refused");
  };
  EXPECT_EQ(errorOf(loadNpyFile(npy, UINT64_MAX, refuseAll)),
            "'" + npy + "': refused");
  EXPECT_EQ(errorOf(readNpy(writeNpy(w), UINT64_MAX, refuseAll)), "refused");
  EXPECT_TRUE(bool(readNpy(writeNpy(w), UINT64_MAX,
                           [](DataType, llvm::ArrayRef<int64_t>) {
                             return llvm::Error::success();
                           })));
  // Only regular files are read.
  EXPECT_NE(errorOf(loadNpyFile("/dev/zero")).find("is not a regular file"),
            std::string::npos);
  EXPECT_NE(errorOf(loadNpzFile("/dev/zero")).find("is not a regular file"),
            std::string::npos);
}

} // namespace
