"""`tvm.relay.qnn.op`: nnir.qnn.op's generated operator functions."""

import types as _types

import nnir.qnn as _qnn
from nnir.tvm_compat._missing import delegating_getattr

for _name, _value in vars(_qnn.op).items():
    if not _name.startswith("_") and \
            not isinstance(_value, _types.ModuleType):
        globals()[_name] = _value

__getattr__ = delegating_getattr(__name__)
