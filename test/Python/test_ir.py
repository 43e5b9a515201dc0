"""Types, expressions and modules built from Python; their fields."""

import pytest

import nnir
from nnir import op


def test_types():
    t = nnir.TensorType((1, 3), "float32")
    assert t.shape == (1, 3) and t.dtype == "float32" and t.ndim == 2
    assert str(t) == "Tensor[(1, 3), float32]"
    assert t == nnir.TensorType([1, 3])
    assert hash(t) == hash(nnir.TensorType([1, 3]))
    tup = nnir.TupleType([t, "int32"])
    assert len(tup) == 2 and tup.fields[1] == nnir.TensorType((), "int32")
    fn = nnir.FuncType([t], t)
    assert fn.arg_types == [t] and fn.ret_type == t
    assert str(nnir.IncompleteType()) == "_"


def test_bad_types():
    with pytest.raises(TypeError, match='unknown dtype "float7"'):
        nnir.TensorType((1,), "float7")
    with pytest.raises(nnir.DiagnosticError):
        nnir.TensorType((-1,), "float32")


def test_every_node_kind():
    x = nnir.var("x", shape=(2, 2))
    assert isinstance(x, nnir.Var) and x.name_hint == "x"
    assert x.type_annotation == nnir.TensorType((2, 2))
    c = nnir.const(1.0)
    assert isinstance(c, nnir.Constant) and c.is_scalar
    add = nnir.Op.get("add")
    assert add.name == "add" and add.num_inputs == 2
    call = nnir.Call(add, [x, c])
    assert call.op.same_as(add) and call.args == [x, c]
    assert call.attrs is None
    tup = nnir.Tuple([x, call])
    assert len(tup) == 2 and tup[1] == call and tup.fields == [x, call]
    item = nnir.TupleGetItem(tup, 1)
    assert item.tuple_value == tup and item.index == 1
    v = nnir.var("v")
    let = nnir.Let(v, item, v)
    assert let.var == v and let.value == item and let.body == v
    cond = nnir.var("b", "bool")
    ite = nnir.If(cond, x, call)
    assert ite.cond == cond and ite.true_branch == x and ite.false_branch == call
    f = nnir.Function([x, cond], ite, attrs={"Primitive": 1})
    assert f.params == [x, cond] and f.body == ite and f.ret_type is None
    assert f.attrs["Primitive"] == 1
    g = nnir.GlobalVar("f")
    assert g.name_hint == "f"
    gcall = nnir.Call(g, [x, cond])
    assert gcall.op == g
    assert "if (%b)" in f.astext()


def test_call_attrs():
    x = nnir.var("x", shape=(1, 3, 8, 8))
    w = nnir.var("w", shape=(4, 3, 3, 3))
    conv = op.nn.conv2d(x, w, padding=(1, 1), channels=4)
    assert conv.attrs.padding == (1, 1)
    assert conv.attrs["strides"] == (1, 1)
    assert conv.attrs.channels == 4 and conv.attrs.kernel_size is None
    assert conv.attrs.type_key == "relay.attrs.Conv2DAttrs"
    assert "data_layout" in conv.attrs.keys()
    with pytest.raises(AttributeError, match="has no attribute 'stride'"):
        conv.attrs.stride
    # A call without a record means the operator's defaults.
    s = nnir.Call(nnir.Op.get("sum"), [x])
    assert s.attrs.axis is None and s.attrs.keepdims is False
    # A dict of attributes is checked like keyword arguments.
    s = nnir.Call(nnir.Op.get("sum"), [x], {"axis": [1], "keepdims": True})
    assert s.attrs.axis == (1,) and s.attrs.keepdims is True
    with pytest.raises(TypeError, match="unknown attribute 'axes' of sum"):
        nnir.Call(nnir.Op.get("sum"), [x], {"axes": [1]})


