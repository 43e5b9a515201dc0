"""Parsing, printing, reading files, structural equality."""

import os

import pytest

import nnir
from nnir import op

SRC = os.environ.get("NNIR_SRC_ROOT",
                     os.path.join(os.path.dirname(__file__), "..", ".."))

TEXT = """#[version = "0.0.5"]
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = add(%x, %x);
  nn.relu(%0)
}
"""


def test_parse_and_print_round_trip():
    mod = nnir.parse(TEXT)
    assert mod.astext() == TEXT
    assert str(mod) == mod.astext()
    body = mod["main"].body
    assert body.op.name == "nn.relu" and body.args[0].op.name == "add"
    again = nnir.parse(mod.astext())
    nnir.assert_structural_equal(mod, again)
    assert nnir.structural_hash(mod) == nnir.structural_hash(again)


def test_show_types():
    mod = nnir.infer_type(nnir.parse(TEXT))
    assert "/* ty=Tensor[(2, 2), float32] */" in mod.astext(show_types=True)


def test_parse_expr():
    e = nnir.parse_expr("free_var %a: float32; add(%a, 1f)")
    assert isinstance(e, nnir.Call)


def test_parse_error_is_located():
    with pytest.raises(nnir.DiagnosticError) as info:
        nnir.parse("def @main() {\n  nope(1f)\n}\n", source_name="bad.nnir")
    error = info.value
    assert isinstance(error, ValueError)
    assert error.file == "bad.nnir" and error.line == 2 and error.column == 3
    assert str(error).startswith("bad.nnir:2:3: error: ")
    assert "nope(1f)" in str(error) and "^" in str(error)
    assert "unknown operator" in error.message


def test_later_type_error_quotes_the_source():
    mod = nnir.parse("def @main(%x: Tensor[(2), float32], "
                     "%y: Tensor[(3), float32]) {\n  add(%x, %y)\n}\n",
                     source_name="typed.nnir")
    with pytest.raises(nnir.DiagnosticError) as info:
        nnir.infer_type(mod)
    assert str(info.value).startswith("typed.nnir:2:3: error:")
    assert "add(%x, %y)" in str(info.value)


@pytest.mark.parametrize("text", [
    "def", "def @main(", "def @main() { %0 }", "\x00\xff",
    "def @main() { nn.conv2d(1f, 1f, strides=\"x\") }",
    "def @main() { (((((((((((((1f))))))))))))) }" * 2,
])
def test_bad_text_raises(text):
    with pytest.raises(nnir.DiagnosticError):
        nnir.parse(text)


def test_load_text_file():
    mod = nnir.load(os.path.join(SRC, "examples", "mlp.nnir"))
    assert "main" in mod
    assert mod["main"].ret_type == nnir.TensorType((1, 3))


def test_load_missing_file():
    with pytest.raises(nnir.DiagnosticError, match="no-such-file.nnir"):
        nnir.load("no-such-file.nnir")


@pytest.mark.skipif(not nnir.has_onnx(), reason="built without ONNX")
def test_load_onnx():
    path = os.path.join(SRC, "test", "ONNX", "Inputs", "mlp.onnx")
    mod = nnir.load(path, shape={"input.1": (2, 3)})
    assert mod["main"].params[0].type_annotation == nnir.TensorType((2, 3))
    assert mod["main"].body.op.name == "nn.relu"


@pytest.mark.skipif(not nnir.has_onnx(), reason="built without ONNX")
def test_load_bad_onnx():
    path = os.path.join(SRC, "test", "ONNX", "Inputs", "unknown_op.onnx")
    with pytest.raises(nnir.DiagnosticError):
        nnir.load(path)


def test_structural_equal_and_hash():
    def build():
        x = nnir.var("x", shape=(2,))
        return nnir.Function([x], op.add(x, nnir.const(1.0)))
    a, b = build(), build()
    assert a != b
    assert nnir.structural_equal(a, b)
    assert nnir.structural_hash(a) == nnir.structural_hash(b)
    x = nnir.var("x", shape=(2,))
    c = nnir.Function([x], op.subtract(x, nnir.const(1.0)))
    assert not nnir.structural_equal(a, c)
    # Free variables are equal only to themselves unless mapped.
    assert not nnir.structural_equal(nnir.var("p"), nnir.var("p"))
    assert nnir.structural_equal(nnir.var("p"), nnir.var("p"),
                                 map_free_vars=True)
    assert not nnir.structural_equal(a, nnir.TensorType((2,)))
    with pytest.raises(TypeError):
        nnir.structural_equal(a, 1)


def test_assert_structural_equal_message():
    lhs = nnir.parse(TEXT)
    rhs = nnir.parse(TEXT.replace("nn.relu", "negative"))
    with pytest.raises(AssertionError) as info:
        nnir.assert_structural_equal(lhs, rhs)
    message = str(info.value)
    assert "operators differ: nn.relu vs negative" in message
    assert "-  nn.relu(%0)" in message and "+  negative(%0)" in message
    nnir.assert_structural_equal(lhs, nnir.parse(TEXT))
