"""libclcompute from Python: OpenCV-exact gray, Open3D-exact depth -> points, numpy-exact
reductions and OpenCV-exact median filtering, on numpy arrays, on any OpenCL device (GPUs of any
vendor, CPUs through PoCL).

    import clcompute, numpy as np
    gray = clcompute.gray(rgb)                      # cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    pts = clcompute.depth_to_points(depth, fx, fy, cx, cy)   # Open3D's create_from_depth_image
    s = clcompute.sum(a)                            # a.sum(): numpy's result type

Arrays that are C-contiguous with the right dtype (image rows may also be a row slice of a larger
array: their stride becomes the pitch) are passed to the library without a copy; any other array
is copied once (`copies()` counts those copies, and those of image `out=` arrays written through
a new array). Tensors of other libraries (PyTorch, CuPy, JAX)
in host memory are read in place through DLPack; tensors in GPU memory are refused. Calls
release the GIL while the device works.
Every function runs on a default context (made on first use from CLCOMPUTE_DEVICE, else the
library's rule: the largest GPU, else the CPU); `Context(device)` chooses one, with the same
methods. Errors from the library raise `clcompute.Error` with the library's message (build logs
included) and its `.status`; `clcompute.ArgumentError`, also a ValueError, where the library
found an argument wrong. docs/python.md has the details.
"""
import collections
import inspect
import math
import operator
import sys
import threading
import warnings

import numpy as np

try:
    from . import _clcompute
except ImportError as e:  # the source tree (python/clcompute) shadows the installed package
    raise ImportError(f"clcompute's compiled extension was not found next to {__file__}: if that "
                      "is the source tree, install the package (pip install .) and run from "
                      "another folder") from e
from ._clcompute import Batch as _Batch
from ._clcompute import ArgumentError, Error

__all__ = ["Context", "Error", "ArgumentError", "devices", "gray", "median", "depth_to_points", "sum", "min", "max",
           "mean", "argmin", "argmax", "gray_many", "depth_to_points_many", "default_context",
           "copies", "empty_pinned"]
__version__ = _clcompute.library_version

# Values of the C enums (include/clcompute/*.h).
_PIXEL = {"rgb": 1, "bgr": 2, "rgba": 3, "bgra": 4, "gray8": 5, "gray_f32": 6, "depth_u16": 7,
          "depth_f32": 8}
_WEIGHTS = {"bt601": 0, "bt709": 1}
_OPS = {"sum": 1, "min": 2, "max": 3, "mean": 4, "argmin": 5, "argmax": 6}
_DTYPES = {np.dtype(np.float32): 1, np.dtype(np.float64): 2, np.dtype(np.int32): 3,
           np.dtype(np.uint32): 4, np.dtype(np.uint8): 5, np.dtype(np.int64): 6,
           np.dtype(np.uint64): 7, np.dtype(np.int16): 8, np.dtype(np.uint16): 9,
           np.dtype(np.int8): 10, np.dtype(np.float16): 11, np.dtype(np.bool_): 12}

_TAKEN = "bool, int8..int64, uint8..uint64, float16, float32 and float64"

_copies = 0
_copies_lock = threading.Lock()


def copies():
    """How many arrays this process has copied because the library could not take them as they
    were: inputs that were not arrays (lists, buffers) or whose layout or byte order was not one
    the library reads (C-contiguous rows of native-order values), and image `out=` arrays the
    library could not write (rows not packed, or not aligned), written through a new array."""
    return _copies


def _choice(name, value, choices):
    """value (a string, any case) when it is one of choices; else ValueError (TypeError when it
    is not a string)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string ({', '.join(choices)}), not {value!r}")
    if value.lower() not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, not {value!r}")
    return value.lower()


def _whole(name, value, lo, hi):
    """value as an int in [lo, hi]: TypeError for anything that is not an integer (2.9 is not
    taken as 2, nor True as 1, as numpy's shapes do not), ValueError out of range."""
    try:
        if isinstance(value, bool):
            raise TypeError
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, not {value!r}") from None
    if not lo <= v <= hi:
        raise ValueError(f"{name} must be between {lo} and {hi}, not {v}")
    return v


def _real(name, value):
    """value as a float: TypeError naming the parameter for anything that is not a real number
    (a string such as "1" is not taken), ValueError for an integer too large for a float."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a real number, not {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number, not {value!r}") from None
    except OverflowError:  # an integer past float's range, such as 10**400
        raise ValueError(f"{name} is too large to be a float") from None


def _flag(name, value):
    """value as a bool: True, False, numpy's bools, 0 or 1; TypeError for anything else (the
    string "no" is not taken as True)."""
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer)) and
                                               value in (0, 1)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, not {value!r}")


def _camera(fx, fy, cx, cy):
    """The intrinsics as floats, each checked by name."""
    return tuple(_real(n, v) for n, v in (("fx", fx), ("fy", fy), ("cx", cx), ("cy", cy)))


def _positive(name, value, infinite=False):
    """value as a float > 0, finite unless `infinite` allows +inf; else ValueError."""
    v = _real(name, value)
    if not (v > 0 and (math.isfinite(v) or (infinite and v == math.inf))):
        raise ValueError(f"{name} must be a positive{'' if infinite else ' finite'} number, "
                         f"not {value!r}")
    return v


def _not_empty(name, arr):
    if 0 in arr.shape:
        raise ValueError(f"{name} is empty: shape {arr.shape}")


def _rows_packed(arr):
    """Rows of packed pixels at any stride: what the library takes as an image (the row stride
    becomes the pitch)."""
    if arr.ndim not in (2, 3) or arr.strides[0] < 0:
        return False
    pixel = arr.itemsize * (arr.shape[2] if arr.ndim == 3 else 1)
    return ((arr.ndim == 2 or arr.strides[2] == arr.itemsize) and arr.strides[1] == pixel and
            arr.strides[0] >= arr.shape[1] * pixel)


def _as_array(a):
    """a, or a numpy view of a DLPack tensor's host memory; masked arrays refused."""
    if isinstance(a, np.ma.MaskedArray):
        raise TypeError("masked arrays are not supported (their mask would be ignored): pass "
                        "a.compressed() or a.filled(value)")
    if not isinstance(a, np.ndarray) and hasattr(type(a), "__dlpack__"):
        return _from_dlpack(a)
    return a


