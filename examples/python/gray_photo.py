#!/usr/bin/env python3
"""A photo to gray: OpenCV reads it (as cv2.imread does for everyone), clcompute converts it,
OpenCV writes it; the result is cv2.cvtColor's, pixel for pixel.

    python gray_photo.py photo.jpg gray.png [DEVICE]"""
import sys

try:
    import cv2
except ImportError:
    raise SystemExit("this example reads and writes the photo with OpenCV: pip install "
                     "opencv-python-headless") from None
import numpy as np

import clcompute

if len(sys.argv) < 3:
    sys.exit(__doc__)
bgr = cv2.imread(sys.argv[1], cv2.IMREAD_COLOR)
if bgr is None:
    sys.exit(f"cannot read {sys.argv[1]} as an image")
ctx = clcompute.Context(sys.argv[3] if len(sys.argv) > 3 else None)
gray = ctx.gray(bgr, order="bgr")  # imread gives BGR
assert np.array_equal(gray, cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY))
if not cv2.imwrite(sys.argv[2], gray):
    sys.exit(f"cannot write {sys.argv[2]}")
print(f"{sys.argv[2]}: {gray.shape[1]} x {gray.shape[0]}, gray on {ctx.device()['name']}")
