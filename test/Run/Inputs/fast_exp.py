#!/usr/bin/env python3
"""Inputs and checks of test/Run/fast-exp.nnir (Codegen's emitFastExp).

  fast_exp.py gen DIR     writes DIR/x.npy (a sweep of float32 over the
                          range where exp is finite and nonzero, the ends
                          and beyond, infinities, NaN, subnormal inputs) and
                          DIR/s.npy, DIR/r.npy, DIR/h.npy (random values)
  fast_exp.py check DIR   compares nnir-run's outputs with NumPy: exp within
                          1 ulp of float64's exp rounded to float32, sigmoid
                          within 2 ulp where 1 + e^-x is finite, softmax and
                          sums of exp within rtol 1e-6
"""

import os
import sys

import numpy as np


def gen(d):
    sweep = np.linspace(-104, 89, 200003).astype(np.float32)
    rng = np.random.default_rng(0)
    draws = rng.uniform(-90, 89, 50000).astype(np.float32)
    big = np.finfo(np.float32).max
    edges = np.array([0, -0.0, 1e-30, -1e-30, 1e-45, -1e-45, 88.72283,
                      88.72284, 88.7229, 89, 100, 1e30, big, np.inf,
                      -87.33655, -87.34, -100, -103.27893, -103.28, -103.9,
                      -104, -105, -1e30, -big, -np.inf, np.nan],
                     dtype=np.float32)
    x = np.concatenate([sweep, draws, edges])
    assert x.size == 250029
    np.save(os.path.join(d, "x.npy"), x)
    np.save(os.path.join(d, "s.npy"),
            rng.uniform(-30, 30, (7, 1001)).astype(np.float32))
    np.save(os.path.join(d, "r.npy"),
            rng.uniform(-5, 5, (37, 3, 45)).astype(np.float32))
    np.save(os.path.join(d, "h.npy"),
            rng.uniform(-8, 8, (5, 67)).astype(np.float16))


def ordered(v):
    """float32 bits as integers ordered as the values."""
    i = v.view(np.int32).astype(np.int64)
    return np.where(i < 0, -(i & 0x7fffffff), i)


def fail(what, got, want, at):
    sys.exit("fast_exp: %s differs at %s: got %r, NumPy %r" %
             (what, at, got, want))


def check(d):
    load = lambda n: np.load(os.path.join(d, n + ".npy"))
    x, s, r, h = load("x"), load("s"), load("r"), load("h")
    with np.errstate(over="ignore"):
        wide = x.astype(np.float64)
        want = {"exp": np.exp(wide).astype(np.float32),
                "sigmoid": (1 / (1 + np.exp(-wide))).astype(np.float32)}
    for i, (name, ulps) in enumerate([("exp", 1), ("sigmoid", 2)]):
        got = load("output_%d" % i)
        nan = np.isnan(x)
        if not np.array_equal(np.isnan(got), nan):
            fail(name + " NaN", got, want[name], "NaN positions")
        keep = ~nan
        if name == "sigmoid":  # e^-x overflows: 1 / inf.
            keep &= x > -88.72
        dist = np.abs(ordered(got[keep]) - ordered(want[name][keep]))
        if dist.max() > ulps:
            k = int(np.argmax(dist))
            fail("%s (%d ulp)" % (name, dist.max()), got[keep][k],
                 want[name][keep][k], "x = %r" % x[keep][k])
    # x - max rounds to float32 first, as in the kernel.
    e = np.exp((s - s.max(axis=1, keepdims=True)).astype(np.float64))
    checks = [("softmax", (e / e.sum(axis=1, keepdims=True)), 1e-6, 0),
              ("sum of exp", np.exp(r.astype(np.float64)).sum(axis=0), 1e-6,
               0),
              ("float16 exp", np.exp(h.astype(np.float64)), 1e-3, 0)]
    for i, (name, expected, rtol, atol) in enumerate(checks, start=2):
        got = load("output_%d" % i)
        if got.shape != expected.shape or not np.allclose(
                got, expected, rtol=rtol, atol=atol):
            fail(name, got, expected, "some element")
    print("fast_exp: all outputs match")


if __name__ == "__main__":
    {"gen": gen, "check": check}[sys.argv[1]](sys.argv[2])
