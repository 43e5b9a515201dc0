"""Python operators on expressions, as Relay's: `x + y` is add(x, y).

`+ - * /` build add, subtract, multiply and divide; `-x` negative;
`< > <= >=` less, greater, less_equal and greater_equal; `e.astype(dtype)`
a cast; `f(a, b)` a Call of the function, global or variable `f`. Both
operands must be expressions: a number is a TypeError asking for
`nnir.const` (a constant's dtype is the caller's choice). `==` stays
identity, as in TVM.
"""

import numbers

from . import op
from .ir import Call, Expr

__all__ = []


def _binary(name, reflected=False):
    make = getattr(op, name)

    def method(self, other):
        if isinstance(other, Expr):
            return make(other, self) if reflected else make(self, other)
        if isinstance(other, numbers.Number):
            raise TypeError('convert "%s" with `const` first' % (other,))
        return NotImplemented

    method.__name__ = name
    return method


def _call(self, *args):
    """A Call of this expression (a function, global or variable)."""
    return Call(self, list(args))


def _astype(self, dtype):
    """cast(self, dtype)."""
    return op.cast(self, dtype)


def _install():
    for dunder, name, reflected in [
            ("__add__", "add", False), ("__radd__", "add", True),
            ("__sub__", "subtract", False), ("__rsub__", "subtract", True),
            ("__mul__", "multiply", False), ("__rmul__", "multiply", True),
            ("__truediv__", "divide", False),
            ("__rtruediv__", "divide", True),
            ("__lt__", "less", False), ("__gt__", "greater", False),
            ("__le__", "less_equal", False),
            ("__ge__", "greater_equal", False)]:
        setattr(Expr, dunder, _binary(name, reflected))
    Expr.__neg__ = lambda self: op.negative(self)
    Expr.astype = _astype
    Expr.__call__ = _call


_install()
