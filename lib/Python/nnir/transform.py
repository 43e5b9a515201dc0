"""nnir's passes in Python: pass objects, PassContext, Python passes.

    from nnir import transform
    seq = transform.Sequential([transform.InferType(),
                                transform.FoldConstant()])
    with transform.PassContext(opt_level=3):
        mod = seq(mod)

Every pass of the C++ PassRegistry is a constructor here, generated from the
registry and its option declarations (a pass added in C++, or by
`register_pass`, appears without a Python edit); its options are keyword
(or positional, in declaration order) arguments, type-checked. Python passes
come from `module_pass` and `function_pass` (decorators on functions and
classes, TVM's semantics) and mix with C++ passes in one Sequential.
See docs/Python.md.
"""

import inspect
import sys

from . import _nnir
from ._nnir import (FunctionPass, ModulePass, Pass, PassContext, PassInfo,
                    Sequential, parse_pipeline)

__all__ = ["FunctionPass", "ModulePass", "Pass", "PassContext", "PassInfo",
           "PrintIR", "Sequential", "function_pass", "list_passes",
           "module_pass", "parse_pipeline", "register_config",
           "register_pass"]


def _check_required(required):
    if required is None:
        return []
    if not isinstance(required, (list, tuple)):
        raise TypeError("Required is expected to be the type of list/tuple.")
    return list(required)


def _wrap_class_pass(pass_cls, info, base, method):
    """The class decorated by module_pass / function_pass: constructing it
    constructs `pass_cls` and returns a pass calling its `method`;
    attributes not found on the pass are looked up on that instance."""

    class PyPass(base):
        def __init__(self, *args, **kwargs):
            inst = pass_cls(*args, **kwargs)
            if not callable(getattr(inst, method, None)):
                raise TypeError(f"{pass_cls.__name__} is decorated as a pass "
                                f"but has no {method}() method")

            # The closure holds the instance, not the pass: no cycle.
            def pass_func(*pass_args):
                return getattr(inst, method)(*pass_args)

            base.__init__(self, pass_func, info)
            self._inst = inst

        def __getattr__(self, name):
            if name == "_inst":
                raise AttributeError(name)
            return getattr(self._inst, name)

    PyPass.__init__.__doc__ = pass_cls.__init__.__doc__
    PyPass.__name__ = pass_cls.__name__
    PyPass.__qualname__ = pass_cls.__qualname__
    PyPass.__doc__ = pass_cls.__doc__
    PyPass.__module__ = pass_cls.__module__
    return PyPass


def _pass_decorator(kind, base, method, pass_func, opt_level, name,
                    required, traceable):
    """module_pass and function_pass: `kind` is "module" or "function"."""
    if opt_level is None:
        raise ValueError(f"Please provide opt_level for the {kind} pass.")
    required = _check_required(required)

    def create(pass_arg):
        info = PassInfo(opt_level, name if name else pass_arg.__name__,
                        required, traceable)
        if inspect.isclass(pass_arg):
            return _wrap_class_pass(pass_arg, info, base, method)
        if not callable(pass_arg):
            raise TypeError("pass_func must be a callable for "
                            f"{kind.capitalize()} pass")
        return base(pass_arg, info)

    if pass_func:
        return create(pass_func)
    return create


def module_pass(pass_func=None, opt_level=None, name=None, required=None,
                traceable=False):
    """A module pass from `pass_func(mod, ctx) -> IRModule`, or from a class
    with `transform_module(self, mod, ctx)` (the decorated class then
    constructs passes). Usable as `@module_pass(opt_level=1)` or called
    with the function. The name defaults to the function's or class's.

    The function is given a shallow copy of the module, so the input never
    changes; returning that copy unchanged returns the input itself."""
    return _pass_decorator("module", ModulePass, "transform_module",
                           pass_func, opt_level, name, required, traceable)


def function_pass(pass_func=None, opt_level=None, name=None, required=None):
    """A function pass from `pass_func(func, mod, ctx) -> Function`, called
    for each function of the module (except those marked Compiler=...,
    Extern=1 or SkipOptimization=1), or from a class with
    `transform_function(self, func, mod, ctx)`. `mod` is a shallow copy of
    the input module. When the pass changed something, InferType runs
    after it, as in TVM."""
    return _pass_decorator("function", FunctionPass, "transform_function",
                           pass_func, opt_level, name, required, False)


def EliminateCommonSubexpr(fskip=None):
    """Merges operator calls with equal attributes and equivalent arguments
    (docs/Passes.md). `fskip(expr)`, if given, is called with each rewritten
    call and tuple projection; a true result leaves that node alone."""
    if fskip is None:
        return _nnir._create_pass("EliminateCommonSubexpr", {})
    return _nnir._create_cse_pass(fskip)


def PrintIR(header="", show_meta_data=False):
    """A module pass (opt level 0) that prints the module on sys.stderr
    under `PrintIR(<header>):` and changes nothing."""

    def print_ir(mod, ctx):
        print(f"PrintIR({header}):\n{mod.astext(show_meta_data=show_meta_data)}",
              file=sys.stderr)
        return mod

    return ModulePass(print_ir, PassInfo(0, "PrintIR"))


#===------------------------------------------------------------------------===#
# The registry
#===------------------------------------------------------------------------===#

def list_passes():
    """Every registered pass: a list of dicts with `name`, `description`,
    `origin` ("nnir", "python" or a plugin's name) and `options` (each with
    `name`, `type`, `default` and `description`), in registration order."""
    return _nnir._list_passes()


