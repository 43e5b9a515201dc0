"""Operators as Python functions, generated from the registry."""

import inspect

import numpy as np
import pytest

import nnir
from nnir import op


def test_every_registered_op_is_a_function():
    names = op.list_op_names()
    assert len(names) > 100
    for name in names:
        target = op
        for part in name.split("."):
            target = getattr(target, part)
        assert callable(target), name
        assert target.op_name == name


def test_namespaces_import():
    import nnir.op.nn
    from nnir.op import image
    assert nnir.op.nn.conv2d is op.nn.conv2d
    assert image.resize2d.op_name == "image.resize2d"


def test_conv2d_signature_is_tvms():
    sig = inspect.signature(op.nn.conv2d)
    assert list(sig.parameters)[:8] == [
        "data", "weight", "strides", "padding", "dilation", "groups",
        "channels", "kernel_size"]
    assert sig.parameters["strides"].default == (1, 1)
    assert sig.parameters["data_layout"].default == "NCHW"
    assert sig.parameters["channels"].default is None


def test_positional_attributes():
    x = nnir.var("x", shape=(1, 3, 8, 8))
    w = nnir.var("w", shape=(4, 3, 3, 3))
    call = op.nn.conv2d(x, w, (2, 2), (1, 1))
    assert call.attrs.strides == (2, 2) and call.attrs.padding == (1, 1)
    assert op.add(x, x).op.name == "add"


def test_tvm_orders_from_the_table():
    data = nnir.var("d", shape=(4, 5))
    idx = nnir.var("i", shape=(2,), dtype="int32")
    take = op.take(data, idx, 1)
    assert take.attrs.axis == 1 and take.attrs.batch_dims == 0
    assert list(inspect.signature(op.gather).parameters)[:3] == [
        "data", "axis", "indices"]
    g = op.gather(data, 0, nnir.var("j", shape=(4, 5), dtype="int32"))
    assert g.attrs.axis == 0
    s = op.strided_slice(data, [0, 0], [2, 2], [1, 1], [0, 1])
    assert s.attrs.axes == (0, 1) and s.attrs.strides == (1, 1)
    p = op.nn.pad(data, [[1, 1], [0, 0]])
    assert isinstance(p.args[1], nnir.Constant)
    assert p.attrs.pad_width == ((1, 1), (0, 0))


def test_arguments_are_converted():
    x = nnir.var("x", shape=(3,))
    call = op.add(x, 1.0)
    assert isinstance(call.args[1], nnir.Constant)
    assert call.args[1].data.dtype == "float32"
    cat = op.concatenate([x, x], axis=0)
    assert isinstance(cat.args[0], nnir.Tuple)
    call = op.sum(x, axis=np.int64(0))
    assert call.attrs.axis == (0,)


def test_required_attribute_missing():
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'newshape'"):
        op.reshape(nnir.var("x", shape=(4,)))


def test_wrong_attribute_name():
    x = nnir.var("x", shape=(1, 3, 8, 8))
    with pytest.raises(TypeError, match=r"unknown attribute 'stride' of "
                       r"nn.conv2d; valid attributes are: strides, "):
        op.nn.conv2d(x, x, stride=(1, 1))
    with pytest.raises(TypeError, match="unknown attribute 'axis' of add"):
        op.add(x, x, axis=1)


def test_wrong_attribute_type():
    x = nnir.var("x", shape=(1, 3, 8, 8))
    with pytest.raises(TypeError, match="attribute 'strides' of nn.conv2d: "
                       "expected list of int, got a string"):
        op.nn.conv2d(x, x, strides="wide")
    with pytest.raises(TypeError, match="attribute 'groups' of nn.conv2d: "
                       "cannot convert a value of type"):
        op.nn.conv2d(x, x, groups=object())
    with pytest.raises(TypeError, match="attribute 'dtype' of cast"):
        op.cast(x, "float7")


def test_wrong_argument_count():
    with pytest.raises(TypeError, match="add"):
        op.add(nnir.var("x"))
    with pytest.raises(TypeError, match="argument 'rhs': expected an expression"):
        op.add(nnir.var("x"), object())


def test_docstring():
    assert op.nn.conv2d.__doc__.startswith("nn.conv2d(data, weight, strides")


def test_one_integer_for_a_list_field():
    x = nnir.var("x", shape=(1, 3, 8, 8))
    assert op.nn.conv2d(x, x, strides=2).attrs.strides == (2, 2)
    assert op.sum(x, 1).attrs.axis == (1,)
    assert op.sum(x, axis=np.int64(0)).attrs.axis == (0,)


def test_collapse_sum_to_takes_the_shape_as_tvm_does():
    x = nnir.var("x", shape=(2, 3, 4), dtype="float32")
    assert list(inspect.signature(op.collapse_sum_to).parameters)[:2] == \
        ["data", "shape"]
    # A list becomes the attribute and an int32 constant argument.
    call = op.collapse_sum_to(x, (3, 1))
    assert list(call.attrs.shape) == [3, 1]
    shape = call.args[1]
    assert shape.data.numpy().dtype == np.int32
    assert shape.data.numpy().tolist() == [3, 1]
    # A 1-d integer constant gives its values to the attribute.
    call = op.collapse_sum_to(x, nnir.const(np.array([4], "int64")))
    assert list(call.attrs.shape) == [4]
    mod = nnir.transform.InferType()(nnir.IRModule.from_expr(call))
    assert list(mod["main"].body.checked_type.shape) == [4]
    # Any other expression leaves the shape unknown: a type error.
    s = nnir.var("s", shape=(1,), dtype="int32")
    with pytest.raises(nnir.DiagnosticError, match="target shape is not"):
        nnir.transform.InferType()(
            nnir.IRModule.from_expr(op.collapse_sum_to(x, s)))


def test_reverse_reshape():
    x = nnir.var("x", shape=(10, 5, 4), dtype="float32")
    assert list(inspect.signature(op.reverse_reshape).parameters)[:2] == \
        ["data", "newshape"]
    mod = nnir.transform.InferType()(nnir.IRModule.from_expr(
        op.reverse_reshape(x, newshape=(-1, 0))))
    assert list(mod["main"].body.checked_type.shape) == [50, 4]
