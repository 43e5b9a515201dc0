"""Passes written in Python: module_pass and function_pass on functions and
classes, mixed with C++ passes, registered by name for pipeline text, their
exceptions, and the GIL (threads)."""

import threading
import traceback

import pytest

import nnir
from nnir import op, transform

TEXT = """
def @main(%x: Tensor[(3), float32]) {
  add(%x, multiply(2f, 3f))
}
def @other(%y: Tensor[(3), float32]) {
  log(%y)
}
"""


def parse():
    return nnir.parse(TEXT)


def double_vars(func, mod, ctx):
    """log(%y) -> log(add(%y, %y)) (TVM's test_function_pass), on every
    call whose argument is a parameter."""
    class Double(nnir.ExprMutator):
        def visit_var(self, var):
            return op.add(var, var)
    return nnir.Function(func.params, Double().visit(func.body))


def test_module_pass_on_a_function():
    @transform.module_pass(opt_level=0, name="add_abs")
    def add_abs(mod, ctx):
        x = nnir.var("a", shape=(3,))
        mod["myAbs"] = nnir.Function([x], op.abs(x))
        return mod

    assert isinstance(add_abs, transform.ModulePass)
    assert (add_abs.info.name, add_abs.info.opt_level) == ("add_abs", 0)
    assert "add_abs" in str(add_abs)
    mod = parse()
    out = add_abs(mod)
    assert "myAbs" in out and "main" in out
    assert "myAbs" not in mod  # the input module is unchanged


def test_module_pass_keeps_identity():
    other = parse()

    @transform.module_pass(opt_level=1)
    class Pipeline:
        def __init__(self, replace):
            self.replace = replace

        def transform_module(self, mod, ctx):
            assert isinstance(ctx, transform.PassContext)
            return other if self.replace else mod

    assert Pipeline.__name__ == "Pipeline"
    mod = parse()
    assert Pipeline(True)(mod).same_as(other)
    assert Pipeline(False)(mod).same_as(mod)
    p = Pipeline(replace=False)
    assert p.info.name == "Pipeline" and p.replace is False  # falls through
    assert isinstance(p, transform.ModulePass)


def test_function_pass():
    p = transform.function_pass(double_vars, opt_level=1,
                                name="function_pass_test")
    assert isinstance(p, transform.FunctionPass)
    assert (p.info.name, p.info.opt_level) == ("function_pass_test", 1)
    out = p(parse())
    assert "add(%y, %y);\n  log(%2)" in out.astext()
    # A function pass runs InferType after it changed something.
    assert out.has_valid_types
    assert transform.function_pass(double_vars,
                                   opt_level=0).info.name == "double_vars"


def test_function_pass_on_a_class():
    replacement = nnir.parse("def @main(%z: Tensor[(3), float32]) { exp(%z) }")

    @transform.function_pass(opt_level=1)
    class ReplaceFunc:
        def __init__(self, new_func):
            self.new_func = new_func

        def transform_function(self, func, mod, ctx):
            return self.new_func

    out = ReplaceFunc(replacement["main"])(parse())
    assert out["other"].same_as(out["main"]) or nnir.structural_equal(
        out["other"], out["main"])
    nnir.assert_structural_equal(
        out["main"], transform.InferType()(replacement)["main"])


def test_decorator_errors():
    with pytest.raises(ValueError, match="Please provide opt_level for the "
                       "module pass."):
        transform.module_pass(lambda m, c: m)
    with pytest.raises(ValueError, match="Please provide opt_level for the "
                       "function pass."):
        transform.function_pass(lambda f, m, c: f)
    with pytest.raises(TypeError, match="Required is expected to be the "
                       "type of list/tuple."):
        transform.module_pass(opt_level=0, required="InferType")
    with pytest.raises(TypeError, match="pass_func must be a callable"):
        transform.module_pass(opt_level=0, name="x")(3)

    @transform.module_pass(opt_level=0)
    class NoMethod:
        pass

    with pytest.raises(TypeError, match="has no transform_module"):
        NoMethod()


def test_python_and_cpp_passes_in_one_sequential():
    calls = []

    @transform.module_pass(opt_level=0, required=["InferType"])
    def check_typed(mod, ctx):
        calls.append(mod.has_valid_types)
        return mod

    seq = transform.Sequential([
        check_typed,
        transform.FoldConstant(),
        transform.function_pass(double_vars, opt_level=0),
        transform.DeadCodeElimination(),
    ])
    out = seq(parse())
    assert calls == [True]  # its required InferType ran first
    text = out.astext()
    assert "6f" in text and "multiply" not in text and "add(%y, %y)" in text
    # The Python pass inside a C++ Sequential ran with the GIL taken back;
    # nested: a Python pass that runs a C++ pipeline running a Python pass.

    @transform.module_pass(opt_level=0)
    def outer(mod, ctx):
        return transform.Sequential([check_typed])(mod)

    transform.Sequential([transform.InferType(), outer])(parse())
    assert calls == [True, True]


def test_a_raising_pass():
    @transform.module_pass(opt_level=0, name="Breaks")
    def breaks(mod, ctx):
        mod["extra"] = mod["main"]  # a change the caller must never see
        raise KeyError("broken on purpose")

    mod = parse()
    before = mod.astext()
    with pytest.raises(KeyError, match="broken on purpose") as info:
        transform.Sequential([transform.InferType(), breaks,
                              transform.FoldConstant()])(mod)
    # The exception is the pass's own, with its traceback and a note naming
    # the pass.
    assert "in the Python pass 'Breaks'" in info.value.__notes__
    frames = [frame.name for frame in traceback.extract_tb(info.tb)]
    assert "breaks" in frames
    assert mod.astext() == before and "extra" not in mod

    @transform.function_pass(opt_level=0)
    def returns_junk(func, mod, ctx):
        return 42

    with pytest.raises(TypeError, match="function pass 'returns_junk' "
                       "returned a int, not a Function"):
        returns_junk(parse())


