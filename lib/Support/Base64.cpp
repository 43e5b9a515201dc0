//===- Base64.cpp - Base64 at memory speed --------------------------------===//
//
/// \file
/// Table-driven base64. The decoder looks each character up in one of four
/// tables that hold its six bits already shifted into place, or a value with
/// bit 24 set for a character outside the alphabet, so a group is four loads
/// and three ORs and a whole run is checked with one comparison at its end.
/// The encoder looks up twelve bits at a time (two characters).
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/Base64.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cassert>
#include <cstring>

using namespace llvm;
using namespace nnir;

static constexpr char kAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Any entry with this bit set is a character outside the alphabet.
static constexpr uint32_t kInvalid = 0x01000000;

namespace {

/// The decoding tables: table[i][c] is the value of character c shifted into
/// place for position i of a group.
struct DecodeTables {
  uint32_t table[4][256];
  constexpr DecodeTables() : table() {
    for (unsigned i = 0; i != 4; ++i)
      for (unsigned c = 0; c != 256; ++c)
        table[i][c] = kInvalid | 0x00ffffff;
    for (unsigned v = 0; v != 64; ++v) {
      unsigned c = static_cast<unsigned char>(kAlphabet[v]);
      table[0][c] = v << 18;
      table[1][c] = v << 12;
      table[2][c] = v << 6;
      table[3][c] = v;
    }
  }
};

/// Two characters for each value of twelve bits.
struct EncodeTable {
  char pairs[4096][2];
  constexpr EncodeTable() : pairs() {
    for (unsigned v = 0; v != 4096; ++v) {
      pairs[v][0] = kAlphabet[v >> 6];
      pairs[v][1] = kAlphabet[v & 63];
    }
  }
};

} // namespace

static constexpr DecodeTables kDecode;
static constexpr EncodeTable kEncode;

/// The 24 bits of the group at \p p, or a value with kInvalid set.
static inline uint32_t decodeGroup(const char *p) {
  const auto *u = reinterpret_cast<const unsigned char *>(p);
  return kDecode.table[0][u[0]] | kDecode.table[1][u[1]] |
         kDecode.table[2][u[2]] | kDecode.table[3][u[3]];
}

/// Decodes \p count whole groups at \p in into 3 * count bytes at \p out.
static bool decodeGroups(const char *in, size_t count, uint8_t *out) {
  uint32_t seen = 0;
  for (size_t i = 0; i != count; ++i, in += 4, out += 3) {
    uint32_t x = decodeGroup(in);
    seen |= x;
    out[0] = uint8_t(x >> 16);
    out[1] = uint8_t(x >> 8);
    out[2] = uint8_t(x);
  }
  return !(seen & kInvalid);
}

std::optional<size_t> nnir::getBase64DecodedSize(StringRef text) {
  if (text.size() % 4)
    return std::nullopt;
  size_t padding = 0;
  if (text.ends_with("=="))
    padding = 2;
  else if (text.ends_with("="))
    padding = 1;
  return text.size() / 4 * 3 - padding;
}

/// Decodes group \p g of \p text (a padded last group if \p last) into
/// \p out; false on a character outside the alphabet or unused bits that
/// are not zero.
static bool decodeOneGroup(StringRef text, size_t g, bool last,
                           uint8_t out[3]) {
  char group[4];
  std::memcpy(group, text.data() + 4 * g, 4);
  uint32_t unusedMask = 0;
  if (last && group[3] == '=') {
    group[3] = 'A';
    unusedMask = 0xff;
    if (group[2] == '=') {
      group[2] = 'A';
      unusedMask = 0xffff;
    }
  }
  uint32_t x = decodeGroup(group);
  if ((x & kInvalid) || (x & unusedMask))
    return false;
  out[0] = uint8_t(x >> 16);
  out[1] = uint8_t(x >> 8);
  out[2] = uint8_t(x);
  return true;
}

