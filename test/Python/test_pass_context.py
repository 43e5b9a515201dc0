"""PassContext from Python: the with-scope over the thread-local stack,
current(), fields, typed config, list_configs, closed contexts."""

import threading

import pytest

import nnir
from nnir import instrument, transform


def test_with_scope_and_current():
    default = transform.PassContext.current()
    assert default.opt_level == 2
    with transform.PassContext(opt_level=3, required_pass=("A",),
                               disabled_pass={"B"}) as outer:
        assert transform.PassContext.current() is outer
        assert (outer.opt_level, outer.required_pass,
                outer.disabled_pass) == (3, ["A"], ["B"])
        with transform.PassContext(opt_level=1) as inner:
            assert transform.PassContext.current() is inner
        assert transform.PassContext.current() is outer
    assert transform.PassContext.current() is default
    assert outer.closed and not default.closed


def test_default_context_persists():
    # The thread's default context is one object; changing it lasts.
    timing = instrument.PassTimingInstrument()
    transform.PassContext.current().override_instruments([timing])
    assert transform.PassContext.current().instruments == [timing]
    transform.PassContext.current().override_instruments(None)
    assert transform.PassContext.current().instruments == []


def test_fields_are_checked():
    with pytest.raises(TypeError, match="required_pass is expected to be the "
                       "type of list/tuple/set."):
        transform.PassContext(required_pass="InferType")
    with pytest.raises(TypeError, match="disabled_pass is expected"):
        transform.PassContext(disabled_pass=3)
    with pytest.raises(TypeError, match="instruments is expected"):
        transform.PassContext(instruments=instrument.PrintAfterAll())
    with pytest.raises(TypeError, match="an instrument must be an "
                       "nnir.instrument.PassInstrument"):
        transform.PassContext(instruments=[object()])


def test_config():
    with transform.PassContext(config={"testing.immutable_module": True,
                                       "FuseOps.max_depth": 10}) as ctx:
        assert ctx.config == {"testing.immutable_module": True,
                              "FuseOps.max_depth": 10}
    with pytest.raises(TypeError, match="unknown pass config 'no.such.key'; "
                       "valid keys are: testing.immutable_module"):
        transform.PassContext(config={"no.such.key": 1})
    with pytest.raises(TypeError, match="pass config 'FuseOps.max_depth' "
                       "expects an int, got str"):
        transform.PassContext(config={"FuseOps.max_depth": "10"})
    with pytest.raises(TypeError, match="expects a bool, got int"):
        transform.PassContext(config={"testing.immutable_module": 1})
    with pytest.raises(ValueError, match="FuseOps.max_depth"):
        transform.PassContext(config={"FuseOps.max_depth": 0})


def test_list_configs():
    configs = transform.PassContext.list_configs()
    assert configs["testing.immutable_module"]["type"] == "bool"
    assert configs["FuseOps.max_depth"]["type"] == "int"
    assert "FuseOps" in configs["FuseOps.max_depth"]["description"]


def test_closed_context():
    ctx = transform.PassContext(opt_level=3)
    with ctx:
        pass
    assert ctx.closed and ctx.opt_level == 3  # fields stay readable
    with pytest.raises(RuntimeError, match="cannot enter a closed "
                       "PassContext"):
        with ctx:
            pass
    with pytest.raises(RuntimeError, match="cannot override the instruments "
                       "of a closed PassContext"):
        ctx.override_instruments([])
    with pytest.raises(RuntimeError, match="already exited"):
        ctx.__exit__(None, None, None)
    assert transform.PassContext.current() is not ctx


def test_misuse_of_the_scope():
    ctx = transform.PassContext()
    with pytest.raises(RuntimeError, match="not the innermost context"):
        ctx.__exit__(None, None, None)  # never entered
    with ctx:
        with pytest.raises(RuntimeError, match="already entered"):
            ctx.__enter__()
        inner = transform.PassContext()
        inner.__enter__()
        with pytest.raises(RuntimeError, match="not the innermost context"):
            ctx.__exit__(None, None, None)
        inner.__exit__(None, None, None)
    assert ctx.closed


def test_a_context_belongs_to_its_thread():
    ctx = transform.PassContext(opt_level=0)
    errors = []
    seen = []

    def other():
        seen.append(transform.PassContext.current().opt_level)
        try:
            ctx.__exit__(None, None, None)
        except RuntimeError as error:
            errors.append(str(error))

    with ctx:
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        assert transform.PassContext.current() is ctx
    assert seen == [2]  # the other thread's own default context
    assert "on the thread that entered them" in errors[0]


def test_passes_see_the_context():
    seen = []

    @transform.module_pass(opt_level=0)
    def look(mod, ctx):
        seen.append((ctx.opt_level, ctx is transform.PassContext.current()))
        return mod

    mod = nnir.parse("def @main(%x: float32) { %x }")
    with transform.PassContext(opt_level=3) as ctx:
        look(mod)
        assert seen[-1] == (3, True)
    look(mod)
    assert seen[-1] == (2, True)
    assert ctx.closed


def test_register_config():
    transform.register_config("test.python_config", "int", "a test key")
    info = transform.PassContext.list_configs()["test.python_config"]
    assert info == {"type": "int", "description": "a test key"}
    with transform.PassContext(config={"test.python_config": 7}) as ctx:
        assert ctx.config["test.python_config"] == 7
    transform.register_config("test.python_config", "int")  # the same: fine
    with pytest.raises(ValueError, match="registered with type int, not "
                       "bool"):
        transform.register_config("test.python_config", "bool")
    with pytest.raises(ValueError, match="unknown option type 'number'"):
        transform.register_config("test.other", "number")
    with pytest.raises(ValueError, match="must not be empty"):
        transform.register_config("", "bool")


def test_num_threads():
    # nnir's extension: a context with a pool of its own runs function passes
    # on it; the result is the one thread's.
    text = '#[version = "0.0.5"]\n' + "".join(
        "def @f%d(%%x: Tensor[(4), float32]) { log(abs(%%x)) }\n" % i
        for i in range(16))
    assert transform.PassContext().num_threads == 1
    with pytest.raises(ValueError, match="num_threads"):
        transform.PassContext(num_threads=-1)
    seen = []

    @transform.function_pass(opt_level=0)
    def record(func, mod, ctx):
        seen.append(threading.get_ident())
        return func

    results = []
    for threads in (1, 4):
        mod = nnir.parse(text)
        with transform.PassContext(num_threads=threads) as ctx:
            assert ctx.num_threads == threads
            out = transform.Sequential(
                [transform.InferType(), transform.SimplifyExpr(), record])(mod)
        results.append(out.astext())
    assert results[0] == results[1]
    assert len(seen) == 32
