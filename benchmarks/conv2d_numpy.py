#!/usr/bin/env python3
"""NumPy's matmul-based conv2d on the shapes nnir-kernel-bench's conv2d
section uses: 1x64x56x56 by 64x64x3x3 float32, padding 1, stride 1.
im2col (a strided view, copied to a (C*R*S, H*W) matrix) + numpy.matmul.
Prints the median time of 10 runs and GFLOP/s (2*N*K*C*R*S*H*W / t).

    /usr/bin/python3 benchmarks/conv2d_numpy.py
"""
import time

import numpy as np


def conv2d_im2col(x, w):
    n, c, h, wd = x.shape
    k, _, r, s = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    view = np.lib.stride_tricks.sliding_window_view(xp, (r, s), axis=(2, 3))
    # (n, c, h, w, r, s) -> (c, r, s, h, w) -> (c*r*s, h*w)
    cols = view[0].transpose(0, 3, 4, 1, 2).reshape(c * r * s, h * wd)
    return np.matmul(w.reshape(k, c * r * s), cols).reshape(1, k, h, wd)


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 64, 56, 56), dtype=np.float32)
    w = rng.standard_normal((64, 64, 3, 3), dtype=np.float32)
    conv2d_im2col(x, w)
    times = []
    for _ in range(10):
        start = time.perf_counter()
        conv2d_im2col(x, w)
        times.append(time.perf_counter() - start)
    t = sorted(times)[len(times) // 2]
    flops = 2.0 * 64 * 64 * 9 * 56 * 56
    print("numpy conv2d (im2col + matmul): %.2f ms, %.2f GFLOP/s" %
          (t * 1e3, flops / t / 1e9))


if __name__ == "__main__":
    main()
