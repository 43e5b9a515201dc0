"""Dynamic extents (Relay's Any, printed `?`) from Python: nnir.Any in a
shape, and TVM's spellings of it in the compatibility layer (relay.Any,
tir.Any, and te.size_var / tir.Var used as an extent)."""

import numpy as np
import pytest

import nnir


def test_any_in_a_shape():
    x = nnir.var("x", shape=(nnir.Any(), 3))
    assert str(x.type_annotation) == "Tensor[(?, 3), float32]"
    shape = x.type_annotation.shape
    assert isinstance(shape[0], nnir.Any) and shape[1] == 3
    assert shape[0] == nnir.Any() and repr(shape[0]) == "?"
    with pytest.raises(ValueError, match="dynamic extent"):
        x.type_annotation.concrete_shape
    assert nnir.TensorType((2, 3)).concrete_shape == (2, 3)
    # -1 is not a way to write `?`.
    with pytest.raises(ValueError, match="negative dimension -1"):
        nnir.TensorType((-1, 3))
    with pytest.raises(TypeError):
        nnir.TensorType(("three",))


def test_infer_type_and_run_with_any():
    x = nnir.var("x", shape=(nnir.Any(), 3))
    f = nnir.Function([x], nnir.op.add(x, x))
    mod = nnir.infer_type(nnir.IRModule.from_expr(f))
    assert "-> Tensor[(?, 3), float32]" in mod.astext()
    # Run on two batch sizes: the function is specialised to each.
    run = nnir.create_executor(mod=mod).evaluate()
    for batch in (1, 4):
        data = np.arange(batch * 3, dtype=np.float32).reshape(batch, 3)
        np.testing.assert_array_equal(run(data).numpy(), data + data)


@pytest.fixture(scope="module")
def tvm():
    module = nnir.install_as_tvm()
    yield module
    nnir.tvm_compat.uninstall_tvm()


def test_tvm_spellings_of_any(tvm):
    from tvm import relay, te
    import tvm.tir
    for dim in (relay.Any(), tvm.tir.Any(), te.size_var("b"), te.var("n"),
                tvm.tir.Var("n", "int64"), tvm.tir.SizeVar("m", "int32")):
        v = relay.var("v", shape=(dim, 16), dtype="float32")
        assert str(v.type_annotation) == "Tensor[(?, 16), float32]"
    # The rest of tir and te stays missing.
    with pytest.raises(NotImplementedError, match="tvm.tir.PrimFunc"):
        tvm.tir.PrimFunc([], None)


def test_simplify_expr_with_any(tvm):
    # As TVM's test_concretize_cast_like: cast_like becomes cast with `?`.
    from tvm import relay
    dim = tvm.tir.Any()
    data = relay.var("data", shape=(3, dim, 5), dtype="float32")
    like = relay.var("like", shape=(dim, 3, 3), dtype="int32")
    mod = tvm.IRModule.from_expr(relay.cast_like(data, like))
    mod = relay.transform.SimplifyExpr()(relay.transform.InferType()(mod))
    text = mod.astext()
    assert 'cast(%data, dtype="int32")' in text
    assert "-> Tensor[(3, ?, 5), int32]" in text
