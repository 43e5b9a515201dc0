//===- Layout.cpp - Data layouts of tensors -------------------------------===//
//
/// \file
/// The layout parser and the attribute helpers built on it.
//
//===----------------------------------------------------------------------===//

#include "nnir/Ops/Layout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;
using namespace nnir;

static Error layoutError(const Twine &why) {
  return createStringError(inconvertibleErrorCode(), why);
}

Expected<Layout> Layout::parse(StringRef text) {
  if (text.empty())
    return layoutError("it has no axes");
  Layout layout;
  size_t i = 0, e = text.size();
  while (i != e) {
    char c = text[i];
    int64_t factor = 0;
    if (isDigit(c)) {
      size_t start = i;
      bool overflow = false;
      for (; i != e && isDigit(text[i]); ++i)
        overflow |= MulOverflow(factor, int64_t(10), factor) ||
                    AddOverflow(factor, int64_t(text[i] - '0'), factor);
      StringRef digits = text.slice(start, i);
      if (overflow)
        return layoutError("split factor " + digits + " is too large");
      if (i == e)
        return layoutError("split factor " + digits +
                           " is not followed by a lower-case axis");
      c = text[i];
      if (!isLower(c))
        return layoutError("split factor " + digits +
                           " is not followed by a lower-case axis, got '" +
                           Twine(c) + "'");
      if (factor == 0)
        return layoutError("sub-axis '" + Twine(c) +
                           "' needs a positive split factor, as in 4" +
                           Twine(c));
    } else if (isLower(c)) {
      return layoutError("sub-axis '" + Twine(c) +
                         "' needs a positive split factor, as in 4" + Twine(c));
    } else if (!isUpper(c)) {
      return layoutError("unexpected character '" + Twine(c) + "'");
    }
    if (layout.contains(c))
      return layoutError("axis '" + Twine(c) + "' appears twice");
    layout.axes.push_back({c, factor});
    ++i;
  }
  for (const LayoutAxis &axis : layout.axes)
    if (!axis.isPrimal() && !layout.contains(toUpper(axis.name)))
      return layoutError("sub-axis '" + Twine(axis.factor) + Twine(axis.name) +
                         "' splits '" + Twine(toUpper(axis.name)) +
                         "', which the layout does not have");
  return layout;
}

int Layout::find(char name) const {
  for (unsigned i = 0, e = axes.size(); i != e; ++i)
    if (axes[i].name == name)
      return i;
  return -1;
}

int64_t Layout::getSplitFactor(char primal) const {
  int at = find(toLower(primal));
  return at < 0 ? 1 : axes[at].factor;
}

std::string Layout::getPrimalAxes() const {
  std::string primal;
  for (const LayoutAxis &axis : axes)
    if (axis.isPrimal())
      primal += axis.name;
  return primal;
}

bool Layout::hasSubAxes() const {
  return llvm::any_of(axes, [](const LayoutAxis &a) { return !a.isPrimal(); });
}

bool Layout::isOrderingOf(StringRef canonical) const {
  std::string primal = getPrimalAxes();
  return primal.size() == canonical.size() &&
         llvm::all_of(canonical, [&](char c) { return contains(c); });
}

Shape Layout::toCanonicalShape(ArrayRef<int64_t> shape,
                               StringRef canonical) const {
  assert(shape.size() == axes.size() && isOrderingOf(canonical));
  Shape out;
  for (char c : canonical) {
    int64_t extent = shape[find(c)];
    int sub = find(toLower(c));
    if (sub >= 0)
      extent *= shape[sub];
    out.push_back(extent);
  }
  return out;
}

Expected<Shape> Layout::fromCanonicalShape(ArrayRef<int64_t> shape,
                                           StringRef canonical) const {
  assert(shape.size() == canonical.size() && isOrderingOf(canonical));
  Shape out;
  for (const LayoutAxis &axis : axes) {
    if (!axis.isPrimal()) {
      out.push_back(axis.factor);
      continue;
    }
    int64_t extent = shape[canonical.find(axis.name)];
    int64_t factor = getSplitFactor(axis.name);
    if (extent % factor != 0)
      return layoutError(Twine(axis.name) + " of extent " + Twine(extent) +
                         " does not split by " + Twine(factor));
    out.push_back(extent / factor);
  }
  return out;
}

Expected<Layout> nnir::parseLayoutAttr(StringRef text, StringRef attrName,
                                       const TypeRelationContext &ctx) {
  Expected<Layout> layout = Layout::parse(text);
  if (!layout)
    return ctx.error("invalid " + attrName + " '" + text +
                     "': " + toString(layout.takeError()));
  return layout;
}

Expected<Layout> nnir::parseConvertibleLayout(StringRef text,
                                              StringRef canonical,
                                              StringRef attrName,
                                              const TypeRelationContext &ctx) {
  Expected<Layout> layout = Layout::parse(text);
  if (layout && layout->isOrderingOf(canonical))
    return layout;
  if (!layout)
    consumeError(layout.takeError());
  return ctx.error("unsupported " + attrName + " '" + text +
                   "' (expected an ordering of " + canonical +
                   ", whose axes may be split)");
}

Expected<SmallVector<unsigned, 5>>
nnir::parseLayoutPermutation(StringRef text, StringRef canonical,
                             StringRef attrName,
                             const TypeRelationContext &ctx) {
  Expected<Layout> layout = Layout::parse(text);
  bool ok = bool(layout) && layout->getRank() == canonical.size();
  if (!layout)
    consumeError(layout.takeError());
  SmallVector<unsigned, 5> positions;
  for (char c : canonical) {
    if (!ok)
      break;
    int at = layout->find(c);
    ok = at >= 0;
    positions.push_back(at);
  }
  if (!ok)
    return ctx.error("unsupported " + attrName + " '" + text +
                     "' (expected an ordering of " + canonical + ")");
  return positions;
}
