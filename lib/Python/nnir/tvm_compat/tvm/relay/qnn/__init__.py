"""`tvm.relay.qnn`: nnir's quantized operators (`tvm.relay.qnn.op.*`)."""

from nnir.tvm_compat._missing import delegating_getattr

from . import op  # noqa: F401

__getattr__ = delegating_getattr(__name__)
