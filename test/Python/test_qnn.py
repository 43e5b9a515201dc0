"""Quantized operators (qnn.*) from Python: nnir.qnn.op and
tvm.relay.qnn.op, TVM's signatures, execution and folding through the
canonicalization, SimplifyExpr's dequantize rewrite."""

import numpy as np
import pytest

import nnir
from nnir import transform


def _run(expr):
    """The value of `expr`, run as the primitives QnnCanonicalize lowers
    it to."""
    mod = nnir.IRModule.from_expr(expr)
    mod = transform.QnnCanonicalize()(transform.InferType()(mod))
    assert "qnn." not in mod.astext()
    return nnir.create_executor(mod=mod).evaluate()().numpy()


def test_namespace_is_generated_from_the_registry():
    import nnir.qnn.op as qop
    names = [n for n in nnir.op.list_op_names() if n.startswith("qnn.")]
    assert {"qnn.quantize", "qnn.dequantize", "qnn.requantize", "qnn.add",
            "qnn.subtract", "qnn.mul", "qnn.dense",
            "qnn.conv2d"} <= set(names)
    for name in names:
        assert getattr(qop, name[4:]).op_name == name
    assert nnir.qnn.op is nnir.op.qnn


def test_signatures_and_text_are_tvms():
    x = nnir.var("x", shape=(3,), dtype="float32")
    q = nnir.qnn.op.quantize(x, nnir.const(1.0), nnir.const(0))
    assert q.attrs.out_dtype == "int8" and q.attrs.axis == -1
    text = nnir.IRModule.from_expr(nnir.Function([x], q)).astext()
    assert 'qnn.quantize(%x, 1f, 0, out_dtype="int8")' in text
    d = nnir.qnn.op.dequantize(q, 1.0, 0)
    assert d.attrs.out_dtype == "float32"
    r = nnir.qnn.op.requantize(q, 1.0, 0, 2.0, 0)
    assert r.attrs.rounding == "None" and r.attrs.out_dtype == "int8"


def test_quantize_rounds_half_to_even_and_saturates():
    data = nnir.const(np.array([0.5, 1.5, 2.5, -1.5, 300.0], "float32"))
    q = nnir.qnn.op.quantize(data, nnir.const(1.0), nnir.const(0))
    np.testing.assert_array_equal(_run(q), [0, 2, 2, -2, 127])


def test_requantize_rounding_modes():
    data = nnir.const(np.array([-3, -1, 1, 3], "int32"))
    args = (nnir.const(1.0), nnir.const(0), nnir.const(2.0), nnir.const(0))
    up = nnir.qnn.op.requantize(data, *args, out_dtype="int32")
    near = nnir.qnn.op.requantize(data, *args, rounding="TONEAREST",
                                  out_dtype="int32")
    np.testing.assert_array_equal(_run(up), [-1, 0, 1, 2])
    np.testing.assert_array_equal(_run(near), [-2, -1, 1, 2])


def test_per_axis_dequantize():
    data = nnir.const(np.array([[3, 3], [3, 3]], "int8"))
    d = nnir.qnn.op.dequantize(data, nnir.const(np.array([1.0, 2.0], "float32")),
                               nnir.const(np.array([0, 1], "int32")), axis=0)
    np.testing.assert_array_equal(_run(d), [[3, 3], [4, 4]])


def test_bad_scale_is_a_diagnostic():
    x = nnir.var("x", shape=(3,), dtype="float32")
    q = nnir.qnn.op.quantize(x, nnir.const(np.array([1.0, 2.0], "float32")),
                             nnir.const(0))
    with pytest.raises(nnir.DiagnosticError, match="one per channel"):
        nnir.infer_type(nnir.IRModule.from_expr(nnir.Function([x], q)))


def test_fold_qnn_and_simplify_through_tvm_names():
    nnir.install_as_tvm()
    import tvm
    from tvm import relay
    data = relay.const(np.array([1.0, 2.0], "float32"))
    q = relay.qnn.op.quantize(data, relay.const(0.5), relay.const(0))
    mod = tvm.IRModule.from_expr(relay.Function([], q))
    mod = relay.transform.InferType()(mod)
    kept = relay.transform.FoldConstant()(mod)
    assert "qnn.quantize" in kept.astext()
    folded = relay.transform.FoldConstant(fold_qnn=True)(mod)
    np.testing.assert_array_equal(folded["main"].body.data.numpy(), [2, 4])
    x = relay.var("x", shape=(2, 3), dtype="int8")
    dq = relay.qnn.op.dequantize(x, relay.const(2.0), relay.const(0))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.argmax(dq, axis=1)))
    simplified = relay.transform.SimplifyExpr()(relay.transform.InferType()(mod))
    assert "qnn" not in simplified.astext()
    # A negative scale reverses the order: no rewrite.
    dq = relay.qnn.op.dequantize(x, relay.const(-2.0), relay.const(0))
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.argmax(dq, axis=1)))
    kept = relay.transform.SimplifyExpr()(relay.transform.InferType()(mod))
    assert "qnn.dequantize" in kept.astext()
