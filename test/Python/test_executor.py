"""nnir.create_executor / nnir.Executor, nnir.analysis, ScopeBuilder, the
expression operators, nnir.testing and nnir.frontend.from_onnx."""

import os

import numpy as np
import pytest

import nnir
from nnir import op

HERE = os.path.dirname(os.path.abspath(__file__))


def f32(*shape):
    return nnir.TensorType(shape, "float32")


# Executor

def test_main_runs_on_numpy_and_ndarrays():
    x = nnir.var("x", shape=(2, 3))
    y = nnir.var("y", shape=(2, 3))
    mod = nnir.IRModule.from_expr(nnir.Function([x, y], op.multiply(
        op.add(x, y), nnir.const(2.0))))
    run = nnir.create_executor(mod=mod).evaluate()
    a = np.arange(6, dtype="float32").reshape(2, 3)
    out = run(a, nnir.ndarray(np.ones((2, 3), "float32")))
    assert isinstance(out, nnir.NDArray)
    np.testing.assert_allclose(out.numpy(), (a + 1) * 2)
    # Keyword arguments by parameter name.
    np.testing.assert_allclose(run(a, y=a).numpy(), 4 * a)


def test_closed_expression_gives_its_value():
    value = nnir.Executor().evaluate(op.add(nnir.const(1.5), nnir.const(2.0)))
    assert value.numpy() == 3.5


def test_function_with_globals_of_the_module():
    x = nnir.var("x", shape=(3,))
    mod = nnir.IRModule({"double": nnir.Function([x], op.add(x, x))})
    double = mod.get_global_var("double")
    z = nnir.var("z", shape=(3,))
    caller = nnir.Function([z], op.negative(nnir.Call(double, [z])))
    ex = nnir.create_executor("graph", mod=mod, device=nnir.cpu(),
                              target="llvm")
    out = ex.evaluate(caller)(np.array([1, 2, 3], "float32"))
    np.testing.assert_allclose(out.numpy(), [-2, -4, -6])
    # A global by its GlobalVar.
    np.testing.assert_allclose(
        ex.evaluate(double)(np.ones(3, "float32")).numpy(), [2, 2, 2])


def test_tuple_results_and_binds():
    x = nnir.var("x", shape=(2,))
    body = nnir.Tuple([op.exp(x), nnir.Tuple([x, op.negative(x)])])
    value = nnir.Executor().evaluate(body, binds={x: np.zeros(2, "float32")})
    assert isinstance(value, tuple) and len(value) == 2
    np.testing.assert_allclose(value[0].numpy(), [1, 1])
    np.testing.assert_allclose(value[1][1].numpy(), [0, 0])


def test_params_bind_constants():
    x = nnir.var("x", shape=(2,))
    w = nnir.var("w", shape=(2,))
    mod = nnir.IRModule.from_expr(nnir.Function([x, w], op.multiply(x, w)))
    ex = nnir.create_executor(mod=mod, params={"w": np.full(2, 3, "float32")})
    assert len(ex.mod["main"].params) == 1
    np.testing.assert_allclose(ex.evaluate()(np.ones(2, "float32")).numpy(),
                               [3, 3])


