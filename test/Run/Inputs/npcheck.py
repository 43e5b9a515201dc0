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

Reference helpers: conv2d, conv (N-d), conv2d_transpose, conv_transpose
(N-d), roi_align, pool2d, adaptive_pool2d, normalize, lrn, resize2d, softmax, scatter_elements,
scatter_nd, grid_sample.
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


def conv(x, w, strides=None, padding=None, dilation=None, groups=1,
         out_dtype=None):
    """N-d convolution of x [N, C, *spatial] by w [O, C / groups, *kernel];
    padding is (every "before", then every "after"): (top, left, bottom,
    right) in 2-D."""
    nd = x.ndim - 2
    strides = strides or (1,) * nd
    dilation = dilation or (1,) * nd
    padding = padding or (0,) * (2 * nd)
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] +
                [(padding[i], padding[nd + i]) for i in range(nd)])
    o, ig = w.shape[:2]
    k = w.shape[2:]
    sizes = [(xp.shape[2 + i] - ((k[i] - 1) * dilation[i] + 1)) // strides[i]
             + 1 for i in range(nd)]
    out = np.zeros((x.shape[0], o) + tuple(sizes))
    og = o // groups
    for g in range(groups):
        for pos in np.ndindex(*k):
            window = tuple(slice(pos[i] * dilation[i],
                                 pos[i] * dilation[i] +
                                 strides[i] * (sizes[i] - 1) + 1, strides[i])
                           for i in range(nd))
            patch = xp[(slice(None), slice(g * ig, (g + 1) * ig)) + window]
            wk = w[(slice(g * og, (g + 1) * og), slice(None)) + pos]
            out[:, g * og:(g + 1) * og] += np.einsum(
                "nc...,oc->no...", patch, wk.astype(np.float64))
    return out.astype(out_dtype or x.dtype)


conv2d = conv


def conv2d_transpose(x, w, strides=(1, 1), padding=(0, 0, 0, 0),
                     dilation=(1, 1), output_padding=(0, 0), groups=1):
    """NCHW x IOHW transposed convolution: every input element scatters
    its products with the kernel; the frame is then cropped by padding
    (top, left, bottom, right)."""
    n, c, h, wd = x.shape
    og, kh, kw = w.shape[1:]
    sh, sw = strides
    dh, dw = dilation
    pt, pl, pb, pr = padding
    full = np.zeros((n, og * groups,
                     (h - 1) * sh + (kh - 1) * dh + 1 + output_padding[0],
                     (wd - 1) * sw + (kw - 1) * dw + 1 + output_padding[1]))
    cg = c // groups
    for g in range(groups):
        for ky in range(kh):
            for kx in range(kw):
                full[:, g * og:(g + 1) * og,
                     ky * dh:ky * dh + sh * (h - 1) + 1:sh,
                     kx * dw:kx * dw + sw * (wd - 1) + 1:sw] += np.einsum(
                         "nchw,co->nohw",
                         x[:, g * cg:(g + 1) * cg].astype(np.float64),
                         w[g * cg:(g + 1) * cg, :, ky, kx].astype(np.float64))
    oh = full.shape[2] - pt - pb
    ow = full.shape[3] - pl - pr
    return full[:, :, pt:pt + oh, pl:pl + ow].astype(x.dtype)


def conv_transpose(x, w, strides=None, padding=None, dilation=None,
                   output_padding=None, groups=1):
    """NC... x IO... transposed convolution of any rank: every kernel
    position scatters the input's products into a strided frame, which
    padding (the befores, then the afters) then crops."""
    import itertools
    r = x.ndim - 2
    strides = strides or (1,) * r
    dilation = dilation or (1,) * r
    padding = padding or (0,) * (2 * r)
    output_padding = output_padding or (0,) * r
    n, c = x.shape[:2]
    og, k = w.shape[1], w.shape[2:]
    ins = x.shape[2:]
    full = np.zeros((n, og * groups) + tuple(
        (ins[i] - 1) * strides[i] + (k[i] - 1) * dilation[i] + 1 +
        output_padding[i] for i in range(r)))
    cg = c // groups
    for g in range(groups):
        for kk in itertools.product(*[range(e) for e in k]):
            frame = tuple(slice(kk[i] * dilation[i],
                                kk[i] * dilation[i] + strides[i] *
                                (ins[i] - 1) + 1, strides[i])
                          for i in range(r))
            full[(slice(None), slice(g * og, (g + 1) * og)) + frame] += \
                np.einsum("nc...,co->no...",
                          x[:, g * cg:(g + 1) * cg].astype(np.float64),
                          w[(slice(g * cg, (g + 1) * cg), slice(None)) +
                            kk].astype(np.float64))
    crop = tuple(slice(padding[i], full.shape[2 + i] - padding[r + i])
                 for i in range(r))
    return full[(slice(None), slice(None)) + crop].astype(x.dtype)


