#!/usr/bin/env python3
"""Inputs for nnir-run and checks of its outputs against NumPy.

  npcheck.py gen DIR [--seed N] NAME=SHAPE:DTYPE[:LOW:HIGH] ...
      Writes DIR/NAME.npy with seeded random values: SHAPE is 2x3x4, or
      "scalar" for a 0-d array; floats are uniform in [LOW, HIGH) (default
      [-2, 2)), integers in [LOW, HIGH) (default [-10, 10), or [0, 10) for
      unsigned types), bools 0/1.

  npcheck.py check DIR [--rtol R] [--atol A] EXPR ...
      Loads every DIR/NAME.npy that is not an output as variable NAME, and
      compares DIR/output_<i>.npy with the value of the i-th EXPR (NumPy
      code; `np` and the helpers below are in scope). Dtypes and shapes must
      be equal; integers and bools exactly, floats within the tolerances
      (NaN equals NaN). Exits 1 with a message on the first difference.

Reference helpers: conv2d, pool2d, softmax.
"""

import os
import sys

import numpy as np


def parse_dtype(name):
    return np.dtype({"bool": "bool", "float16": "float16"}.get(name, name))


def gen(args):
    out_dir = args[0]
    seed = 0
    specs = []
    rest = args[1:]
    while rest:
        if rest[0] == "--seed":
            seed = int(rest[1])
            rest = rest[2:]
            continue
        specs.append(rest[0])
        rest = rest[1:]
    rng = np.random.default_rng(seed)
    os.makedirs(out_dir, exist_ok=True)
    for spec in specs:
        name, desc = spec.split("=", 1)
        parts = desc.split(":")
        shape = () if parts[0] == "scalar" else tuple(
            int(d) for d in parts[0].split("x"))
        dtype = parse_dtype(parts[1])
        if dtype == np.bool_:
            value = rng.integers(0, 2, size=shape).astype(np.bool_)
        elif np.issubdtype(dtype, np.floating):
            low = float(parts[2]) if len(parts) > 2 else -2.0
            high = float(parts[3]) if len(parts) > 3 else 2.0
            value = rng.uniform(low, high, size=shape).astype(dtype)
        else:
            unsigned = np.issubdtype(dtype, np.unsignedinteger)
            low = int(parts[2]) if len(parts) > 2 else (0 if unsigned else -10)
            high = int(parts[3]) if len(parts) > 3 else 10
            value = rng.integers(low, high, size=shape).astype(dtype)
        np.save(os.path.join(out_dir, name + ".npy"), np.asarray(value))


def conv2d(x, w, strides=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1),
           groups=1, out_dtype=None):
    """NCHW x OIHW convolution, padding (top, left, bottom, right)."""
    out_dtype = out_dtype or x.dtype
    n, c, h, wd = x.shape
    o, ig, kh, kw = w.shape
    pt, pl, pb, pr = padding
    xp = np.zeros((n, c, h + pt + pb, wd + pl + pr), dtype=np.float64)
    xp[:, :, pt:pt + h, pl:pl + wd] = x
    sh, sw = strides
    dh, dw = dilation
    oh = (h + pt + pb - ((kh - 1) * dh + 1)) // sh + 1
    ow = (wd + pl + pr - ((kw - 1) * dw + 1)) // sw + 1
    out = np.zeros((n, o, oh, ow), dtype=np.float64)
    og = o // groups
    for g in range(groups):
        for ky in range(kh):
            for kx in range(kw):
                patch = xp[:, g * ig:(g + 1) * ig,
                           ky * dh:ky * dh + sh * (oh - 1) + 1:sh,
                           kx * dw:kx * dw + sw * (ow - 1) + 1:sw]
                wk = w[g * og:(g + 1) * og, :, ky, kx].astype(np.float64)
                out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw",
                                                         patch, wk)
    return out.astype(out_dtype)


