"""Pass instruments: code run around the passes of a PassContext.

An instrument is a `PassInstrument` (subclass it, or decorate a plain class
with `@pass_instrument`) handed to `PassContext(instruments=[...])` or
`PassContext.override_instruments`. Its methods are TVM's four points:
`enter_pass_ctx()` and `exit_pass_ctx()` when the context is entered and
exited, `should_run(mod, info)` (every instrument is asked; the pass runs only
if all say True; passes in the context's `required_pass` are not asked), and
`run_before_pass(mod, info)` / `run_after_pass(mod, info)` around each pass
that runs. Only the methods a class overrides are called.

An exception raised by a method follows TVM's rules (see docs/Python.md):
in `enter_pass_ctx`, the instruments already entered are exited in reverse
order, the context's instruments are cleared and the context is not
entered; in `exit_pass_ctx`, the remaining exits are skipped and the
instruments are cleared (the context is exited); in the three pass points,
the remaining instruments are skipped for that point and the exception
leaves the pass run. It reaches the caller as itself, with a note naming
the instrument, the point and the pass.
"""

from . import _nnir

__all__ = ["PassInstrument", "PassPrintingInstrument", "PassTimingInstrument",
           "PrintAfterAll", "PrintBeforeAll", "pass_instrument"]


class PassInstrument:
    """Base class of pass instruments: every method does nothing (and
    should_run says True). `name` is the class name unless set."""

    @property
    def name(self):
        return self.__dict__.get("_name", type(self).__name__)

    @name.setter
    def name(self, value):
        self.__dict__["_name"] = value

    def enter_pass_ctx(self):
        """Called when a PassContext holding the instrument is entered."""

    def exit_pass_ctx(self):
        """Called when a PassContext holding the instrument is exited."""

    def should_run(self, mod, info):
        """Whether the pass `info` should run on `mod`."""
        return True

    def run_before_pass(self, mod, info):
        """Called before the pass `info` runs on `mod`."""

    def run_after_pass(self, mod, info):
        """Called after the pass `info` produced `mod`."""


def pass_instrument(pi_cls=None):
    """Class decorator: makes a plain class with some of PassInstrument's
    methods a PassInstrument (a class that already is one is returned as
    it is). Constructing the decorated class gives the instrument."""

    def create(cls):
        if not isinstance(cls, type):
            raise TypeError("pi_cls must be a class")
        if issubclass(cls, PassInstrument):
            return cls
        wrapped = type(cls.__name__, (cls, PassInstrument),
                       {"__doc__": cls.__doc__, "__module__": cls.__module__,
                        "__qualname__": cls.__qualname__})
        return wrapped

    if pi_cls is not None:
        return create(pi_cls)
    return create


class _RenderMethod:
    """render() on an instance renders that instrument's profile; on the
    class (TVM's static `PassTimingInstrument.render()`), the profiles of
    the timing instruments of the current PassContext."""

    def __init__(self, tree):
        self.tree = tree

    def __get__(self, instance, owner):
        tree = self.tree
        if instance is None:
            return lambda: _nnir._render_current_timing(tree)
        native = instance._native
        return native.render_tree if tree else native.render


class PassTimingInstrument(PassInstrument):
    """Times every pass run under its context (nested passes as children).
    `render()` gives TVM's report, one line per pass:
    `<name>: <total>us [<self>us] (<% of all>%; <% of parent>%)`, children
    indented by tabs; `render_tree()` gives nnir-opt's `--time-passes`
    table. Leaving the context clears the profile: render before. The C++
    instrument runs without the GIL."""

    def __init__(self):
        self._native = _nnir._PassTimingInstrument()

    render = _RenderMethod(tree=False)
    render_tree = _RenderMethod(tree=True)


class PassPrintingInstrument(PassInstrument):
    """Prints the module before the passes named in
    `print_before_pass_names` and after those in `print_after_pass_names`
    (on sys.stdout, as TVM's does)."""

    def __init__(self, print_before_pass_names=(), print_after_pass_names=()):
        self.print_before_pass_names = list(print_before_pass_names)
        self.print_after_pass_names = list(print_after_pass_names)

    def run_before_pass(self, mod, info):
        if info.name in self.print_before_pass_names:
            print(f"Print IR before: {info.name}\n{mod}\n\n")

    def run_after_pass(self, mod, info):
        if info.name in self.print_after_pass_names:
            print(f"Print IR after: {info.name}\n{mod}\n\n")


class PrintBeforeAll(PassInstrument):
    """Prints the module before every pass (on sys.stdout)."""

    def run_before_pass(self, mod, info):
        print(f"Before Running Pass: {info}")
        print(mod)


class PrintAfterAll(PassInstrument):
    """Prints the module after every pass (on sys.stdout)."""

    def run_after_pass(self, mod, info):
        print(f"After Running Pass: {info}")
        print(mod)