def test_checked_type():
    x = nnir.var("x", shape=(2, 3))
    y = op.nn.relu(x)
    with pytest.raises(ValueError, match="has not been inferred"):
        y.checked_type
    mod = nnir.infer_type(nnir.IRModule.from_expr(y))
    body = mod["main"].body
    assert body.checked_type == nnir.TensorType((2, 3))
    assert mod["main"].checked_type == nnir.FuncType(
        [nnir.TensorType((2, 3))], nnir.TensorType((2, 3)))
    typed = nnir.infer_type(op.sum(y, axis=[1]))
    assert typed.checked_type == nnir.TensorType((2,))


def test_type_error_is_diagnostic():
    x = nnir.var("x", shape=(2, 3))
    y = nnir.var("y", shape=(4,))
    with pytest.raises(nnir.DiagnosticError) as info:
        nnir.infer_type(nnir.IRModule.from_expr(op.add(x, y)))
    assert isinstance(info.value, ValueError)
    assert "add" in str(info.value)


def test_identity():
    x = nnir.var("x")
    assert x == x and x != nnir.var("x")
    assert {x: 1}[x] == 1
    call = op.negative(x)
    assert call.args[0] is x or call.args[0] == x


def test_module():
    x = nnir.var("x", shape=(2,))
    f = nnir.Function([x], op.negative(x))
    mod = nnir.IRModule({"main": f})
    assert len(mod) == 1 and "main" in mod and mod["main"] == f
    gv = mod.get_global_var("main")
    assert gv.name_hint == "main" and mod[gv] == f
    g = nnir.GlobalVar("helper")
    mod[g] = f
    assert mod.get_global_var("helper") == g
    assert list(mod.functions) == [gv, g]
    assert list(mod.functions.values()) == [f, f]
    h = nnir.Function([x], x)
    mod.update({"main": h})
    assert mod["main"] == h
    other = nnir.IRModule.from_expr(op.exp(x))
    mod.update(other)
    assert nnir.structural_equal(mod["main"], other["main"])
    with pytest.raises(KeyError, match="no function named 'nope'"):
        mod["nope"]
    with pytest.raises(ValueError, match="no function named 'nope'"):
        mod.get_global_var("nope")
    with pytest.raises(TypeError, match="a module holds Functions"):
        mod["x"] = x
    assert mod.astext().startswith('#[version = "0.0.5"]')
    assert str(mod) == mod.astext()


def test_module_from_expr_free_vars():
    a, b = nnir.var("a", shape=(2,)), nnir.var("b", shape=(2,))
    mod = nnir.IRModule.from_expr(op.add(b, a))
    assert [p.name_hint for p in mod["main"].params] == ["b", "a"]


def test_bad_constructor_arguments():
    with pytest.raises(TypeError):
        nnir.Call(nnir.Op.get("add"), [1, 2])
    with pytest.raises(TypeError):
        nnir.Tuple([nnir.var("x"), "y"])
    with pytest.raises(ValueError, match="unknown operator 'nope'"):
        nnir.Op.get("nope")


def test_module_attrs():
    mod = nnir.parse("def @main(%x: Tensor[(2), float32]) "
                     "{ add(%x, add(1f, 1f)) }")
    assert mod.attrs is None
    tagged = mod.with_attr("device_type", 1).with_attr("name", "m")
    assert mod.attrs is None  # the input is not changed
    assert tagged["main"].same_as(mod["main"])
    assert tagged.attrs["device_type"] == 1 and tagged.attrs["name"] == "m"
    replaced = tagged.with_attr("name", "n")
    assert replaced.attrs["name"] == "n" and tagged.attrs["name"] == "m"
    # Passes keep them.
    folded = nnir.transform.FoldConstant()(tagged)
    assert folded.attrs["device_type"] == 1
    with pytest.raises(TypeError, match="module attribute 'k': cannot "
                       "convert"):
        mod.with_attr("k", object())
    with pytest.raises(ValueError, match="must not be empty"):
        mod.with_attr("", 1)
