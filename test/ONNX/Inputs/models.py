#!/usr/bin/env python3
"""Writes the small ONNX models (and tensors) the lit tests of test/ONNX use.

    models.py --all DIR     write every model to DIR/NAME.onnx (the checked-in
                            files of test/ONNX/Inputs, so the tests need no
                            Python: rerun after changing a model)
    models.py NAME OUT      write model NAME to OUT
    models.py tensor OUT V  write a float32 TensorProto of the nested list V

Needs Debian's python3-onnx and python3-numpy (run it with %onnx_python).
"""

import json
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def model(nodes, inputs, outputs, inits=(), opset=13, domains=()):
    graph = helper.make_graph(nodes, "test", inputs, outputs, list(inits))
    opsets = [helper.make_opsetid("", opset)] + [
        helper.make_opsetid(d, 1) for d in domains]
    m = helper.make_model(graph, opset_imports=opsets)
    m.ir_version = 8
    return m


def vi(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def arr(name, a):
    return numpy_helper.from_array(np.asarray(a), name)


def mlp():
    w = np.arange(12, dtype=np.float32).reshape(3, 4)
    return model(
        [helper.make_node("Gemm", ["input.1", "W", "B"], ["g"], name="fc"),
         helper.make_node("Relu", ["g"], ["y"], name="relu")],
        [vi("input.1", ["N", 3])], [vi("y", None)],
        [arr("W", w), arr("B", np.ones(4, np.float32))])


def symbolic_shape():
    # A symbolic batch stays `?`: Shape of it is shape_of (known at run
    # time), elementwise operators keep it.
    return model(
        [helper.make_node("Shape", ["x"], ["s"]),
         helper.make_node("Shape", ["x"], ["s1"], start=1),
         helper.make_node("Add", ["x", "x"], ["y"])],
        [vi("x", ["N", 3])], [vi("s", None), vi("s1", None), vi("y", None)])


def symbolic_conv():
    # Conv with a symbolic batch: nn.conv2d keeps the `?`.
    w = np.ones((2, 1, 3, 3), np.float32)
    return model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv")],
                 [vi("x", ["N", 1, 5, 5])], [vi("y", None)], [arr("w", w)])


def symbolic_convnet():
    # A small CNN with a symbolic batch, height and width: every converter
    # keeps the `?` extents.
    rng = np.random.RandomState(0)
    f = np.float32
    return model(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("BatchNormalization",
                          ["c", "scale", "bias", "mean", "var"], ["bn"]),
         helper.make_node("Relu", ["bn"], ["r"]),
         helper.make_node("HardSigmoid", ["r"], ["hs"]),
         helper.make_node("Mul", ["r", "hs"], ["hsw"]),
         helper.make_node("AveragePool", ["hsw"], ["p"], kernel_shape=[2, 2],
                          strides=[2, 2]),
         helper.make_node("GlobalAveragePool", ["p"], ["g"]),
         helper.make_node("Flatten", ["g"], ["f"]),
         helper.make_node("Gemm", ["f", "fw", "fb"], ["fc"], transB=1),
         helper.make_node("Softmax", ["fc"], ["y"], axis=-1)],
        [vi("x", ["N", 2, "H", "W"])], [vi("y", None)],
        [arr("w", rng.randn(4, 2, 3, 3).astype(f)),
         arr("b", rng.randn(4).astype(f)),
         arr("scale", rng.rand(4).astype(f) + 0.5),
         arr("bias", rng.randn(4).astype(f)),
         arr("mean", rng.randn(4).astype(f)),
         arr("var", rng.rand(4).astype(f) + 0.5),
         arr("fw", rng.randn(3, 4).astype(f)),
         arr("fb", rng.randn(3).astype(f))])


