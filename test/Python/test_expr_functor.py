"""ExprVisitor and ExprMutator subclassed in Python."""

import sys

import nnir
from nnir import op


class CallCounter(nnir.ExprVisitor):
    def __init__(self):
        super().__init__()
        self.counts = {}

    def visit_call(self, call):
        self.counts[call.op.name] = self.counts.get(call.op.name, 0) + 1
        super().visit_call(call)


class AddToSubtract(nnir.ExprMutator):
    def visit_call(self, call):
        new = super().visit_call(call)
        if new.op.name == "add":
            return op.subtract(*new.args)
        return new


def chain(n):
    x = nnir.var("x", shape=(4,))
    c = op.negative(nnir.const(np_ones()))
    y = x
    for _ in range(n):
        y = op.add(y, c)
    return nnir.Function([x], y)


def np_ones():
    import numpy as np
    return np.ones(4, "float32")


def test_visitor_visits_shared_nodes_once():
    f = chain(3)
    counter = CallCounter()
    counter.visit(f)
    assert counter.counts == {"add": 3, "negative": 1}


def test_visitor_every_kind():
    mod = nnir.parse("""
def @main(%x: Tensor[(2), float32], %b: bool) {
  let %t = (%x, negative(%x));
  %0 = %t.1;
  %1 = fn (%y: Tensor[(2), float32]) { exp(%y) };
  if (%b) { %1(%0) } else { @g(%x) }
}
def @g(%z: Tensor[(2), float32]) { %z }
""")
    seen = []

    class Kinds(nnir.ExprVisitor):
        def visit(self, expr):
            if expr not in self.memo_map:
                seen.append(expr.kind)
            return super().visit(expr)

    Kinds().visit(mod["main"])
    assert set(seen) == {"Function", "Var", "Let", "Tuple", "Call", "Op",
                         "TupleGetItem", "If", "GlobalVar"}


def test_mutator_rewrites_and_keeps_unchanged():
    f = chain(3)
    out = AddToSubtract().visit(f)
    assert out.astext().count("subtract(") == 3
    assert "add(" not in out.astext()
    unchanged = nnir.ExprMutator().visit(f)
    assert unchanged.same_as(f)


def test_100000_call_chain_does_not_recurse():
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        f = chain(100000)
        counter = CallCounter()
        counter.visit(f)
        assert counter.counts["add"] == 100000
        out = AddToSubtract().visit(f)
        assert isinstance(out, nnir.Function)
        assert out.body.op.name == "subtract"
    finally:
        sys.setrecursionlimit(limit)


def test_mutated_module_type_checks():
    f = chain(10)
    mod = nnir.infer_type(nnir.IRModule.from_expr(AddToSubtract().visit(f)))
    assert mod["main"].body.checked_type == nnir.TensorType((4,))
