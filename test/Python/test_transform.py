"""The C++ passes from Python: constructors generated from the registry,
their options, PassInfo, Sequential, pipeline text and errors."""

import inspect

import pytest

import nnir
from nnir import transform

TEXT = """
def @main(%x: Tensor[(3), float32]) {
  %0 = add(%x, multiply(add(2f, 2f), 3f));
  let %unused = negative(%x);
  %0
}
"""


def parse():
    return nnir.parse(TEXT)


def test_every_registered_pass_is_a_constructor():
    names = [entry["name"] for entry in transform.list_passes()
             if entry["origin"] == "nnir"]
    for name in ["InferType", "FoldConstant", "SimplifyExpr",
                 "DeadCodeElimination", "ToANormalForm", "FoldScaleAxis"]:
        assert name in names
    for name in names:
        constructor = getattr(transform, name)
        assert constructor.__name__ == name
        assert constructor().info.name == name


def test_options_are_keyword_arguments():
    dce = transform.DeadCodeElimination
    sig = inspect.signature(dce)
    assert list(sig.parameters)[:2] == ["inline_once", "ignore_impurity"]
    assert sig.parameters["inline_once"].default is False
    assert "inline pure bindings" in dce.__doc__
    assert dce(inline_once=True).info.name == "DeadCodeElimination"
    assert dce(True, False).info.name == "DeadCodeElimination"
    assert transform.FuseOps(fuse_opt_level=0).info.required == ["InferType"]
    assert transform.DeadCodeElimination(
        entry_functions=("main",)).name == "DeadCodeElimination"


def test_bad_option_name():
    with pytest.raises(TypeError, match="unknown option 'inline' of pass "
                       "DeadCodeElimination; valid options are: inline_once, "
                       "ignore_impurity"):
        transform.DeadCodeElimination(inline=True)
    with pytest.raises(TypeError, match="InferType takes no options"):
        transform.InferType(x=1)
    with pytest.raises(TypeError, match="at most 0 positional"):
        transform.InferType(1)
    with pytest.raises(TypeError, match="multiple values for option "
                       "'inline_once'"):
        transform.DeadCodeElimination(True, inline_once=True)


def test_bad_option_type():
    with pytest.raises(TypeError, match="option 'inline_once' of pass "
                       "DeadCodeElimination expects a bool, got int"):
        transform.DeadCodeElimination(inline_once=1)
    with pytest.raises(TypeError, match="option 'fuse_opt_level' of pass "
                       "FuseOps expects an int, got str"):
        transform.FuseOps(fuse_opt_level="1")
    with pytest.raises(TypeError, match="expects a list, got str"):
        transform.DeadCodeElimination(entry_functions="main")
    with pytest.raises(ValueError, match="fuse_opt_level"):
        transform.FuseOps(fuse_opt_level=7)


def test_unknown_pass():
    with pytest.raises(AttributeError, match="FoldKonstant"):
        transform.FoldKonstant  # noqa: B018


def test_run_a_pass():
    mod = parse()
    out = transform.InferType()(mod)
    assert out is not mod and out.has_valid_types
    assert not mod.has_valid_types  # the input is unchanged
    folded = transform.FoldConstant()(out)
    assert "12f" in folded.astext()
    # Called directly, a pass runs whatever the context's opt level.
    with transform.PassContext(opt_level=0):
        assert "12f" in transform.FoldConstant()(out).astext()
    # A pass that changes nothing returns its input.
    assert transform.FoldConstant()(folded) is folded


def test_pass_info():
    info = transform.PassInfo(1, "xyz", required=["InferType"])
    assert (info.opt_level, info.name, info.required) == (1, "xyz",
                                                          ["InferType"])
    assert not info.traceable
    assert "pass name: xyz, opt_level: 1" in str(info)
    assert transform.PassInfo(opt_level=2, name="a").required == []
    with pytest.raises(TypeError, match="Required is expected"):
        transform.PassInfo(1, "xyz", required="InferType")
    fold = transform.FoldConstant()
    assert fold.info.opt_level == 2 and fold.info.required == ["InferType"]
    assert isinstance(fold, transform.FunctionPass)
    assert isinstance(transform.InferType(), transform.ModulePass)
    assert str(fold) == ("Run Function pass: FoldConstant at the "
                         "optimization level 2")


