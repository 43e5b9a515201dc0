//===- VirtualDevice.h - Virtual devices as attribute values -----*- C++ -*-===//
//
/// \file
/// Relay places values on *virtual devices* (a device type, a virtual device
/// id, a target and a memory scope): `on_device`'s `virtual_device`
/// attribute, and the `virtual_device_` of variables and functions. nnir
/// runs everything on the host CPU and never plans devices; it keeps what a
/// program says, so that passes preserve it and the text format and Python
/// read and write it. A virtual device is an AttrValue:
///  - None: fully unconstrained (TVM's default);
///  - an integer: a DLPack device type (1 for the CPU), what nnir's Python
///    layer writes for `tvm.cpu()`;
///  - an object: a `VirtualDevice` read from a metadata section (MetaObject),
///    printed back as `meta[VirtualDevice][i]`.
///
/// Variables hold theirs in a field (Var::getVirtualDevice()); functions in
/// their attributes under attr::kVirtualDevice, so every rebuild of a
/// function that keeps its attributes keeps it.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_IR_VIRTUALDEVICE_H
#define NNIR_IR_VIRTUALDEVICE_H

#include "nnir/IR/AttrValue.h"

namespace nnir {

/// True when \p device constrains nothing: None, or a VirtualDevice object
/// with no device type, no target and no memory scope.
bool isFullyUnconstrained(const AttrValue &device);

} // namespace nnir

#endif // NNIR_IR_VIRTUALDEVICE_H
