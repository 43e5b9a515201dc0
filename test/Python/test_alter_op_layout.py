"""Layout alterations from Python: nnir.op.register_alter_op_layout (and
TVM's tvm.relay.op.register_alter_op_layout) give an operator the
FTVMAlterOpLayout property that the pass AlterOpLayout applies."""

import numpy as np
import pytest

import nnir
from nnir import op, transform

ALTERED = ["nn.conv2d", "nn.relu"]


@pytest.fixture(autouse=True)
def reset_alterations():
    """Each test starts and ends without alterations (nnir has none)."""
    for name in ALTERED:
        op.reset_alter_op_layout(name)
    yield
    for name in ALTERED:
        op.reset_alter_op_layout(name)


def _conv_module():
    x = nnir.var("x", shape=(1, 3, 8, 8))
    w = nnir.var("w", shape=(4, 3, 3, 3))
    y = op.nn.relu(op.nn.conv2d(x, w, padding=(1, 1)))
    return nnir.IRModule.from_expr(nnir.Function([x, w], y))


def _alter(mod, opt_level=3):
    with transform.PassContext(opt_level=opt_level):
        return transform.Sequential([transform.AlterOpLayout()])(mod)


def _to_nhwc(attrs, inputs, tinfos, out_type):
    """nn.conv2d in NHWC/HWIO between layout_transforms."""
    new_attrs = dict(attrs)
    new_attrs["data_layout"] = "NHWC"
    new_attrs["kernel_layout"] = "HWIO"
    data = op.layout_transform(inputs[0], "NCHW", "NHWC")
    weight = op.layout_transform(inputs[1], "OIHW", "HWIO")
    return op.layout_transform(op.nn.conv2d(data, weight, **new_attrs),
                               "NHWC", "NCHW")


def _run(mod, *args):
    return nnir.create_executor(mod=mod).evaluate()(*args).numpy()


def test_without_alterations_nothing_changes():
    mod = transform.InferType()(_conv_module())
    assert _alter(mod) is mod


def test_conv2d_in_another_layout_computes_the_same():
    seen = []

    @op.register_alter_op_layout("nn.conv2d")
    def alter(attrs, inputs, tinfos, out_type):
        seen.append((attrs, inputs, tinfos, out_type))
        return _to_nhwc(attrs, inputs, tinfos, out_type)

    assert alter.__name__ == "alter"  # the decorator returns the function
    mod = _conv_module()
    # Opt level 3: skipped at the default level 2.
    assert _alter(mod, opt_level=2).astext() == mod.astext()
    altered = _alter(mod)
    text = altered.astext()
    assert text.count("layout_transform") == 3
    assert 'data_layout="NHWC"' in text
    (attrs, inputs, tinfos, out_type), = seen
    assert attrs.padding == (1, 1) and attrs.data_layout == "NCHW"
    assert [v.name_hint for v in inputs] == ["x", "w"]
    assert [tuple(t.shape) for t in tinfos] == [(1, 3, 8, 8), (4, 3, 3, 3)]
    assert tinfos[0].dtype == "float32"
    assert out_type == nnir.TensorType((1, 4, 8, 8), "float32")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 3, 8, 8)).astype("float32")
    w = rng.standard_normal((4, 3, 3, 3)).astype("float32")
    np.testing.assert_allclose(_run(altered, x, w), _run(mod, x, w),
                               rtol=1e-5, atol=1e-5)


def test_none_keeps_the_call():
    calls = []
    op.register_alter_op_layout("nn.conv2d", lambda *args: calls.append(1))
    mod = transform.InferType()(_conv_module())
    assert _alter(mod) is mod and calls == [1]


def test_a_replacement_of_another_type_is_an_error():
    @op.register_alter_op_layout("nn.conv2d")
    def wrong(attrs, inputs, tinfos, out_type):
        return op.nn.conv2d(*inputs, padding=(0, 0))

    mod = _conv_module()
    with pytest.raises(nnir.DiagnosticError) as info:
        _alter(mod)
    message = str(info.value)
    assert "the replacement of nn.conv2d has type " \
        "Tensor[(1, 4, 6, 6), float32], not the call's " \
        "Tensor[(1, 4, 8, 8), float32]" in message
    assert "layout_transform" in message


def test_a_replacement_that_does_not_type_check_is_an_error():
    op.register_alter_op_layout(
        "nn.conv2d", lambda attrs, inputs, tinfos, out_type:
        op.add(inputs[0], inputs[1]))
    with pytest.raises(nnir.DiagnosticError,
                       match="the replacement of nn.conv2d does not "
                             "type-check"):
        _alter(_conv_module())


def test_an_exception_reaches_the_caller():
    class Refused(Exception):
        pass

    @op.register_alter_op_layout("nn.relu")
    def refuse(attrs, inputs, tinfos, out_type):
        raise Refused("no layout for relu")

    mod = _conv_module()
    before = mod.astext()
    with pytest.raises(Refused, match="no layout for relu") as info:
        _alter(mod)
    assert "in the layout alteration of nn.relu" in info.value.__notes__
    assert mod.astext() == before


def test_a_result_that_is_not_an_expression_is_a_type_error():
    op.register_alter_op_layout("nn.relu", lambda *args: 42)
    with pytest.raises(TypeError, match="the layout alteration of nn.relu "
                                        "returned a int, not an expression"):
        _alter(_conv_module())


def test_levels_follow_tvm():
    def keep(*args):
        return None

    def other(*args):
        return None

    op.register_alter_op_layout("nn.relu", keep, level=10)
    with pytest.raises(ValueError, match="already registered with level 10"):
        op.register_alter_op_layout("nn.relu", other, level=10)
    # A lower level is ignored, a higher one replaces.
    op.register_alter_op_layout("nn.relu", other, level=5)
    op.register_alter_op_layout("nn.relu", other, level=11)
    with pytest.raises(ValueError, match="unknown operator 'nn.relux'"):
        op.register_alter_op_layout("nn.relux", keep)


def test_tvm_names():
    tvm = nnir.install_as_tvm()
    try:
        from tvm import relay
        import tvm.relay.op

        @tvm.relay.op.register_alter_op_layout("nn.conv2d", level=101)
        def alter_conv2d(attrs, inputs, tinfos, out_type):
            return _to_nhwc(attrs, inputs, tinfos, out_type)

        mod = _conv_module()
        with tvm.transform.PassContext(opt_level=3):
            altered = tvm.transform.Sequential(
                [relay.transform.AlterOpLayout()])(mod)
        assert 'data_layout="NHWC"' in altered.astext()
        x = np.ones((1, 3, 8, 8), "float32")
        w = np.ones((4, 3, 3, 3), "float32")
        got = relay.create_executor(mod=altered).evaluate()(x, w).numpy()
        np.testing.assert_allclose(got, _run(mod, x, w))
    finally:
        nnir.tvm_compat.uninstall_tvm()
