"""Every registered operator as a Python function, generated at import.

`nnir.op.add(x, y)`, `nnir.op.nn.conv2d(data, weight, strides=(1, 1), ...)`:
one function per operator of the C++ registry, in the namespace of its
name's prefix (`nn.conv2d` -> `nnir.op.nn.conv2d`, `image.resize2d` ->
`nnir.op.image.resize2d`). The signature is the operator's inputs, then the
fields of its attribute record, with the record's defaults: an operator
registered in C++ appears here without a Python edit. Where TVM's Python
signature orders or defaults differ from the record, the small table
_SIGNATURES in nnir/op/_generate.py says so.

Arguments that are not expressions are converted: numbers and NumPy arrays
become constants, a list or tuple of expressions a Tuple (`concatenate`).
A wrong attribute name or value is a TypeError naming the attribute.
"""

from .. import _nnir
from . import _generate


def get(name):
    """The Op registered as `name` (`nnir.op.get("nn.conv2d")`)."""
    return _nnir.Op.get(name)


def list_op_names():
    """The names of every registered operator, in registration order."""
    return [info["name"] for info in _nnir.list_ops()]


_generate.populate(_generate.sys.modules[__name__])
