#!/usr/bin/env python3
"""A photo to gray: OpenCV reads it (as cv2.imread does for everyone), clcompute converts it,
OpenCV writes it; the result is cv2.cvtColor's, pixel for pixel.

    python gray_photo.py photo.jpg gray.png [DEVICE]"""
import argparse

try:
    import cv2
except ImportError:
    raise SystemExit("this example reads and writes the photo with OpenCV: pip install "
                     "opencv-python-headless") from None
import numpy as np

import clcompute

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("photo"), p.add_argument("gray")
p.add_argument("device", nargs="?",
               help="device selector (clcompute devices --help); default: CLCOMPUTE_DEVICE, "
               "else the GPU with the most compute units, else the CPU")
a = p.parse_args()
bgr = cv2.imread(a.photo, cv2.IMREAD_COLOR)
if bgr is None:
    raise SystemExit(f"cannot read {a.photo} as an image")
try:
    ctx = clcompute.Context(a.device)
except clcompute.Error as e:  # a selector that matches nothing: say so in one line
    raise SystemExit(f"gray_photo.py: {e}") from None
gray = ctx.gray(bgr, order="bgr")  # imread gives BGR
assert np.array_equal(gray, cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY))
if not cv2.imwrite(a.gray, gray):
    raise SystemExit(f"cannot write {a.gray}")
print(f"{a.gray}: {gray.shape[1]} x {gray.shape[0]}, gray on {ctx.device()['name']}")