def roi_align(x, rois, pooled, scale, ratio=-1, mode="avg", aligned=False,
              layout="NCHW"):
    """TVM's roi_align (ONNX's RoiAlign with aligned = half_pixel), loop by
    loop: rois (R, 5) of (batch, x1, y1, x2, y2); each bin averages (or
    maxes) a grid of bilinear samples, 0 more than a pixel outside."""
    if layout == "NHWC":
        x = np.transpose(x, (0, 3, 1, 2))
    _, c, h, w = x.shape
    ph, pw = pooled
    out = np.zeros((len(rois), c, ph, pw))
    off = 0.5 if aligned else 0.0

    def sample(b, y, xx):
        if y < -1 or y > h or xx < -1 or xx > w:
            return np.zeros(c)
        y, xx = min(max(y, 0.0), h - 1.0), min(max(xx, 0.0), w - 1.0)
        y0, x0 = int(np.floor(y)), int(np.floor(xx))
        y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
        ly, lx = y - y0, xx - x0
        d = x[b].astype(np.float64)
        return ((1 - ly) * (1 - lx) * d[:, y0, x0] + (1 - ly) * lx * d[:, y0, x1]
                + ly * (1 - lx) * d[:, y1, x0] + ly * lx * d[:, y1, x1])

    for i, roi in enumerate(rois.astype(np.float64)):
        b = int(roi[0])
        sx, sy = roi[1] * scale - off, roi[2] * scale - off
        rw, rh = roi[3] * scale - off - sx, roi[4] * scale - off - sy
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = ratio if ratio > 0 else int(np.ceil(bh))
        gw = ratio if ratio > 0 else int(np.ceil(bw))
        for py in range(ph):
            for px in range(pw):
                vals = [sample(b, sy + py * bh + (iy + 0.5) * bh / gh,
                               sx + px * bw + (ix + 0.5) * bw / gw)
                        for iy in range(max(gh, 0)) for ix in range(max(gw, 0))]
                if mode == "max":
                    out[i, :, py, px] = np.max(vals, axis=0)
                else:
                    out[i, :, py, px] = np.sum(vals, axis=0) / max(gh * gw, 1) \
                        if vals else 0
    if layout == "NHWC":
        out = np.transpose(out, (0, 2, 3, 1))
    return out.astype(x.dtype)