def _constructor(entry):
    """The constructor of registered pass `entry` (a list_passes() item)."""
    pass_name = entry["name"]
    options = entry["options"]
    names = [option["name"] for option in options]

    def create(*args, **kwargs):
        if len(args) > len(names):
            raise TypeError(f"{pass_name}() takes at most {len(names)} "
                            f"positional arguments ({len(args)} given)")
        for option, value in zip(names, args):
            if option in kwargs:
                raise TypeError(f"{pass_name}() got multiple values for "
                                f"option '{option}'")
            kwargs[option] = value
        return _nnir._create_pass(pass_name, kwargs)

    if pass_name.isidentifier():
        create.__name__ = create.__qualname__ = pass_name
    create.__module__ = __name__
    try:
        create.__signature__ = inspect.Signature([
            inspect.Parameter(option["name"],
                              inspect.Parameter.POSITIONAL_OR_KEYWORD,
                              default=option["default"])
            for option in options])
    except ValueError:  # an option name that is not an identifier
        pass
    lines = [entry["description"]]
    for option in options:
        lines.append(f"  {option['name']} ({option['type']}, default "
                     f"{option['default']!r}): {option['description']}")
    create.__doc__ = "\n".join(lines)
    return create


def _add_constructors():
    """Defines a constructor for every registered pass whose name is an
    identifier not taken by the API above."""
    namespace = globals()
    for entry in list_passes():
        pass_name = entry["name"]
        if pass_name.isidentifier() and pass_name not in namespace:
            namespace[pass_name] = _constructor(entry)


def __getattr__(name):
    # A pass registered after import (by a plugin) is found on first use.
    for entry in list_passes():
        if entry["name"] == name:
            constructor = _constructor(entry)
            globals()[name] = constructor
            return constructor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_OPTION_TYPES = ((bool, "bool"), (int, "int"), (float, "float"),
                 (str, "string"))


def _declared_options(factory, name):
    """The options of a pass factory, from the parameters of its signature:
    (name, type, default, description) tuples."""
    options = []
    for param in inspect.signature(factory).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if param.default is param.empty:
            raise TypeError(f"register_pass('{name}'): parameter "
                            f"'{param.name}' of the factory has no default "
                            "(pass options need one)")
        default = param.default
        kind = next((k for t, k in _OPTION_TYPES if type(default) is t), None)
        if kind is None and isinstance(default, (list, tuple)) and all(
                isinstance(item, str) for item in default):
            kind, default = "list", list(default)
        if kind is None:
            raise TypeError(f"register_pass('{name}'): the default of "
                            f"parameter '{param.name}' is a "
                            f"{type(default).__name__}; options are bool, "
                            "int, float, str or a list of str")
        options.append((param.name, kind, default, ""))
    return options


def register_pass(name, pass_or_factory=None, description=None):
    """Registers a Python pass under `name` in the PassRegistry, so that
    pipeline text (`parse_pipeline`, nnir-opt's `--passes=` syntax) and the
    `required` lists of passes can name it. `pass_or_factory` is a Pass
    (named `name`) or a callable returning one (a function, or a class
    decorated with module_pass / function_pass); the factory's parameters
    with bool, int, float, str or list-of-str defaults become the pass's
    options (`MyPass{scale=2}`). Without `pass_or_factory`, a decorator.
    A name is registered once per process. Register passes before running
    pipelines on several threads (the registry is not for concurrent
    change)."""
    if pass_or_factory is None:
        return lambda target: register_pass(name, target, description)
    if isinstance(pass_or_factory, Pass):
        the_pass = pass_or_factory
        if the_pass.name != name:
            raise ValueError(f"register_pass('{name}'): the pass is named "
                             f"'{the_pass.name}'")
        factory, options = (lambda: the_pass), []
    elif callable(pass_or_factory):
        factory = pass_or_factory
        options = _declared_options(factory, name)
    else:
        raise TypeError("register_pass: expected a Pass or a callable "
                        f"returning one, got {type(pass_or_factory).__name__}")
    if description is None:
        doc = "" if isinstance(pass_or_factory, Pass) else (
            inspect.getdoc(pass_or_factory) or "")
        description = doc.split("\n")[0] if doc else f"the Python pass {name}"
    _nnir._register_pass(name, description, factory, options)
    if name.isidentifier() and name not in globals():
        globals()[name] = _constructor(next(
            entry for entry in list_passes() if entry["name"] == name))
    return pass_or_factory


def register_config(key, type="bool", description=""):
    """Registers the PassContext config `key` of `type` ("bool", "int",
    "float", "string" or "list"), so that PassContext(config=...) accepts it
    and list_configs() lists it; a pass reads it from
    PassContext.current().config. Registering a key again with the same type
    does nothing; with another type it is a ValueError."""
    PassContext._register_config(key, type, description)


# The names list_configs() gives the option types: nnir's own, or TVM's
# (IntImm, ...) once nnir.install_as_tvm() has run.
_config_type_names = {}
_list_registered_configs = PassContext.list_configs


def _list_configs():
    """Every registered config key: {key: {'type': ..., 'description':
    ...}}."""
    configs = _list_registered_configs()
    for info in configs.values():
        info["type"] = _config_type_names.get(info["type"], info["type"])
    return configs


PassContext.list_configs = staticmethod(_list_configs)
_add_constructors()
