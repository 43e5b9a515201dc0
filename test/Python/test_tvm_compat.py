"""nnir.install_as_tvm(): TVM's module names over nnir's package."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import nnir

# The environment of child interpreters: this nnir first on the path.
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(
    [os.path.dirname(os.path.dirname(nnir.__file__))] +
    [p for p in [os.environ.get("PYTHONPATH")] if p]))


@pytest.fixture(scope="module")
def tvm():
    module = nnir.install_as_tvm()
    yield module
    nnir.tvm_compat.uninstall_tvm()


def test_names_are_nnirs_own(tvm):
    import tvm.testing  # noqa: F401
    from tvm import relay
    import tvm.relay.testing
    from tvm.relay.build_module import bind_params_by_name
    assert tvm.IRModule is nnir.IRModule
    assert tvm.ir.assert_structural_equal is nnir.assert_structural_equal
    assert tvm.transform.PassContext is nnir.transform.PassContext
    assert tvm.ir.transform.Sequential is nnir.transform.Sequential
    assert relay.transform.FoldConstant is nnir.transform.FoldConstant
    assert tvm.instrument.pass_instrument is nnir.instrument.pass_instrument
    assert tvm.ir.instrument.PassInstrument is nnir.instrument.PassInstrument
    assert relay.var is nnir.var
    assert relay.add is nnir.op.add and relay.nn.relu is nnir.op.nn.relu
    assert relay.op.nn.conv2d is nnir.op.nn.conv2d
    assert relay.analysis.free_vars is nnir.analysis.free_vars
    assert relay.testing.run_opt_pass is nnir.testing.run_opt_pass
    assert bind_params_by_name is nnir.analysis.bind_params_by_name
    assert relay.ScopeBuilder is nnir.ScopeBuilder
    assert relay.ExprMutator is nnir.ExprMutator
    assert tvm.cpu() == nnir.cpu() and tvm.device("llvm", 0) == nnir.cpu(0)
    assert isinstance(tvm.nd.array(np.ones(2)), nnir.NDArray)
    assert tvm.nd.array(np.ones(2)).dtype == "float64"
    import tvm.relay.expr as expr
    assert expr.Let is nnir.Let


def test_const_takes_relays_default_dtypes(tvm):
    from tvm import relay
    assert relay.const(np.zeros(2)).data.dtype == "float32"
    assert relay.const(np.arange(2)).data.dtype == "int32"
    assert relay.const(np.zeros(2), "float64").data.dtype == "float64"
    assert relay.const(np.zeros(2, "float16")).data.dtype == "float16"
    assert relay.const(tvm.nd.array(np.zeros(2))).data.dtype == "float64"
    assert relay.const(1.5).data.dtype == "float32"


def test_function_and_call_take_tvms_arguments(tvm):
    from tvm import relay
    x = relay.var("x", shape=(2,))
    f = relay.Function([x], relay.exp(x), None, [], {"Primitive": 1})
    assert isinstance(f, relay.Function) and isinstance(f, nnir.Function)
    assert f.attrs["Primitive"] == 1 and f.type_params == []
    assert f.with_attr("Inline", 1).attrs["Inline"] == 1
    call = relay.Call(relay.op.get("exp"), [x], None, None)
    assert isinstance(call, relay.Call) and call.op.name == "exp"
    assert issubclass(nnir.Call, relay.Call)
    with pytest.raises(NotImplementedError, match="type parameters"):
        relay.Function([x], x, None, [relay.TensorType((), "int32")])


def test_multi_output_operators_give_tuple_wrappers(tvm):
    from tvm import relay
    x = relay.var("x", shape=(4, 6))
    parts = relay.split(x, 3, axis=1)
    assert len(parts) == 3 and isinstance(parts[2], relay.TupleGetItem)
    assert parts[2].index == 2 and parts.astuple().op.name == "split"
    assert len(relay.split(x, [1, 2])) == 3
    v = relay.var("v", shape=(4,))
    bn = relay.nn.batch_norm(x, v, v, v, v, axis=0)
    assert len(bn) == 3 and bn[0].tuple_value.op.name == "nn.batch_norm"
    drop = relay.nn.dropout(x, rate=0.25)
    assert isinstance(drop, relay.TupleGetItem) and drop.index == 0
    assert drop.tuple_value.attrs.rate == 0.25
    with pytest.raises(IndexError):
        parts[3]
    values, indices = list(relay.topk(x, k=2))
    assert indices.index == 1
    placed = relay.annotation.on_device(x, tvm.cpu(), constrain_result=True)
    assert placed.op.name == "on_device" and placed.attrs.constrain_result


def test_missing_features_import_and_fail_clearly(tvm):
    from tvm import te
    import tvm.tir
    from tvm.relay.prelude import Prelude
    from tvm.relay import qnn
    with pytest.raises(NotImplementedError,
                       match=r"tvm\.te\.placeholder .*tensor expression"):
        te.placeholder((1,))
    with pytest.raises(NotImplementedError, match="Relay prelude"):
        Prelude(tvm.IRModule())
    with pytest.raises(NotImplementedError, match=r"simulated_quantize"):
        qnn.op.simulated_quantize(None, None, None)
    with pytest.raises(NotImplementedError, match="references"):
        tvm.relay.RefCreate(None)
    with pytest.raises(NotImplementedError, match="relay.build"):
        tvm.relay.build(None, "llvm")
    assert repr(tvm.tir.PrimFunc).startswith("<tvm.tir.PrimFunc")
    with pytest.raises(AttributeError):
        tvm.relay._private_name
    assert tvm.get_global_func("relay.ir.Anything", allow_missing=True) is None
    with pytest.raises(NotImplementedError, match="get_global_func"):
        tvm.get_global_func("relay.ir.Anything")
    core = tvm.IRModule()
    core.import_from_std("core.rly")
    with pytest.raises(NotImplementedError, match="standard library"):
        tvm.relay.parse("def @main() { 1 }", init_module=core)


def test_target_and_virtual_device_are_records(tvm):
    with tvm.target.Target("cuda") as target:
        assert tvm.target.Target.current() is target
        assert target.kind.name == "cuda"
    assert tvm.target.Target.current() is None
    vd = tvm.target.VirtualDevice(tvm.cpu(), tvm.target.Target("llvm"))
    assert vd.device_type == "cpu"


def test_parse_type_checks_and_executor_runs(tvm):
    from tvm import relay
    mod = relay.parse(textwrap.dedent("""
        #[version = "0.0.5"]
        def @main(%x: Tensor[(2), float32]) { add(%x, %x) }
        """))
    assert mod["main"].checked_type.ret_type == relay.TensorType((2,))
    x = tvm.nd.array(np.array([1, 2], "float32"))
    for kind in ["graph", "debug", "vm"]:
        out = relay.create_executor(kind, mod=mod, device=tvm.cpu(0),
                                    target="llvm").evaluate()(x)
        tvm.testing.assert_allclose(out.numpy(), [2, 4])
    with pytest.raises(nnir.DiagnosticError):
        relay.parse("def @main() { nn.relux(1f) }")


def test_argsort_and_sort_run_as_tvms(tvm):
    from tvm import relay
    x = relay.var("x", shape=(3, 6), dtype="int32")
    calls = [relay.argsort(x, axis=-1, is_ascend=True, dtype="int32"),
             relay.op.argsort(x, 0, 0, "int64"),
             relay.sort(x, axis=1, is_ascend=False),
             relay.argsort(relay.cast(x, "float32"), is_ascend=0,
                           dtype="float32")]
    assert calls[0].op.name == "argsort" and calls[0].attrs.is_ascend
    assert calls[1].attrs.axis == 0 and calls[1].attrs.dtype == "int64"
    mod = tvm.IRModule.from_expr(relay.Function([x], relay.Tuple(calls)))
    data = np.array([[2, 1, 2, 0, 1, 2], [5, 5, 5, 5, 5, 5],
                     [0, 3, -1, 3, 0, 7]], "int32")
    out = [o.numpy() for o in relay.create_executor(mod=mod).evaluate()(data)]
    # TVM's sort is stable: ties keep their index order, both ways.
    np.testing.assert_array_equal(out[0], np.argsort(data, kind="stable"))
    assert out[1].dtype == np.int64
    np.testing.assert_array_equal(
        out[1], np.argsort(-data, axis=0, kind="stable"))
    np.testing.assert_array_equal(out[2], -np.sort(-data, axis=1))
    assert out[3].dtype == np.float32
    np.testing.assert_array_equal(out[3], np.argsort(-data, kind="stable"))
    with pytest.raises(nnir.DiagnosticError, match="argsort: axis 2"):
        relay.transform.InferType()(tvm.IRModule.from_expr(
            relay.argsort(x, axis=2)))


def test_passes_and_contexts_under_tvm_names(tvm):
    from tvm import relay
    x = relay.var("x", shape=(3,))
    c = relay.const(np.array([1, 2, 3], "float32"))
    body = relay.add(x, relay.multiply(relay.add(c, c), relay.const(2.0)))
    seq = tvm.transform.Sequential([relay.transform.InferType(),
                                    relay.transform.FoldConstant()])
    with tvm.transform.PassContext(opt_level=3):
        folded = relay.testing.run_opt_pass(body, seq)
    np.testing.assert_allclose(folded.args[1].data.numpy(), [4, 8, 12])
    from tvm.relay.testing import inception_v3
    mod, params = inception_v3.get_workload(1, 10)
    assert "fc1_weight" in params and "data" not in params
    spans = relay.transform.AnnotateSpans()
    assert spans.info.name == "AnnotateSpans"
    assert isinstance(spans(tvm.IRModule.from_expr(body)), tvm.IRModule)


def test_installing_over_a_real_tvm_is_an_error():
    code = textwrap.dedent("""
        import sys, types
        sys.modules["tvm"] = types.ModuleType("tvm")
        import nnir
        try:
            nnir.install_as_tvm()
        except RuntimeError as e:
            print("refused:", e)
        """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, env=ENV)
    assert "refused: a module 'tvm'" in out.stdout, out.stderr


def test_pytest_plugin_and_parameters(tmp_path):
    (tmp_path / "conftest.py").write_text(
        "import nnir\nnnir.install_as_tvm()\n"
        "pytest_plugins = ['tvm.testing.plugin']\n")
    (tmp_path / "test_sample.py").write_text(textwrap.dedent("""
        import tvm
        import tvm.testing
        from tvm import relay

        kind = tvm.testing.parameter("a", "b", "c")

        def test_kind(kind):
            assert kind in "abc"

        @tvm.testing.uses_gpu
        def test_targets():
            assert [t for t, _ in tvm.testing.enabled_targets()] == ["llvm"]

        @tvm.testing.requires_cuda
        def test_cuda_only():
            raise AssertionError("runs on a GPU only")

        @tvm.testing.parametrize_targets("llvm", "cuda")
        def test_per_target(target, dev):
            assert target == "llvm"
        """))
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         str(tmp_path)], capture_output=True, text=True, cwd=tmp_path,
        env=ENV)
    assert "5 passed, 1 skipped" in out.stdout, out.stdout + out.stderr


def test_tvm_configs(tvm):
    configs = tvm.transform.PassContext.list_configs()
    assert configs["relay.backend.use_auto_scheduler"]["type"] == "IntImm"
    assert configs["relay.backend.tir_converter"]["type"] == "runtime.String"
    assert configs["FuseOps.max_depth"]["type"] == "IntImm"
    assert "no effect" in configs["tir.disable_vectorize"]["description"]
    with tvm.transform.PassContext(
            opt_level=3, config={"relay.backend.use_auto_scheduler": True}):
        ctx = tvm.transform.PassContext.current()
        assert ctx.config["relay.backend.use_auto_scheduler"] is True
    with pytest.raises(TypeError, match="expects a bool"):
        tvm.transform.PassContext(
            config={"relay.backend.use_auto_scheduler": "yes"})


def test_tvm_config_aliases(tvm):
    with tvm.transform.PassContext(config={"relay.FuseOps.max_depth": 3}):
        ctx = tvm.transform.PassContext.current()
        assert ctx.config["FuseOps.max_depth"] == 3
        assert "relay.FuseOps.max_depth" not in ctx.config
    with pytest.raises(ValueError, match="relay.FuseOps.max_depth"):
        tvm.transform.PassContext(config={"relay.FuseOps.max_depth": 0})


def test_backend_records(tvm):
    from tvm import relay
    from tvm.relay.backend import Executor, Runtime
    mod = tvm.IRModule.from_expr(relay.cast(relay.const(10, "int8"),
                                            "int32"))
    aot = Executor("aot", {"link-params": True})
    assert aot["link-params"] is True and aot.name == "aot"
    mod = mod.with_attr("executor", aot).with_attr("runtime", Runtime("cpp"))
    assert str(mod.attrs["executor"]) == "Executor('aot', " \
        "{'link-params': True})"
    assert str(mod.attrs["runtime"]) == "Runtime('cpp')"
    folded = relay.transform.FoldConstant()(mod)
    assert folded["main"].body.data.numpy() == 10
    with pytest.raises(ValueError, match="'vm' is not one of TVM's"):
        Executor("vm")
    with pytest.raises(NotImplementedError, match="tvm.relay.backend.vm"):
        import tvm.relay.backend.vm as vm
        vm.compile(mod)


def test_simplify_expr_makes_relays_inexact_rewrites(tvm):
    from tvm import relay
    x = relay.var("x", shape=(4,), dtype="float32")
    # x + (+0) is not x for x = -0: nnir's SimplifyExpr keeps it by default,
    # Relay's (the TVM name) drops it.
    mod = nnir.IRModule.from_expr(relay.add(x, relay.const(0.0)))
    mod = nnir.transform.InferType()(mod)
    kept = nnir.transform.SimplifyExpr()(mod)["main"].body
    assert isinstance(kept, nnir.Call)
    assert nnir.transform.SimplifyExpr(allow_inexact=True)(mod)["main"].body \
        .same_as(mod["main"].params[0])
    assert relay.transform.SimplifyExpr()(mod)["main"].body \
        .same_as(mod["main"].params[0])
    with nnir.transform.PassContext(
            config={"SimplifyExpr.allow_inexact": True}):
        assert nnir.transform.SimplifyExpr()(mod)["main"].body \
            .same_as(mod["main"].params[0])
