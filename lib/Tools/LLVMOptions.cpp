//===- LLVMOptions.cpp - Sharing option names with libLLVM ----------------===//
//
/// \file
/// Renaming LLVM's options out of the way of the tools' own.
//
//===----------------------------------------------------------------------===//

#include "LLVMOptions.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/StringSaver.h"

using namespace llvm;
using namespace nnir;

void nnir::renameLLVMOptions(ArrayRef<StringLiteral> names) {
  // Option names are StringRefs into storage that must outlive the option.
  static BumpPtrAllocator allocator;
  static StringSaver saver(allocator);
  StringMap<cl::Option *> &registered = cl::getRegisteredOptions();
  for (StringLiteral name : names) {
    cl::Option *option = registered.lookup(name);
    if (!option)
      continue;
    std::string newName = ("llvm-" + name).str();
    if (registered.count(newName))
      continue;
    // setArgStr re-registers the option under the new name in every
    // subcommand it belongs to; its storage (e.g. TimePassesIsEnabled) and
    // its readers are untouched.
    option->setArgStr(saver.save(newName));
  }
}
