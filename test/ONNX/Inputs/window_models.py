#!/usr/bin/env python3
"""Writes the models of test/ONNX/maxpool-indices.test,
convtranspose-1d-3d.test and roialign.test, and checks nnir-run's outputs
against NumPy references written from the ONNX specification.

    window_models.py DIR NAME...       writes DIR/NAME.onnx, and
                                       DIR/NAME.x.npy (its input)
    window_models.py check DIR NAME OUT
                                       compares OUT/output_<i>.npy with the
                                       reference of NAME on DIR/NAME.x.npy
                                       (rtol 1e-4, atol 1e-5, integers
                                       exact); prints "NAME: N outputs
                                       match" or the difference

Needs Debian's python3-onnx and python3-numpy (run it with %onnx_python).
"""

import itertools
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402  (the checked-in models' helpers)

arr, vi = models.arr, models.vi


def model(nodes, inputs, outputs, inits=(), opset=17):
    return models.model(nodes, inputs, outputs, inits, opset)


#===-----------------------------------------------------------------------===#
# MaxPool's Indices
#===-----------------------------------------------------------------------===#

def maxpool_ref(x, kernel, strides, pads, dilations, ceil, order):
    """Y and Indices as ONNX's reference loops find them: the first maximum
    of each window over the positions inside the input."""
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    r = len(spatial)
    out = []
    for i in range(r):
        span = spatial[i] + pads[i] + pads[i + r] - \
            ((kernel[i] - 1) * dilations[i] + 1)
        out.append((span + (strides[i] - 1 if ceil else 0)) // strides[i] + 1)
    y = np.zeros((n, c) + tuple(out), x.dtype)
    ind = np.zeros((n, c) + tuple(out), np.int64)
    mult = [1] * r
    for k in range(1, r):
        i, prev = (k, k - 1) if order else (r - 1 - k, r - k)
        mult[i] = mult[prev] * spatial[prev]
    for b, ch in itertools.product(range(n), range(c)):
        for o in itertools.product(*[range(e) for e in out]):
            best, where = None, None
            for kk in itertools.product(*[range(e) for e in kernel]):
                pos = [o[i] * strides[i] - pads[i] + kk[i] * dilations[i]
                       for i in range(r)]
                if any(p < 0 or p >= spatial[i] for i, p in enumerate(pos)):
                    continue
                v = x[(b, ch) + tuple(pos)]
                if best is None or v > best:
                    best, where = v, pos
            y[(b, ch) + o] = best
            ind[(b, ch) + o] = (b * c + ch) * int(np.prod(spatial)) + sum(
                where[i] * mult[i] for i in range(r))
    return [y, ind]


POOLS = {
    # name: (shape, dtype, attributes)
    "maxpool_idx_1d": ((2, 3, 9), TensorProto.FLOAT,
                       dict(kernel_shape=[3], strides=[2], pads=[1, 1])),
    # ceil_mode: the last column's windows hang over the end.
    "maxpool_idx_2d_ties": ((1, 2, 5, 7), TensorProto.UINT8,
                            dict(kernel_shape=[3, 2], strides=[2, 2],
                                 pads=[1, 0, 1, 0], ceil_mode=1)),
    "maxpool_idx_2d_col": ((2, 1, 6, 5), TensorProto.FLOAT,
                           dict(kernel_shape=[2, 3], dilations=[2, 1],
                                storage_order=1)),
    "maxpool_idx_3d": ((1, 2, 4, 5, 3), TensorProto.FLOAT,
                       dict(kernel_shape=[2, 3, 2], strides=[2, 1, 1],
                            pads=[0, 1, 1, 1, 0, 0])),
}


def pool_model(name):
    shape, dtype, attrs = POOLS[name]
    return model([helper.make_node("MaxPool", ["x"], ["y", "i"], **attrs)],
                 [vi("x", list(shape), dtype)],
                 [vi("y", None, dtype), vi("i", None, TensorProto.INT64)])


def pool_input(name, rng):
    shape, dtype, _ = POOLS[name]
    if dtype == TensorProto.UINT8:
        return rng.integers(0, 3, shape).astype(np.uint8)  # many ties
    return rng.uniform(-2, 2, shape).astype(np.float32)


def pool_ref(name, x):
    shape, _, a = POOLS[name]
    r = len(shape) - 2
    return maxpool_ref(x, a["kernel_shape"], a.get("strides", [1] * r),
                       a.get("pads", [0] * 2 * r),
                       a.get("dilations", [1] * r), a.get("ceil_mode", 0),
                       a.get("storage_order", 0))


def maxpool_idx_bad_order():
    return model([helper.make_node("MaxPool", ["x"], ["y", "i"],
                                   kernel_shape=[2, 2], storage_order=2)],
                 [vi("x", [1, 1, 4, 4])],
                 [vi("y", None), vi("i", None, TensorProto.INT64)])


def maxpool_idx_too_large():
    """2047 x 2047 windows of 4 elements: beyond the positions table's
    bound."""
    return model([helper.make_node("MaxPool", ["x"], ["y", "i"],
                                   kernel_shape=[2, 2])],
                 [vi("x", [1, 1, 2048, 2048])],
                 [vi("y", None), vi("i", None, TensorProto.INT64)])


#===-----------------------------------------------------------------------===#
# ConvTranspose of 1 and 3 spatial axes
#===-----------------------------------------------------------------------===#

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "Run", "Inputs"))
import npcheck  # noqa: E402  (conv_transpose, the N-d NumPy reference)

