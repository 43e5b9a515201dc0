#!/usr/bin/env python3
"""Writes ONNX models for the lit tests of test/ONNX at test time, and
checks nnir-run's outputs against NumPy references.

    node_models.py DIR NAME...       writes DIR/NAME.onnx for each NAME, and
                                     DIR/NAME.x.npy when NAME has inputs
    node_models.py check DIR NAME    compares DIR/output_<i>.npy with the
                                     reference of NAME on DIR/NAME.x.npy
                                     (rtol 1e-4, atol 1e-5); prints "NAME:
                                     N outputs match" or the difference

Needs Debian's python3-onnx and python3-numpy (run it with %onnx_python).
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64


def model(nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(nodes, "test", inputs, outputs, list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def vi(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def arr(name, a):
    return numpy_helper.from_array(np.asarray(a), name)


def empty_tensors():
    # Split into a part of size 0, reshape of an empty tensor with
    # allowzero, Concat of an empty part.
    return model(
        [helper.make_node("Split", ["x", "sizes"], ["a", "b", "c"], axis=1),
         helper.make_node("Reshape", ["b", "shape"], ["r"], allowzero=1),
         helper.make_node("Concat", ["b", "x"], ["cat"], axis=1)],
        [vi("x", [2, 3])],
        [vi("a", None), vi("b", None), vi("c", None), vi("r", None),
         vi("cat", None)],
        [arr("sizes", np.array([1, 0, 2], np.int64)),
         arr("shape", np.array([0, 2, 5], np.int64))])


def split_negative():
    return model(
        [helper.make_node("Split", ["x", "sizes"], ["a", "b"], axis=1)],
        [vi("x", [2, 3])], [vi("a", None), vi("b", None)],
        [arr("sizes", np.array([4, -1], np.int64))])


def resize_fractional_cubic():
    # Scales that give no whole number of elements, on every axis kind:
    # cubic with exclude_outside, and a channel axis.
    n = helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="cubic",
                         cubic_coeff_a=-0.5, exclude_outside=1)
    m = helper.make_node("Resize", ["x", "", "scales2"], ["z"],
                         mode="linear",
                         coordinate_transformation_mode="align_corners")
    k = helper.make_node("Resize", ["x", "", "scales3"], ["w"],
                         mode="nearest", nearest_mode="ceil",
                         coordinate_transformation_mode="asymmetric")
    return model([n, m, k], [vi("x", [1, 3, 5, 7])],
                 [vi("y", None), vi("z", None), vi("w", None)],
                 [arr("scales", np.array([1, 1, 0.8, 0.7], np.float32)),
                  arr("scales2", np.array([1, 0.7, 0.6, 1.3], np.float32)),
                  arr("scales3", np.array([1, 1.7, 0.5, 0.45], np.float32))])


def resize_fractional_cubic_ref(x):
    from onnx.backend.test.case.node.resize import (
        cubic_coeffs, interpolate_nd, linear_coeffs, nearest_coeffs)
    y = interpolate_nd(x, lambda r: cubic_coeffs(r, A=-0.5),
                       scale_factors=np.array([1, 1, 0.8, 0.7], np.float32),
                       exclude_outside=True)
    z = interpolate_nd(x, linear_coeffs,
                       scale_factors=np.array([1, 0.7, 0.6, 1.3], np.float32),
                       coordinate_transformation_mode="align_corners")
    w = interpolate_nd(x, lambda r: nearest_coeffs(r, mode="ceil"),
                       scale_factors=np.array([1, 1.7, 0.5, 0.45], np.float32),
                       coordinate_transformation_mode="asymmetric")
    return [y, z, w]


def resize_crop_fractional():
    n = helper.make_node("Resize", ["x", "roi", "scales"], ["y"],
                         mode="linear",
                         coordinate_transformation_mode="tf_crop_and_resize")
    return model([n], [vi("x", [1, 1, 4, 4])], [vi("y", None)],
                 [arr("roi", np.array([0, 0, 0, 0, 1, 1, 1, 1], np.float32)),
                  arr("scales", np.array([1, 1, 0.6, 1], np.float32))])


INPUTS = {"resize_fractional_cubic": (1, 3, 5, 7)}

MODELS = {name: fn for name, fn in globals().items()
          if callable(fn) and fn.__module__ == __name__
          and name not in ("model", "vi", "arr", "check")
          and not name.endswith("_ref")}


def check(out_dir, name):
    x = np.load("%s/%s.x.npy" % (out_dir, name))
    wants = globals()[name + "_ref"](x)
    for i, want in enumerate(wants):
        got = np.load("%s/output_%d.npy" % (out_dir, i))
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-4,
                                                      atol=1e-5):
            print("%s: output %d: got %s %s, want %s %s" %
                  (name, i, got.shape, got.tolist(), want.shape,
                   want.tolist()))
            return 1
    print("%s: %d outputs match" % (name, len(wants)))
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
    for name in sys.argv[2:]:
        onnx.save(MODELS[name](), "%s/%s.onnx" % (sys.argv[1], name))
        if name in INPUTS:
            rng = np.random.default_rng(0)
            np.save("%s/%s.x.npy" % (sys.argv[1], name),
                    rng.uniform(-2, 2, INPUTS[name]).astype(np.float32))
