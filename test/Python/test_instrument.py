"""Pass instruments from Python: the four points, their order, TVM's rules
for an exception at each point, and the built-in instruments."""

import pytest

import nnir
from nnir import instrument, transform
from nnir.instrument import PassInstrument, pass_instrument

TEXT = """
def @main(%x: Tensor[(3), float32]) {
  add(%x, multiply(2f, 3f))
}
"""


def parse():
    return nnir.parse(TEXT)


events = []


@pass_instrument
class PI:
    """Records every point, tagged."""

    def __init__(self, tag):
        self.tag = tag

    def enter_pass_ctx(self):
        events.append(self.tag + " enter ctx")

    def exit_pass_ctx(self):
        events.append(self.tag + " exit ctx")

    def should_run(self, mod, info):
        events.append(self.tag + " should_run " + info.name)
        return True

    def run_before_pass(self, mod, info):
        events.append(self.tag + " run before " + info.name)

    def run_after_pass(self, mod, info):
        events.append(self.tag + " run after " + info.name)


def broken(point):
    """An instrument like PI whose method `point` raises."""

    @pass_instrument
    class Broken(PI):
        pass

    def fail(self, *args):
        getattr(PI, point)(self, *args)
        raise RuntimeError("broken " + point)

    setattr(Broken, point, fail)
    return Broken


@pytest.fixture(autouse=True)
def clear_events():
    events.clear()
    yield


def test_decorator_and_subclass():
    class Sub(PassInstrument):
        def run_before_pass(self, mod, info):
            events.append("sub before " + info.name)

    assert isinstance(PI("a"), PassInstrument)
    assert PI("a").name == "PI" and PI.__name__ == "PI"
    assert pass_instrument(Sub) is Sub
    assert pass_instrument()(Sub) is Sub
    with pytest.raises(TypeError, match="pi_cls must be a class"):
        pass_instrument(lambda: None)
    with transform.PassContext(instruments=[PI("%1"), Sub()]):
        transform.InferType()(parse())
    assert events == ["%1 enter ctx", "%1 should_run InferType",
                      "%1 run before InferType", "sub before InferType",
                      "%1 run after InferType", "%1 exit ctx"]


def test_call_sequence():
    with transform.PassContext(instruments=[PI("%1"), PI("%2")]):
        mod = transform.InferType()(parse())
        transform.ToANormalForm()(mod)
    assert events == [
        "%1 enter ctx", "%2 enter ctx",
        "%1 should_run InferType", "%2 should_run InferType",
        "%1 run before InferType", "%2 run before InferType",
        "%1 run after InferType", "%2 run after InferType",
        "%1 should_run ToANormalForm", "%2 should_run ToANormalForm",
        "%1 run before ToANormalForm", "%2 run before ToANormalForm",
        "%1 run after ToANormalForm", "%2 run after ToANormalForm",
        "%1 exit ctx", "%2 exit ctx"]


def test_should_run_skips_and_is_asked_of_all():
    @pass_instrument
    class Skip:
        def __init__(self, name):
            self.skip = name

        def should_run(self, mod, info):
            return info.name != self.skip

    seq = transform.Sequential([transform.InferType(),
                                transform.FoldConstant(),
                                transform.ToANormalForm()])
    with transform.PassContext(instruments=[Skip("FoldConstant"),
                                            Skip("ToANormalForm"), PI("p")]):
        out = seq(parse())
    ran = [e.split()[-1] for e in events if " run before " in e]
    assert ran == ["sequential", "InferType"]
    assert "multiply" in out.astext()  # FoldConstant was skipped
    # Every instrument is asked, even after one said no.
    assert "p should_run FoldConstant" in events
    # A pass named in required_pass is not asked.
    events.clear()
    with transform.PassContext(instruments=[Skip("FoldConstant"), PI("p")],
                               required_pass=["FoldConstant"]):
        out = seq(parse())
    assert "multiply" not in out.astext()
    assert "p should_run FoldConstant" not in events
    assert "p run before FoldConstant" in events


def test_enter_pass_ctx_exception():
    ctx = transform.PassContext(
        instruments=[PI("%1"), broken("enter_pass_ctx")("%2"), PI("%3")])
    with pytest.raises(RuntimeError, match="broken enter_pass_ctx") as info:
        with ctx:
            events.append("body")
    assert events == ["%1 enter ctx", "%2 enter ctx", "%1 exit ctx"]
    assert info.value.__notes__ == [
        "in enter_pass_ctx of the instrument 'Broken'"]
    assert transform.PassContext.current() is not ctx
    assert ctx.instruments == []


def test_enter_pass_ctx_exception_global():
    current = transform.PassContext.current()
    with pytest.raises(RuntimeError, match="broken enter_pass_ctx"):
        current.override_instruments([broken("enter_pass_ctx")("%1")])
    assert current.instruments == []


def test_exit_pass_ctx_exception():
    ctx = transform.PassContext(
        instruments=[PI("%1"), broken("exit_pass_ctx")("%2"), PI("%3")])
    with pytest.raises(RuntimeError, match="broken exit_pass_ctx"):
        with ctx:
            events.clear()
    assert events == ["%1 exit ctx", "%2 exit ctx"]
    assert transform.PassContext.current() is not ctx
    assert ctx.instruments == [] and ctx.closed