def symbolic_shapes():
    # Shape manipulation of a tensor with a symbolic batch, height and width:
    # a nearest upscale by 2 (repeat), a Reshape whose shape is built from
    # Shape (Relay codes 0 and -1), Transpose, MatMul by a matrix (nn.dense
    # of the 3-D operand), Unsqueeze/Squeeze, Slice and ReduceMean of a `?`
    # axis, Size, and a Gather of a static extent of Shape (a constant).
    f = np.float32
    i64 = np.int64
    return model(
        [helper.make_node("Resize", ["x", "", "scales"], ["r"],
                          mode="nearest",
                          coordinate_transformation_mode="asymmetric",
                          nearest_mode="floor"),
         helper.make_node("Shape", ["r"], ["s"]),
         helper.make_node("Slice", ["s", "zero", "two"], ["s01"]),
         helper.make_node("Concat", ["s01", "minus1"], ["shape"], axis=0),
         helper.make_node("Reshape", ["r", "shape"], ["flat"]),
         helper.make_node("Transpose", ["flat"], ["t"], perm=[0, 2, 1]),
         helper.make_node("MatMul", ["t", "mw"], ["m"]),
         helper.make_node("Unsqueeze", ["m", "one"], ["u"]),
         helper.make_node("Squeeze", ["u", "one"], ["q"]),
         helper.make_node("Slice", ["q", "one", "big", "one"], ["sl"]),
         helper.make_node("ReduceMean", ["sl"], ["y"], axes=[1], keepdims=0),
         helper.make_node("Size", ["x"], ["size"]),
         helper.make_node("Shape", ["x"], ["xs"]),
         helper.make_node("Gather", ["xs", "one"], ["channels"], axis=0)],
        [vi("x", ["N", 2, "H", "W"])],
        [vi("y", None), vi("size", None), vi("channels", None)],
        [arr("scales", np.array([1, 1, 2, 2], f)),
         arr("zero", np.array([0], i64)), arr("two", np.array([2], i64)),
         arr("minus1", np.array([-1], i64)), arr("one", np.array([1], i64)),
         arr("big", np.array([2**62], i64)),
         arr("mw", np.arange(6, dtype=f).reshape(2, 3))])


def symbolic_sequence():
    # A batch of sequences with symbolic N and T through a 1-D AveragePool
    # (expand_dims/squeeze around the 2-D pool), Split with sizes, Concat,
    # Pad, Transpose, LayerNormalization, InstanceNormalization, MatMul of
    # rank 3 (batch_matmul) and rank 4 (batch axes merged and split back),
    # Flatten of two `?` (reshape [0, -1]), Clip, Pow, Greater and Where.
    f = np.float32
    return model(
        [helper.make_node("AveragePool", ["x"], ["pool"], kernel_shape=[2],
                          strides=[2]),
         helper.make_node("Split", ["x", "sizes"], ["s1", "s2"], axis=1),
         helper.make_node("Concat", ["s2", "s1"], ["c"], axis=1),
         helper.make_node("Pad", ["c", "pads"], ["pad"]),
         helper.make_node("Transpose", ["pad"], ["t"], perm=[0, 2, 1]),
         helper.make_node("LayerNormalization", ["t", "lns", "lnb"], ["ln"],
                          axis=-1),
         helper.make_node("InstanceNormalization", ["pad", "ins", "inb"],
                          ["in"]),
         helper.make_node("Unsqueeze", ["t", "one"], ["a"]),
         helper.make_node("Transpose", ["a"], ["b"], perm=[0, 1, 3, 2]),
         helper.make_node("MatMul", ["a", "b"], ["mm4"]),
         helper.make_node("Transpose", ["t"], ["tt"], perm=[0, 2, 1]),
         helper.make_node("MatMul", ["t", "tt"], ["mm3"]),
         helper.make_node("Flatten", ["in"], ["flat"], axis=1),
         helper.make_node("Clip", ["flat", "lo", "hi"], ["clip"]),
         helper.make_node("Pow", ["flat", "two"], ["sq"]),
         helper.make_node("Greater", ["flat", "zero"], ["positive"]),
         helper.make_node("Where", ["positive", "clip", "sq"], ["y"])],
        [vi("x", ["N", 2, "T"])],
        [vi(n, None) for n in ("pool", "pad", "ln", "in", "mm4", "mm3", "y")],
        [arr("sizes", np.array([1, 1], np.int64)),
         arr("pads", np.array([0, 0, 1, 0, 0, 2], np.int64)),
         arr("lns", np.array([1.5, -0.5], f)), arr("lnb", np.array([0.1, 0.2], f)),
         arr("ins", np.array([2, 0.5], f)), arr("inb", np.array([0, 1], f)),
         arr("one", np.array([1], np.int64)),
         arr("lo", np.array(-1, f)), arr("hi", np.array(1, f)),
         arr("two", np.array(2, f)), arr("zero", np.array(0, f))], opset=17)