def pool2d(x, kind, pool, strides=(1, 1), padding=(0, 0, 0, 0),
           dilation=(1, 1), ceil_mode=False, count_include_pad=False):
    """NCHW max/avg pooling with Relay's rules."""
    n, c, h, w = x.shape
    kh, kw = pool
    sh, sw = strides
    dh, dw = dilation
    pt, pl, pb, pr = padding

    def extent(size, before, after, k, d, s):
        span = size + before + after - ((k - 1) * d + 1)
        return (span + (s - 1 if ceil_mode else 0)) // s + 1

    oh = extent(h, pt, pb, kh, dh, sh)
    ow = extent(w, pl, pr, kw, dw, sw)
    out = np.zeros((n, c, oh, ow), dtype=x.dtype)
    for i in range(oh):
        for j in range(ow):
            vals, count = [], 0
            for ky in range(kh):
                for kx in range(kw):
                    y = i * sh + ky * dh - pt
                    xx = j * sw + kx * dw - pl
                    inside = 0 <= y < h and 0 <= xx < w
                    if inside:
                        vals.append(x[:, :, y, xx].astype(np.float64))
                    if inside or (count_include_pad and -pt <= y < h + pb
                                  and -pl <= xx < w + pr):
                        count += 1
            if kind == "max":
                out[:, :, i, j] = np.max(vals, axis=0) if vals else -np.inf
            else:
                out[:, :, i, j] = (np.sum(vals, axis=0) / count) if count else 0
    return out


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return (e / np.sum(e, axis=axis, keepdims=True)).astype(x.dtype)


def check(args):
    out_dir = args[0]
    rtol, atol = None, None
    exprs = []
    rest = args[1:]
    while rest:
        if rest[0] == "--rtol":
            rtol = float(rest[1])
            rest = rest[2:]
        elif rest[0] == "--atol":
            atol = float(rest[1])
            rest = rest[2:]
        else:
            exprs.append(rest[0])
            rest = rest[1:]
    scope = {"np": np, "conv2d": conv2d, "pool2d": pool2d, "softmax": softmax}
    for f in sorted(os.listdir(out_dir)):
        if f.endswith(".npy") and not f.startswith("output_"):
            scope[f[:-4]] = np.load(os.path.join(out_dir, f))
    outputs = sorted(f for f in os.listdir(out_dir) if f.startswith("output_"))
    if len(outputs) != len(exprs):
        sys.exit("npcheck: %d outputs, %d expressions" % (len(outputs),
                                                          len(exprs)))
    with np.errstate(all="ignore"):
        for i, expr in enumerate(exprs):
            got = np.load(os.path.join(out_dir, "output_%d.npy" % i))
            want = np.asarray(eval(expr, scope))
            where = "output_%d (%s)" % (i, expr)
            if got.dtype != want.dtype:
                sys.exit("npcheck: %s: dtype %s, expected %s" %
                         (where, got.dtype, want.dtype))
            if got.shape != want.shape:
                sys.exit("npcheck: %s: shape %s, expected %s" %
                         (where, got.shape, want.shape))
            if np.issubdtype(got.dtype, np.floating):
                r = rtol if rtol is not None else (
                    1e-3 if got.dtype == np.float16 else 1e-5)
                a = atol if atol is not None else (
                    1e-3 if got.dtype == np.float16 else 1e-6)
                ok = np.isclose(got, want, rtol=r, atol=a, equal_nan=True)
            else:
                ok = got == want
            if not np.all(ok):
                bad = np.argwhere(~np.asarray(ok))[:5]
                details = ", ".join("%s: got %r, expected %r" % (
                    tuple(int(v) for v in idx), got[tuple(idx)],
                    want[tuple(idx)]) for idx in bad)
                sys.exit("npcheck: %s: %d of %d elements differ: %s" % (
                    where, int(np.size(ok) - np.count_nonzero(ok)),
                    np.size(ok), details))
    print("npcheck: %d outputs match" % len(exprs))


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("gen", "check"):
        sys.exit(__doc__)
    (gen if sys.argv[1] == "gen" else check)(sys.argv[2:])


if __name__ == "__main__":
    main()
