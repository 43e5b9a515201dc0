"""Model importers: `from_onnx(model_or_path, shape=None)`.

nnir's ONNX importer (lib/ONNX) reads the model; the graph's initializers
become constants of the module, so `params` comes back empty (TVM returns
them apart, for bind_params_by_name, which has nothing to do here).
"""

import os
import tempfile

from . import _nnir
from .ir import load

__all__ = ["from_onnx"]


def from_onnx(model, shape=None, dtype="float32", opset=None,
              freeze_params=True, **unsupported):
    """(module, params) of an ONNX model: a path, the serialised bytes, or
    an `onnx.ModelProto` (anything with SerializeToString). `shape` maps
    input names to shapes (fixing symbolic dimensions). `dtype`, `opset`
    and `freeze_params` are accepted for TVM's sake (the model's own
    types and opset are used; initializers are always constants)."""
    if unsupported:
        raise TypeError("from_onnx: unsupported arguments: %s" %
                        ", ".join(sorted(unsupported)))
    if not _nnir.has_onnx():
        raise NotImplementedError(
            "this nnir was built without ONNX support (libonnx-dev)")
    if isinstance(model, (str, os.PathLike)):
        return load(model, shape), {}
    data = model.SerializeToString() if hasattr(
        model, "SerializeToString") else bytes(model)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        with open(path, "wb") as f:
            f.write(data)
        return load(path, shape), {}