def test_calls_from_several_threads():
    # Kernels run with the GIL released; one executor serves every thread.
    import threading
    x = nnir.var("x", shape=(64, 64))
    y = op.nn.relu(op.add(op.multiply(x, x), nnir.const(1.0)))
    run = nnir.Executor().evaluate(nnir.Function([x], y))
    inputs = [np.full((64, 64), i, "float32") for i in range(8)]
    results = [None] * len(inputs)

    def work(i):
        for _ in range(5):
            results[i] = run(inputs[i]).numpy()

    threads = [threading.Thread(target=work, args=(i,))
               for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, result in enumerate(results):
        np.testing.assert_allclose(result, np.full((64, 64), i * i + 1))


def test_executor_errors():
    x = nnir.var("x", shape=(2,))
    run = nnir.create_executor(
        mod=nnir.IRModule.from_expr(nnir.Function([x], x))).evaluate()
    with pytest.raises(TypeError, match="missing argument 'x'"):
        run()
    with pytest.raises(TypeError, match="unknown arguments: y"):
        run(np.ones(2, "float32"), y=1)
    bad = nnir.Function([x], op.add(x, nnir.const(np.ones(3, "float32"))))
    with pytest.raises(nnir.DiagnosticError):
        nnir.Executor().evaluate(bad)(np.ones(2, "float32"))
    with pytest.raises(NotImplementedError, match="host CPU"):
        nnir.device("cuda")
    assert nnir.device("llvm", 0) == nnir.cpu(0)


def test_fold_constant_and_executors_share_the_context_engine():
    # Under one PassContext, FoldConstant and the executors compile on the
    # context's engine, through its one kernel cache.
    a = np.arange(16, dtype="float32").reshape(4, 4)
    x = nnir.var("x", shape=(4, 4))
    double = nnir.Function([x], op.add(x, x))
    constant = nnir.IRModule.from_expr(nnir.Function(
        [], op.add(nnir.const(a), nnir.const(a))))
    with nnir.transform.PassContext():
        ex = nnir.create_executor(mod=nnir.IRModule.from_expr(double))
        assert ex.engine_stats()["kernels_compiled"] == 0
        folded = nnir.transform.FoldConstant()(
            nnir.transform.InferType()(constant))
        assert "add" not in folded.astext()
        # FoldConstant compiled its kernel on the executor's engine.
        after_fold = ex.engine_stats()
        assert after_fold["kernels_compiled"] >= 1
        np.testing.assert_allclose(ex.evaluate()(a).numpy(), 2 * a)
        after_run = ex.engine_stats()
        # Another executor under the context finds the kernel cached.
        other = nnir.create_executor(mod=nnir.IRModule.from_expr(double))
        np.testing.assert_allclose(other.evaluate()(a).numpy(), 2 * a)
        after_other = other.engine_stats()
        assert after_other["kernels_compiled"] == \
            after_run["kernels_compiled"]
        assert after_other["memory_hits"] > after_run["memory_hits"]
        # FoldConstant again: found in the cache, nothing compiled.
        nnir.transform.FoldConstant()(nnir.transform.InferType()(constant))
        assert ex.engine_stats()["kernels_compiled"] == \
            after_run["kernels_compiled"]
    # Another context has an engine of its own.
    with nnir.transform.PassContext():
        assert nnir.Executor().engine_stats()["kernels_compiled"] == 0


# Analyses

def test_free_bound_and_all_vars():
    x, y, t = nnir.var("x"), nnir.var("y"), nnir.var("t")
    body = nnir.Let(t, op.add(x, y), op.multiply(t, x))
    assert nnir.analysis.free_vars(body) == [x, y]
    fn = nnir.Function([x], body)
    assert nnir.analysis.free_vars(fn) == [y]
    assert set(nnir.analysis.bound_vars(fn)) == {x, t}
    assert set(nnir.analysis.all_vars(fn)) == {x, y, t}


def test_detect_feature():
    x = nnir.var("x", shape=(2,))
    t = nnir.var("t")
    shared = op.exp(x)
    F = nnir.analysis.Feature
    features = nnir.analysis.detect_feature(
        nnir.Function([x], nnir.Let(t, op.add(shared, shared), t)))
    assert {F.fFunction, F.fLet, F.fCall, F.fOp, F.fVar,
            F.fGraph} <= features
    assert F.fIf not in features


def test_bind_and_bind_params_by_name():
    x, w = nnir.var("x", shape=(2,)), nnir.var("w", shape=(2,))
    fn = nnir.Function([x, w], op.add(x, w))
    bound = nnir.analysis.bind(fn, {w: nnir.const(np.ones(2, "float32"))})
    assert bound.params == [x] and isinstance(bound.body.args[1],
                                              nnir.Constant)
    by_name = nnir.analysis.bind_params_by_name(
        fn, {"w": np.zeros(2, "float32"), "nobody": np.zeros(1)})
    assert [p.name_hint for p in by_name.params] == ["x"]
    same = nnir.Function([nnir.var("a"), nnir.var("a")], x)
    with pytest.raises(ValueError, match="multiple parameters"):
        nnir.analysis.bind_params_by_name(same, {"a": np.zeros(1)})


# ScopeBuilder and operators on expressions

def test_scope_builder_lets_and_if():
    x = nnir.var("x", shape=(), dtype="float32")
    sb = nnir.ScopeBuilder()
    t = sb.let("t", op.add(x, x))
    with sb.if_scope(op.less(t, nnir.const(1.0))):
        sb.ret(t)
    with sb.else_scope():
        u = sb.let(("u", f32()), op.negative(t))
        sb.ret(u)
    body = sb.get()
    assert isinstance(body, nnir.Let) and body.var == t
    assert isinstance(body.body, nnir.If)
    assert isinstance(body.body.false_branch, nnir.Let)
    run = nnir.Executor().evaluate(nnir.Function([x], body))
    assert run(np.float32(0.25)).numpy() == 0.5
    assert run(np.float32(2.0)).numpy() == -4.0
    with pytest.raises(RuntimeError, match="ret"):
        empty = nnir.ScopeBuilder()
        empty.let("a", x)
        empty.get()


def test_expression_operators():
    x, y = nnir.var("x"), nnir.var("y")
    assert (x + y).op.name == "add" and (x - y).op.name == "subtract"
    assert (x * y).op.name == "multiply" and (x / y).op.name == "divide"
    assert (-x).op.name == "negative" and (x < y).op.name == "less"
    assert (x >= y).op.name == "greater_equal"
    assert x.astype("int32").attrs.dtype == "int32"
    with pytest.raises(TypeError, match="with `const` first"):
        x + 1
    g = nnir.GlobalVar("g")
    call = g(x, y)
    assert isinstance(call, nnir.Call) and call.op == g and call.args == [x, y]
    assert x == x and not (x == nnir.var("x"))


# nnir.testing

def test_run_infer_type_and_run_opt_pass():
    x = nnir.var("x", shape=(2,))
    body = op.add(x, op.multiply(nnir.const(2.0), nnir.const(3.0)))
    typed = nnir.testing.run_infer_type(body)
    assert typed.checked_type == f32(2)
    folded = nnir.testing.run_opt_pass(body, nnir.transform.FoldConstant())
    assert isinstance(folded.args[1], nnir.Constant)
    fn = nnir.testing.run_opt_pass(nnir.Function([x], body),
                                   [nnir.transform.FoldConstant()])
    assert isinstance(fn, nnir.Function)


def test_create_workload():
    data = nnir.var("data", shape=(1, 3, 8, 8))
    weight = nnir.var("weight", shape=(4, 3, 3, 3))
    gamma = nnir.var("bn_gamma", shape=(4,))
    mean = nnir.var("bn_mean", shape=(4,))
    body = op.add(op.multiply(op.nn.conv2d(data, weight), op.reshape(
        gamma, (4, 1, 1))), op.reshape(mean, (4, 1, 1)))
    mod, params = nnir.testing.create_workload(body)
    assert sorted(params) == ["bn_gamma", "bn_mean", "weight"]
    assert (params["bn_gamma"].numpy() == 1).all()
    assert (params["bn_mean"].numpy() == 0).all()
    w = params["weight"].numpy()
    assert w.shape == (4, 3, 3, 3) and 0 < np.abs(w).max() < 1
    _, zeros = nnir.testing.create_workload(
        body, lambda name, array: array.fill(0))
    assert not zeros["weight"].numpy().any()


def test_inception_v3_types_with_annotated_weights():
    net = nnir.testing.inception_v3(batch_size=2, num_classes=10)
    assert all(isinstance(p.type_annotation, nnir.TensorType)
               for p in net.params)
    typed = nnir.infer_type(nnir.IRModule.from_expr(net))["main"]
    assert typed.checked_type.ret_type == f32(2, 10)
    assert len(typed.params) == 1 + 4 * 94 + 94 + 2  # data, bn, conv, fc


# ONNX

@pytest.mark.skipif(not nnir.has_onnx(), reason="built without ONNX")
def test_from_onnx_path_and_bytes():
    path = os.path.join(HERE, "..", "ONNX", "Inputs", "mlp.onnx")
    mod, params = nnir.frontend.from_onnx(path, shape={"input.1": (2, 3)})
    assert params == {} and isinstance(mod, nnir.IRModule)
    assert mod["main"].params[0].type_annotation == f32(2, 3)

    class Model:  # stands for onnx.ModelProto
        def SerializeToString(self):
            with open(path, "rb") as f:
                return f.read()

    again, _ = nnir.frontend.from_onnx(Model(), {"input.1": (2, 3)})
    assert nnir.structural_equal(again, mod)
    try:
        import onnx
    except ImportError:
        onnx = None
    if onnx is not None:
        proto, _ = nnir.frontend.from_onnx(onnx.load(path),
                                           {"input.1": (2, 3)})
        assert nnir.structural_equal(proto, mod)
    with pytest.raises(nnir.DiagnosticError):
        nnir.frontend.from_onnx(b"not a model")
