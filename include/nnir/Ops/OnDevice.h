//===- OnDevice.h - Looking through and building on_device ------*- C++ -*-===//
//
/// \file
/// Helpers for passes that meet `on_device(body, virtual_device=...,
/// constrain_result=..., constrain_body=...)` (Relay's on_device.h): read
/// its parts, look through one wrapper, and wrap an expression again with
/// Relay's MaybeOnDevice rules (no wrapper where the device can be recovered
/// otherwise, nested wrappers merged).
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_OPS_ONDEVICE_H
#define NNIR_OPS_ONDEVICE_H

#include "nnir/IR/Expr.h"
#include "nnir/Ops/AnnotationAttrs.h"

namespace nnir {

/// The parts of an on_device call.
struct OnDeviceProps {
  /// The wrapped expression; null when the expression is not on_device.
  Expr *body = nullptr;
  /// Its attributes (the defaults when the call carries none).
  const OnDeviceAttrs *attrs = nullptr;

  explicit operator bool() const { return body != nullptr; }
};

/// \p e's parts if it is a call of on_device with one argument.
OnDeviceProps getOnDeviceProps(const Expr *e);

/// \p e without one on_device wrapper (Relay's IgnoreOnDevice).
inline Expr *ignoreOnDevice(Expr *e) {
  OnDeviceProps props = getOnDeviceProps(e);
  return props ? props.body : e;
}
inline const Expr *ignoreOnDevice(const Expr *e) {
  OnDeviceProps props = getOnDeviceProps(e);
  return props ? props.body : e;
}

/// Relay's MaybeOnDevice: \p body wrapped in on_device unless the device is
/// fully unconstrained or \p body is an operator, a variable, a global or a
/// function (whose device is known where it is bound). A \p body that is
/// itself on_device is merged with the new wrapper when their constraints
/// agree (two wrappers are kept where they contradict).
Ref<Expr> maybeOnDevice(Ref<Expr> body, const AttrValue &device,
                        bool constrainResult, bool constrainBody);

/// maybeOnDevice with the device and constraints of \p props.
inline Ref<Expr> maybeOnDeviceWithProps(Ref<Expr> body,
                                        const OnDeviceAttrs &props) {
  return maybeOnDevice(std::move(body), props.virtualDevice,
                       props.constrainResult, props.constrainBody);
}

/// maybeOnDevice with both constraints set (Relay's MaybeOnDeviceFixed).
inline Ref<Expr> maybeOnDeviceFixed(Ref<Expr> body, const AttrValue &device) {
  return maybeOnDevice(std::move(body), device, /*constrainResult=*/true,
                       /*constrainBody=*/true);
}

} // namespace nnir

#endif // NNIR_OPS_ONDEVICE_H
