//===- Base64Test.cpp - Tests of the in-place base64 codec ----------------===//
//
/// \file
/// decodeBase64Range and Base64Writer against llvm's base64 on every length
/// and split point that matters (the boundaries of a 3-byte group), and the
/// texts the decoder refuses: not a multiple of 4, a character outside the
/// alphabet anywhere, padding in the middle, unused bits set.
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/Base64.h"

#include "llvm/Support/Base64.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace llvm;
using namespace nnir;

namespace {

/// \p n bytes of every value, in a pattern that is not periodic in 3.
std::string patternBytes(size_t n) {
  std::string bytes(n, '\0');
  for (size_t i = 0; i < n; ++i)
    bytes[i] = char((i * 37 + i / 7) & 0xff);
  return bytes;
}

/// Decodes bytes [offset, offset + size) of \p text, or "<error>".
std::string decodeRange(StringRef text, size_t offset, size_t size) {
  std::vector<uint8_t> out(size);
  if (!decodeBase64Range(text, offset, out))
    return "<error>";
  return std::string(out.begin(), out.end());
}

TEST(Base64Test, DecodesEveryRangeAsLLVMDoes) {
  for (size_t n = 0; n <= 20; ++n) {
    std::string bytes = patternBytes(n);
    std::string text = encodeBase64(bytes);
    std::optional<size_t> size = getBase64DecodedSize(text);
    ASSERT_TRUE(size.has_value()) << text;
    EXPECT_EQ(*size, n);
    for (size_t offset = 0; offset <= n; ++offset)
      for (size_t length = 0; offset + length <= n; ++length)
        EXPECT_EQ(decodeRange(text, offset, length),
                  bytes.substr(offset, length))
            << "n=" << n << " offset=" << offset << " length=" << length;
  }
  // A long run: the bulk path.
  std::string bytes = patternBytes(100003);
  std::string text = encodeBase64(bytes);
  EXPECT_EQ(decodeRange(text, 0, bytes.size()), bytes);
  EXPECT_EQ(decodeRange(text, 56, bytes.size() - 56), bytes.substr(56));
}

TEST(Base64Test, RefusesWhatIsNotCanonicalBase64) {
  EXPECT_FALSE(getBase64DecodedSize("QUJD="));
  EXPECT_FALSE(getBase64DecodedSize("QUI"));
  EXPECT_EQ(getBase64DecodedSize(""), 0u);
  EXPECT_EQ(getBase64DecodedSize("QUI="), 2u);
  EXPECT_EQ(getBase64DecodedSize("QQ=="), 1u);
  // A character outside the alphabet in the bulk, in a group of its own
  // and in the padded group.
  std::string text = encodeBase64(patternBytes(300));
  for (size_t at : {size_t(0), size_t(7), size_t(200), text.size() - 1}) {
    std::string bad = text;
    bad[at] = '!';
    EXPECT_EQ(decodeRange(bad, 0, 300), "<error>") << at;
  }
  std::string withSpace = text;
  withSpace[100] = ' ';
  EXPECT_EQ(decodeRange(withSpace, 0, 300), "<error>");
  // '=' before the last group, or as the third character only.
  EXPECT_EQ(decodeRange("QQ==QUJD", 0, 4), "<error>");
  EXPECT_EQ(decodeRange("QU=D", 0, 3), "<error>");
  // Bits the padding leaves unused must be zero ("QR==" is not canonical).
  EXPECT_EQ(decodeRange("QR==", 0, 1), "<error>");
  EXPECT_EQ(decodeRange("QUJ=", 0, 2), "<error>");
  EXPECT_EQ(decodeRange("QUI=", 0, 2), "AB");
  // The bytes before a bad character are not checked by a range after it.
  EXPECT_EQ(decodeRange("!!!!QUJD", 3, 3), "ABC");
}

TEST(Base64Test, ChecksCanonicalFormAsTheDecoderDoes) {
  EXPECT_TRUE(isCanonicalBase64(""));
  EXPECT_TRUE(isCanonicalBase64("QUI="));
  EXPECT_TRUE(isCanonicalBase64("QQ=="));
  EXPECT_FALSE(isCanonicalBase64("QR=="));
  EXPECT_FALSE(isCanonicalBase64("QUJ="));
  EXPECT_FALSE(isCanonicalBase64("QUJD="));
  EXPECT_FALSE(isCanonicalBase64("QQ==QUJD"));
  EXPECT_FALSE(isCanonicalBase64("QU=D"));
  EXPECT_FALSE(isCanonicalBase64("===="));
  // Every length's text, and every one-character change of it (to each
  // character class, and to a byte above 127): accepted exactly when the
  // decoder decodes the whole without an error.
  for (size_t n : {size_t(1), size_t(2), size_t(3), size_t(4), size_t(5),
                   size_t(47), size_t(100)}) {
    std::string bytes = patternBytes(n);
    std::string text = encodeBase64(bytes);
    EXPECT_TRUE(isCanonicalBase64(text)) << n;
    for (size_t at = 0; at < text.size(); ++at)
      for (char c : {'A', 'B', 'z', '9', '+', '/', '=', '!', ' ', '\xc3',
                     '\0'}) {
        std::string changed = text;
        changed[at] = c;
        bool decodes = getBase64DecodedSize(changed) &&
                       decodeRange(changed, 0, *getBase64DecodedSize(changed)) !=
                           "<error>";
        EXPECT_EQ(isCanonicalBase64(changed), decodes)
            << n << " " << at << " " << int(c);
      }
  }
}

TEST(Base64Test, WritesPiecesAsOneText) {
  for (size_t n = 0; n <= 12; ++n)
    for (size_t split = 0; split <= n; ++split) {
      std::string bytes = patternBytes(n);
      std::string out;
      raw_string_ostream os(out);
      {
        Base64Writer writer(os);
        writer.write(StringRef(bytes).take_front(split));
        writer.write(StringRef(bytes).drop_front(split));
      }
      EXPECT_EQ(out, encodeBase64(bytes)) << n << " " << split;
    }
  // More than one chunk of the writer's buffer, after a carried byte.
  std::string bytes = patternBytes(50001);
  std::string out;
  raw_string_ostream os(out);
  Base64Writer writer(os);
  writer.write(StringRef(bytes).take_front(1));
  writer.write(StringRef(bytes).drop_front(1));
  writer.finish();
  writer.finish(); // A second finish writes nothing.
  EXPECT_EQ(out, encodeBase64(bytes));
}

} // namespace