def _as_input(a, name, image=False):
    """a as an array the library reads in place: a itself when its layout allows (C-contiguous
    native-order values, or for images rows of packed pixels at any stride), else one copy. A
    DLPack tensor is first viewed as an array (host memory only). name: the argument's, for
    the messages (images[3] in a list)."""
    global _copies
    a = _as_array(a)
    if not isinstance(a, np.ndarray):
        what = f"{name} ({type(a).__module__}.{type(a).__name__})"
        if type(a).__module__.split(".")[0] == "pyopencl":  # numpy would read it item by item
            raise TypeError(f"{what} is in OpenCL device memory; clcompute takes host memory: "
                            "a.get() (or use the C API's _enqueue forms on its buffer)")
        arr = np.asarray(a)
        if arr.dtype == object or arr.dtype.kind in "USV":  # objects, text, raw bytes
            raise TypeError(f"{what} is not an array of numbers (numpy made an array of dtype "
                            f"{arr.dtype} of it)")
        if arr.flags.owndata:  # a list or the like: numpy made the array, a copy
            with _copies_lock:
                _copies += 1
            return arr
        a = arr  # a buffer (memoryview, bytearray, array.array): judged as an array
    if a.dtype.isnative and a.flags.aligned and (a.flags.c_contiguous or
                                                 (image and _rows_packed(a))):
        return a
    with _copies_lock:
        _copies += 1
    # np.array, not ascontiguousarray, which returns a contiguous but unaligned array as it is.
    return np.array(a, dtype=a.dtype.newbyteorder("="), order="C", copy=True)


# DLPack device types whose memory the CPU reads (kDLCPU, kDLCUDAHost, kDLCUDAManaged,
# kDLROCMHost) and names for the others a user is likely to hold.
_DLPACK_HOST = (1, 3, 13, 11)
_DLPACK_DEVICES = {2: "CUDA", 4: "OpenCL", 7: "Vulkan", 8: "Metal", 9: "VPI", 10: "ROCm",
                   12: "ExtDev", 14: "oneAPI", 15: "WebGPU", 16: "Hexagon"}


def _from_dlpack(a):
    """A tensor of another library (PyTorch, CuPy, JAX, TensorFlow) through DLPack: a numpy view
    of its host memory, no copy; device memory is refused with what to do instead."""
    try:
        kind = int(a.__dlpack_device__()[0])
    except Exception:  # a producer without the device query: let numpy judge the capsule
        kind = 1
    if kind not in _DLPACK_HOST:
        where = _DLPACK_DEVICES.get(kind, f"DLPack device type {kind}")
        raise TypeError(f"{type(a).__module__}.{type(a).__name__} is in {where} device memory; "
                        "clcompute takes host memory: move it first (torch: t.cpu(), CuPy: "
                        "cupy.asnumpy(a), JAX: np.asarray(x))")
    try:
        return np.from_dlpack(a)
    except (RuntimeError, BufferError, TypeError, ValueError) as e:  # numpy's, or the producer's
        what = f"{type(a).__module__}.{type(a).__name__}"
        dtype = getattr(a, "dtype", None)
        if "dtype" in str(e).lower():
            raise TypeError(f"{what} of dtype {dtype} cannot be read through DLPack ({e}); "
                            f"clcompute takes {_TAKEN} (bfloat16: convert first)") from e
        raise TypeError(f"{what} cannot be read through DLPack: {e}") from e


def _output(out, shape, dtype, name="out"):
    """A new array, or the caller's `out` after checking it fits: TypeError for anything but a
    numpy array, ValueError for the wrong shape, dtype (native byte order) or a read-only one."""
    if out is None:
        return np.empty(shape, dtype)
    if isinstance(out, np.ma.MaskedArray):
        raise TypeError(f"{name} must not be a masked array (its mask would be left as it was)")
    # The checks first and the message only on failure: formatting it took 2.3 us a call, half
    # of what the layer costs a 1x1 gray.
    if (isinstance(out, np.ndarray) and out.shape == tuple(shape) and out.dtype == dtype
            and out.flags.writeable):
        return out
    want = f"a numpy array of shape {tuple(shape)} and dtype {np.dtype(dtype).name}"
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{name} must be {want}, not {type(out).__module__}.{type(out).__name__}")
    if out.shape != tuple(shape) or out.dtype != dtype:
        order = "" if out.dtype.isnative else ", non-native byte order"
        raise ValueError(f"{name} must be {want} in native byte order, not {out.shape} "
                         f"{out.dtype.name}{order}")
    raise ValueError(f"{name} is read-only")


