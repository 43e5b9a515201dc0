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

register_alter_op_layout() gives an operator a layout alteration, which
the pass AlterOpLayout applies (TVM's FTVMAlterOpLayout).
"""

from .. import _nnir
from . import _generate


def get(name):
    """The Op registered as `name` (`nnir.op.get("nn.conv2d")`)."""
    return _nnir.Op.get(name)


def list_op_names():
    """The names of every registered operator, in registration order."""
    return [info["name"] for info in _nnir.list_ops()]


def register_alter_op_layout(op_name, fn=None, level=10):
    """Makes `fn(attrs, inputs, tinfos, out_type)` the layout alteration of
    the operator `op_name`; used as a decorator when `fn` is None.

    AlterOpLayout calls it for every call of the operator with the call's
    attributes, its arguments (as altered so far), the types of the
    original arguments (TensorTypes, with `.shape` and `.dtype` as TVM's
    placeholders have) and the call's type. It returns the expression that
    replaces the call, which must have the call's type (nnir inserts no
    layout_transform around it), or None to keep the call. As in TVM, a
    registration replaces one of a lower `level`, is ignored where one of a
    higher level is set, and is a ValueError at the same level;
    reset_alter_op_layout() removes it.
    """
    def register(func):
        _nnir.set_alter_op_layout(op_name, func, level)
        return func
    return register(fn) if fn is not None else register


def reset_alter_op_layout(op_name):
    """Removes the layout alteration of the operator `op_name`."""
    _nnir.reset_alter_op_layout(op_name)


_generate.populate(_generate.sys.modules[__name__])