def symbolic_slice():
    # Slice of a `?` axis keeps ONNX's indices, which strided_slice clamps
    # at run time as ONNX does: a flip to far below the start (PyTorch's),
    # a start far below 0 with step 2, a start far beyond the end with a
    # negative step.
    i64 = np.int64
    return model(
        [helper.make_node("Slice", ["x", "m1", "far_below", "zero", "m1"],
                          ["flip"]),
         helper.make_node("Slice", ["x", "m100", "far_above", "zero", "two"],
                          ["even"]),
         helper.make_node("Slice", ["x", "far_above", "one", "zero", "m1"],
                          ["tail"])],
        [vi("x", ["N", 2])],
        [vi("flip", None), vi("even", None), vi("tail", None)],
        [arr("m1", np.array([-1], i64)), arr("zero", np.array([0], i64)),
         arr("one", np.array([1], i64)), arr("two", np.array([2], i64)),
         arr("m100", np.array([-100], i64)),
         arr("far_below", np.array([-2**63 + 1], i64)),
         arr("far_above", np.array([2**63 - 1], i64))])


def symbolic_same_conv():
    # SAME padding follows from the spatial extents: they must be static.
    w = np.ones((2, 1, 3, 3), np.float32)
    return model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv",
                                   auto_pad="SAME_UPPER")],
                 [vi("x", [1, 1, "H", 5])], [vi("y", None)], [arr("w", w)])


def symbolic_maxpool_indices():
    # MaxPool's Indices output is built from a table of the input's
    # positions: its extents must be static.
    return model([helper.make_node("MaxPool", ["x"], ["y", "i"], name="pool",
                                   kernel_shape=[2, 2], strides=[2, 2])],
                 [vi("x", ["N", 1, 4, 4])],
                 [vi("y", None), vi("i", None, TensorProto.INT64)], opset=12)


def symbolic_resize_linear():
    # A linear Resize of `?` extents (image.resize2d takes a static size).
    return model(
        [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="up",
                          mode="linear")],
        [vi("x", [1, 1, "H", "W"])], [vi("y", None)],
        [arr("scales", np.array([1, 1, 2, 2], np.float32))])


def symbolic_rnn():
    # The recurrent converters unroll the sequence: its length is static.
    n = helper.make_node("RNN", ["x", "w", "r"], ["", "h"], name="rnn",
                         hidden_size=1)
    return model([n], [vi("x", ["T", 1, 1])], [vi("h", None)],
                 [arr("w", np.ones((1, 1, 1), np.float32)),
                  arr("r", np.ones((1, 1, 1), np.float32))], opset=14)


def symbolic_batch_rnn():
    # LSTM (bidirectional, an initial hidden state given) and GRU
    # (linear_before_reset, zero initial state) over a `?` batch: the
    # unrolled steps broadcast over it.
    rng = np.random.RandomState(0)
    f = np.float32
    h = 3
    return model(
        [helper.make_node("LSTM", ["x", "lw", "lr", "lb", "", "h0"],
                          ["ly", "lh"], hidden_size=h,
                          direction="bidirectional"),
         helper.make_node("GRU", ["x", "gw", "gr", "gb"], ["gy", "gh"],
                          hidden_size=h, linear_before_reset=1)],
        [vi("x", [4, "B", 2]), vi("h0", [2, "B", h])],
        [vi(n, None) for n in ("ly", "lh", "gy", "gh")],
        [arr("lw", rng.randn(2, 4 * h, 2).astype(f)),
         arr("lr", rng.randn(2, 4 * h, h).astype(f)),
         arr("lb", rng.randn(2, 8 * h).astype(f)),
         arr("gw", rng.randn(1, 3 * h, 2).astype(f)),
         arr("gr", rng.randn(1, 3 * h, h).astype(f)),
         arr("gb", rng.randn(1, 6 * h).astype(f))], opset=14)


