"""ScopeBuilder: let chains and ifs written as statements (TVM's
relay.ScopeBuilder).

    sb = nnir.ScopeBuilder()
    t = sb.let("t", nnir.op.add(x, x))
    with sb.if_scope(cond):
        sb.ret(t)
    with sb.else_scope():
        sb.ret(x)
    body = sb.get()
"""

from .ir import If, Let, Var, var as _make_var

__all__ = ["ScopeBuilder"]


class _WithScope:
    def __init__(self, enter, exit_):
        self._enter, self._exit = enter, exit_

    def __enter__(self):
        return self._enter()

    def __exit__(self, kind, value, traceback):
        if kind is None:
            self._exit()


class ScopeBuilder:
    """Collects `let` bindings and one `ret` per scope; `get()` is the
    nested expression."""

    def __init__(self):
        self._bindings = [[]]
        self._ret_values = [None]

    def _enter_scope(self):
        self._bindings.append([])
        self._ret_values.append(None)

    def _exit_scope(self):
        bindings = self._bindings.pop()
        ret = self._ret_values.pop()
        return bindings, ret

    def let(self, var, value):
        """Binds `value` to `var` (a Var, a name, or a (name, type) pair) and
        returns the Var."""
        if isinstance(var, (tuple, list)):
            if len(var) != 2:
                raise ValueError("expected a pair (name, type)")
            var = _make_var(var[0], var[1])
        elif isinstance(var, str):
            var = _make_var(var)
        elif not isinstance(var, Var):
            raise TypeError("let: expected a Var or a name, got %s" %
                            type(var).__name__)
        self._bindings[-1].append((var, value))
        return var

    def if_scope(self, cond):
        """A `with` scope building the true branch of `if (cond)`."""
        def exit_():
            bindings, ret = self._exit_scope()
            if self._ret_values[-1] is not None:
                raise RuntimeError("result already returned in this scope")
            # The if is the scope's result; else_scope completes it.
            self._ret_values[-1] = ("if", cond, self._build(bindings, ret))

        return _WithScope(self._enter_scope, exit_)

    def else_scope(self):
        """A `with` scope building the false branch of the last if_scope."""
        def enter():
            pending = self._ret_values[-1]
            if not (isinstance(pending, tuple) and pending[0] == "if"):
                raise RuntimeError("else_scope must follow an if_scope")
            self._enter_scope()

        def exit_():
            bindings, ret = self._exit_scope()
            _, cond, then = self._ret_values[-1]
            self._ret_values[-1] = If(cond, then, self._build(bindings, ret))

        return _WithScope(enter, exit_)

    def type_of(self, expr):
        """The type annotation of a let-bound variable (TVM's helper)."""
        for var, value in reversed(self._bindings[-1]):
            if value is expr or var is expr:
                return var.type_annotation
        raise ValueError("not bound in this scope")

    def ret(self, value):
        """Sets the result of the current scope."""
        if self._ret_values[-1] is not None:
            raise RuntimeError("ret was called twice in a scope")
        self._ret_values[-1] = value

    @staticmethod
    def _build(bindings, ret):
        if ret is None:
            raise RuntimeError("the scope has no result: call ret()")
        body = ret
        for var, value in reversed(bindings):
            body = Let(var, value, body)
        return body

    def get(self):
        """The expression built so far (the outermost scope)."""
        if len(self._bindings) != 1:
            raise RuntimeError("get() inside an if or else scope")
        ret = self._ret_values[-1]
        if isinstance(ret, tuple):
            raise RuntimeError("an if_scope needs its else_scope")
        return self._build(self._bindings[-1], ret)
