//===- VisionAttrs.h - Attribute records of vision ops ----------*- C++ -*-===//
//
/// \file
/// The attribute records of the vision operators (vision.roi_align), with
/// TVM Relay's field names, declaration order and defaults (see
/// nnir/IR/Attrs.h).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_VISIONATTRS_H
#define NNIR_OPS_VISIONATTRS_H

#include "nnir/IR/Attrs.h"

#include <string>
#include <vector>

namespace nnir {

/// vision.roi_align (Relay's ROIAlignAttrs): `pooled_size` [PH, PW],
/// `spatial_scale` from roi to data coordinates, `sample_ratio` samples per
/// bin axis (adaptive, ceil(roi extent / pooled extent), when not positive),
/// `layout` NCHW or NHWC, `mode` "avg" or "max". `aligned` is nnir's
/// extension for ONNX's half_pixel coordinates: rois shifted by half a
/// pixel and not enlarged to 1 x 1 (TVM's roi_align is the unaligned,
/// output_half_pixel, case; the default is not printed, so TVM's modules
/// read and print unchanged).
struct ROIAlignAttrs : AttrsNode<ROIAlignAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.ROIAlignAttrs";
  std::vector<int64_t> pooledSize;
  double spatialScale = 1;
  int64_t sampleRatio = -1;
  std::string layout, mode;
  bool aligned = false;
  template <typename V> void visitFields(V &v) {
    v("pooled_size", pooledSize);
    v("spatial_scale", spatialScale);
    v("sample_ratio", sampleRatio, -1);
    v("layout", layout, "NCHW");
    v("mode", mode, "avg");
    v("aligned", aligned, false);
  }
};

} // namespace nnir

#endif // NNIR_OPS_VISIONATTRS_H