def symbolic_reshape_other():
    # A Reshape to two `?` extents of another tensor: known at run time only.
    return model(
        [helper.make_node("Shape", ["z"], ["s"]),
         helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape")],
        [vi("x", ["N", 6]), vi("z", ["A", "B"])], [vi("y", None)])


def big_weights():
    # 300 floats: printed through the metadata section.
    w = np.linspace(-1, 1, 300, dtype=np.float32).reshape(3, 100)
    return model([helper.make_node("MatMul", ["x", "w"], ["y"])],
                 [vi("x", [2, 3])], [vi("y", None)], [arr("w", w)])


def two_outputs():
    return model(
        [helper.make_node("Add", ["a", "b"], ["sum"]),
         helper.make_node("Mul", ["a", "b"], ["prod"])],
        [vi("a", [2, 2]), vi("b", [2])], [vi("sum", None), vi("prod", None)])


def shape_chain():
    # Shape -> Gather -> Unsqueeze -> Concat -> Reshape: the new shape is
    # computed from the input's static shape at import time.
    return model(
        [helper.make_node("Shape", ["x"], ["s"]),
         helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
         helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
         helper.make_node("Concat", ["n1", "minus1"], ["shape"], axis=0),
         helper.make_node("Reshape", ["x", "shape"], ["y"])],
        [vi("x", [2, 3, 4])], [vi("y", None)],
        [arr("zero", np.array(0, np.int64)), arr("axes", np.array([0], np.int64)),
         arr("minus1", np.array([-1], np.int64))])


def conv_same():
    w = np.ones((2, 1, 3, 3), np.float32)
    return model(
        [helper.make_node("Conv", ["x", "w"], ["y"], auto_pad="SAME_UPPER",
                          strides=[2, 2])],
        [vi("x", [1, 1, 5, 5])], [vi("y", None)], [arr("w", w)])


def unsorted():
    # Nodes out of topological order: the importer sorts them.
    return model(
        [helper.make_node("Relu", ["t"], ["y"], name="second"),
         helper.make_node("Neg", ["x"], ["t"], name="first")],
        [vi("x", [2])], [vi("y", None)])


def cycle():
    return model(
        [helper.make_node("Relu", ["b"], ["a"], name="r1"),
         helper.make_node("Neg", ["a"], ["b"], name="n1"),
         helper.make_node("Add", ["x", "a"], ["y"], name="add")],
        [vi("x", [2])], [vi("y", None)])


def undefined():
    return model([helper.make_node("Add", ["x", "nowhere"], ["y"], name="add")],
                 [vi("x", [2])], [vi("y", None)])


def twice():
    return model(
        [helper.make_node("Relu", ["x"], ["y"], name="a"),
         helper.make_node("Neg", ["x"], ["y"], name="b")],
        [vi("x", [2])], [vi("y", None)])


def undefined_output():
    return model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", [2])],
                 [vi("z", None)])


def opset18():
    return model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", [2])],
                 [vi("y", None)], opset=18)


def opset0():
    return model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", [2])],
                 [vi("y", None)], opset=0)


def unknown_domain():
    n = helper.make_node("Frobnicate", ["x"], ["y"], name="f",
                         domain="com.example")
    return model([n], [vi("x", [2])], [vi("y", None)],
                 domains=["com.example"])


def unimported_domain():
    n = helper.make_node("Frobnicate", ["x"], ["y"], name="f",
                         domain="com.example")
    return model([n], [vi("x", [2])], [vi("y", None)])


def unknown_op():
    return model([helper.make_node("Frobnicate", ["x"], ["y"], name="f")],
                 [vi("x", [2])], [vi("y", None)])


def nonzero():
    return model([helper.make_node("NonZero", ["x"], ["y"], name="nz")],
                 [vi("x", [2])], [vi("y", None)])


def random_normal():
    return model([helper.make_node("RandomNormal", [], ["y"], name="rn",
                                   shape=[2])],
                 [], [vi("y", None)])


