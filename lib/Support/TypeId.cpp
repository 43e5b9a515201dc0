//===- TypeId.cpp - Type identities that hold across libraries ------------===//
//
/// \file
/// The process-wide table of named identities.
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/TypeId.h"

#include "llvm/ADT/StringSet.h"

#include <mutex>

using namespace llvm;
using namespace nnir;

TypeId TypeId::getFromName(StringRef name) {
  static std::mutex mutex;
  // Entries never move, so an entry's address is the identity of its name.
  static StringSet<> names;
  std::lock_guard<std::mutex> lock(mutex);
  return TypeId(&*names.insert(name).first);
}