def adaptive_pool2d(x, kind, size):
    """NCHW adaptive pooling: output row i pools input rows
    [floor(i * H / oh), ceil((i + 1) * H / oh))."""
    h, w = x.shape[2:]
    oh, ow = size
    out = np.zeros(x.shape[:2] + (oh, ow), dtype=x.dtype)
    for i in range(oh):
        for j in range(ow):
            win = x[:, :, i * h // oh:-(-(i + 1) * h // oh),
                    j * w // ow:-(-(j + 1) * w // ow)]
            out[:, :, i, j] = (win.max(axis=(2, 3)) if kind == "max"
                               else win.mean(axis=(2, 3)))
    return out


def normalize(x, axes, eps=1e-5):
    """(x - mean) / sqrt(var + eps) over axes."""
    m = x.mean(axis=axes, keepdims=True)
    v = ((x - m) ** 2).mean(axis=axes, keepdims=True)
    return (x - m) / np.sqrt(v + eps)


def lrn(x, size, axis, bias, alpha, beta):
    """TVM's local response normalisation over channels
    [c - size // 2, c - size // 2 + size)."""
    sq = np.moveaxis(x.astype(np.float64) ** 2, axis, 0)
    acc = np.zeros_like(sq)
    for c in range(sq.shape[0]):
        lo = max(c - size // 2, 0)
        acc[c] = sq[lo:max(c - size // 2 + size, 0)].sum(axis=0)
    acc = np.moveaxis(acc, 0, axis)
    return (x / (bias + alpha / size * acc) ** beta).astype(x.dtype)


def resize2d(x, size, method="linear", mode="half_pixel", rounding="",
             alpha=-0.5, exclude=False, roi=(0, 0, 0, 0), extrapolation=0.0,
             layout="NCHW", out_dtype=None):
    """TVM's resize2d as one interpolation matrix per axis (coordinates in
    float32, as TVM computes them)."""
    f = np.float32
    if layout == "NHWC":
        x = np.transpose(x, (0, 3, 1, 2))
    if not rounding:
        rounding = "round" if mode == "align_corners" else "floor"
    mats, masks = [], []
    for s in range(2):
        n, m = x.shape[2 + s], size[s]
        start, end = roi[s], roi[s + 2]
        mat = np.zeros((m, n))
        mask = np.zeros(m, dtype=bool)
        for o in range(m):
            if mode == "align_corners":
                c = f(f(n - 1) / f(m - 1)) * f(o) if m > 1 else f(0)
            elif mode == "asymmetric":
                c = f(f(n) / f(m)) * f(o)
            elif mode == "tf_half_pixel_for_nn":
                c = (f(o) + f(0.5)) * f(f(n) / f(m))
            elif mode == "tf_crop_and_resize":
                c = (f(start * (n - 1)) +
                     f(o) * f((end - start) * (n - 1) / (m - 1))
                     if m > 1 else f(0.5 * (start + end) * (n - 1)))
            elif mode == "pytorch_half_pixel" and m == 1:
                c = f(0)
            else:
                c = (f(o) + f(0.5)) * f(f(n) / f(m)) - f(0.5)
            mask[o] = mode == "tf_crop_and_resize" and (c < 0 or c > n - 1)
            clamp = lambda i: min(max(int(i), 0), n - 1)
            if method == "nearest_neighbor":
                i = {"round": lambda: np.round(c),
                     "round_prefer_floor": lambda: np.ceil(c - f(0.5)),
                     "round_prefer_ceil": lambda: np.floor(c + f(0.5)),
                     "floor": lambda: np.floor(c + f(1e-5)),
                     "ceil": lambda: np.ceil(c - f(1e-5))}[rounding]()
                mat[o, clamp(i)] = 1
                continue
            base = np.floor(c)
            t = float(c - base)
            if method == "linear":
                weights = [1 - t, t]
                offsets = [0, 1]
            else:
                a = alpha
                weights = [a * (t ** 3 - 2 * t ** 2 + t),
                           (a + 2) * t ** 3 - (a + 3) * t ** 2 + 1,
                           -(a + 2) * t ** 3 + (2 * a + 3) * t ** 2 - a * t,
                           -a * t ** 3 + a * t ** 2]
                offsets = [-1, 0, 1, 2]
                if exclude:
                    weights = [0 if not 0 <= base + k < n else w
                               for w, k in zip(weights, offsets)]
                    weights = [w / sum(weights) for w in weights]
            for w, k in zip(weights, offsets):
                mat[o, clamp(base + k)] += w
        mats.append(mat)
        masks.append(mask)
    out = np.einsum("nchw,Hh,Ww->ncHW", x.astype(np.float64), mats[0], mats[1])
    out[:, :, masks[0], :] = extrapolation
    out[:, :, :, masks[1]] = extrapolation
    dtype = np.dtype(out_dtype or x.dtype)
    if not np.issubdtype(dtype, np.floating):
        out = np.round(out)
    if layout == "NHWC":
        out = np.transpose(out, (0, 2, 3, 1))
    return out.astype(dtype)


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return (e / np.sum(e, axis=axis, keepdims=True)).astype(x.dtype)


def _combine(old, new, mode):
    return {"update": new, "add": old + new, "sub": old - new,
            "mul": old * new, "min": np.minimum(old, new),
            "max": np.maximum(old, new)}[mode]


def scatter_elements(data, indices, updates, axis=0, mode="update"):
    """ONNX ScatterElements in index order (the last duplicate wins)."""
    out = data.copy()
    for q in np.ndindex(*indices.shape):
        at = list(q)
        at[axis] = indices[q] % data.shape[axis]
        out[tuple(at)] = _combine(out[tuple(at)], updates[q], mode)
    return out


def scatter_nd(data, indices, updates, mode="update"):
    """Relay's scatter_nd: indices (M, Y...) address data's first M axes."""
    out = data.copy()
    m = indices.shape[0]
    for y in np.ndindex(*indices.shape[1:]):
        at = tuple(indices[(k,) + y] for k in range(m))
        out[at] = _combine(out[at], updates[y], mode)
    return out


def grid_sample(x, grid, method="bilinear", padding="zeros",
                align_corners=True):
    """NCHW x sampled at grid (N, 2, H', W') of (x, y) in [-1, 1]
    (PyTorch's grid_sample): elements outside read 0; "border" clamps the
    coordinate, "reflection" folds it back at the edges; bicubic (Keys,
    A = -0.75) pads each neighbour's index instead."""
    n, c, h, w = x.shape
    oh, ow = grid.shape[2:]
    out = np.zeros((n, c, oh, ow))
    x64 = x.astype(np.float64)

    def coord(g, size):
        g = float(g)
        return ((g + 1) * (size - 1) / 2 if align_corners
                else ((g + 1) * size - 1) / 2)

    def fold(v, size):
        lo, span = (0.0, size - 1.0) if align_corners else (-0.5, float(size))
        if span <= 0:
            return 0.0
        d = abs(v - lo)
        k = int(d // span)
        r = d - k * span
        return lo + (r if k % 2 == 0 else span - r)

    def pad(v, size):
        if padding == "reflection":
            v = fold(v, size)
        if padding != "zeros":
            v = min(max(v, 0.0), size - 1.0)
        return v

    def at(b, ch, yy, xx):
        if 0 <= yy < h and 0 <= xx < w:
            return x64[b, ch, yy, xx]
        return 0.0

    def keys(t):
        a = -0.75
        t = abs(t)
        if t <= 1:
            return ((a + 2) * t - (a + 3)) * t * t + 1
        if t < 2:
            return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
        return 0.0

    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                cx = coord(grid[b, 0, i, j], w)
                cy = coord(grid[b, 1, i, j], h)
                for ch in range(c):
                    if method == "nearest":
                        v = at(b, ch, int(np.round(pad(cy, h))),
                               int(np.round(pad(cx, w))))
                    elif method == "bilinear":
                        py, px = pad(cy, h), pad(cx, w)
                        y0, x0 = int(np.floor(py)), int(np.floor(px))
                        ty, tx = py - y0, px - x0
                        v = (at(b, ch, y0, x0) * (1 - ty) * (1 - tx) +
                             at(b, ch, y0, x0 + 1) * (1 - ty) * tx +
                             at(b, ch, y0 + 1, x0) * ty * (1 - tx) +
                             at(b, ch, y0 + 1, x0 + 1) * ty * tx)
                    else:
                        y0, x0 = int(np.floor(cy)), int(np.floor(cx))
                        v = 0.0
                        for dy in range(-1, 3):
                            for dx in range(-1, 3):
                                yy, xx = y0 + dy, x0 + dx
                                if padding != "zeros":
                                    yy = int(np.floor(pad(float(yy), h)))
                                    xx = int(np.floor(pad(float(xx), w)))
                                v += (at(b, ch, yy, xx) * keys(cy - y0 - dy) *
                                      keys(cx - x0 - dx))
                    out[b, ch, i, j] = v
    return out.astype(x.dtype)


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
    scope = {"np": np, "conv2d": conv2d, "pool2d": pool2d, "softmax": softmax,
             "scatter_elements": scatter_elements, "scatter_nd": scatter_nd,
             "conv": conv, "conv2d_transpose": conv2d_transpose,
             "conv_transpose": conv_transpose, "roi_align": roi_align,
             "adaptive_pool2d": adaptive_pool2d, "normalize": normalize,
             "lrn": lrn, "resize2d": resize2d, "grid_sample": grid_sample}
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
