//===- Op.cpp - Operators and the operator registry -----------------------===//
//
/// \file
/// The registry and attribute creation for operator calls.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"

#include "nnir/Support/Suggestions.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"


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

Error Op::checkNumArgs(size_t numArgs, SMLoc loc) const {
  if (numInputs < 0 || numArgs == size_t(numInputs))
    return Error::success();
  return makeArityError(name, numInputs, numArgs, loc);
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
  NameSuggester suggester(name);
  for (const Ref<Op> &op : ops)
    suggester.consider(op->getName());
  return suggester.getClosest(maxResults);
}

void OpRegistry::checkType(StringRef key, const OpAttrMapBase &map,
                           TypeId valueTypeId) {
  if (map.getValueTypeId() != valueTypeId)
    report_fatal_error("operator property '" + key +
                       "' is used with two different types");
}

NNIR_DEFINE_EXPLICIT_TYPE_ID(bool)