def topk_dynamic_k():
    return model([helper.make_node("TopK", ["x", "k"], ["v", "i"], name="t")],
                 [vi("x", [2, 3]), vi("k", [1], TensorProto.INT64)],
                 [vi("v", None), vi("i", None)])


def range_dynamic():
    return model([helper.make_node("Range", ["a", "b", "d"], ["y"], name="r")],
                 [vi("a", []), vi("b", []), vi("d", [])], [vi("y", None)])


def slice_dynamic():
    return model([helper.make_node("Slice", ["x", "s", "e"], ["y"],
                                   name="s")],
                 [vi("x", [2, 3]), vi("s", [1], TensorProto.INT64),
                  vi("e", [1], TensorProto.INT64)], [vi("y", None)])


def tile_dynamic():
    return model([helper.make_node("Tile", ["x", "r"], ["y"], name="t")],
                 [vi("x", [2, 3]), vi("r", [2], TensorProto.INT64)],
                 [vi("y", None)])


def constantofshape_dynamic():
    return model([helper.make_node(
        "ConstantOfShape", ["s"], ["y"], name="c",
        value=helper.make_tensor("v", TensorProto.INT32, [1], [7]))],
                 [vi("s", [2], TensorProto.INT64)], [vi("y", None)])


def nonzero_downstream():
    # A data-dependent extent flows into later operators (their kernels are
    # compiled for the shapes met at run time).
    return model([helper.make_node("NonZero", ["x"], ["n"], name="nz"),
                  helper.make_node("Mul", ["n", "two"], ["y"], name="m")],
                 [vi("x", [2, 3])], [vi("y", None)],
                 inits=[arr("two", np.int64(2))])


def nonzero_constant():
    # NonZero of an initializer: folded at -O2, its output a constant.
    return model([helper.make_node("NonZero", ["c"], ["n"], name="nz"),
                  helper.make_node("Shape", ["n"], ["y"], name="s")],
                 [], [vi("y", None)],
                 inits=[arr("c", np.array([0, 3, 0, 4], np.float32))])


def hardswish_opset13():
    # HardSwish is defined from opset 14.
    return model([helper.make_node("HardSwish", ["x"], ["y"], name="hs")],
                 [vi("x", [2])], [vi("y", None)], opset=13)


def upsample_opset10():
    # Upsample is deprecated in opset 10.
    n = helper.make_node("Upsample", ["x", "scales"], ["y"], name="up")
    return model([n], [vi("x", [1, 1, 2, 2])], [vi("y", None)],
                 [arr("scales", np.array([1, 1, 2, 2], np.float32))],
                 opset=10)


def wrong_attr_type():
    # Softmax's axis must be an INT.
    n = helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=1.5)
    return model([n], [vi("x", [2, 2])], [vi("y", None)])


def bad_reshape():
    return model([helper.make_node("Reshape", ["x", "shape"], ["y"], name="r")],
                 [vi("x", [2, 3])], [vi("y", None)],
                 [arr("shape", np.array([4, -1], np.int64))])


def dynamic_reshape():
    return model([helper.make_node("Reshape", ["x", "shape"], ["y"], name="r")],
                 [vi("x", [2, 3]), vi("shape", [2], TensorProto.INT64)],
                 [vi("y", None)])


def odd_input_names():
    # Graph input names that are awkward on nnir-run's command line: one with
    # '=', one starting with '%' next to the same name without it, one with
    # '=' whose left part names another input, and one with a space.
    # y = (a=b + %x) * x - a, z = -(my input).
    return model(
        [helper.make_node("Add", ["a=b", "%x"], ["s"]),
         helper.make_node("Mul", ["s", "x"], ["p"]),
         helper.make_node("Sub", ["p", "a"], ["y"]),
         helper.make_node("Neg", ["my input"], ["z"])],
        [vi("a=b", [2]), vi("%x", [2]), vi("x", [2]), vi("a", [2]),
         vi("my input", [1])],
        [vi("y", None), vi("z", None)])


def expand_shape_input():
    # Expand's shape is a graph input: only nnir-run, which knows its value,
    # can import this model.
    return model([helper.make_node("Expand", ["x", "shape"], ["y"], name="e")],
                 [vi("x", [3, 1]), vi("shape", [2], TensorProto.INT64)],
                 [vi("y", None)])


