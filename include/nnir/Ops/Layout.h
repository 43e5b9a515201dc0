//===- Layout.h - Data layouts of tensors -----------------------*- C++ -*-===//
//
/// \file
/// A data layout names the axes of a tensor from the outermost (TVM's
/// tir::Layout): "NCHW", "NHWC", "NCHW16c", "OIHW4i4o". An upper-case letter
/// is a primal axis; `<factor><lower-case letter>` is a sub-axis that splits
/// the primal axis of the same letter by that factor (C = c.outer * 16 in
/// NCHW16c). Every letter appears at most once, and every sub-axis's primal
/// axis is present.
///
/// A layout whose primal axes are an ordering of a canonical one ("NCHW")
/// converts shapes to and from it, as TVM's tir::BijectiveLayout does: the
/// extent of a split axis in canonical order is its outer extent times its
/// factor (NCHW4c [1, 2, 8, 8, 4] is NCHW [1, 8, 8, 8]).
///
/// This is the one parser of layout strings: convolution and pooling
/// attributes (`data_layout`, `layout`), layout_transform's `src_layout` and
/// `dst_layout`, and the passes that read them all go through Layout::parse.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_LAYOUT_H
#define NNIR_OPS_LAYOUT_H

#include "nnir/IR/TypeRelation.h"
#include "nnir/Runtime/Shape.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace nnir {

/// One axis of a layout: a primal axis (`C`, factor 0) or a sub-axis that
/// splits one (`16c`: name 'c', factor 16).
struct LayoutAxis {
  char name;
  int64_t factor;

  bool isPrimal() const { return factor == 0; }
};

class Layout {
public:
  /// Parses \p text. The error says what is wrong without naming the
  /// attribute ("axis 'H' appears twice"); parseLayoutAttr() adds that.
  static llvm::Expected<Layout> parse(llvm::StringRef text);

  llvm::ArrayRef<LayoutAxis> getAxes() const { return axes; }
  unsigned getRank() const { return axes.size(); }
  const LayoutAxis &operator[](unsigned i) const { return axes[i]; }

  /// The position of the primal (upper-case) or sub-axis (lower-case)
  /// \p name, or -1.
  int find(char name) const;
  bool contains(char name) const { return find(name) >= 0; }
  /// The factor that splits primal axis \p primal (16 for 'C' in NCHW16c),
  /// or 1 when it is not split.
  int64_t getSplitFactor(char primal) const;
  /// The primal axes in layout order ("NCHW" for NCHW16c).
  std::string getPrimalAxes() const;
  /// Whether some primal axis is split (NCHW4c).
  bool hasSubAxes() const;
  /// Whether the primal axes are an ordering of exactly the letters of
  /// \p canonical.
  bool isOrderingOf(llvm::StringRef canonical) const;

  /// \p shape, laid out in this layout, in the order of \p canonical (of
  /// which this layout is an ordering, and of this layout's rank): TVM's
  /// BijectiveLayout::ForwardShape.
  Shape toCanonicalShape(llvm::ArrayRef<int64_t> shape,
                         llvm::StringRef canonical) const;
  /// \p shape, in the order of \p canonical, laid out in this layout
  /// (BijectiveLayout::BackwardShape); an error names the axis whose extent
  /// is not a multiple of its split factor ("C of extent 3 does not split
  /// by 2").
  llvm::Expected<Shape> fromCanonicalShape(llvm::ArrayRef<int64_t> shape,
                                           llvm::StringRef canonical) const;

private:
  llvm::SmallVector<LayoutAxis, 6> axes;
};

/// Parses the layout attribute \p attrName of an operator call; errors are
/// located at the call: "nn.max_pool2d: invalid layout 'NHHW': axis 'H'
/// appears twice".
llvm::Expected<Layout> parseLayoutAttr(llvm::StringRef text,
                                       llvm::StringRef attrName,
                                       const TypeRelationContext &ctx);

/// Parses the layout attribute \p attrName of an operator call, which must
/// be an ordering of the letters of \p canonical, whose axes may be split
/// (NCHW, NHWC, NCHW4c for "NCHW"); anything else is "unsupported
/// <attrName> '<text>' (expected an ordering of NCHW, whose axes may be
/// split)".
llvm::Expected<Layout> parseConvertibleLayout(llvm::StringRef text,
                                              llvm::StringRef canonical,
                                              llvm::StringRef attrName,
                                              const TypeRelationContext &ctx);

/// The positions in \p text of the letters of \p canonical, for attributes
/// that must be an ordering of exactly those primal axes (convolution's
/// data_layout "NHWC" for "NCHW" gives 0, 3, 1, 2); anything else is
/// "unsupported <attrName> '<text>' (expected an ordering of NCHW)".
llvm::Expected<llvm::SmallVector<unsigned, 5>>
parseLayoutPermutation(llvm::StringRef text, llvm::StringRef canonical,
                       llvm::StringRef attrName,
                       const TypeRelationContext &ctx);

} // namespace nnir

#endif // NNIR_OPS_LAYOUT_H
