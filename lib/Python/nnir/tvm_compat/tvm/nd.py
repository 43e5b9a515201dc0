"""`tvm.nd`: arrays are nnir.NDArray (host memory)."""

from nnir import NDArray, ndarray
from nnir.tvm_compat._missing import missing_attr


def array(arr, device=None, mem_scope=None):
    """An NDArray copy of `arr` (NumPy arrays keep their dtype)."""
    if isinstance(arr, NDArray):
        return arr
    if hasattr(arr, "numpy") and not hasattr(arr, "__array_interface__"):
        arr = arr.numpy()
    return ndarray(arr)


def empty(shape, dtype="float32", device=None, mem_scope=None):
    import numpy as np
    return ndarray(np.empty(shape, dtype))


def __getattr__(attr):
    return missing_attr(__name__, attr)
