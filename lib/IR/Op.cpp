//===- Op.cpp - Operators and the operator registry -----------------------===//
//
/// \file
/// The registry and attribute creation for operator calls.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>

using namespace llvm;
using namespace nnir;

OpAttrMapBase::~OpAttrMapBase() = default;

Op *Op::lookup(StringRef name) { return OpRegistry::instance().lookup(name); }

Expected<Ref<Attrs>> Op::createAttrs(ArrayRef<NamedAttrValue> kwargs,
                                     SMLoc callLoc) const {
  if (attrsCreator)
    return attrsCreator(kwargs, callLoc, name);
  if (!kwargs.empty()) {
    SMLoc loc = kwargs.front().loc.isValid() ? kwargs.front().loc : callLoc;
    return makeError(loc, "unknown attribute '" + kwargs.front().name +
                              "': " + name + " takes no attributes");
  }
  return Ref<Attrs>();
}

Ref<Attrs> Op::createDefaultAttrs() const {
  return defaultAttrsCreator ? defaultAttrsCreator() : Ref<Attrs>();
}

OpRegistry &OpRegistry::instance() {
  static OpRegistry registry;
  return registry;
}

OpBuilder OpRegistry::add(StringRef name) {
  if (byName.count(name))
    report_fatal_error("operator '" + name + "' is registered twice");
  Ref<Op> op(new Op(name, static_cast<unsigned>(ops.size())));
  ops.push_back(op);
  byName[name] = op.get();
  return OpBuilder(op.get());
}

Op *OpRegistry::lookup(StringRef name) const {
  auto it = byName.find(name);
  return it == byName.end() ? nullptr : it->second;
}

std::vector<std::string> OpRegistry::suggest(StringRef name,
                                             unsigned maxResults) const {
  std::vector<std::pair<unsigned, StringRef>> scored;
  unsigned limit = std::max<unsigned>(2, name.size() / 3);
  for (const Ref<Op> &op : ops) {
    unsigned distance = name.edit_distance(op->getName(), true, limit + 1);
    if (distance <= limit)
      scored.push_back({distance, op->getName()});
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<std::string> result;
  for (const auto &entry : scored) {
    if (result.size() == maxResults)
      break;
    result.push_back(entry.second.str());
  }
  return result;
}

void OpRegistry::checkType(StringRef key, const OpAttrMapBase &map,
                           const void *tag) {
  if (map.getTypeTag() != tag)
    report_fatal_error("operator property '" + key +
                       "' is used with two different types");
}
