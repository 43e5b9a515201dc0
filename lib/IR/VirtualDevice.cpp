//===- VirtualDevice.cpp - Virtual devices as attribute values ------------===//
//
/// \file
/// What a virtual device constrains.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/VirtualDevice.h"

#include "nnir/IR/Metadata.h"

using namespace llvm;
using namespace nnir;

bool nnir::isFullyUnconstrained(const AttrValue &device) {
  if (device.isNone())
    return true;
  const MetaObject *object = device.getObject();
  if (!object || object->getTypeKey() != "VirtualDevice")
    return false;
  // TVM's VirtualDevice::FullyUnconstrained(): device type -1, no target,
  // an empty memory scope (a runtime.String with an empty repr).
  const MetaObject::Field *type = object->getField("device_type_int");
  const MetaObject::Field *target = object->getField("target");
  const MetaObject::Field *scope = object->getField("memory_scope");
  return (!type || type->text == "-1") && (!target || !target->object) &&
         (!scope || !scope->object || scope->object->getRepr().empty());
}
