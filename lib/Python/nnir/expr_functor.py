"""ExprVisitor and ExprMutator: walks of expressions to subclass in Python.

As TVM's relay.ExprVisitor and relay.ExprMutator: `visit(expr)` dispatches
to `visit_call`, `visit_tuple`, `visit_var`, ... and memoises the result per
node, so a node shared by several users is visited once. Override the
methods of the node kinds you care about; call the base method (or
`self.visit(child)`) to go on into children.

They do not recurse on the Python stack along dataflow edges: before
visiting a node, `visit` lists the graph below it children first (in C++,
nnir._nnir.dataflow_post_order) and visits that list in order, so when a
node's method visits its children they are already memoised. A
100,000-call chain is walked with a constant Python stack. Functions and
ifs are entered when their method visits them (one level of recursion per
syntactic nesting), as in TVM's MixedModeVisitor.
"""

from . import _nnir
from .ir import (Call, Constant, Function, GlobalVar, If, Let, Op, Tuple,
                 TupleGetItem, Var)

__all__ = ["ExprFunctor", "ExprMutator", "ExprVisitor"]


class ExprFunctor:
    """Dispatch on the node kind with a memo table (`memo_map`)."""

    def __init__(self):
        self.memo_map = {}
        # The node the walk in visit() is about to visit: visit() called
        # for it (through an override of visit that calls the base method)
        # dispatches at once instead of walking again.
        self._next = None

    def visit(self, expr):
        memo = self.memo_map
        if expr in memo:
            return memo[expr]
        if expr is self._next:
            self._next = None
            result = memo[expr] = self._dispatch(expr)
            return result
        for node in _nnir.dataflow_post_order(expr):
            if node not in memo:
                self._next = node
                self.visit(node)
                self._next = None
        return memo[expr] if expr in memo else self.visit(expr)

    def _dispatch(self, expr):
        method = _METHODS.get(type(expr))
        if method is None:
            raise TypeError("unexpected node %s" % type(expr).__name__)
        return getattr(self, method)(expr)

    def visit_function(self, fn):
        raise NotImplementedError()

    def visit_let(self, let):
        raise NotImplementedError()

    def visit_call(self, call):
        raise NotImplementedError()

    def visit_var(self, var):
        raise NotImplementedError()

    def visit_global_var(self, gvar):
        raise NotImplementedError()

    def visit_if(self, ite):
        raise NotImplementedError()

    def visit_tuple(self, tup):
        raise NotImplementedError()

    def visit_tuple_getitem(self, t):
        raise NotImplementedError()

    def visit_op(self, op):
        raise NotImplementedError()

    def visit_constant(self, const):
        raise NotImplementedError()


_METHODS = {
    Call: "visit_call",
    Constant: "visit_constant",
    Function: "visit_function",
    GlobalVar: "visit_global_var",
    If: "visit_if",
    Let: "visit_let",
    Op: "visit_op",
    Tuple: "visit_tuple",
    TupleGetItem: "visit_tuple_getitem",
    Var: "visit_var",
}


class ExprVisitor(ExprFunctor):
    """Visits every node once; the methods return nothing."""

    def visit_tuple(self, tup):
        for field in tup.fields:
            self.visit(field)

    def visit_call(self, call):
        self.visit(call.op)
        for arg in call.args:
            self.visit(arg)

    def visit_var(self, var):
        pass

    def visit_let(self, let):
        self.visit(let.var)
        self.visit(let.value)
        self.visit(let.body)

    def visit_function(self, fn):
        for param in fn.params:
            self.visit(param)
        self.visit(fn.body)

    def visit_if(self, ite):
        self.visit(ite.cond)
        self.visit(ite.true_branch)
        self.visit(ite.false_branch)

    def visit_global_var(self, gvar):
        pass

    def visit_constant(self, const):
        pass

    def visit_op(self, op):
        pass

    def visit_tuple_getitem(self, t):
        self.visit(t.tuple_value)


def _all_same(old, new):
    return len(old) == len(new) and all(a.same_as(b) for a, b in zip(old, new))


class ExprMutator(ExprFunctor):
    """Rebuilds the expression from the results of visiting children; a node
    whose children all come back unchanged is kept (the same node)."""

    def visit_function(self, fn):
        params = [self.visit(p) for p in fn.params]
        body = self.visit(fn.body)
        if _all_same(fn.params, params) and body.same_as(fn.body):
            return fn
        return Function(params, body, fn.ret_type, fn.attrs)

    def visit_let(self, let):
        var = self.visit(let.var)
        value = self.visit(let.value)
        body = self.visit(let.body)
        if var.same_as(let.var) and value.same_as(let.value) and \
                body.same_as(let.body):
            return let
        return Let(var, value, body)

    def visit_call(self, call):
        callee = self.visit(call.op)
        args = [self.visit(arg) for arg in call.args]
        if callee.same_as(call.op) and _all_same(call.args, args):
            return call
        return Call(callee, args, call.attrs)

    def visit_var(self, var):
        return var

    def visit_global_var(self, gvar):
        return gvar

    def visit_op(self, op):
        return op

    def visit_constant(self, const):
        return const

    def visit_if(self, ite):
        cond = self.visit(ite.cond)
        then = self.visit(ite.true_branch)
        other = self.visit(ite.false_branch)
        if cond.same_as(ite.cond) and then.same_as(ite.true_branch) and \
                other.same_as(ite.false_branch):
            return ite
        return If(cond, then, other)

    def visit_tuple(self, tup):
        fields = [self.visit(f) for f in tup.fields]
        if _all_same(tup.fields, fields):
            return tup
        return Tuple(fields)

    def visit_tuple_getitem(self, t):
        value = self.visit(t.tuple_value)
        if value.same_as(t.tuple_value):
            return t
        return TupleGetItem(value, t.index)
