//===- AnnotationAttrs.h - Attribute records of annotations -----*- C++ -*-===//
//
/// \file
/// The attribute records of the annotation operators (on_device,
/// device_copy), with TVM Relay's field names, order and defaults (see
/// nnir/IR/Attrs.h). TVM types the device fields as VirtualDevice objects,
/// which it prints as a metadata reference or as `{...}`; nnir keeps them as
/// untyped AttrValues, None meaning "fully unconstrained" (TVM's default).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_ANNOTATIONATTRS_H
#define NNIR_OPS_ANNOTATIONATTRS_H

#include "nnir/IR/Attrs.h"

namespace nnir {

/// on_device
struct OnDeviceAttrs : AttrsNode<OnDeviceAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.OnDeviceAttrs";
  /// Where the body is (or must be) computed.
  AttrValue virtualDevice;
  /// The result must stay on virtual_device (no implicit copy away).
  bool constrainResult = false;
  /// The body must be computed on virtual_device.
  bool constrainBody = true;
  template <typename V> void visitFields(V &v) {
    v("virtual_device", virtualDevice, AttrValue::none());
    v("constrain_result", constrainResult, false);
    v("constrain_body", constrainBody, true);
  }
};

/// device_copy
struct DeviceCopyAttrs : AttrsNode<DeviceCopyAttrs> {
  static constexpr llvm::StringLiteral typeKey = "relay.attrs.DeviceCopyAttrs";
  AttrValue srcVirtualDevice;
  AttrValue dstVirtualDevice;
  template <typename V> void visitFields(V &v) {
    v("src_virtual_device", srcVirtualDevice, AttrValue::none());
    v("dst_virtual_device", dstVirtualDevice, AttrValue::none());
  }
};

} // namespace nnir

#endif // NNIR_OPS_ANNOTATIONATTRS_H