def test_exit_pass_ctx_exception_global():
    current = transform.PassContext.current()
    current.override_instruments([broken("exit_pass_ctx")("%1")])
    with pytest.raises(RuntimeError, match="broken exit_pass_ctx"):
        current.override_instruments([PI("%2")])
    assert current.instruments == []


def test_pass_exception():
    @transform.module_pass(opt_level=0)
    def fails(mod, ctx):
        events.append("transform pass")
        raise ValueError("pass failed")

    with pytest.raises(ValueError, match="pass failed"):
        with transform.PassContext(instruments=[PI("%1")]):
            fails(parse())
    assert events == ["%1 enter ctx", "%1 should_run fails",
                      "%1 run before fails", "transform pass", "%1 exit ctx"]


def point_exception(point):
    """Runs a pass under [%1 breaking at `point`, %2]; the events."""
    @transform.module_pass(opt_level=0)
    def work(mod, ctx):
        events.append("transform pass")
        return mod

    mod = parse()
    with pytest.raises(RuntimeError, match="broken " + point) as info:
        with transform.PassContext(instruments=[broken(point)("%1"),
                                                PI("%2")]):
            work(mod)
    assert info.value.__notes__ == [
        f"in {point} of the instrument 'Broken' (pass 'work')"]
    return events


def test_should_run_exception():
    assert point_exception("should_run") == [
        "%1 enter ctx", "%2 enter ctx", "%1 should_run work",
        "%1 exit ctx", "%2 exit ctx"]


def test_run_before_exception():
    assert point_exception("run_before_pass") == [
        "%1 enter ctx", "%2 enter ctx", "%1 should_run work",
        "%2 should_run work", "%1 run before work", "%1 exit ctx",
        "%2 exit ctx"]


def test_run_after_exception():
    assert point_exception("run_after_pass") == [
        "%1 enter ctx", "%2 enter ctx", "%1 should_run work",
        "%2 should_run work", "%1 run before work", "%2 run before work",
        "transform pass", "%1 run after work", "%1 exit ctx",
        "%2 exit ctx"]


def test_instruments_see_nested_passes():
    counter = []

    @pass_instrument
    class Count:
        def run_before_pass(self, mod, info):
            counter.append(info.name)

    with transform.PassContext(opt_level=3, instruments=[Count()]):
        transform.Sequential([transform.FoldConstant(),
                              transform.DeadCodeElimination()])(parse())
    # The Sequential, the InferType FoldConstant requires, FoldConstant,
    # the InferType after it, DCE (types are valid: no second InferType).
    assert counter == ["sequential", "InferType", "FoldConstant",
                       "InferType", "DeadCodeElimination"]


def test_pass_timing_instrument():
    timing = instrument.PassTimingInstrument()
    transform.PassContext.current().override_instruments([timing])
    mod = transform.InferType()(parse())
    mod = transform.ToANormalForm()(mod)
    profiles = timing.render()
    assert "InferType" in profiles and "ToANormalForm" in profiles
    assert profiles.startswith("InferType: ") and "us [" in profiles
    # TVM's static form: the timing instruments of the current context.
    assert instrument.PassTimingInstrument.render() == profiles
    assert "Execution time report" in timing.render_tree()
    transform.PassContext.current().override_instruments(None)
    assert timing.render() == ""  # leaving the context cleared it
    assert instrument.PassTimingInstrument.render() == ""

    @transform.module_pass(opt_level=0)
    def render_inside(mod, ctx):
        instrument.PassTimingInstrument.render()
        return mod

    with transform.PassContext(instruments=[timing]):
        with pytest.raises(RuntimeError, match="while still in a pass"):
            render_inside(parse())


def test_printing_instruments(capsys):
    mod = parse()
    with transform.PassContext(instruments=[
            instrument.PassPrintingInstrument(["InferType"],
                                              ["ToANormalForm"])]):
        transform.ToANormalForm()(transform.InferType()(mod))
    out = capsys.readouterr().out
    assert out.startswith("Print IR before: InferType\n#[version")
    assert "Print IR after: ToANormalForm\n" in out
    assert "Print IR after: InferType" not in out
    with transform.PassContext(instruments=[instrument.PrintBeforeAll(),
                                            instrument.PrintAfterAll()]):
        transform.InferType()(mod)
    out = capsys.readouterr().out
    assert out.startswith("Before Running Pass: The meta data of the pass - "
                          "pass name: InferType")
    assert "After Running Pass: " in out and "multiply" in out


def test_print_ir_pass(capfd):
    seq = transform.Sequential([transform.InferType(),
                                transform.FoldConstant(),
                                transform.PrintIR("after fold"),
                                transform.DeadCodeElimination()])
    with transform.PassContext(opt_level=3):
        seq(parse())
    err = capfd.readouterr().err
    assert err.startswith("PrintIR(after fold):\n#[version")
    assert "add(%x, 6f)" in err