CONVT = {
    # name: (x shape, w shape, attributes)
    "convtranspose_1d_groups": ((2, 4, 5), (4, 3, 3),
                                dict(group=2, strides=[2], pads=[1, 0],
                                     output_padding=[1], dilations=[2])),
    "convtranspose_3d": ((1, 2, 3, 4, 3), (2, 3, 2, 3, 2),
                         dict(strides=[2, 1, 2], pads=[1, 0, 1, 0, 1, 0],
                              output_padding=[1, 0, 1])),
}


def convt_weight(name):
    return (np.arange(np.prod(CONVT[name][1])).reshape(CONVT[name][1]) %
            7 - 3).astype(np.float32) / 4


def convt_model(name):
    xs, _, attrs = CONVT[name]
    return model([helper.make_node("ConvTranspose", ["x", "w"], ["y"],
                                   **attrs)],
                 [vi("x", list(xs))], [vi("y", None)],
                 [arr("w", convt_weight(name))])


def convt_ref(name, x):
    _, _, a = CONVT[name]
    return [npcheck.conv_transpose(
        x, convt_weight(name), strides=a.get("strides"),
        padding=a.get("pads"), dilation=a.get("dilations"),
        output_padding=a.get("output_padding"), groups=a.get("group", 1))]


#===-----------------------------------------------------------------------===#
# RoiAlign
#===-----------------------------------------------------------------------===#

ROIS = np.array([[1, 1.5, 6, 7.5], [-3, -2, 4, 3], [2.2, 3.1, 2.4, 3.3]],
                np.float32)
BATCH = np.array([0, 1, 1], np.int64)


def roialign(opset=16, **attrs):
    return model([helper.make_node("RoiAlign", ["x", "rois", "batch"], ["y"],
                                   **attrs)],
                 [vi("x", [2, 3, 8, 9])], [vi("y", None)],
                 [arr("rois", ROIS), arr("batch", BATCH)], opset)


ROIALIGN = {
    # name: (opset, attributes, aligned)
    "roialign_half_pixel": (16, dict(output_height=3, output_width=2,
                                     sampling_ratio=2, spatial_scale=0.5),
                            True),
    "roialign_opset10": (10, dict(output_height=2, output_width=2), False),
}


def roialign_ref(name, x):
    _, a, aligned = ROIALIGN[name]
    rois = np.concatenate([BATCH[:, None].astype(np.float32), ROIS], 1)
    return [npcheck.roi_align(x, rois, (a.get("output_height", 1),
                                        a.get("output_width", 1)),
                              a.get("spatial_scale", 1.0),
                              a.get("sampling_ratio", 0), aligned=aligned)]


#===-----------------------------------------------------------------------===#
# Driver
#===-----------------------------------------------------------------------===#

MAKERS = {name: (lambda n=name: pool_model(n)) for name in POOLS}
MAKERS["maxpool_idx_bad_order"] = maxpool_idx_bad_order
MAKERS["maxpool_idx_too_large"] = maxpool_idx_too_large
INPUTS = {name: (lambda rng, n=name: pool_input(n, rng)) for name in POOLS}
REFS = {name: (lambda x, n=name: pool_ref(n, x)) for name in POOLS}
MAKERS["roialign_max"] = lambda: roialign(mode="max")
MAKERS["roialign_bad_mode"] = lambda: roialign(
    coordinate_transformation_mode="align_corners")
for name in ROIALIGN:
    MAKERS[name] = lambda n=name: roialign(ROIALIGN[n][0], **ROIALIGN[n][1])
    INPUTS[name] = lambda rng: rng.uniform(-2, 2, (2, 3, 8, 9)).astype(
        np.float32)
    REFS[name] = lambda x, n=name: roialign_ref(n, x)
for name in CONVT:
    MAKERS[name] = lambda n=name: convt_model(n)
    INPUTS[name] = lambda rng, n=name: rng.uniform(
        -2, 2, CONVT[n][0]).astype(np.float32)
    REFS[name] = lambda x, n=name: convt_ref(n, x)


def check(in_dir, name, out_dir):
    x = np.load("%s/%s.x.npy" % (in_dir, name))
    wants = REFS[name](x)
    for i, want in enumerate(wants):
        got = np.load("%s/output_%d.npy" % (out_dir, i))
        same = got.shape == want.shape and got.dtype == want.dtype and (
            np.array_equal(got, want) if want.dtype.kind in "iub"
            else np.allclose(got, want, rtol=1e-4, atol=1e-5))
        if not same:
            print("%s: output %d: got %s %s %s, want %s %s %s" %
                  (name, i, got.shape, got.dtype, got.tolist(), want.shape,
                   want.dtype, want.tolist()))
            return 1
    print("%s: %d outputs match" % (name, len(wants)))
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3], sys.argv[4]))
    for name in sys.argv[2:]:
        onnx.save(MAKERS[name](), "%s/%s.onnx" % (sys.argv[1], name))
        if name in INPUTS:
            np.save("%s/%s.x.npy" % (sys.argv[1], name),
                    INPUTS[name](np.random.default_rng(0)))
