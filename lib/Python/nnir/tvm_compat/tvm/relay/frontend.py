"""`tvm.relay.frontend`: ONNX models through nnir's importer (the other
frontends are not implemented)."""

from nnir.frontend import from_onnx  # noqa: F401
from nnir.tvm_compat._missing import delegating_getattr

__path__ = []

__getattr__ = delegating_getattr(__name__)