def string_input():
    return model([helper.make_node("Identity", ["x"], ["y"])],
                 [vi("x", [2], TensorProto.STRING)], [vi("y", None)])


def no_shape():
    return model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", None)],
                 [vi("y", None)])


def legacy_broadcast():
    # Opset 6: Add broadcasts B along axis 1 of A only with broadcast=1.
    return model(
        [helper.make_node("Add", ["a", "b"], ["y"], broadcast=1, axis=1)],
        [vi("a", [2, 3, 2]), vi("b", [3])], [vi("y", None)], opset=6)


def softmax_opset11():
    return model([helper.make_node("Softmax", ["x"], ["y"])],
                 [vi("x", [2, 2, 2])], [vi("y", None)], opset=11)


def softmax_opset13():
    return model([helper.make_node("Softmax", ["x"], ["y"])],
                 [vi("x", [2, 2, 2])], [vi("y", None)], opset=13)


def resize_nearest():
    # Resize-13 by scales 2 (known), nearest, half_pixel, round_prefer_floor.
    n = helper.make_node("Resize", ["x", "", "scales"], ["y"], name="rs",
                         mode="nearest")
    return model([n], [vi("x", [1, 1, 2, 3])], [vi("y", None)],
                 [arr("scales", np.array([1, 1, 2, 2], np.float32))])


def resize_fractional_scale():
    # 2 x 0.6 rows: ONNX maps coordinates through 1.2, not through 1.
    n = helper.make_node("Resize", ["x", "", "scales"], ["y"], name="rs",
                         mode="linear")
    return model([n], [vi("x", [1, 1, 2, 3])], [vi("y", None)],
                 [arr("scales", np.array([1, 1, 0.6, 1], np.float32))])


def resize_channels():
    n = helper.make_node("Resize", ["x", "", "scales"], ["y"], name="rs")
    return model([n], [vi("x", [1, 1, 2, 3])], [vi("y", None)],
                 [arr("scales", np.array([1, 2, 1, 1], np.float32))])


def upsample_opset9():
    n = helper.make_node("Upsample", ["x", "scales"], ["y"], name="up",
                         mode="nearest")
    return model([n], [vi("x", [2, 3])], [vi("y", None)],
                 [arr("scales", np.array([2, 1], np.float32))], opset=9)


def avgpool3d_pads():
    # Windows of 2 x 2 x 2 at stride 2 over a padded 2 x 2 x 2 input: each
    # sees one element (divisor 1, or 8 with count_include_pad).
    nodes = [helper.make_node("AveragePool", ["x"], ["y"], name="p0",
                              kernel_shape=[2, 2, 2], strides=[2, 2, 2],
                              pads=[1, 1, 1, 1, 1, 1]),
             helper.make_node("AveragePool", ["x"], ["z"], name="p1",
                              kernel_shape=[2, 2, 2], strides=[2, 2, 2],
                              pads=[1, 1, 1, 1, 1, 1], count_include_pad=1),
             helper.make_node("MaxPool", ["x"], ["m"], name="p2",
                              kernel_shape=[2, 1, 2])]
    return model(nodes, [vi("x", [1, 1, 2, 2, 2])],
                 [vi("y", None), vi("z", None), vi("m", None)])


def dropout_training():
    n = helper.make_node("Dropout", ["x", "ratio", "training"], ["y", "mask"],
                         name="drop")
    return model([n], [vi("x", [2, 3]), vi("ratio", [], F)],
                 [vi("y", None), vi("mask", None)],
                 [arr("training", np.array(True))])


def rnn_seq_lens():
    # sequence_lens shorter than the sequence: nnir unrolls whole sequences.
    n = helper.make_node("RNN", ["x", "w", "r", "", "lens"], ["", "h"],
                         name="rnn", hidden_size=1)
    return model([n], [vi("x", [2, 1, 1])], [vi("h", None)],
                 [arr("w", np.ones((1, 1, 1), np.float32)),
                  arr("r", np.ones((1, 1, 1), np.float32)),
                  arr("lens", np.array([1], np.int32))], opset=14)


