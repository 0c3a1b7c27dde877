#!/usr/bin/env python3
"""numpy's reductions, on an OpenCL device: the same result types and values.

    python reduce.py [DEVICE]"""
import sys

import numpy as np

import clcompute

ctx = clcompute.Context(sys.argv[1] if len(sys.argv) > 1 else None)
rng = np.random.default_rng(0)
x = rng.standard_normal(10_000_000).astype(np.float32)
counts = rng.integers(0, 1000, 1_000_000, dtype=np.int32)
flags = x > 2

for name, a in (("x", x), ("counts", counts), ("flags", flags)):
    for op in ("sum", "mean", "argmax"):
        ours, theirs = getattr(ctx, op)(a), getattr(a, op)()
        print(f"{name}.{op}() = {ours!r:>28}   numpy: {theirs!r}")
print(f"x.sum() in float64: {x.astype(np.float64).sum():.4f} (float32 sums differ in the last "
      "digits: numpy's is pairwise, clcompute's compensated, the closer)")
print(f"on {ctx.device()['name']}")
