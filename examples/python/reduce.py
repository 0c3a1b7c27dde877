#!/usr/bin/env python3
"""numpy's reductions, on an OpenCL device: the same result types and values.

    python reduce.py [DEVICE]"""
import argparse

import numpy as np

import clcompute

p = argparse.ArgumentParser(description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("device", nargs="?",
               help="device selector (clcompute devices --help); default: CLCOMPUTE_DEVICE, "
               "else the GPU with the most compute units, else the CPU")
a = p.parse_args()
try:
    ctx = clcompute.Context(a.device)
except clcompute.Error as e:  # a selector that matches nothing: say so in one line
    raise SystemExit(f"reduce.py: {e}") from None
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