def rnn_relu_reverse():
    # h_t = relu(x_t + h_{t+1}), backwards over x = (1, -5, 2): y = (1, 0, 2),
    # and Y_h is the state after x_0.
    n = helper.make_node("RNN", ["x", "w", "r"], ["y", "h"], name="rnn",
                         hidden_size=1, direction="reverse",
                         activations=["Relu"])
    return model([n], [vi("x", [3, 1, 1])], [vi("y", None), vi("h", None)],
                 [arr("w", np.ones((1, 1, 1), np.float32)),
                  arr("r", np.ones((1, 1, 1), np.float32))], opset=14)


def rnn_bad_activation():
    n = helper.make_node("RNN", ["x", "w", "r"], ["y"], name="rnn",
                         hidden_size=1, activations=["Softsign"])
    return model([n], [vi("x", [2, 1, 1])], [vi("y", None)],
                 [arr("w", np.ones((1, 1, 1), np.float32)),
                  arr("r", np.ones((1, 1, 1), np.float32))], opset=14)


def hann_window_empty():
    n = helper.make_node("HannWindow", ["size"], ["y"], name="hann")
    return model([n], [], [vi("y", None)],
                 [arr("size", np.array(0, np.int64))], opset=17)


def cumsum_reverse():
    n = helper.make_node("CumSum", ["x", "axis"], ["y"], name="cs",
                         reverse=1, exclusive=1)
    return model([n], [vi("x", [2, 3])], [vi("y", None)],
                 [arr("axis", np.array(1, np.int32))])


def topk_smallest():
    n = helper.make_node("TopK", ["x", "k"], ["values", "indices"],
                         name="tk", axis=0, largest=0)
    return model([n], [vi("x", [2, 3])],
                 [vi("values", None), vi("indices", None)],
                 [arr("k", np.array([1], np.int64))], opset=11)


def scatternd_add():
    n = helper.make_node("ScatterND", ["x", "i", "u"], ["y"], name="snd",
                         reduction="add")
    return model([n], [vi("x", [2, 3])], [vi("y", None)],
                 [arr("i", np.array([[1], [1]], np.int64)),
                  arr("u", np.ones((2, 3), np.float32))], opset=16)


def scatter_elements_bad_reduction():
    n = helper.make_node("ScatterElements", ["x", "i", "u"], ["y"],
                         name="se", reduction="mean")
    return model([n], [vi("x", [2, 3])], [vi("y", None)],
                 [arr("i", np.zeros((1, 3), np.int64)),
                  arr("u", np.ones((1, 3), np.float32))], opset=16)


MODELS = {name: fn for name, fn in globals().items()
          if callable(fn) and fn.__module__ == __name__
          and name not in ("model", "vi", "arr", "main")}


def main():
    if sys.argv[1] == "--all":
        for name, fn in sorted(MODELS.items()):
            with open("%s/%s.onnx" % (sys.argv[2], name), "wb") as f:
                f.write(fn().SerializeToString())
        value = np.array([[1, 2, 3], [-4, 5, -6]], np.float32)
        onnx.save_tensor(numpy_helper.from_array(value),
                         "%s/x.pb" % sys.argv[2])
        np.save("%s/x.npy" % sys.argv[2], value)
        onnx.save_tensor(numpy_helper.from_array(value[0]),
                         "%s/x-rank1.pb" % sys.argv[2])
        onnx.save_tensor(numpy_helper.from_array(
            np.array([[1], [2], [3]], np.float32)), "%s/x-3x1.pb" % sys.argv[2])
        onnx.save_tensor(numpy_helper.from_array(np.array([3, 4], np.int64)),
                         "%s/shape-3x4.pb" % sys.argv[2])
        return
    if sys.argv[1] == "tensor":
        value = np.array(json.loads(sys.argv[3]), np.float32)
        onnx.save_tensor(numpy_helper.from_array(value), sys.argv[2])
        return
    m = MODELS[sys.argv[1]]()
    with open(sys.argv[2], "wb") as f:
        f.write(m.SerializeToString())


if __name__ == "__main__":
    main()
