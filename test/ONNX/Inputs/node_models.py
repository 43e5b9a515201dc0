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

import os
import sys

import numpy as np
import onnx
from onnx import helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402  (the checked-in models' helpers)

arr, vi = models.arr, models.vi


def model(nodes, inputs, outputs, inits=(), opset=17):
    return models.model(nodes, inputs, outputs, inits, opset)


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


EMPTY_REDUCTIONS = ["ReduceMax", "ReduceMin", "ReduceProd", "ReduceMean",
                    "ReduceLogSumExp", "ReduceL1", "ReduceL2",
                    "ReduceSumSquare", "ReduceLogSum"]


def empty_results():
    # TopK with K 0, empty Ranges, a Slice to nothing, a Concat of empties
    # and the reductions over the empty axis.
    i64 = onnx.TensorProto.INT64
    nodes = [
        helper.make_node("TopK", ["x", "k0"], ["tv", "ti"], axis=1),
        helper.make_node("Range", ["five", "two", "one"], ["r0"]),
        helper.make_node("Range", ["twof", "fivef", "minusf"], ["r1"]),
        helper.make_node("Slice", ["x", "one1", "one1", "one1"], ["e"]),
        helper.make_node("Concat", ["e", "tv"], ["cat"], axis=1),
        helper.make_node("ReduceSum", ["e", "one1"], ["sum"], keepdims=0)]
    outs = ["tv", "ti", "r0", "r1", "e", "cat", "sum"]
    for op in EMPTY_REDUCTIONS:
        nodes.append(helper.make_node(op, ["e"], [op], axes=[1], keepdims=0))
        outs.append(op)
    return model(
        nodes, [vi("x", [2, 3])],
        [vi(n, None, i64 if n in ("ti", "r0") else onnx.TensorProto.FLOAT)
         for n in outs],
        [arr("k0", np.array([0], np.int64)),
         arr("five", np.array(5, np.int64)), arr("two", np.array(2, np.int64)),
         arr("one", np.array(1, np.int64)),
         arr("twof", np.array(2, np.float32)),
         arr("fivef", np.array(5, np.float32)),
         arr("minusf", np.array(-1, np.float32)),
         arr("one1", np.array([1], np.int64))])


def empty_results_ref(x):
    e = x[:, 1:1]
    with np.errstate(all="ignore"):
        return [e, e.astype(np.int64), np.arange(5, 2, 1),
                np.arange(2, 5, -1, dtype=np.float32), e, e,
                np.sum(e, axis=1), np.max(e, axis=1, initial=-np.inf),
                np.min(e, axis=1, initial=np.inf), np.prod(e, axis=1),
                np.sum(e, axis=1) / e.shape[1], np.log(np.sum(np.exp(e), axis=1)),
                np.sum(np.abs(e), axis=1), np.sqrt(np.sum(e * e, axis=1)),
                np.sum(e * e, axis=1), np.log(np.sum(e, axis=1))]


def empty_results_dynamic():
    # TopK and Range whose K and limit are known at run time only.
    i64 = onnx.TensorProto.INT64
    return model(
        [helper.make_node("TopK", ["x", "k"], ["tv", "ti"], axis=1),
         helper.make_node("Range", ["zero", "limit", "one"], ["r"])],
        [vi("x", [2, 3]), vi("k", [1], i64), vi("limit", [], i64)],
        [vi("tv", None), vi("ti", None, i64), vi("r", None, i64)],
        [arr("zero", np.array(0, np.int64)), arr("one", np.array(1, np.int64))])


def argmax_empty():
    return model(
        [helper.make_node("Slice", ["x", "one1", "one1", "one1"], ["e"]),
         helper.make_node("ArgMax", ["e"], ["y"], axis=1)],
        [vi("x", [2, 3])], [vi("y", None, onnx.TensorProto.INT64)],
        [arr("one1", np.array([1], np.int64))])


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


def signal():
    # DFT: real, zero-padded to 8 and onesided; complex inverse along axis 2
    # truncated to 3; STFT of a complex signal with a window, two-sided.
    return model(
        [helper.make_node("Slice", ["x", "zero", "one", "last"], ["re"]),
         helper.make_node("DFT", ["re", "eight"], ["y0"], axis=1, onesided=1),
         helper.make_node("DFT", ["x", "three"], ["y1"], axis=2, inverse=1),
         helper.make_node("Reshape", ["x", "sig_shape"], ["sig"]),
         helper.make_node("STFT", ["sig", "step", "window"], ["y2"],
                          onesided=0)],
        [vi("x", [2, 5, 4, 2])], [vi("y0", None), vi("y1", None),
                                  vi("y2", None)],
        [arr("zero", np.array([0], np.int64)),
         arr("one", np.array([1], np.int64)),
         arr("last", np.array([-1], np.int64)),
         arr("eight", np.array(8, np.int64)),
         arr("three", np.array(3, np.int64)),
         arr("sig_shape", np.array([2, 20, 2], np.int64)),
         arr("step", np.array(3, np.int64)),
         arr("window", np.hanning(6).astype(np.float32))])


def signal_ref(x):
    c = x[..., 0] + 1j * x[..., 1]
    y0 = np.fft.fft(x[..., 0], n=8, axis=1)[:, :5]
    y1 = np.fft.ifft(c, n=3, axis=2)
    sig = c.reshape(2, 20)
    w = np.hanning(6).astype(np.float32)
    frames = np.stack([sig[:, f * 3:f * 3 + 6] * w for f in range(5)], 1)
    y2 = np.fft.fft(frames, axis=2)
    return [np.stack([y.real, y.imag], -1).astype(np.float32)
            for y in (y0, y1, y2)]


def mel():
    inputs = [("num_mel_bins", np.int64(10)), ("dft_length", np.int64(64)),
              ("sample_rate", np.int64(16000)),
              ("lower_edge_hertz", np.float32(100)),
              ("upper_edge_hertz", np.float32(7000))]
    return model([helper.make_node("MelWeightMatrix",
                                   [n for n, _ in inputs], ["y"])],
                 [vi("unused", [1])], [vi("y", None)],
                 [arr(n, v) for n, v in inputs])


def mel_ref(x):
    # ONNX's reference (backend test case melweightmatrix).
    bins, n, rate, low, high = 10, 64, 16000, np.float32(100), np.float32(7000)
    f = np.arange(0, bins + 2)
    low_mel = 2595 * np.log10(1 + low / 700)
    step = (2595 * np.log10(1 + high / 700) - low_mel) / f.shape[0]
    f = 700 * (np.power(10, (f * step + low_mel) / 2595) - 1)
    f = (((n + 1) * f) // rate).astype(int)
    out = np.zeros((n // 2 + 1, bins))
    for i in range(bins):
        lo, c, hi = f[i], f[i + 1], f[i + 2]
        if c == lo:
            out[c, i] = 1
        else:
            for j in range(lo, c + 1):
                out[j, i] = (j - lo) / (c - lo)
        for j in range(c, hi):
            out[j, i] = (hi - j) / (hi - c)
    return [out.astype(np.float32)]


def dft_bad_axis():
    return model([helper.make_node("DFT", ["x"], ["y"], axis=-1)],
                 [vi("x", [2, 5, 2])], [vi("y", None)])


def convtranspose_output_shape():
    # output_shape beyond the full output (3 - 1) * stride + 3: extended
    # with zeros (and the bias) at the end.
    w = np.arange(18, dtype=np.float32).reshape(1, 2, 3, 3) / 10
    return model(
        [helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"],
                          strides=[3, 2], output_shape=[10, 8])],
        [vi("x", [1, 1, 3, 3])], [vi("y", None)],
        [arr("w", w), arr("b", np.array([0.5, -1], np.float32))])


def convtranspose_output_shape_ref(x):
    w = np.arange(18, dtype=np.float32).reshape(1, 2, 3, 3) / 10
    y = np.zeros((1, 2, 10, 8))
    for i in range(3):
        for j in range(3):
            y[0, :, 3 * i:3 * i + 3, 2 * j:2 * j + 3] += x[0, 0, i, j] * w[0]
    y += np.array([0.5, -1]).reshape(1, 2, 1, 1)
    return [y.astype(np.float32)]


MAXUNPOOL_I = np.array([[[[0, 3], [9, 15]], [[17, 22], [24, 31]]],
                        [[[34, 35], [45, 47]], [[48, 50], [61, 63]]]],
                       np.int64)


def maxunpool(shape=(2, 2, 5, 6)):
    # Indices over the whole (2, 2, 4, 4) unpooled tensor, then padded to
    # output_shape.
    return model(
        [helper.make_node("MaxUnpool", ["x", "i", "shape"], ["y"],
                          kernel_shape=[2, 2], strides=[2, 2])],
        [vi("x", [2, 2, 2, 2])], [vi("y", None)],
        [arr("i", MAXUNPOOL_I), arr("shape", np.array(shape, np.int64))])


def maxunpool_ref(x):
    y = np.zeros(2 * 2 * 4 * 4, np.float32)
    y[MAXUNPOOL_I.reshape(-1)] = x.reshape(-1)
    return [np.pad(y.reshape(2, 2, 4, 4), [(0, 0), (0, 0), (0, 1), (0, 2)])]


def maxunpool_small():
    return maxunpool((2, 2, 3, 4))


def det():
    # Batches of 1 x 1 to 4 x 4 matrices, slices of one input.
    nodes, outs = [], []
    for n in range(1, 5):
        nodes += [helper.make_node("Slice", ["x", "zero", "n%d" % n,
                                             "axes"], ["m%d" % n]),
                  helper.make_node("Det", ["m%d" % n], ["d%d" % n])]
        outs.append(vi("d%d" % n, None))
    return model(nodes, [vi("x", [3, 5, 4, 4])], outs,
                 [arr("zero", np.array([0, 0], np.int64)),
                  arr("axes", np.array([2, 3], np.int64))] +
                 [arr("n%d" % n, np.array([n, n], np.int64))
                  for n in range(1, 5)])


def det_ref(x):
    return [np.linalg.det(x[:, :, :n, :n].astype(np.float64))
            .astype(np.float32) for n in range(1, 5)]


def det_large():
    return model([helper.make_node("Det", ["x"], ["y"])],
                 [vi("x", [5, 5])], [vi("y", None)])


INPUTS = {"det": (3, 5, 4, 4), "maxunpool": (2, 2, 2, 2), "convtranspose_output_shape": (1, 1, 3, 3),
          "resize_fractional_cubic": (1, 3, 5, 7), "signal": (2, 5, 4, 2),
          "mel": (1,), "empty_results": (2, 3)}

MODELS = {name: fn for name, fn in globals().items()
          if callable(fn) and fn.__module__ == __name__
          and name not in ("model", "vi", "arr", "check")
          and not isinstance(fn, type(models))
          and not name.endswith("_ref")}


def check(out_dir, name):
    x = np.load("%s/%s.x.npy" % (out_dir, name))
    wants = globals()[name + "_ref"](x)
    for i, want in enumerate(wants):
        got = np.load("%s/output_%d.npy" % (out_dir, i))
        if got.shape != want.shape or not np.allclose(
                got, want, rtol=1e-4, atol=1e-5, equal_nan=True):
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