def _writable(result):
    """Where the library writes an image result: `result` itself when its rows are packed
    pixels (any row stride) and it is aligned, else a new array that _written copies into it,
    as numpy's ufuncs write through any strides of their out."""
    return (result if result.flags.aligned and _rows_packed(result) else
            np.empty(result.shape, result.dtype))


def _written(result, written):
    """result, holding what the library wrote into `written` (_writable's)."""
    global _copies
    if written is not result:
        result[...] = written
        with _copies_lock:
            _copies += 1
    return result


def _selector_error(message):
    """The ArgumentError the library raises for a selector it cannot parse, for one the Python
    layer refuses first."""
    e = ArgumentError(message)
    e.status, e.status_name = -2005, "CLC_ERROR_INVALID_SELECTOR"  # clcompute/status.h
    return e


class Context(_clcompute.Context):
    """A device with its OpenCL context and queue: Context("gpu"), Context("cpu"),
    Context("nvidia"), Context("0:1"), Context() for the default rule (CLCOMPUTE_DEVICE, else the
    largest GPU, else the CPU). Safe to share between threads. ctx.device() describes it."""

    def __init__(self, device=None):
        if device is not None and not isinstance(device, str):
            raise TypeError(f"device must be a selector string ('gpu', 'cpu', 'nvidia', '0:1', "
                            f"...) or None for the default, not {type(device).__name__}")
        if isinstance(device, str) and "," in device:
            raise _selector_error(f"device {device!r}: a Context is one device ('gpu/cpu': a "
                                  "GPU, else the CPU); a list of devices is for the _many calls' "
                                  "devices=")
        if isinstance(device, str) and not device.strip():
            # As the tool's --device '': an empty selector is more likely a variable that was
            # never set than a wish for the default, which None asks for.
            raise _selector_error(f"device must be a selector ('gpu', 'cpu', 'nvidia', '0:1', "
                                  f"...) or None for the default, not {device!r}")
        super().__init__(device)

    def __repr__(self):
        d = self.device()
        return f"clcompute.Context({d['index']!r}: {d['name']}, {d['type']})"

    def empty_pinned(self, shape, dtype=float):
        """An uninitialised numpy array in pinned host memory of this context's device
        (cupyx.empty_pinned's counterpart): page-locked memory a discrete GPU reads and writes
        by DMA at the bus's full speed, where an ordinary array crosses through a staging copy.
        Pass it (or any view of it) to this context's calls. The memory is freed when the last
        array using it goes (it may outlive the Context object); it is a scarce resource, so
        allocate buffers to reuse. On CPUs it is ordinary memory to the library."""
        return _empty_pinned(self._host_alloc, self.device(), shape, dtype)

    def gray(self, img, order="rgb", weights="bt601", dtype=np.uint8, out=None):
        """cv2.cvtColor(img, cv2.COLOR_<ORDER>2GRAY), bit for bit: img is (H, W, 3) or (H, W, 4)
        uint8 in `order` (rgb, bgr, rgba, bgra); weights bt601 (OpenCV's) or bt709. dtype uint8,
        or float32 for values in [0, 1] before rounding. Returns (H, W), or writes `out`."""
        src, order = _gray_args("img", img, order)
        weights = _choice("weights", weights, tuple(_WEIGHTS))
        dt = np.dtype(dtype)
        if dt not in (np.dtype(np.uint8), np.dtype(np.float32)):
            raise ValueError(f"dtype must be uint8 or float32, not {dt}")
        result = _output(out, src.shape[:2], dt)
        if out is not None:
            _not_overlapping(result, [("img", src)])
        into = _writable(result)
        self._gray(src, _PIXEL[order], into,
                   _PIXEL["gray8" if dt == np.uint8 else "gray_f32"], _WEIGHTS[weights])
        return _written(result, into)

    def median(self, img, ksize=5, out=None):
        """cv2.medianBlur(img, ksize), pixel for pixel: img (H, W) uint8, uint16 or float32,
        ksize 3 or 5, borders replicated; NaN sorts after every number."""
        src = _as_input(img, "img", image=True)
        fmt = {np.dtype(np.uint8): "gray8", np.dtype(np.uint16): "depth_u16",
               np.dtype(np.float32): "depth_f32"}.get(src.dtype)
        if fmt is None or src.ndim != 2:
            raise ValueError(f"img must be (H, W) uint8, uint16 or float32, not {src.shape} "
                             f"{src.dtype}")
        _not_empty("img", src)
        k = _whole("ksize", ksize, -2**63, 2**63 - 1)
        if k not in (3, 5):
            raise ValueError(f"ksize must be 3 or 5, not {k}")
        result = _output(out, src.shape, src.dtype)
        into = _writable(result)
        if into is not result:  # the library's own overlap check sees only the new array
            _not_overlapping(result, [("img", src)])
        self._median(src, _PIXEL[fmt], into, k)
        return _written(result, into)

    def depth_to_points(self, depth, fx, fy, cx, cy, depth_scale=1000.0, depth_trunc=1000.0,
                        stride=1, organized=False, color=None):
        """Open3D's PointCloud.create_from_depth_image (and create_from_rgbd_image for colour):
        depth (H, W) uint16 or float32, divided by depth_scale to give metres (as Open3D does for
        both: pass depth_scale=1.0 for float32 metres); a pixel gives a point when
        0 < z < depth_trunc. Returns float32 (N, 3) points in Open3D's order, or with
        organized=True (ceil(H/stride), ceil(W/stride), 3) with NaN where invalid; with color
        ((H, W, 3) uint8 RGB) also the (N, 3) uint8 colours: (points, colors)."""
        camera, organized = _camera(fx, fy, cx, cy), _flag("organized", organized)
        src, fmt, scale, trunc, s = _depth_args("depth", depth, depth_scale, depth_trunc, stride)
        col = None if color is None else _color_arg("color", color, src.shape)
        gh, gw = -(-src.shape[0] // s), -(-src.shape[1] // s)
        points = np.empty((gh * gw, 3), np.float32)
        colors = np.empty((gh * gw, 3), np.uint8) if col is not None else None
        n = self._depth_to_points(src, _PIXEL[fmt], col, camera, scale, trunc, s, organized,
                                  points, colors)
        if organized:
            points = points.reshape(gh, gw, 3)
            colors = colors.reshape(gh, gw, 3) if colors is not None else None
        else:
            points = points[:n]
            colors = colors[:n] if colors is not None else None
        return points if colors is None else (points, colors)

    def _reduction(self, op, a):
        arr = _as_input(a, "a")
        if arr.dtype not in _DTYPES:
            raise TypeError(f"{op} of {arr.dtype} is not supported: clcompute takes {_TAKEN}")
        flat = arr.reshape(-1)
        if flat.size == 0:
            return _empty_reduction(op, arr.dtype)
        f, i, u, index = self._reduce(_OPS[op], _DTYPES[arr.dtype], flat, flat.size)
        result = _numpy_result(op, arr.dtype, f, i, u, index)
        if op in ("sum", "mean") and arr.dtype.kind == "f" and not np.isfinite(result):
            _float_warning(result, flat)
        return result

    def sum(self, a):
        """a.sum() over all elements: numpy's result type and value (integers in 64 bits, float
        sums compensated and deterministic)."""
        return self._reduction("sum", a)

    def min(self, a):
        """a.min(): NaN propagates."""
        return self._reduction("min", a)

    def max(self, a):
        """a.max(): NaN propagates."""
        return self._reduction("max", a)

    def mean(self, a):
        """a.mean(): float64 for integers and bool, the input's type for floats."""
        return self._reduction("mean", a)

    def argmin(self, a):
        """a.argmin(): the flat index of the first minimum (of the first NaN if any)."""
        return self._reduction("argmin", a)

    def argmax(self, a):
        """a.argmax(): the flat index of the first maximum (of the first NaN if any)."""
        return self._reduction("argmax", a)


def _empty_pinned(host_alloc, device, shape, dtype):
    """An array of shape and dtype in memory from host_alloc(bytes), whose device (a devices()
    dict) bounds its size."""
    dt = np.dtype(dtype)
    if dt.hasobject or dt.itemsize == 0:
        raise TypeError(f"pinned memory holds plain data (numbers, records of them), not {dt}")
    if not dt.isnative:  # the calls would copy it to native order every time
        raise TypeError(f"pinned memory in native byte order, not {dt} (use "
                        f"{dt.newbyteorder('=').str!r})")
    dims = (shape,) if not np.iterable(shape) else tuple(shape)
    dims = tuple(_whole("each dimension of shape", d, 0, 2**62) for d in dims)
    count = math.prod(dims)
    if count == 0:
        return np.empty(dims, dt)
    if count > (2**63 - 1) // dt.itemsize:
        raise ValueError(f"shape {dims} of {dt} is too large")
    largest = device["max_alloc_bytes"]
    if count * dt.itemsize > largest:  # numpy's error for memory it cannot have
        raise MemoryError(f"empty_pinned: {count * dt.itemsize} bytes for {dims} {dt} is more "
                          f"than the device's largest buffer ({largest} bytes, "
                          "CL_DEVICE_MAX_MEM_ALLOC_SIZE)")
    return np.frombuffer(host_alloc(count * dt.itemsize), dt, count).reshape(dims)


def _gray_args(name, img, order):
    """A colour image and its channel order checked, as the library takes them: (array,
    order in lower case)."""
    src = _as_input(img, name, image=True)
    if src.dtype != np.uint8 or src.ndim != 3 or src.shape[2] not in (3, 4):
        raise ValueError(f"{name} must be (H, W, 3) or (H, W, 4) uint8, not {src.shape} "
                         f"{src.dtype}")
    _not_empty(name, src)
    order = _choice("order", order, ("rgb", "bgr", "rgba", "bgra"))
    if len(order) != src.shape[2]:
        raise ValueError(f"{name}: order {order!r} does not fit {src.shape[2]} channels (rgb, bgr "
                         "for 3; rgba, bgra for 4)")
    return src, order


def _frames_packed(a):
    """An (N, H, W) array whose frames lie one after another (rows packed at any row stride,
    the next frame where the last one's rows end: a C-contiguous array, a range of its frames or
    a column crop of it), which the library reads in place a group of frames at a time. Frames
    further apart (a[::2]) go one by one: a group would carry the frames between them too."""
    n = a.strides
    return a.dtype.isnative and (a.size == 0 or (a.flags.aligned and n[2] == a.itemsize and
                                                 n[1] >= a.shape[2] * n[2] and
                                                 n[0] == a.shape[1] * n[1]))


def _depth_args(name, depth, depth_scale, depth_trunc, stride, frames=False):
    """A depth image (frames: an (N, H, W) array of packed frames) and its options checked, as
    the library takes them: (array, format, scale, trunc, stride). Float depth is divided by
    depth_scale here, as Open3D does (one copy unless the scale is 1); the library reads float32
    depth as metres."""
    src = depth if frames else _as_input(depth, name, image=True)
    fmt = {np.dtype(np.uint16): "depth_u16", np.dtype(np.float32): "depth_f32"}.get(src.dtype)
    if fmt is None or src.ndim != 2 + frames:
        shape = "(N, H, W)" if frames else "(H, W)"
        raise ValueError(f"{name} must be {shape} uint16 or float32, not {src.shape} {src.dtype}")
    if not frames:
        _not_empty(name, src)
    elif 0 in src.shape[1:]:
        raise ValueError(f"{name} holds empty frames: shape {src.shape}")
    scale = _positive("depth_scale", depth_scale)
    trunc = _positive("depth_trunc", depth_trunc, infinite=True)
    s = _whole("stride", stride, 1, 2**32 - 1)
    if fmt == "depth_f32":
        with np.errstate(over="ignore"):
            scale32 = np.float32(scale)
        if not (np.isfinite(scale32) and scale32 > 0):
            # What the library refuses for uint16 depth: the division would make every depth
            # infinite or NaN.
            raise ValueError(f"depth_scale {depth_scale!r} is {float(scale32)} as a float32, "
                             "which float depth cannot be divided by")
        if scale != 1.0:
            src = src / scale32  # float32 / float32: Open3D's (float) division
        scale = 0.0  # the library's "not used" for float depth
    return src, fmt, scale, trunc, s


def _numpy_result(op, dtype, f, i, u, index):
    if op in ("argmin", "argmax"):
        return np.intp(index)
    kind = dtype.kind
    if op == "mean":
        return dtype.type(f) if kind == "f" else np.float64(f)
    if kind == "f":
        return dtype.type(f)
    if op == "sum":
        return np.int64(i) if kind in "ib" else np.uint64(u)
    if kind == "b":
        return np.bool_(u)
    return dtype.type(i) if kind == "i" else dtype.type(u)


def _float_warning(result, flat):
    """The warning numpy's float sum gives for a non-finite result its own additions made (they
    raised the overflow or invalid flag): an infinity from finite numbers, a NaN from no NaN.
    np.errstate (np.seterr) decides, as for numpy: ignore, warn, raise (FloatingPointError),
    call or log (np.seterrcall's function or object), print.
    Looks at the input again, so only when the result is not finite."""
    if np.isnan(flat).any() or (np.isinf(result) and np.isinf(flat).any()):
        return  # NaN or infinity in, the same out: numpy stays quiet
    flag, what, code = (("invalid", "invalid value", 8) if np.isnan(result) else
                        ("over", "overflow", 2))  # numpy's flag bits, as seterrcall gets them
    mode, message = np.geterr()[flag], f"{what} encountered in reduce"
    if mode == "ignore":
        return
    if mode == "raise":
        raise FloatingPointError(message)
    if mode in ("call", "log") and np.geterrcall() is None:
        raise NameError(f"python callback specified for {what} (in reduce) but no function found.")
    if mode == "call":
        np.geterrcall()(what, code)
        return
    if mode in ("print", "log"):  # numpy prints on stderr
        (sys.stderr if mode == "print" else np.geterrcall()).write(f"Warning: {message}\n")
        return
    warnings.warn(message, RuntimeWarning, stacklevel=_caller_level())


def _caller_level():
    """The stacklevel of warnings.warn, called from this file, that names the caller's line: the
    first frame outside this file (module function or method), as numpy's warnings do."""
    level, frame = 1, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame, level = frame.f_back, level + 1
    return level


def _empty_reduction(op, dtype):
    """What numpy does with an empty array: a zero sum, a NaN mean (with its warnings), errors."""
    if op == "sum":
        return np.zeros(1, dtype).sum()
    if op == "mean":
        # numpy's two warnings: "Mean of empty slice" at the caller's line, then the 0 / 0 as
        # np.errstate says; the NaN in numpy's result type (float64 for integers and bool).
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=_caller_level())
        result = np.dtype(dtype if dtype.kind == "f" else np.float64).type
        acc = np.float32 if dtype == np.float16 else result  # numpy adds float16 in float32
        return result(acc(0) / np.intp(0))
    if op in ("min", "max"):
        raise ValueError(f"zero-size array to reduction operation {'minimum' if op == 'min' else 'maximum'} which has no identity")
    raise ValueError(f"attempt to get {op} of an empty sequence")


