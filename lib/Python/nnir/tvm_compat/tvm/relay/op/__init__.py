"""`tvm.relay.op`: nnir.op's generated operator functions, with TVM's
TupleWrapper results for the operators that return several values."""

import types

import nnir.op as _op
from nnir import TupleGetItem
from nnir.tvm_compat._missing import delegating_getattr



class TupleWrapper:
    """A tuple-valued expression (a call of a multi-output operator) that
    indexes and iterates like a tuple: `w[0]` is TupleGetItem(w.tuple_value,
    0); `astuple()` is the expression itself."""

    def __init__(self, tuple_value, size):
        self.tuple_value = tuple_value
        self.size = size

    def astuple(self):
        return self.tuple_value

    def astext(self, *args, **kwargs):
        return self.tuple_value.astext(*args, **kwargs)

    def __getitem__(self, index):
        if index >= len(self):
            raise IndexError("TupleWrapper index out of range")
        return TupleGetItem(self.tuple_value, index)

    def __len__(self):
        return self.size

    def __repr__(self):
        return "TupleWrapper(%r, %d)" % (self.tuple_value, self.size)


def _namespace(name, source):
    """A module holding the public functions of `source`."""
    module = types.ModuleType(name, source.__doc__)
    module.__path__ = []
    for key, value in vars(source).items():
        if not key.startswith("_") and not isinstance(value, types.ModuleType):
            setattr(module, key, value)
    module.__getattr__ = delegating_getattr(name)
    return module


# Every top-level operator (add, split, ...) and the helpers get/list.
for _name, _value in vars(_op).items():
    if not _name.startswith("_") and not isinstance(_value, types.ModuleType):
        globals()[_name] = _value

nn = _namespace(__name__ + ".nn", _op.nn)
image = _namespace(__name__ + ".image", _op.image)
annotation = _namespace(__name__ + ".annotation", _op.annotation)


def split(data, indices_or_sections, axis=0):
    """split, as a TupleWrapper of its parts."""
    call = _op.split(data, indices_or_sections, axis)
    count = indices_or_sections if isinstance(indices_or_sections, int) \
        else len(indices_or_sections) + 1
    return TupleWrapper(call, count)


def topk(data, k=1, axis=-1, ret_type="both", is_ascend=False,
         dtype="int32"):
    """topk; ret_type "both" gives a TupleWrapper (values, indices)."""
    call = _op.topk(data, k, axis, ret_type, is_ascend, dtype)
    return TupleWrapper(call, 2) if ret_type == "both" else call


def _batch_norm(data, gamma, beta, moving_mean, moving_var, axis=1,
                epsilon=1e-5, center=True, scale=True):
    """nn.batch_norm, as a TupleWrapper (out, mean, var)."""
    return TupleWrapper(_op.nn.batch_norm(data, gamma, beta, moving_mean,
                                          moving_var, axis=axis,
                                          epsilon=epsilon, center=center,
                                          scale=scale), 3)


def _dropout(data, rate=0.5):
    """nn.dropout's output (field 0 of the call)."""
    return TupleWrapper(_op.nn.dropout(data, rate=rate), 2)[0]


def _dropout_raw(data, rate=0.5):
    return _op.nn.dropout(data, rate=rate)


def _device_type(device):
    """The DLPack device type code of a TVM device description (nnir keeps
    on_device's virtual_device as that integer)."""
    from nnir.executor import Device
    if isinstance(device, (int,)):
        return device
    if isinstance(device, str):
        device = Device(device)
    if hasattr(device, "device") and not isinstance(device, Device):
        device = device.device  # a tvm.target.VirtualDevice
    if isinstance(device, Device):
        return {"cpu": 1}[device.device_type]
    raise TypeError("on_device: expected a device, got %s" %
                    type(device).__name__)


def _on_device(body, device, constrain_result=False, constrain_body=True):
    """on_device(body) placed on `device` (the host CPU)."""
    return _op.on_device(body, virtual_device=_device_type(device),
                         constrain_result=constrain_result,
                         constrain_body=constrain_body)


annotation.on_device = _on_device
nn.batch_norm = _batch_norm
nn.dropout = _dropout
nn.dropout_raw = _dropout_raw

__getattr__ = delegating_getattr(__name__)
