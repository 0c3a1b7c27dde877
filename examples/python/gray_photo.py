#!/usr/bin/env python3
"""A photo to gray: OpenCV reads it (as cv2.imread does for everyone), clcompute converts it,
OpenCV writes it; the result is cv2.cvtColor's, pixel for pixel.

Needs OpenCV (pip install opencv-python-headless). The output's extension picks its format
(.png, .jpg, .tif, ...); it appears whole or not at all, and never over the photo. A truncated
JPEG is read as cv2.imread reads it, the missing rows gray, with libjpeg's warning printed; the
clcompute tool refuses it.

    python gray_photo.py photo.jpg gray.png [DEVICE]"""
import argparse
import os
import sys
import tempfile

import numpy as np

import clcompute

NAME = os.path.basename(sys.argv[0])
p = argparse.ArgumentParser(description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("photo", help="the image to read")
p.add_argument("gray", help="the gray image to write; its extension picks the format")
p.add_argument("device", nargs="?",
               help="device selector (clcompute devices --help); default: CLCOMPUTE_DEVICE, "
               "else the GPU with the most compute units, else the CPU")
a = p.parse_args()


def fail(message):
    raise SystemExit(f"{NAME}: {message}")


def output_target(path, source):
    """Where `path` writes: through a link, never over a folder, FIFO or device (the rename that
    makes the write whole would put a plain file in its place), nor over `source`, the input,
    under any of its names (./x, a link, a hard link)."""
    if path.endswith(os.sep) or (os.altsep and path.endswith(os.altsep)):
        fail(f"cannot write {path}: a folder's name, not a file's")
    target = os.path.realpath(path)
    if os.path.islink(path) and not os.path.exists(target):
        fail(f"cannot write {path}: a symbolic link that leads to no file")
    if os.path.exists(target) and not os.path.isfile(target):
        fail(f"cannot write {path}: it exists and is not a regular file")
    if os.path.exists(target) and os.path.exists(source) and os.path.samefile(source, target):
        fail(f"cannot write {path}: it is the input itself, which would be lost")
    return target


target = output_target(a.gray, a.photo)


os.environ.setdefault("OPENCV_LOG_LEVEL", "SILENT")  # its own warnings beside ours: only ours
try:
    import cv2
except ImportError:
    fail("this example reads and writes the photo with OpenCV: pip install "
         "opencv-python-headless")
if not os.path.isfile(a.photo):
    fail(f"cannot read {a.photo}: no such file")
bgr = cv2.imread(a.photo, cv2.IMREAD_COLOR)
if bgr is None:
    fail(f"cannot read {a.photo} as an image")
ext = os.path.splitext(a.gray)[1]
if not ext:
    fail(f"cannot write {a.gray}: it has no extension to pick the format (.png, .jpg, .tif, ...)")
if not cv2.haveImageWriter(a.gray):
    fail(f"cannot write {a.gray}: OpenCV writes no format for '{ext}' (use .png, .jpg, .tif, ...)")
try:
    ctx = clcompute.Context(a.device)
    gray = ctx.gray(bgr, order="bgr")  # imread gives BGR
except clcompute.Error as e:  # a selector that matches nothing: say so in one line
    fail(e)
assert np.array_equal(gray, cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY))
# Written beside the target with the same extension, then renamed over it: a failed write leaves
# no partial file and an existing one as it was.
try:
    fd, tmp = tempfile.mkstemp(suffix=ext, dir=os.path.dirname(target))
    os.close(fd)
except OSError as e:
    fail(f"cannot write {a.gray}: {e.strerror}")
try:  # the temporary file goes whatever ends the write, Ctrl-C included
    if not cv2.imwrite(tmp, gray):
        raise OSError(0, "OpenCV could not write it")
    # An existing file's mode, else what open() would have given it (not mkstemp's 0600).
    if os.path.exists(target):
        os.chmod(tmp, os.stat(target).st_mode & 0o7777)
    else:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
    os.replace(tmp, target)
except (OSError, cv2.error) as e:
    fail(f"cannot write {a.gray}: {getattr(e, 'strerror', None) or e}")
finally:
    if os.path.exists(tmp):
        os.unlink(tmp)
print(f"{a.gray}: {gray.shape[1]} x {gray.shape[0]}, gray on {ctx.device()['name']}")
