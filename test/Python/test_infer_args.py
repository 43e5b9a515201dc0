"""Untyped parameters typed by the operators that use them (FInferArgTypes),
through the TVM names: relay.var("weight") without a type, as TVM's own
tests write it."""

import nnir
import pytest

nnir.install_as_tvm()

import tvm  # noqa: E402
from tvm import relay  # noqa: E402


def infer(expr):
    mod = tvm.IRModule.from_expr(relay.Function(relay.analysis.free_vars(expr),
                                                expr))
    return relay.transform.InferType()(mod)["main"]


def test_conv2d_weight_from_channels_and_kernel_size():
    x = relay.var("x", shape=(1, 4, 8, 8))
    weight = relay.var("weight")
    bias = relay.var("bias")
    y = relay.nn.bias_add(
        relay.nn.conv2d(x, weight, channels=2, kernel_size=(3, 3)), bias)
    func = infer(y)
    types = {p.name_hint: p.checked_type for p in func.params}
    assert tuple(types["weight"].shape) == (2, 4, 3, 3)
    assert types["weight"].dtype == "float32"
    assert tuple(types["bias"].shape) == (2,)
    assert tuple(func.ret_type.shape) == (1, 2, 6, 6)


def test_blocked_layout_weight():
    x = relay.var("x", shape=(1, 2, 8, 8, 2))
    weight = relay.var("weight")
    y = relay.nn.conv2d(x, weight, channels=8, kernel_size=(3, 3),
                        data_layout="NCHW2c", kernel_layout="OIHW2i4o")
    func = infer(y)
    assert tuple(func.params[1].checked_type.shape) == (2, 2, 3, 3, 2, 4)


def test_undetermined_weight_is_a_located_error():
    x = relay.var("x", shape=(1, 4, 8, 8))
    weight = relay.var("weight")
    y = relay.nn.conv2d(x, weight, kernel_size=(3, 3))
    with pytest.raises(nnir.DiagnosticError, match="nothing determines"):
        infer(y)