def test_sequential():
    seq = transform.Sequential([transform.InferType(),
                                transform.FoldConstant(),
                                transform.DeadCodeElimination()],
                               opt_level=1, name="mine")
    assert isinstance(seq, transform.Pass)
    assert (seq.info.name, seq.info.opt_level) == ("mine", 1)
    assert [p.name for p in seq.passes] == ["InferType", "FoldConstant",
                                            "DeadCodeElimination"]
    assert "The passes will be executed are: [InferType FoldConstant " \
        "DeadCodeElimination ]" in str(seq)
    mod = parse()
    out = seq(mod)
    assert "12f" in out.astext() and "unused" not in out.astext()
    # An empty Sequential changes nothing.
    assert transform.Sequential()(mod) is mod
    with pytest.raises(TypeError, match="passes must be a list of Pass"):
        transform.Sequential(transform.InferType())
    with pytest.raises(TypeError, match="passes must be a list of Pass"):
        transform.Sequential([transform.InferType(), "FoldConstant"])
    with pytest.raises(TypeError, match="Required is expected"):
        transform.Sequential([], required="InferType")


def test_sequential_obeys_the_context():
    seq = transform.Sequential([transform.FoldConstant(),
                                transform.DeadCodeElimination()])
    mod = parse()
    with transform.PassContext(opt_level=1):
        out = seq(mod)  # FoldConstant is opt level 2
    assert "multiply" in out.astext() and "unused" not in out.astext()
    with transform.PassContext(opt_level=1, required_pass=["FoldConstant"],
                               disabled_pass={"DeadCodeElimination"}):
        out = seq(mod)
    assert "multiply" not in out.astext() and "unused" in out.astext()


def test_parse_pipeline():
    seq = transform.parse_pipeline(
        "InferType,Sequential{name=inner}(FoldConstant),"
        "DeadCodeElimination{inline_once=true}")
    assert [p.name for p in seq.passes] == ["InferType", "inner",
                                            "DeadCodeElimination"]
    out = seq(parse())
    assert "12f" in out.astext() and "unused" not in out.astext()
    default = transform.parse_pipeline("default<O3>")
    assert default.name == "default<O3>"
    with pytest.raises(nnir.DiagnosticError, match="unknown pass "
                       "'FoldKonstant'; did you mean 'FoldConstant'"):
        transform.parse_pipeline("InferType,FoldKonstant")
    with pytest.raises(nnir.DiagnosticError, match="expected a bool"):
        transform.parse_pipeline("DeadCodeElimination{inline_once=3}")


def test_cpp_pass_error_is_a_diagnostic_error():
    mod = nnir.parse('def @main(%x: Tensor[(3), float32], '
                     '%y: Tensor[(4), float32]) { add(%x, %y) }',
                     source_name="bad.nnir")
    with pytest.raises(nnir.DiagnosticError) as info:
        transform.Sequential([transform.InferType()])(mod)
    assert info.value.file == "bad.nnir"
    assert isinstance(info.value, ValueError)


def test_immutable_module_config():
    mod = transform.InferType()(parse())
    with transform.PassContext(config={"testing.immutable_module": True}):
        out = transform.FoldConstant()(mod)
    assert out is not mod


CSE_TEXT = """
def @main(%x: Tensor[(1, 16), float32]) {
  %0 = add(nn.relu(%x), 1f);
  %1 = add(nn.relu(%x), 1f);
  add(%0, %1)
}
"""


def test_cse_fskip():
    mod = nnir.parse(CSE_TEXT)
    merged = transform.EliminateCommonSubexpr()(mod)
    assert merged["main"].astext().count("nn.relu") == 1
    assert merged["main"].astext().count("add(") == 2

    seen = []

    def skip_add(expr):
        seen.append(expr.op.name)
        return expr.op.name == "add"

    skipped = transform.EliminateCommonSubexpr(skip_add)(mod)
    text = skipped["main"].astext()
    assert text.count("nn.relu") == 1
    assert text.count("add(") == 3
    assert sorted(set(seen)) == ["add", "nn.relu"]
    # Same as no fskip when nothing is skipped.
    kept = transform.EliminateCommonSubexpr(lambda expr: 0)(mod)
    nnir.assert_structural_equal(kept, merged)


def test_cse_fskip_errors():
    mod = nnir.parse(CSE_TEXT)
    with pytest.raises(TypeError, match="fskip must be a callable"):
        transform.EliminateCommonSubexpr(3)

    def broken(expr):
        raise ValueError("no skipping today")

    with pytest.raises(ValueError, match="no skipping today"):
        transform.EliminateCommonSubexpr(broken)(mod)
