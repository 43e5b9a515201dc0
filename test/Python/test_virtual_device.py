"""Virtual devices on variables and functions: nnir's `virtual_device`, the
TVM layer's `virtual_device_`, structural equality as TVM's (compared on
variables, not on functions), and the text format."""

import pytest

import nnir


@pytest.fixture(scope="module")
def tvm():
    module = nnir.install_as_tvm()
    yield module
    nnir.tvm_compat.uninstall_tvm()


def test_var_and_function_carry_a_device_type():
    x = nnir.var("x", nnir.TensorType((2,), "float32"))
    assert x.virtual_device is None
    x.virtual_device = 1
    assert x.virtual_device == 1
    f = nnir.Function([x], nnir.op.negative(x))
    assert f.virtual_device is None
    f.virtual_device = 1
    assert f.virtual_device == 1
    assert "%x {virtual_device=1}: Tensor[(2), float32], virtual_device=1" \
        in f.astext()
    f.virtual_device = None
    assert f.virtual_device is None
    assert "virtual_device=1)" not in f.astext()
    with pytest.raises(TypeError, match="virtual_device"):
        x.virtual_device = "cpu"


def test_passes_keep_devices():
    x = nnir.var("x", nnir.TensorType((2,), "float32"))
    t = nnir.var("t")  # untyped: type inference rebuilds it
    x.virtual_device = 1
    t.virtual_device = 1
    body = nnir.Let(t, nnir.op.add(x, nnir.const(1.0)), nnir.op.negative(t))
    f = nnir.Function([x], body)
    f.virtual_device = 1
    mod = nnir.IRModule.from_expr(f)
    mod = nnir.transform.Sequential(
        [nnir.transform.InferType(), nnir.transform.FoldConstant(),
         nnir.transform.ToANormalForm()])(mod)
    main = mod["main"]
    assert main.virtual_device == 1
    assert main.params[0].virtual_device == 1
    let = main.body
    while let.var.name_hint != "t":
        let = let.body
    assert let.var.virtual_device == 1
    assert let.var.type_annotation == nnir.TensorType((2,), "float32")


def test_structural_equality_as_tvm():
    def build(var_device, fn_device):
        x = nnir.var("x", nnir.TensorType((2,), "float32"))
        x.virtual_device = var_device
        f = nnir.Function([x], nnir.op.negative(x))
        f.virtual_device = fn_device
        return f
    assert nnir.structural_equal(build(1, 1), build(1, 1))
    assert nnir.structural_hash(build(1, 1)) == \
        nnir.structural_hash(build(1, None))
    # TVM's FunctionNode does not compare its virtual device ...
    assert nnir.structural_equal(build(1, 1), build(1, None))
    # ... its VarNode does.
    assert not nnir.structural_equal(build(1, 1), build(None, 1))
    with pytest.raises(AssertionError, match="virtual devices of %x"):
        nnir.assert_structural_equal(build(1, 1), build(None, 1))


def test_free_var_round_trips():
    e = nnir.parse_expr("free_var %x {virtual_device=1}: float32;\n"
                        "negative(%x)")
    assert e.args[0].virtual_device == 1
    assert "free_var %x {virtual_device=1}: float32;" in e.astext()


def test_tvm_virtual_device_(tvm):
    from tvm import relay
    x = relay.var("x", shape=(2,))
    assert x.virtual_device_.device is None
    x.virtual_device_ = tvm.cpu()
    assert x.virtual_device == 1
    assert x.virtual_device_.device == tvm.cpu()
    f = relay.Function([x], relay.negative(x))
    f.virtual_device_ = tvm.target.VirtualDevice(tvm.cpu())
    assert f.virtual_device == 1
    # with_attr keeps it (it is one of the function's attributes).
    assert f.with_attr("Primitive", 1).virtual_device == 1
    f.virtual_device_ = tvm.target.VirtualDevice()
    assert f.virtual_device is None
