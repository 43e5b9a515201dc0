"""nnir's IR in Python: types, expressions, modules, text and comparison.

Every class here is the C++ node itself (bound in lib/Python/*.cpp); this
module adds the conveniences that are plain Python: `var`, `const`,
`assert_structural_equal` and the readers.
"""

import difflib

import numpy as np

from . import _nnir
from ._nnir import (Attrs, Call, Constant, DictAttrs, Expr, FuncType,
                    Function, GlobalVar, If, IncompleteType, IRModule, Let,
                    NDArray, Op, TensorType, Tuple, TupleGetItem, TupleType,
                    Type, Var, parse, parse_expr, structural_equal,
                    structural_hash)

__all__ = [
    "Any", "Attrs", "Call", "Constant", "DictAttrs", "Expr", "FuncType", "Function",
    "GlobalVar", "If", "IncompleteType", "IRModule", "Let", "NDArray", "Op",
    "TensorType", "Tuple", "TupleGetItem", "TupleType", "Type", "Var",
    "assert_structural_equal", "const", "infer_type", "load", "ndarray",
    "parse", "parse_expr", "structural_equal", "structural_hash", "var",
]


class Any:
    """A dynamic extent in a shape (Relay's Any, printed `?`):
    `nnir.var("x", shape=(nnir.Any(), 3))` is a `Tensor[(?, 3), float32]`.
    A TensorType's `shape` gives one for each `?`. Every Any equals every
    other, as `?` does in nnir's types (TVM's are distinct objects that
    structural equality also treats alike)."""

    __nnir_any__ = True
    __slots__ = ()

    def __eq__(self, other):
        return isinstance(other, Any)

    def __hash__(self):
        return hash("?")

    def __repr__(self):
        return "?"


def ndarray(value, dtype=None):
    """An NDArray holding `value` (a NumPy array, a number or a nested list),
    converted to `dtype` when given. A C-contiguous NumPy array of the right
    dtype is copied exactly once, into nnir's aligned storage."""
    if isinstance(value, NDArray):
        return value
    array = np.asarray(value, dtype=dtype)
    if dtype is None and not isinstance(value, (np.ndarray, np.generic)):
        # Python floats and ints become float32 and int32, as in TVM.
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        elif array.dtype == np.int64:
            array = array.astype(np.int32)
    name = "bool" if array.dtype == np.bool_ else array.dtype.name
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    return NDArray.from_buffer(array, name)


def const(value, dtype=None):
    """A Constant of `value` (see `ndarray`): `nnir.const(np.ones((2, 2)))`,
    `nnir.const(1.0)` (a 0-d float32), `nnir.const(3, "int64")`."""
    return Constant(ndarray(value, dtype))


def var(name_hint, type_annotation=None, shape=None, dtype="float32"):
    """A Var; the type is `type_annotation` (a Type or a dtype string), or a
    TensorType of `shape` and `dtype` when `shape` is given."""
    if type_annotation is None and shape is not None:
        type_annotation = TensorType(shape, dtype)
    elif isinstance(type_annotation, str):
        type_annotation = TensorType((), type_annotation)
    return Var(name_hint, type_annotation)


def load(path, shape=None):
    """Reads a module file: nnir (Relay) text, or an ONNX model when nnir is
    built with ONNX (`nnir.has_onnx()`); `shape` maps ONNX input names to
    shapes."""
    return _nnir.load(str(path), dict(shape or {}))


def infer_type(node, mod=None):
    """Type inference: a module comes back with every expression typed; an
    expression comes back typed (global references typed from `mod`)."""
    if isinstance(node, IRModule):
        return _nnir.infer_type(node)
    return _nnir.infer_expr_type(node, mod)


def _text(node):
    return node.astext() if hasattr(node, "astext") else str(node)


def _first_difference(lhs_text, rhs_text, context=2):
    """The first differing printed line of the two texts, with `context`
    lines around it, as a unified diff."""
    lhs, rhs = lhs_text.splitlines(), rhs_text.splitlines()
    diff = list(difflib.unified_diff(lhs, rhs, "lhs", "rhs", n=context,
                                     lineterm=""))
    if not diff:
        return ""
    # The header and the first hunk only.
    hunk_starts = [i for i, line in enumerate(diff) if line.startswith("@@")]
    end = hunk_starts[1] if len(hunk_starts) > 1 else len(diff)
    return "\n".join(diff[:end])


def assert_structural_equal(lhs, rhs, map_free_vars=False):
    """Raises AssertionError unless `lhs` and `rhs` (modules, expressions or
    types) are structurally equal. The message says where they differ: the
    first difference the comparison met, then the first differing lines of
    their printed text."""
    if structural_equal(lhs, rhs, map_free_vars):
        return
    reason = _nnir.explain_structural_difference(lhs, rhs, map_free_vars)
    message = "the two are not structurally equal"
    if reason:
        message += ": " + reason
    diff = _first_difference(_text(lhs), _text(rhs))
    if diff:
        message += "\n" + diff
    raise AssertionError(message)