def test_nested_python_errors_name_every_pass():
    @transform.module_pass(opt_level=0)
    def inner(mod, ctx):
        raise RuntimeError("deep")

    @transform.module_pass(opt_level=0)
    def outer(mod, ctx):
        return transform.Sequential([inner])(mod)

    with pytest.raises(RuntimeError, match="deep") as info:
        outer(parse())
    assert info.value.__notes__ == ["in the Python pass 'inner'",
                                    "in the Python pass 'outer'"]


def test_register_pass_for_pipeline_text():
    seen = []

    @transform.module_pass(opt_level=0, name="test.py.Record")
    def record(mod, ctx):
        seen.append("record")
        return mod

    transform.register_pass("test.py.Record", record)

    @transform.register_pass("TestPyScale")
    def make_scale(factor=2, label="x", names=("a", "b")):
        """multiplies nothing, records its options"""
        @transform.module_pass(opt_level=0, name="TestPyScale")
        def scale(mod, ctx):
            seen.append((factor, label, names))
            return mod
        return scale

    entry = next(e for e in transform.list_passes()
                 if e["name"] == "TestPyScale")
    assert entry["origin"] == "python"
    assert entry["description"] == "multiplies nothing, records its options"
    assert [o["name"] for o in entry["options"]] == ["factor", "label",
                                                     "names"]
    seq = transform.parse_pipeline(
        "InferType,test.py.Record,TestPyScale{factor=3,names=[c,d]}")
    seq(parse())
    assert seen == ["record", (3, "x", ["c", "d"])]
    # The constructor appears in nnir.transform, with the options.
    transform.TestPyScale(factor=5)(parse())
    assert seen[-1] == (5, "x", ["a", "b"])
    with pytest.raises(TypeError, match="option 'factor' of pass TestPyScale "
                       "expects an int, got str"):
        transform.TestPyScale(factor="5")
    with pytest.raises(nnir.DiagnosticError, match="expected an int"):
        transform.parse_pipeline("TestPyScale{factor=many}")
    # A required pass may be a Python pass.
    needs = transform.module_pass(lambda m, c: m, opt_level=0, name="needs",
                                  required=["test.py.Record"])
    transform.Sequential([needs])(parse())
    assert seen[-1] == "record"


def test_register_pass_errors():
    p = transform.module_pass(lambda m, c: m, opt_level=0, name="named")
    with pytest.raises(ValueError, match="the pass is named 'named'"):
        transform.register_pass("other_name", p)
    transform.register_pass("named", p)
    with pytest.raises(ValueError, match="named"):
        transform.register_pass("named", p)  # registered once
    with pytest.raises(ValueError, match="InferType"):
        transform.register_pass("InferType", lambda: p)
    with pytest.raises(TypeError, match="parameter 'x' of the factory has "
                       "no default"):
        transform.register_pass("needs_x", lambda x: p)
    with pytest.raises(TypeError, match="default of parameter 'x' is a dict"):
        transform.register_pass("dict_x", lambda x={}: p)

    def failing_factory():
        raise OSError("no factory today")

    transform.register_pass("TestPyFailingFactory", failing_factory)
    with pytest.raises(OSError, match="no factory today") as info:
        transform.parse_pipeline("TestPyFailingFactory")
    notes = info.value.__notes__
    assert notes[0] == "while creating the Python pass 'TestPyFailingFactory'"
    assert notes[1].startswith("<pass pipeline>:1:1: error: OSError: no "
                               "factory today")


def test_threads_run_pipelines():
    """The GIL is released while C++ passes run: two threads each run a
    C++ Sequential holding a Python pass, many times."""
    counts = [0, 0]
    errors = []

    def run(index):
        @transform.module_pass(opt_level=0, name="count%d" % index)
        def count(mod, ctx):
            counts[index] += 1
            return mod
        try:
            with transform.PassContext(opt_level=3):
                for _ in range(25):
                    out = transform.Sequential([
                        transform.InferType(), count,
                        transform.FoldConstant(),
                        transform.function_pass(double_vars, opt_level=0),
                        transform.DeadCodeElimination()])(parse())
                    assert "6f" in out.astext()
                    assert transform.PassContext.current().opt_level == 3
        except Exception as error:  # pylint: disable=broad-except
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert counts == [25, 25]
    # Each thread had its own context stack.
    assert transform.PassContext.current().opt_level == 2


def test_the_gil_is_released_while_cpp_passes_run():
    """While a thread runs a long C++ pass, this thread runs Python: had the
    pass kept the GIL, the loop below would not get to run at all."""
    lines = ["def @main(%x: Tensor[(4), float32]) {"]
    prev = "%x"
    for i in range(20000):
        lines.append("  %%%d = add(%s, multiply(%df, 2f));" % (i, prev, i % 7))
        prev = "%%%d" % i
    lines += ["  %s" % prev, "}"]
    mod = nnir.parse("\n".join(lines))
    started = threading.Event()

    @transform.module_pass(opt_level=0)
    def signal(mod, ctx):
        started.set()
        return mod

    seq = transform.Sequential([signal, transform.InferType(),
                                transform.FoldConstant(),
                                transform.SimplifyExpr(),
                                transform.DeadCodeElimination()])
    thread = threading.Thread(target=lambda: seq(mod))
    thread.start()
    started.wait()
    spins = 0
    while thread.is_alive():
        spins += 1
    thread.join()
    assert spins > 1000