_default = None
_default_lock = threading.Lock()


def default_context():
    """The context the module-level functions use, made on first use (CLCOMPUTE_DEVICE, else
    the largest GPU, else the CPU)."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Context()
    return _default


def devices():
    """Every OpenCL device: dicts with index ("P:D", what selectors take), name, platform,
    vendor, type, driver, compute_units, global_mem_bytes, max_alloc_bytes, unified_memory,
    fp64, available and pci_bus."""
    return _clcompute.devices()


def gray(img, order="rgb", weights="bt601", dtype=np.uint8, out=None):
    return default_context().gray(img, order, weights, dtype, out)


def empty_pinned(shape, dtype=float, devices=None):
    """An uninitialised numpy array in pinned host memory (cupyx.empty_pinned's counterpart):
    page-locked memory a discrete GPU reads and writes by DMA at the bus's full speed, where an
    ordinary array crosses through a staging copy. Without `devices` (None), of the default
    context's device (default_context()), for the module-level calls. With `devices` (the
    selectors of gray_many's or depth_to_points_many's devices=, "all" for their default: a
    string, since their None is "all" but this None the default context), of the first GPU of
    those calls' batch (its first device when none has memory of its own): they then read and
    write it in place there (a CPU device of the batch reads any host memory in place, and
    other GPUs stage it). The memory is freed when the last array using it
    goes; it is a scarce resource, so allocate buffers to reuse. On CPUs it is ordinary memory
    to the library."""
    if devices is None:
        return default_context().empty_pinned(shape, dtype)
    b = _batch(devices)
    return _empty_pinned(lambda bytes: b.batch._host_alloc(b.pin, bytes), b.pin_device, shape,
                         dtype)


def median(img, ksize=5, out=None):
    return default_context().median(img, ksize, out)


def depth_to_points(depth, fx, fy, cx, cy, depth_scale=1000.0, depth_trunc=1000.0, stride=1,
                    organized=False, color=None):
    return default_context().depth_to_points(depth, fx, fy, cx, cy, depth_scale, depth_trunc,
                                             stride, organized, color)


def sum(a):  # noqa: A001 - numpy's name, on purpose
    return default_context().sum(a)


def min(a):  # noqa: A001
    return default_context().min(a)


def max(a):  # noqa: A001
    return default_context().max(a)


def mean(a):
    return default_context().mean(a)


def argmin(a):
    return default_context().argmin(a)


def argmax(a):
    return default_context().argmax(a)


for _name in ("gray", "median", "depth_to_points", "sum", "min", "max", "mean",
              "argmin", "argmax"):
    globals()[_name].__doc__ = inspect.cleandoc(getattr(Context, _name).__doc__) + (
        "\n\nOn the default context (default_context()).")


# A batch of the _many calls: the lock its runs take, its workers (all devices'), and where its
# pinned memory is (the device's index in the batch and its devices() dict).
_BatchEntry = collections.namedtuple("_BatchEntry", "batch lock workers pin pin_device")
_batches = {}  # by the devices' indices ("0:0", ...), in order
_batch_keys = {}  # each spelling of devices seen: its key in _batches
_batches_lock = threading.Lock()


def _batch(devices):
    """The batch of `devices` (made on first use and kept) and the lock its runs take: a batch
    runs one set of items at a time, so calls from several threads on the same devices take
    turns, each using every device. Spellings naming the same devices in the same order ("all"
    and None, "cpu" and "pocl" on a machine of one CPU) share a batch, and so its pinned memory."""
    if devices is not None and not isinstance(devices, str):
        raise TypeError(f"devices must be a string of selectors ('all', 'gpu', 'cpu,nvidia', "
                        f"...) or None for all, not {type(devices).__name__}")
    if devices is not None and not devices.strip():
        raise _selector_error(f"devices must be selectors ('all', 'gpu', 'cpu,nvidia', ...) or "
                              f"None for all, not {devices!r}")
    devices = "all" if devices is None else devices
    with _batches_lock:
        key = _batch_keys.get(devices)
        if key is None:
            key = _clcompute._select(devices)  # a device query: once a spelling
            _batch_keys[devices] = key
        if key not in _batches:
            batch = _Batch(devices)
            listed = batch.devices()
            workers = 0  # every device's (sum is ours here)
            for d in listed:
                workers += d["workers"]
            # Pinned memory is the first discrete GPU's (a CPU reads any memory in place).
            pin = next((i for i, d in enumerate(listed) if not d["unified_memory"]), 0)
            # RLock: a finaliser or signal handler calling back in on this thread between runs
            # takes its turn instead of deadlocking (during a run the GIL is released).
            _batches[key] = _BatchEntry(batch, threading.RLock(), workers, pin, listed[pin])
        return _batches[key]


def _sequence(name, items, one, channels=None):
    """The items of a _many call as a sequence, refusing what is not a list of them: one item
    where a list was meant (`one`: its number of dimensions; `channels`: the last dimensions an
    item may have, if it has one), None, a string, a mapping."""
    if isinstance(items, memoryview):  # Python cannot iterate one of several dimensions
        items = np.asarray(items)
    if isinstance(items, np.ndarray) and items.ndim == one:
        # The hint only where the array is shaped as one item; a stack of one-channel images
        # (N, H, W) is no item at all, and x[None] would not make it one.
        wanted = f"{name} must be a list of them or an array with one more dimension"
        if channels is None or items.shape[-1] in channels:
            raise ValueError(f"{wanted}, not one {items.shape} {items.dtype} array (pass [x] or "
                             "x[None])")
        raise ValueError(f"{wanted} whose last is {' or '.join(map(str, channels))}, not a "
                         f"{items.shape} {items.dtype} array")
    if isinstance(items, np.ndarray) and items.ndim != one + 1:
        raise ValueError(f"{name} must be a list of them or an array of {one + 1} dimensions "
                         f"(the first counting them), not a {items.shape} array")
    if items is None or isinstance(items, (str, bytes, dict)) or not hasattr(items, "__iter__"):
        raise TypeError(f"{name} must be a list or an array, not {type(items).__name__}")
    return items


def gray_many(images, order="rgb", weights="bt601", devices="all", out=None):
    """gray() of every image of a list (or of an (N, H, W, 3 or 4) array), on every device of
    `devices` at once (the batch API: each device's workers take the next image when free).
    Returns the results in order: new arrays, or with `out` ((N, H, W) uint8, images of one
    size) views of it; new memory for many images costs the system about as much to hand out as
    the conversion takes, so reuse `out` in a loop. Calls from several threads on the same
    `devices` take turns."""
    o = _choice("order", order, ("rgb", "bgr", "rgba", "bgra"))  # also for an empty list
    w = _choice("weights", weights, tuple(_WEIGHTS))
    batch, lock, *_ = _batch(devices)
    srcs = []
    for i, img in enumerate(_sequence("images", _as_array(images), 3, (3, 4))):
        src, o = _gray_args(f"images[{i}]", img, o)
        srcs.append((src, o))
    sizes = {src.shape[:2] for src, _ in srcs}
    if out is not None:
        if len(sizes) > 1:
            raise ValueError(f"out= needs images of one size, not "
                             f"{', '.join(f'{cols}x{rows}' for rows, cols in sorted(sizes))}")
        # No images: out's dtype and dimensions are still checked, as numpy does.
        size = (sizes.pop() if sizes else
                tuple(out.shape[1:]) if getattr(out, "ndim", 0) == 3 else (1, 1))
        out = _output(out, (len(srcs),) + tuple(size), np.uint8)
        _not_overlapping(out, [(f"images[{i}]", src) for i, (src, _) in enumerate(srcs)])
    outs = [np.empty(src.shape[:2], np.uint8) if out is None else out[i]
            for i, (src, _) in enumerate(srcs)]
    intos = [_writable(dst) for dst in outs]
    with lock:
        batch._gray_many([(src, _PIXEL[o], dst, _PIXEL["gray8"], _WEIGHTS[w])
                          for (src, o), dst in zip(srcs, intos)])
    return [_written(dst, into) for dst, into in zip(outs, intos)]


def _not_overlapping(out, inputs):
    """ValueError when out= may share memory with an input (name, array): the library would
    read what it has written. Judged on address ranges, as the library's own check for median."""
    for name, a in inputs:
        if np.may_share_memory(out, a):
            raise ValueError(f"out may overlap {name} (their memory ranges meet): the results "
                             "could overwrite what is still to be read (pass another array)")


def _frames_in(part):
    """Depth frames in a part of a depth_to_points_many call: one (H, W) or an (N, H, W) group."""
    return 1 if part.ndim == 2 else len(part)


def _colors_packed(colors, shape):
    """Whether colours go with the depth frames of `shape` (N, H, W) in groups: an (N, H, W, 3)
    uint8 array whose frames lie one after another, rows of packed pixels."""
    if not (isinstance(colors, np.ndarray) and colors.dtype == np.uint8 and
            colors.shape == tuple(shape) + (3,)):
        return False
    n = colors.strides
    return colors.size == 0 or (n[3] == 1 and n[2] == 3 and n[1] >= shape[2] * 3 and
                                n[0] == shape[1] * n[1])


def _color_arg(name, color, shape):
    """A frame's colour, checked as depth_to_points checks its `color`: (H, W, 3) uint8 RGB of
    the depth's (H, W)."""
    col = _as_input(color, name, image=True)
    if col.dtype != np.uint8 or col.shape != tuple(shape) + (3,):
        raise ValueError(f"{name} must be (H, W, 3) uint8 RGB of its depth's size {tuple(shape)}, "
                         f"not {col.shape} {col.dtype}")
    return col


def _frame_groups(frames, workers):
    """Sizes of the groups an array of frames goes in, in order: large ones first (a launch or
    two a group, what small frames need on a GPU; 16 reach the bus there), shrinking to single
    frames at the end so that every worker, a slow device's too, finishes at about the same
    time (guided scheduling)."""
    sizes = []
    while frames:
        share = frames // (2 * workers)  # (min and max are ours here)
        sizes.append(16 if share > 16 else share or 1)
        frames -= sizes[-1]
    return sizes


def _points_out(out, grids, organized, inputs, colors=None):
    """The caller's `out` for depth_to_points_many (grids: each frame's; colors: each input's
    colours, or None), checked, as (frames, grid points, 3); None without one."""
    if out is None:
        return None
    if len(set(grids)) > 1:
        raise ValueError(f"out= needs frames of one size: their point grids differ "
                         f"({', '.join(f'{cols}x{rows}' for rows, cols in sorted(set(grids)))})")
    if grids:
        gh, gw = grids[0]
    else:  # no frames: out's dtype and dimensions are still checked, as numpy does
        ndim = getattr(out, "ndim", 0)
        gh, gw = (out.shape[1:3] if organized and ndim == 4 else
                  (1, out.shape[1]) if not organized and ndim == 3 else (1, 1))
    frames = len(grids)
    out = _output(out, (frames, gh, gw, 3) if organized else (frames, gh * gw, 3), np.float32)
    if not (out.flags.c_contiguous and out.flags.aligned):
        raise ValueError("out must be C-contiguous and aligned to its float32 elements")
    at, named = 0, []
    for i, (part, *_) in enumerate(inputs):
        n = _frames_in(part)
        where = f"[{at}]" if n == 1 else f"[{at}:{at + n}]"
        named.append(("depths" + where, part))
        if colors is not None:
            named.append(("colors" + where, colors[i]))
        at += n
    _not_overlapping(out, named)
    return out.reshape(frames, gh * gw, 3)


def depth_to_points_many(depths, fx, fy, cx, cy, depth_scale=1000.0, depth_trunc=1000.0,
                         stride=1, organized=False, devices="all", out=None, colors=None):
    """depth_to_points() of every depth image of a list, or of every frame of an (N, H, W)
    array, on every device of `devices` at once. Returns the point arrays in order, or with
    `colors` (an (H, W, 3) uint8 RGB image for each frame: a list, or an (N, H, W, 3) array)
    (points, colors) pairs, as depth_to_points(..., color=) gives.
    An array's frames, when they lie one after another, go to the library in groups, one or two
    launches a group: on a GPU the way to convert many small frames (np.stack a list of them);
    with colours, only when the colours are such an array too.
    Each result is a view of its group's points, or with `out` (float32, C-contiguous, (N, grid
    points, 3), or (N, grid rows, grid cols, 3) when organized) of out, a dense frame's result
    out[i, :count] and the rest of out[i] left as it was: new memory costs the system about as
    much to hand out as the conversion takes, so reuse `out` in a loop (colours are new arrays).
    Calls from several threads on the same `devices` take turns."""
    camera, organized = _camera(fx, fy, cx, cy), _flag("organized", organized)
    batch, lock, workers, *_ = _batch(devices)
    depths = _sequence("depths", _as_array(depths), 2)
    if colors is not None:
        colors = _sequence("colors", _as_array(colors), 3, (3,))
        if not isinstance(depths, np.ndarray):
            depths = list(depths)  # counted and indexed below
        if not isinstance(colors, np.ndarray):
            colors = list(colors)
        if len(colors) != len(depths):
            raise ValueError(f"colors has {len(colors)} images for {len(depths)} depth frames")
    grouped = (isinstance(depths, np.ndarray) and depths.ndim == 3 and _frames_packed(depths) and
               (colors is None or _colors_packed(colors, depths.shape)))
    if grouped:
        src, *args = _depth_args("depths", depths, depth_scale, depth_trunc, stride, frames=True)
        ends = np.cumsum([0] + _frame_groups(len(src), workers))
        spans = list(zip(ends[:-1], ends[1:]))
        parts = [(src[a] if b - a == 1 else src[a:b], *args) for a, b in spans]
        cols = (None if colors is None else
                [colors[a] if b - a == 1 else colors[a:b] for a, b in spans])
    else:
        parts = [_depth_args(f"depths[{i}]", depth, depth_scale, depth_trunc, stride)
                 for i, depth in enumerate(depths)]
        cols = (None if colors is None else
                [_color_arg(f"colors[{i}]", c, part.shape)
                 for i, (c, (part, *_)) in enumerate(zip(colors, parts))])
    grids = [(-(-part.shape[-2] // s), -(-part.shape[-1] // s))
             for part, _, _, _, s in parts for _ in range(_frames_in(part))]
    into = _points_out(out, grids, organized, parts, cols)
    items, outs = [], []
    for i, (part, fmt, scale, trunc, s) in enumerate(parts):
        gh, gw = grids[len(outs)]
        n = _frames_in(part)
        points = (np.empty((n * gh * gw, 3), np.float32) if into is None else
                  into[len(outs):len(outs) + n].reshape(n * gh * gw, 3))
        rgb = None if cols is None else np.empty((n * gh * gw, 3), np.uint8)
        outs += [(gh, gw, points[f * gh * gw:(f + 1) * gh * gw],
                  None if rgb is None else rgb[f * gh * gw:(f + 1) * gh * gw]) for f in range(n)]
        items.append((part, _PIXEL[fmt], camera, scale, trunc, s, organized, points,
                      None if cols is None else cols[i], rgb))
    with lock:
        counts = batch._depth_to_points_many(items)
    results = [(p.reshape(gh, gw, 3), c if c is None else c.reshape(gh, gw, 3)) if organized
               else (p[:n], c if c is None else c[:n]) for (gh, gw, p, c), n in zip(outs, counts)]
    return [p if colors is None else (p, c) for p, c in results]
