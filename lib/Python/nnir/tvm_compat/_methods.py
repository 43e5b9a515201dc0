"""TVM-only methods that `import tvm` adds to nnir's classes.

- `IRModule.import_from_std(name)`: nnir has no Relay standard library
  (core.rly, prelude.rly: algebraic data types). The call is recorded, so
  that a TVM test file that calls it at import still collects; a module
  that asked for it cannot be used as `relay.parse`'s `init_module`
  (NotImplementedError naming the feature).
- `Function.type_params`: always empty (nnir has no polymorphic functions).
- `Function.with_attr(key, value)`: a copy with the attribute set.
- `Var.virtual_device_` and `Function.virtual_device_`: nnir's
  `virtual_device` (a device type) as a `tvm.target.VirtualDevice`; set from
  a device (`tvm.cpu()`), a VirtualDevice, a device type or None.
"""

import nnir

from ._missing import FEATURES

# Modules whose import_from_std was called (kept alive: few).
_STD_REQUESTS = []


def _import_from_std(self, file_to_import):
    _STD_REQUESTS.append((self, file_to_import))


def std_request(mod):
    """The standard-library file `mod` asked for, or None."""
    for requester, name in _STD_REQUESTS:
        if requester is mod:
            return name
    return None


def check_init_module(mod):
    """Raises NotImplementedError if `mod` imported TVM's standard
    library."""
    name = std_request(mod)
    if name is not None:
        raise NotImplementedError(
            "IRModule.import_from_std(%r): nnir does not implement Relay's "
            "standard library (%s)" % (name, FEATURES["tvm.relay.prelude"]))


def _with_attr(self, attr_key, attr_value):
    attrs = dict(self.attrs.items()) if self.attrs is not None else {}
    attrs[attr_key] = attr_value
    return nnir.Function(list(self.params), self.body, self.ret_type, attrs)


def _get_virtual_device(self):
    from tvm.target import VirtualDevice
    device_type = self.virtual_device
    if device_type is None:
        return VirtualDevice()
    if device_type == 1:
        return VirtualDevice(nnir.cpu())
    return VirtualDevice(device_type)


def _set_virtual_device(self, device):
    if device is not None and not isinstance(device, int):
        from tvm.relay.op import _device_type
        device = None if getattr(device, "device", 0) is None \
            else _device_type(device)
    self.virtual_device = device


def install():
    for cls in (nnir.Var, nnir.Function):
        if not hasattr(cls, "virtual_device_"):
            cls.virtual_device_ = property(_get_virtual_device,
                                           _set_virtual_device)
    if not hasattr(nnir.IRModule, "import_from_std"):
        nnir.IRModule.import_from_std = _import_from_std
    if not hasattr(nnir.Function, "type_params"):
        nnir.Function.type_params = property(lambda self: [])
    if not hasattr(nnir.Function, "with_attr"):
        nnir.Function.with_attr = _with_attr