/// Whether every character of \p text is in the alphabet. Range compares
/// OR-ed into one flag, without a branch per character, rather than a
/// table: the compiler vectorises them (nnir-text-bench's BM_Base64Check:
/// 10 GB/s; a 256-entry table with four accumulators ran at 3.4 GB/s).
static bool isAlphabetOnly(StringRef text) {
  const auto *u = reinterpret_cast<const unsigned char *>(text.data());
  uint8_t bad = 0;
  for (size_t i = 0, e = text.size(); i != e; ++i) {
    uint8_t c = u[i];
    bool ok = (uint8_t(c - 'A') < 26) | (uint8_t(c - 'a') < 26) |
              (uint8_t(c - '0') < 10) | (c == '+') | (c == '/');
    bad |= !ok;
  }
  return !bad;
}

bool nnir::isCanonicalBase64(StringRef text) {
  if (!getBase64DecodedSize(text))
    return false;
  if (text.empty())
    return true;
  // All but the last group hold no padding; the last is checked as the
  // decoder checks it.
  uint8_t last[3];
  return isAlphabetOnly(text.drop_back(4)) &&
         decodeOneGroup(text, text.size() / 4 - 1, /*last=*/true, last);
}

bool nnir::decodeBase64Range(StringRef text, size_t offset,
                             MutableArrayRef<uint8_t> out) {
  size_t groups = text.size() / 4;
  bool padded = text.ends_with("=");
  // Groups decoded without a look at padding.
  size_t wholeGroups = padded ? groups - 1 : groups;
  uint8_t *dst = out.data();
  size_t left = out.size();
  while (left) {
    size_t g = offset / 3, skip = offset % 3;
    if (skip == 0 && left >= 3 && g < wholeGroups) {
      size_t count = std::min(left / 3, wholeGroups - g);
      if (!decodeGroups(text.data() + 4 * g, count, dst))
        return false;
      dst += 3 * count;
      offset += 3 * count;
      left -= 3 * count;
      continue;
    }
    uint8_t bytes[3];
    if (!decodeOneGroup(text, g, /*last=*/g + 1 == groups, bytes))
      return false;
    size_t take = std::min<size_t>(3 - skip, left);
    std::memcpy(dst, bytes + skip, take);
    dst += take;
    offset += take;
    left -= take;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Base64Writer
//===----------------------------------------------------------------------===//

/// Encodes \p count whole groups of \p in into 4 * count characters.
static void encodeGroups(const uint8_t *in, size_t count, char *out) {
  for (size_t i = 0; i != count; ++i, in += 3, out += 4) {
    uint32_t x = uint32_t(in[0]) << 16 | uint32_t(in[1]) << 8 | in[2];
    std::memcpy(out, kEncode.pairs[x >> 12], 2);
    std::memcpy(out + 2, kEncode.pairs[x & 0xfff], 2);
  }
}

void Base64Writer::write(ArrayRef<uint8_t> bytes) {
  assert(!finished && "writing to a finished Base64Writer");
  if (carried) {
    while (carried < 3 && !bytes.empty()) {
      carry[carried++] = bytes.front();
      bytes = bytes.drop_front();
    }
    if (carried < 3)
      return;
    uint8_t group[3] = {carry[0], carry[1], carry[2]};
    char text[4];
    encodeGroups(group, 1, text);
    os.write(text, 4);
    carried = 0;
  }
  // Whole groups, through a buffer of 16 KiB of text.
  constexpr size_t kGroupsPerChunk = 4096;
  char text[4 * kGroupsPerChunk];
  size_t groups = bytes.size() / 3;
  const uint8_t *in = bytes.data();
  while (groups) {
    size_t count = std::min(groups, kGroupsPerChunk);
    encodeGroups(in, count, text);
    os.write(text, 4 * count);
    in += 3 * count;
    groups -= count;
  }
  bytes = bytes.drop_front(in - bytes.data());
  for (uint8_t byte : bytes)
    carry[carried++] = byte;
}

void Base64Writer::finish() {
  if (finished)
    return;
  finished = true;
  if (!carried)
    return;
  uint8_t group[3] = {carry[0], carried > 1 ? carry[1] : uint8_t(0), 0};
  char text[4];
  encodeGroups(group, 1, text);
  text[3] = '=';
  if (carried == 1)
    text[2] = '=';
  os.write(text, 4);
}
