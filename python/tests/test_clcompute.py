"""The Python package against numpy (and cv2 / open3d where installed): the same values and types,
no copies of arrays the library can read as they are, errors with the library's messages."""
import math
import os
import pathlib
import subprocess
import sys
import threading
import warnings
import weakref

import numpy as np
import pytest

import clcompute

rng = np.random.default_rng(11)


def opencv_gray(img, order, weights="bt601"):
    """OpenCV's fixed-point formula, in numpy."""
    w = {"bt601": (9798, 19235, 3735), "bt709": (6966, 23436, 2366)}[weights]
    r, g, b = (img[..., order.index(c)].astype(np.int64) for c in "rgb")
    return ((r * w[0] + g * w[1] + b * w[2] + 16384) >> 15).astype(np.uint8)


def numpy_median(img, k):
    """cv2.medianBlur's result: the middle of each sorted window, borders replicated; numpy
    sorts NaN last."""
    r = k // 2
    padded = np.pad(img, r, mode="edge")
    windows = np.lib.stride_tricks.sliding_window_view(padded, (k, k)).reshape(*img.shape, k * k)
    return np.sort(windows, axis=-1)[..., k * k // 2]


def test_devices_and_context():
    devs = clcompute.devices()
    assert devs and {"index", "name", "type", "unified_memory"} <= set(devs[0])
    ctx = clcompute.default_context()
    assert ctx.device()["name"] in [d["name"] for d in devs]
    assert isinstance(ctx.reason(), str) and ctx.reason()
    assert "clcompute.Context" in repr(ctx)


def test_tuned_lists_the_variants_chosen_so_far():
    ctx = clcompute.Context()
    assert ctx.tuned() == []  # nothing called yet
    rng = np.random.default_rng(3)
    ctx.gray(rng.integers(0, 256, (48, 64, 3), dtype=np.uint8))
    ctx.depth_to_points(rng.integers(0, 4000, (48, 64), dtype=np.uint16),
                        fx=50.0, fy=50.0, cx=32.0, cy=24.0)
    tuned = ctx.tuned()
    assert [t["family"] for t in tuned][:2] == ["gray", "cloud"]
    for t in tuned:
        assert t["variant"] and t["source"] in ("timed", "stored", "default")


def test_an_empty_selector_is_refused_as_the_tool_refuses_it():
    for empty in ("", "  "):
        with pytest.raises(clcompute.ArgumentError, match="None for the default") as e:
            clcompute.Context(empty)
        assert isinstance(e.value, ValueError) and e.value.status_name == "CLC_ERROR_INVALID_SELECTOR"


def test_unknown_device_raises_the_library_message():
    with pytest.raises(clcompute.Error) as e:
        clcompute.Context("no-such-device")
    assert e.value.status_name == "CLC_ERROR_DEVICE_NOT_MATCHED"
    assert "no-such-device" in str(e.value)


@pytest.mark.parametrize("order", ["rgb", "bgr", "rgba", "bgra"])
@pytest.mark.parametrize("weights", ["bt601", "bt709"])
def test_gray_is_opencv_exact(order, weights):
    for h, w in [(1, 1), (7, 13), (480, 640)]:
        img = rng.integers(0, 256, (h, w, len(order)), dtype=np.uint8)
        got = clcompute.gray(img, order=order, weights=weights)
        assert got.dtype == np.uint8 and got.shape == (h, w)
        np.testing.assert_array_equal(got, opencv_gray(img, order, weights))


def test_gray_matches_cv2_when_installed():
    cv2 = pytest.importorskip("cv2")
    img = rng.integers(0, 256, (123, 457, 3), dtype=np.uint8)
    np.testing.assert_array_equal(clcompute.gray(img, order="bgr"),
                                  cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))


def test_gray_float_output_rounds_to_the_8_bit_result():
    img = rng.integers(0, 256, (31, 29, 3), dtype=np.uint8)
    f = clcompute.gray(img, dtype=np.float32)
    assert f.dtype == np.float32 and 0 <= f.min() and f.max() <= 1
    np.testing.assert_array_equal(np.rint(f * 255).astype(np.uint8), opencv_gray(img, "rgb"))


def test_no_copy_of_arrays_the_library_reads_as_they_are():
    big = rng.integers(0, 256, (100, 300, 3), dtype=np.uint8)
    rows = big[10:60, 20:220]  # a row slice: rows of packed pixels at the big array's stride
    before = clcompute.copies()
    np.testing.assert_array_equal(clcompute.gray(rows), opencv_gray(rows, "rgb"))
    np.testing.assert_array_equal(clcompute.gray(big), opencv_gray(big, "rgb"))
    assert clcompute.copies() == before
    # A view with its channels reversed cannot be read in place: copied once, and right.
    flipped = big[..., ::-1]
    np.testing.assert_array_equal(clcompute.gray(flipped, order="bgr"), opencv_gray(big, "rgb"))
    assert clcompute.copies() == before + 1


def test_the_library_sees_the_callers_memory():
    """The library refuses a median whose output overlaps its input, by comparing the pointers
    it is given: it can only see the overlap if both arrays reach it uncopied."""
    a = rng.integers(0, 1000, (40, 40), dtype=np.uint16)
    with pytest.raises(clcompute.Error) as e:
        clcompute.median(a, 3, out=a)
    assert "overlap" in str(e.value) and e.value.status_name == "CLC_ERROR_INVALID_ARGUMENT"


def test_a_wrong_value_the_library_finds_is_a_value_error():
    """The library's argument statuses raise clcompute.ArgumentError, an Error and a ValueError,
    so numpy users' `except ValueError` sees them; other statuses do not."""
    d = np.full((4, 5), 1000, np.uint16)
    with pytest.raises(ValueError, match="fx=0") as e:
        clcompute.depth_to_points(d, 0.0, 500, 2, 2)
    assert isinstance(e.value, clcompute.ArgumentError) and isinstance(e.value, clcompute.Error)
    assert e.value.status_name == "CLC_ERROR_INVALID_ARGUMENT"
    with pytest.raises(ValueError, match="all 2 items: .*fx=nan"):
        clcompute.depth_to_points_many([d, d.copy()], math.nan, 500, 2, 2)
    with pytest.raises(clcompute.Error) as e:
        clcompute.Context("no-such-device")
    assert not isinstance(e.value, ValueError)  # a selector that matched nothing is not a bad value
    # A negative focal length mirrors the axis, as in Open3D.
    plain = clcompute.depth_to_points(d, 2.0, 3.0, 1.0, 1.0)
    mirrored = clcompute.depth_to_points(d, -2.0, 3.0, 1.0, 1.0)
    assert np.array_equal(mirrored[:, 0], -plain[:, 0]) and np.array_equal(mirrored[:, 1:], plain[:, 1:])


class Tensor:
    """Another library's tensor as clcompute meets it: only DLPack's two methods (numpy's own
    exporter underneath, so the memory is the array's), on the device type given."""

    def __init__(self, array, device_type=1):
        self.array, self.device_type = array, device_type

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (self.device_type, 0)


def test_dlpack_tensors_in_host_memory_are_read_in_place():
    img = rng.integers(0, 256, (30, 40, 3), dtype=np.uint8)
    before = clcompute.copies()
    np.testing.assert_array_equal(clcompute.gray(Tensor(img)), opencv_gray(img, "rgb"))
    a = rng.standard_normal(1000).astype(np.float32)
    assert clcompute.argmax(Tensor(a)) == a.argmax()
    assert clcompute.copies() == before
    # The median sees the tensor's own memory: the overlap with `out` is caught.
    d = rng.integers(0, 1000, (40, 40), dtype=np.uint16)
    with pytest.raises(clcompute.Error, match="overlap"):
        clcompute.median(Tensor(d), 3, out=d)
    # Pinned (CUDA host) memory is host memory too.
    np.testing.assert_array_equal(clcompute.median(Tensor(d, 3), 3), numpy_median(d, 3))


def test_dlpack_tensors_in_device_memory_are_refused_with_what_to_do():
    for kind, name in ((2, "CUDA"), (10, "ROCm"), (4, "OpenCL"), (99, "device type 99")):
        with pytest.raises(TypeError, match=f"{name}.*host memory.*cpu()"):
            clcompute.sum(Tensor(np.zeros(4, np.float32), kind))
    # A tensor its producer cannot export, or numpy cannot take (bfloat16): the reason, and
    # what is taken.
    class Broken(Tensor):
        def __dlpack__(self, **kwargs):
            raise BufferError("the producer cannot export this tensor")

    with pytest.raises(TypeError, match="cannot be read through DLPack: the producer cannot"):
        clcompute.sum(Broken(np.zeros(4, np.float32)))

    class Bfloat16(Tensor):
        dtype = "bfloat16"

        def __dlpack__(self, **kwargs):
            raise BufferError("Unsupported dtype in DLTensor.")

    with pytest.raises(TypeError, match="dtype bfloat16 cannot be read.*takes bool.*float64"):
        clcompute.sum(Bfloat16(np.zeros(4, np.float32)))


def test_other_device_arrays_and_objects_are_refused_at_once():
    """A pyopencl array has no DLPack and no buffer: numpy would read it one element at a time
    from the device (seconds for an image) and make objects of it."""
    class Array:
        def __len__(self):
            raise AssertionError("read item by item")

    Array.__module__ = "pyopencl.array"
    with pytest.raises(TypeError, match="OpenCL device memory.*get()"):
        clcompute.sum(Array())
    with pytest.raises(TypeError, match="not an array of numbers"):
        clcompute.sum([object(), object()])
    # Text is no array of numbers either (numpy makes a <U3 array of "abc").
    with pytest.raises(TypeError, match=r"color \(builtins.str\) is not an array of numbers"):
        clcompute.depth_to_points(np.ones((2, 2), np.uint16), fx=1, fy=1, cx=0, cy=0, color="abc")
    with pytest.raises(TypeError, match="not an array of numbers"):
        clcompute.sum(b"abc")


def test_jax_arrays_when_installed():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    # On the host's memory explicitly: JAX puts arrays on its GPU where it has one.
    cpu = jax.devices("cpu")[0]
    img = rng.integers(0, 256, (30, 40, 3), dtype=np.uint8)
    a = rng.standard_normal(5000).astype(np.float32)
    before = clcompute.copies()
    np.testing.assert_array_equal(
        clcompute.gray(jax.device_put(img, cpu)), opencv_gray(img, "rgb")
    )
    assert clcompute.argmax(jax.device_put(a, cpu)) == a.argmax()
    assert clcompute.copies() == before
    with pytest.raises(TypeError, match="DLPack"):
        clcompute.sum(jax.device_put(jnp.ones(4, jnp.bfloat16), cpu))
    # An array in an accelerator's memory is refused by name, not read element by element.
    for device in jax.devices():
        if device.platform != "cpu":
            with pytest.raises(TypeError, match="device memory.*np.asarray"):
                clcompute.sum(jax.device_put(a, device))


def test_pinned_arrays_are_used_in_place_and_freed_with_their_last_view():
    live = clcompute._clcompute._pinned_live
    ctx = clcompute.Context()
    base = live()
    img = ctx.empty_pinned((30, 40, 3), np.uint8)
    assert img.flags.writeable and img.shape == (30, 40, 3) and img.dtype == np.uint8
    img[...] = rng.integers(0, 256, img.shape, dtype=np.uint8)
    before = clcompute.copies()
    np.testing.assert_array_equal(ctx.gray(img[5:25]), opencv_gray(img[5:25], "rgb"))
    assert clcompute.copies() == before
    d = ctx.empty_pinned((40, 40), np.uint16)
    d[...] = 7
    with pytest.raises(clcompute.Error, match="overlap"):  # the library sees this memory
        ctx.median(d, 3, out=d)
    assert live() == base + 2
    view = img[::2]
    del img, d
    assert live() == base + 1  # the view still holds its memory
    del view
    assert live() == base  # freed
    # The array outlives the Context object it came from.
    a = clcompute.Context().empty_pinned(1000, np.float32)
    a[:] = np.arange(1000, dtype=np.float32)
    assert clcompute.sum(a) == a.sum() and clcompute.empty_pinned((0, 3)).shape == (0, 3)
    del a
    assert live() == base
    # Stored on its own Context: no reference cycle keeps either alive.
    ctx.frame = ctx.empty_pinned((8, 8), np.float32)
    gone = weakref.ref(ctx)
    del ctx
    assert gone() is None and live() == base
    with pytest.raises(ValueError, match="dimension"):
        clcompute.empty_pinned((4, -1))
    with pytest.raises(TypeError, match="dimension of shape must be an integer, not True"):
        clcompute.empty_pinned(True)
    for dtype in (object, str, "S", ">f4"):
        with pytest.raises(TypeError, match="pinned memory"):
            clcompute.empty_pinned(4, dtype)


def test_pinned_arrays_of_the_many_calls_are_theirs():
    """empty_pinned(devices=...) is memory of that batch's first GPU (else first device), which
    its workers read and write as pinned (no staging on a GPU); a context's is ordinary memory to
    a batch, and the other way round. It is freed with its last view, the batch staying."""
    live = clcompute._clcompute._pinned_live
    base = live()
    batch, _, _, pin, device = clcompute._batch("all")
    assert clcompute._batch(None)[0] is batch  # None is "all", one batch for both
    # Spellings of the same devices share the batch (and so its pinned memory).
    indices = ",".join(d["index"] for d in batch.devices())
    assert clcompute._batch(indices)[0] is batch and clcompute._batch(" all")[0] is batch
    listed = batch.devices()
    assert device["name"] == listed[pin]["name"]
    assert not device["unified_memory"] or not any(not d["unified_memory"] for d in listed)
    # The library's default workers, which size the groups of frames.
    assert all(d["workers"] == (2 if d["unified_memory"] else 4) for d in batch.devices())
    d = clcompute.empty_pinned((9, 24, 32), np.uint16, devices="all")
    d[...] = rng.integers(0, 3000, d.shape, dtype=np.uint16)
    out = clcompute.empty_pinned((9, 768, 3), np.float32, devices="all")
    assert live() == base + 2
    assert batch._is_pinned(pin, d) and batch._is_pinned(pin, out[3:5])
    assert batch._is_pinned(pin, d[-1])
    with pytest.raises(IndexError, match="no device 99"):
        batch._is_pinned(99, d)
    ctx = clcompute.default_context()
    assert not ctx._is_pinned(d)
    own = ctx.empty_pinned((24, 32), np.uint16)
    assert ctx._is_pinned(own) and not batch._is_pinned(pin, own)
    args = dict(fx=30, fy=30, cx=16, cy=12, depth_trunc=2.0)
    before = clcompute.copies()
    many = clcompute.depth_to_points_many(d, out=out, **args)
    assert clcompute.copies() == before
    for i, (f, got) in enumerate(zip(d, many)):
        assert got.size == 0 or np.shares_memory(got, out[i])
        np.testing.assert_array_equal(got, clcompute.depth_to_points(f, **args))
    imgs = clcompute.empty_pinned((3, 20, 30, 3), np.uint8, devices="all")
    imgs[...] = rng.integers(0, 256, imgs.shape, dtype=np.uint8)
    grays = clcompute.empty_pinned((3, 20, 30), np.uint8, devices="all")
    for img, got in zip(imgs, clcompute.gray_many(list(imgs), out=grays)):
        np.testing.assert_array_equal(got, clcompute.gray(img))
    del d, out, many, own, imgs, grays, got, f, img
    assert live() == base
    assert clcompute._batch("all")[0] is batch
    with pytest.raises(clcompute.ArgumentError):
        clcompute.empty_pinned(4, np.uint8, devices=" ")
    with pytest.raises(TypeError, match="devices must be a string"):
        clcompute.empty_pinned(4, np.uint8, devices=0)
    with pytest.raises(TypeError, match="pinned memory"):
        clcompute.empty_pinned(4, object, devices="all")
    assert clcompute.empty_pinned((2, 0), np.uint8, devices="all").shape == (2, 0)


def test_out_is_written_in_place():
    img = rng.integers(0, 256, (20, 30, 4), dtype=np.uint8)
    out = np.zeros((20, 30), np.uint8)
    assert clcompute.gray(img, order="rgba", out=out) is out
    np.testing.assert_array_equal(out, opencv_gray(img, "rgba"))
    with pytest.raises(ValueError):
        clcompute.gray(img, order="rgba", out=np.zeros((20, 31), np.uint8))
    # Any strides, as numpy's out: pixels apart, rows reversed, a transpose.
    want = opencv_gray(img, "rgba")
    for wide in (np.zeros((20, 60), np.uint8)[:, ::2], np.zeros((20, 30), np.uint8)[::-1],
                 np.zeros((30, 20), np.uint8).T):
        before = clcompute.copies()
        assert clcompute.gray(img, order="rgba", out=wide) is wide
        np.testing.assert_array_equal(wide, want)
        assert clcompute.copies() == before + 1  # written through a new array
    rows = np.zeros((20, 40), np.uint8)[:, 5:35]  # packed rows at a pitch: written directly
    before = clcompute.copies()
    assert clcompute.gray(img, order="rgba", out=rows) is rows and clcompute.copies() == before
    np.testing.assert_array_equal(rows, want)
    d = rng.integers(0, 1000, (20, 30), dtype=np.uint16)
    gaps = np.zeros((20, 30, 2), np.uint16)[..., 0]
    assert clcompute.median(d, 3, out=gaps) is gaps
    np.testing.assert_array_equal(gaps, clcompute.median(d, 3))
    odd = np.zeros(20 * 61 + 1, np.uint8)[1:].view(np.uint16)  # unaligned rows, odd pitch
    odd = np.lib.stride_tricks.as_strided(odd, (20, 30), (61, 2))
    assert clcompute.median(d, 3, out=odd) is odd
    np.testing.assert_array_equal(odd, clcompute.median(d, 3))
    with pytest.raises(ValueError, match="out may overlap img"):  # refused in any layout
        clcompute.median(d, 3, out=d[::-1])
    unaligned = np.zeros(20 * 30 * 4 + 1, np.uint8)[1:].view(np.float32).reshape(20, 30)
    np.testing.assert_array_equal(clcompute.gray(img, "rgba", dtype=np.float32, out=unaligned),
                                  clcompute.gray(img, "rgba", dtype=np.float32))
    many = np.zeros((2, 20, 90), np.uint8)[:, :, ::3]
    grays = clcompute.gray_many([img, img[::-1]], order="rgba", out=many)
    assert all(np.shares_memory(g, many[i]) for i, g in enumerate(grays))
    np.testing.assert_array_equal(many, [want, want[::-1]])


def test_out_and_numbers_are_checked_with_their_names():
    d = rng.integers(0, 1000, (20, 30), dtype=np.uint16)
    with pytest.raises(TypeError, match="out must be a numpy array"):
        clcompute.median(d, 3, out=[0] * 600)
    with pytest.raises(ValueError, match="native byte order, not .*non-native"):
        clcompute.median(d, 3, out=np.zeros((20, 30), ">u2"))
    frozen = np.zeros((20, 30), np.uint16)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="out is read-only"):
        clcompute.median(d, 3, out=frozen)
    for k in (4, 7, 1):
        with pytest.raises(ValueError, match="ksize must be 3 or 5"):
            clcompute.median(d, k)
    with pytest.raises(TypeError, match="fx must be a real number"):
        clcompute.depth_to_points(d, "525", 525, 15, 10)
    with pytest.raises(TypeError, match="depth_scale must be a real number"):
        clcompute.depth_to_points(d, 525, 525, 15, 10, depth_scale="x")
    with pytest.raises(ValueError, match="fx is too large to be a float"):
        clcompute.depth_to_points(d, 10**400, 525, 15, 10)
    with pytest.raises(ValueError, match="depth_trunc is too large to be a float"):
        clcompute.depth_to_points_many([d], 525, 525, 15, 10, depth_trunc=-10**400)
    with pytest.raises(TypeError, match="organized must be True or False"):
        clcompute.depth_to_points(d, 525, 525, 15, 10, organized="no")
    with pytest.raises(TypeError, match="organized must be True or False"):
        clcompute.depth_to_points_many([d], 525, 525, 15, 10, organized="yes")
    grid = clcompute.depth_to_points(d, np.float32(525), 525, 15, 10, organized=np.True_)
    assert clcompute.depth_to_points(d, 525, 525, 15, 10, organized=np.array(True)).ndim == 3
    assert grid.shape == (20, 30, 3)


def test_gray_refuses_what_it_cannot_convert():
    with pytest.raises(ValueError, match="uint8"):
        clcompute.gray(np.zeros((4, 4, 3), np.float32))
    with pytest.raises(ValueError, match="channels"):
        clcompute.gray(np.zeros((4, 4, 3), np.uint8), order="rgba")
    with pytest.raises(ValueError, match="weights"):
        clcompute.gray(np.zeros((4, 4, 3), np.uint8), weights="bt2020")
    with pytest.raises(TypeError, match="order"):
        clcompute.gray(np.zeros((4, 4, 3), np.uint8), order=None)
    with pytest.raises(TypeError, match="weights"):
        clcompute.gray(np.zeros((4, 4, 3), np.uint8), weights=[1, 2, 3])
    with pytest.raises(ValueError, match="empty"):
        clcompute.gray(np.zeros((0, 5, 3), np.uint8))
    with pytest.raises(ValueError, match="weights"):
        clcompute.gray_many([np.zeros((4, 4, 3), np.uint8)], weights="xx")
    img = rng.integers(0, 256, (4, 4, 3), dtype=np.uint8)
    np.testing.assert_array_equal(clcompute.gray(img, order="BGR", weights="BT709"),
                                  opencv_gray(img, "bgr", "bt709"))


def test_a_refused_call_holds_no_reference_to_its_arrays():
    img = np.zeros((8, 8, 3), np.uint8)
    out = np.empty((8, 16), np.uint8)[:, ::2]  # not rows of packed pixels
    before = sys.getrefcount(img), sys.getrefcount(out)
    for _ in range(100):
        with pytest.raises(ValueError):
            clcompute.default_context()._gray(img, 1, out, 5, 0)
    assert (sys.getrefcount(img), sys.getrefcount(out)) == before


def test_numbers_are_checked_before_the_library_sees_them():
    d = np.full((2, 3), 1500, np.uint16)
    for bad in (dict(depth_scale=0), dict(depth_scale=-1), dict(depth_scale=math.nan),
                dict(depth_scale=math.inf), dict(depth_trunc=0), dict(depth_trunc=math.nan),
                dict(stride=0), dict(stride=2**32)):
        with pytest.raises(ValueError, match=next(iter(bad))):
            clcompute.depth_to_points(d, 500, 500, 1, 1, **bad)
        with pytest.raises(ValueError, match=next(iter(bad))):
            clcompute.depth_to_points_many([d], 500, 500, 1, 1, **bad)
    with pytest.raises(TypeError, match="stride"):
        clcompute.depth_to_points(d, 500, 500, 1, 1, stride=2.9)
    with pytest.raises(TypeError, match="ksize"):
        clcompute.median(d, 3.7)
    with pytest.raises(TypeError, match="masked"):
        clcompute.argmax(np.ma.array([1, 5, 3], mask=[0, 1, 0]))
    assert len(clcompute.depth_to_points(d, 500, 500, 1, 1, depth_trunc=math.inf)) == 6


def test_a_bad_batch_item_is_named_by_its_index():
    img = np.zeros((4, 4, 3), np.uint8)
    with pytest.raises(ValueError, match=r"images\[1\] must be \(H, W, 3\)"):
        clcompute.gray_many([img, np.zeros((4, 4), np.uint8)])
    d = np.full((4, 4), 1000, np.uint16)
    with pytest.raises(ValueError, match=r"depths\[2\] must be \(H, W\) uint16 or float32"):
        clcompute.depth_to_points_many([d, d, d.astype(np.int32)], 500, 500, 2, 2)


@pytest.mark.parametrize("op", ["sum", "mean"])
def test_float_warnings_are_numpys(op):
    """numpy warns when its own additions overflow or make a NaN (not when an infinity or NaN
    came in), and np.errstate decides; clcompute says the same, at the caller's line."""
    cases = [np.array([6e4, 6e4], np.float16), np.array([3e38, 3e38], np.float32),
             np.array([np.inf, -np.inf], np.float32), np.array([np.inf, 1], np.float32),
             np.array([np.nan, 1.0]), np.array([1e308, 1e308]), np.array([1.0, 2.0])]
    for a in cases:
        with warnings.catch_warnings(record=True) as theirs:
            warnings.simplefilter("always")
            want = getattr(a, op)()
        with warnings.catch_warnings(record=True) as ours:
            warnings.simplefilter("always")
            got = getattr(clcompute, op)(a)
        assert repr(got) == repr(want)
        assert [str(w.message) for w in ours] == [str(w.message) for w in theirs], (a, op)
        assert all(w.category is RuntimeWarning and w.filename == __file__ for w in ours)
    with np.errstate(over="raise"), pytest.raises(FloatingPointError, match="overflow"):
        getattr(clcompute, op)(np.array([3e38, 3e38], np.float32))
    calls = []
    old = np.seterrcall(lambda *a: calls.append(a))
    try:
        with np.errstate(over="call", invalid="call"):
            np.array([3e38, 3e38], np.float32).sum(), np.array([np.inf, -np.inf]).sum()
            want, calls[:] = list(calls), []
            getattr(clcompute, op)(np.array([3e38, 3e38], np.float32))
            getattr(clcompute, op)(np.array([np.inf, -np.inf]))
        assert calls == want == [("overflow", 2), ("invalid value", 8)]
    finally:
        np.seterrcall(old)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isinf(getattr(clcompute.default_context(), op)(np.array([3e38, 3e38], np.float32)))


def test_a_failed_batch_item_says_why():
    """An argument of the whole call fails every item alike: the message says all, not the
    first item as if the others had converted."""
    d = np.full((4, 4), 1000, np.uint16)
    with pytest.raises(clcompute.Error, match="all 2 items: .*fx=nan"):
        clcompute.depth_to_points_many([d, d], math.nan, 500, 2, 2)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("k", [3, 5])
def test_median_is_opencv_exact(dtype, k):
    for h, w in [(1, 1), (5, 9), (64, 47)]:
        if dtype == np.float32:
            img = (rng.random((h, w)) * 100).astype(np.float32)
            img[rng.random((h, w)) < 0.1] = np.nan
        else:
            img = rng.integers(0, np.iinfo(dtype).max, (h, w), dtype=dtype)
        got = clcompute.median(img, k)
        assert got.dtype == img.dtype
        np.testing.assert_array_equal(got, numpy_median(img, k))
    with pytest.raises(ValueError, match="ksize must be 3 or 5"):
        clcompute.median(img, 4)
    with pytest.raises(clcompute.Error, match="window size 4"):  # the library's own check
        fmt = {np.uint8: 5, np.uint16: 7, np.float32: 8}[dtype]  # the C enum (clcompute._PIXEL)
        clcompute.default_context()._median(img, fmt, np.empty_like(img), 4)


def test_median_matches_cv2_when_installed():
    cv2 = pytest.importorskip("cv2")
    depth = rng.integers(500, 4000, (240, 320), dtype=np.uint16)
    depth[rng.random(depth.shape) < 0.1] = 0
    for k in (3, 5):
        np.testing.assert_array_equal(clcompute.median(depth, k), cv2.medianBlur(depth, k))


def reference_points(depth, fx, fy, cx, cy, scale, trunc, stride):
    """Open3D's create_from_depth_image, in float32 as the library computes it."""
    d = depth[::stride, ::stride]
    z = d.astype(np.float32) / np.float32(scale)
    v, u = np.mgrid[0:depth.shape[0]:stride, 0:depth.shape[1]:stride].astype(np.float32)
    x = (u - np.float32(cx)) * z / np.float32(fx)
    y = (v - np.float32(cy)) * z / np.float32(fy)
    # Open3D compares its float depth with the double depth_trunc.
    valid = (z > 0) & (z.astype(np.float64) < trunc) & np.isfinite(z)
    return np.stack([x, y, z], -1), valid


@pytest.mark.parametrize("stride", [1, 3])
def test_depth_to_points_in_open3d_order(stride):
    depth = rng.integers(0, 4000, (48, 64), dtype=np.uint16)
    depth[rng.random(depth.shape) < 0.2] = 0
    k = (50.0, 52.0, 31.5, 23.5)
    pts = clcompute.depth_to_points(depth, *k, depth_trunc=3.0, stride=stride)
    want, valid = reference_points(depth, *k, 1000.0, 3.0, stride)
    assert pts.dtype == np.float32 and pts.shape == (int(valid.sum()), 3)
    np.testing.assert_allclose(pts, want[valid], rtol=2e-6, atol=1e-7)
    org = clcompute.depth_to_points(depth, *k, depth_trunc=3.0, stride=stride, organized=True)
    assert org.shape == valid.shape + (3,)
    assert np.isnan(org[~valid]).all()
    np.testing.assert_allclose(org[valid], want[valid], rtol=2e-6, atol=1e-7)


def test_depth_to_points_truncation_as_open3d_compares():
    # Open3D compares the float depth with the double depth_trunc: raw 700 at 1000 units a metre
    # is the float 0.69999999, kept at a 0.7 truncation; so is that float given as metres, and
    # not the next float up.
    d = np.array([[699, 700, 701]], np.uint16)
    assert clcompute.depth_to_points(d, 1, 1, 0, 0, depth_trunc=0.7).shape == (2, 3)
    f = np.array([[0.7, 0.70000005, 0.69]], np.float32)
    pts = clcompute.depth_to_points(f, 1, 1, 0, 0, depth_scale=1.0, depth_trunc=0.7)
    np.testing.assert_array_equal(pts[:, 2], f[0, [0, 2]])


def test_depth_to_points_refuses_a_float_depth_scale_float32_cannot_hold():
    f = np.ones((2, 2), np.float32)
    for bad in (1e-300, 1e300):
        with pytest.raises(ValueError, match="as a float32"):
            clcompute.depth_to_points(f, 1, 1, 0, 0, depth_scale=bad)


def test_depth_to_points_with_color_and_float_metres():
    depth = (rng.random((30, 40)) * 2).astype(np.float32)
    depth[::7] = np.nan
    color = rng.integers(0, 256, (30, 40, 3), dtype=np.uint8)
    pts, cols = clcompute.depth_to_points(depth, 30, 30, 20, 15, depth_scale=1.0, color=color)
    want, valid = reference_points(depth, 30, 30, 20, 15, 1.0, 1000.0, 1)
    assert pts.shape == cols.shape and cols.dtype == np.uint8
    np.testing.assert_array_equal(cols, color[valid])
    np.testing.assert_allclose(pts, want[valid], rtol=2e-6)
    for bad in (color[:, 1:], color.astype(np.float32), color[..., :2]):
        with pytest.raises(ValueError, match=r"color must be \(H, W, 3\) uint8 RGB of its depth's "
                                             r"size \(30, 40\)"):
            clcompute.depth_to_points(depth, 30, 30, 20, 15, depth_scale=1.0, color=bad)
    # As Open3D, float depth is divided by depth_scale too: millimetres in float32.
    mm = depth * np.float32(1000)
    np.testing.assert_allclose(clcompute.depth_to_points(mm, 30, 30, 20, 15, depth_scale=1000),
                               reference_points(mm, 30, 30, 20, 15, 1000.0, 1000.0, 1)[0][valid],
                               rtol=2e-6)


def test_depth_to_points_matches_open3d_when_installed():
    o3d = pytest.importorskip("open3d")
    depth = rng.integers(0, 6000, (120, 160), dtype=np.uint16)
    depth[rng.random(depth.shape) < 0.1] = 0
    intr = o3d.camera.PinholeCameraIntrinsic(160, 120, 140.0, 141.0, 79.5, 59.5)
    ref = o3d.geometry.PointCloud.create_from_depth_image(o3d.geometry.Image(depth), intr,
                                                           depth_scale=1000.0, depth_trunc=3.0)
    pts = clcompute.depth_to_points(depth, 140.0, 141.0, 79.5, 59.5, depth_trunc=3.0)
    # Open3D computes in double, the library in float with reciprocals: within two float ulps.
    np.testing.assert_allclose(pts, np.asarray(ref.points), rtol=3e-7, atol=1e-9)


DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8,
          np.uint16, np.uint32, np.uint64, np.bool_]


@pytest.mark.parametrize("dtype", DTYPES)
def test_reductions_return_what_numpy_returns(dtype):
    ctx = clcompute.default_context()
    if dtype == np.float64 and not ctx.device()["fp64"]:
        pytest.skip("no double precision on this device")
    if dtype == np.bool_:
        a = rng.random((37, 101)) < 0.3
    elif np.dtype(dtype).kind == "f":
        a = (rng.random((37, 101)) * 8 - 4).astype(dtype)
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, (37, 101), dtype=dtype, endpoint=True)
    for name in ("sum", "min", "max", "mean", "argmin", "argmax"):
        got, want = getattr(clcompute, name)(a), getattr(a, name)()
        assert type(got) is type(want), (name, type(got), type(want))
        if np.dtype(dtype).kind == "f" and name in ("sum", "mean"):
            # Both within a few ulps of the exact value (the library's compensated sum is the
            # closer): eps times the sum of magnitudes, per element for the mean.
            exact = getattr(a.astype(np.float64), name)()
            bound = 4 * float(np.finfo(dtype).eps) * float(np.abs(a.astype(np.float64)).sum())
            bound = bound / a.size if name == "mean" else bound
            assert abs(float(got) - exact) <= bound and abs(float(want) - exact) <= bound
        elif name == "mean":
            assert got == pytest.approx(want, rel=1e-12)
        else:
            assert got == want, (name, got, want)


def test_reduction_edges_follow_numpy():
    assert clcompute.sum(np.array([2**63 - 1, 1], np.int64)) == np.int64(-2**63)
    assert np.isnan(clcompute.max(np.array([1, np.nan, 3], np.float32)))
    assert clcompute.argmin(np.array([3, np.nan, np.nan], np.float64)) == 1
    assert clcompute.sum(np.zeros(0, np.float32)) == 0 and clcompute.sum([]) == 0
    for dtype in (np.float32, np.float16, np.float64, np.int64, np.bool_):  # numpy's NaN, warnings
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            got, want = clcompute.mean(np.zeros(0, dtype)), np.zeros(0, dtype).mean()
        assert np.isnan(got) and got.dtype == want.dtype
        assert [str(w.message) for w in said][:2] == [str(w.message) for w in said][2:]
        assert str(said[0].message) == "Mean of empty slice" and len(said) == 4
        assert said[0].filename == said[2].filename == __file__  # at the caller's line
    with pytest.raises(ValueError):
        clcompute.max(np.zeros(0, np.int32))
    with pytest.raises(ValueError):
        clcompute.argmax(np.zeros((0, 3)))
    a = np.arange(12, dtype=np.int32).reshape(3, 4).T  # not contiguous: copied once
    before = clcompute.copies()
    assert clcompute.argmax(a) == a.argmax() and clcompute.copies() == before + 1
    with pytest.raises(TypeError):
        clcompute.sum(np.zeros(3, np.complex64))


@pytest.mark.parametrize("pinned", [False, True])
def test_four_threads_share_one_context(pinned):
    ctx = clcompute.Context()
    imgs = [rng.integers(0, 256, (240, 320, 3), dtype=np.uint8) for _ in range(4)]
    if pinned:  # the lanes are peers of the first: its pinned memory is theirs too
        for i, img in enumerate(imgs):
            imgs[i] = ctx.empty_pinned(img.shape, np.uint8)
            imgs[i][...] = img
    results, errors = [None] * 4, []

    def work(i):
        try:
            for _ in range(10):
                results[i] = ctx.gray(imgs[i])
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for img, got in zip(imgs, results):
        np.testing.assert_array_equal(got, opencv_gray(img, "rgb"))
    # Threads that met inside a call made lanes (queues of their own); how many is up to timing.
    assert 1 <= ctx._lanes() <= 8


def test_the_source_tree_says_it_is_not_the_installed_package():
    python_dir = pathlib.Path(__file__).resolve().parents[1]
    if any(p.suffix in (".so", ".pyd") for p in (python_dir / "clcompute").glob("_clcompute*")):
        pytest.skip("the extension was built in the source tree")
    r = subprocess.run([sys.executable, "-c", "import clcompute"], cwd=python_dir,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "pip install ." in r.stderr, r.stderr


def test_many_equals_one_at_a_time():
    imgs = [rng.integers(0, 256, (h, 50, 3), dtype=np.uint8) for h in (10, 20, 30, 1)]
    for img, got in zip(imgs, clcompute.gray_many(imgs)):
        np.testing.assert_array_equal(got, clcompute.gray(img))
    depths = [rng.integers(0, 3000, (24, 32), dtype=np.uint16) for _ in range(5)]
    many = clcompute.depth_to_points_many(depths, 30, 30, 16, 12, depth_trunc=2.0)
    for d, got in zip(depths, many):
        np.testing.assert_array_equal(got, clcompute.depth_to_points(d, 30, 30, 16, 12,
                                                                     depth_trunc=2.0))


@pytest.mark.parametrize("organized", [False, True])
def test_an_array_of_frames_is_converted_in_groups(organized):
    """An (N, H, W) array goes to the library a group of frames a call (clc_depth_to_points_many);
    every frame is what a call of its own gives, whatever group it fell in, in place for any
    stride of frames and rows, and an empty frame keeps its place."""
    d = rng.integers(0, 3000, (37, 24, 32), dtype=np.uint16)
    d[:, ::3, ::5] = 0
    d[[0, 9, 36]] = 0  # frames with no point, at a group's start and at the end
    args = dict(fx=30, fy=30, cx=16, cy=12, depth_trunc=2.0, organized=organized)
    before = clcompute.copies()
    for frames in (d, d[::2], d[:, :, :30], d[:, 1:, :], d.astype(np.float32)):
        many = clcompute.depth_to_points_many(frames, **args)
        assert len(many) == len(frames)
        for f, got in zip(frames, many):
            np.testing.assert_array_equal(got, clcompute.depth_to_points(f, **args))
    assert clcompute.copies() == before
    assert clcompute.depth_to_points_many(np.zeros((0, 4, 4), np.uint16), **args) == []


@pytest.mark.parametrize("organized", [False, True])
def test_many_frames_with_colors(organized):
    """colors= gives each frame's (points, colors) as depth_to_points(..., color=) does, for an
    array of frames (in groups when the colours are such an array too: fewer batch items than
    frames) and for lists; a colour of the wrong size, dtype or count is refused by name."""
    d = rng.integers(0, 3000, (37, 24, 32), dtype=np.uint16)
    d[:, ::3, ::5] = 0
    c = rng.integers(0, 256, (37, 24, 32, 3), dtype=np.uint8)
    args = dict(fx=30, fy=30, cx=16, cy=12, depth_trunc=2.0, organized=organized)
    entry = clcompute._batch("all")

    for depths, colors, grouped in ((d, c, True), (list(d), list(c), False), (d, list(c), False),
                                    (d[::2], c[::2], False), (d, c[:, :, ::-1], False)):
        many = clcompute.depth_to_points_many(depths, **args, colors=colors)
        assert len(many) == len(depths)
        items = sum(dev["items_done"] for dev in entry.batch.devices())  # of this run
        assert items == len(depths) if not grouped else items < len(depths)
        for f, col, (points, rgb) in zip(depths, colors, many):
            want_points, want_rgb = clcompute.depth_to_points(f, **args, color=col)
            np.testing.assert_array_equal(points, want_points)
            np.testing.assert_array_equal(rgb, want_rgb)
    assert clcompute.depth_to_points_many([], **args, colors=[]) == []
    with pytest.raises(ValueError, match="colors has 36 images for 37 depth frames"):
        clcompute.depth_to_points_many(d, **args, colors=c[1:])
    with pytest.raises(ValueError, match=r"colors\[0\] must be \(H, W, 3\) uint8"):
        clcompute.depth_to_points_many(d, **args, colors=c.astype(np.float32))
    with pytest.raises(ValueError, match=r"colors\[2\] must be .* not \(24, 31, 3\)"):
        clcompute.depth_to_points_many(d[:3], **args, colors=[c[0], c[1], c[2, :, 1:]])
    with pytest.raises(ValueError, match="colors must be a list of them"):
        clcompute.depth_to_points_many(d[:1], **args, colors=c[0])
    # An out that shares memory with the colours is refused, as one that shares the depths'.
    shape = (4, 24 * 32, 3) if not organized else (4, 24, 32, 3)
    buf = np.zeros(4 * 24 * 32 * 12 + 64, np.uint8)
    out = buf[:4 * 24 * 32 * 12].view(np.float32).reshape(shape)
    shared = buf[64:64 + 4 * 24 * 32 * 3].reshape(4, 24, 32, 3)
    shared[...] = c[:4]
    for shared in (shared, list(shared)):
        with pytest.raises(ValueError, match=r"out may overlap colors\[0"):
            clcompute.depth_to_points_many(d[:4], **args, colors=shared, out=out)


@pytest.mark.parametrize("organized", [False, True])
def test_many_frames_into_out(organized):
    """out= takes every frame's points, from an array (groups) or a list (a call a frame), and
    the results are views of it; a second call reuses it."""
    d = rng.integers(0, 3000, (21, 24, 32), dtype=np.uint16)
    d[:, ::3, ::5] = 0
    d[[0, 7, 20]] = 0
    args = dict(fx=30, fy=30, cx=16, cy=12, depth_trunc=2.0, organized=organized)
    out = np.full((21, 24, 32, 3) if organized else (21, 768, 3), 7.0, np.float32)
    for frames in (d, list(d[::-1]), d.astype(np.float32)):
        many = clcompute.depth_to_points_many(frames, out=out, **args)
        for i, (f, got) in enumerate(zip(frames, many)):
            assert got.size == 0 or np.shares_memory(got, out[i])
            np.testing.assert_array_equal(got, clcompute.depth_to_points(f, **args))


def test_a_wrong_out_for_many_frames_is_refused():
    d = np.full((4, 6, 8), 1000, np.uint16)
    args = dict(fx=30, fy=30, cx=4, cy=3)
    with pytest.raises(ValueError, match=r"shape \(4, 48, 3\) and dtype float32"):
        clcompute.depth_to_points_many(d, out=np.zeros((4, 48, 3)), **args)
    with pytest.raises(ValueError, match=r"shape \(4, 6, 8, 3\)"):
        clcompute.depth_to_points_many(d, out=np.zeros((4, 48, 3), np.float32), organized=True,
                                       **args)
    with pytest.raises(ValueError, match="C-contiguous and aligned"):
        clcompute.depth_to_points_many(d, out=np.zeros((4, 48, 3), np.float32)[::-1], **args)
    with pytest.raises(TypeError, match="numpy array"):
        clcompute.depth_to_points_many(d, out=[0.0] * 576, **args)
    with pytest.raises(ValueError, match=r"one size: their point grids differ \(8x3, 8x6\)"):
        clcompute.depth_to_points_many([d[0], d[0, :3]], out=np.zeros((2, 48, 3), np.float32),
                                       **args)


def test_gray_many_into_out():
    imgs = [rng.integers(0, 256, (20, 30, 3), dtype=np.uint8) for _ in range(5)]
    out = np.zeros((5, 20, 30), np.uint8)
    grays = clcompute.gray_many(imgs, out=out)
    for i, (img, got) in enumerate(zip(imgs, grays)):
        assert np.shares_memory(got, out[i])
        np.testing.assert_array_equal(out[i], clcompute.gray(img))
    with pytest.raises(ValueError, match=r"shape \(5, 20, 30\) and dtype uint8"):
        clcompute.gray_many(imgs, out=np.zeros((4, 20, 30), np.uint8))
    with pytest.raises(ValueError, match=r"images of one size, not 30x10, 30x20"):
        clcompute.gray_many([imgs[0], imgs[1][:10]], out=out[:2])
    assert clcompute.gray_many([], out=out[:0]) == []


def test_many_calls_from_threads_take_turns():
    """Threads calling the _many functions on the same devices share one batch, which runs one
    set of items at a time (the library refuses a second run at once): they take turns."""
    d = rng.integers(0, 3000, (8, 24, 32), dtype=np.uint16)
    imgs = [rng.integers(0, 256, (16, 24, 3), dtype=np.uint8) for _ in range(8)]
    want = [clcompute.depth_to_points(f, 525, 525, 15.5, 11.5) for f in d]
    want_gray = [clcompute.gray(i) for i in imgs]
    errors = []

    def work():
        try:
            for _ in range(20):
                for got, w in zip(clcompute.depth_to_points_many(list(d), 525, 525, 15.5, 11.5),
                                  want):
                    np.testing.assert_array_equal(got, w)
                for got, w in zip(clcompute.gray_many(imgs), want_gray):
                    np.testing.assert_array_equal(got, w)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_misused_many_calls_say_what_is_wrong():
    d = np.full((4, 6, 8), 1000, np.uint16)
    img = np.zeros((6, 8, 3), np.uint8)
    args = dict(fx=30, fy=30, cx=4, cy=3)
    with pytest.raises(ValueError, match=r"depths must be a list of them or an array with one "
                                         r"more dimension, not one \(6, 8\) uint16 array"):
        clcompute.depth_to_points_many(d[0], **args)
    with pytest.raises(ValueError, match=r"images must be a list .* not one \(6, 8, 3\) uint8 "
                                         r"array \(pass \[x\] or x\[None\]\)$"):
        clcompute.gray_many(img)
    # A stack of one-channel images is no single image: no hint that would not help.
    with pytest.raises(ValueError, match=r"whose last is 3 or 4, not a \(5, 6, 8\) uint8 array$"):
        clcompute.gray_many(np.zeros((5, 6, 8), np.uint8))
    with pytest.raises(ValueError, match=r"colors must .* last is 3, not a \(4, 6, 8\) uint8 "
                                         r"array$"):
        clcompute.depth_to_points_many(d, **args, colors=np.zeros((4, 6, 8), np.uint8))
    for bad in (None, "depth.png", {"a": d}):
        with pytest.raises(TypeError, match="depths must be a list or an array"):
            clcompute.depth_to_points_many(bad, **args)
    for bad in (np.array(5, np.uint16), d[None]):  # 0-d, and a dimension too many
        with pytest.raises(ValueError, match=r"depths must be a list of them or an array of 3 "
                                             r"dimensions \(the first counting them\), not a"):
            clcompute.depth_to_points_many(bad, **args)
    # A memoryview of frames is read as the array it views (Python cannot iterate it).
    assert len(clcompute.depth_to_points_many(memoryview(d), **args)) == 4
    assert len(clcompute.gray_many(memoryview(np.zeros((2, 6, 8, 3), np.uint8)))) == 2
    with pytest.raises(TypeError, match=r"images\[1\] \(builtins.NoneType\) is not an array"):
        clcompute.gray_many([img, None])
    with pytest.raises(TypeError, match=r"depths\[2\] \(builtins.object\) is not an array"):
        clcompute.depth_to_points_many([d[0], d[1], object()], **args)
    with pytest.raises(ValueError, match=r"images\[1\]: order 'rgb' does not fit 4 channels"):
        clcompute.gray_many([img, np.zeros((6, 8, 4), np.uint8)])
    with pytest.raises(ValueError, match=r"out may overlap depths\[0(:\d+)?\]"):
        buf = np.zeros((4, 48, 3), np.float32)
        frames = buf.reshape(4, 6, 24)[:, :, :8]
        frames[...] = 1.0
        clcompute.depth_to_points_many(frames, depth_scale=1.0, out=buf, **args)
    with pytest.raises(ValueError, match=r"out may overlap images\[0\]"):
        both = np.zeros((1, 6, 8, 3), np.uint8)
        clcompute.gray_many(both, out=both[..., 0])
    with pytest.raises(TypeError, match="masked"):
        clcompute.gray_many([img], out=np.ma.zeros((1, 6, 8), np.uint8))
    # No frames: out is still checked, as numpy does.
    with pytest.raises(TypeError, match="out must be a numpy array"):
        clcompute.depth_to_points_many([], out="garbage", **args)
    with pytest.raises(ValueError, match=r"shape \(0, 48, 3\) and dtype float32"):
        clcompute.depth_to_points_many(d[:0], out=np.zeros((0, 48, 3)), **args)
    with pytest.raises(ValueError, match=r"shape \(0, 1, 1\) and dtype uint8"):
        clcompute.gray_many([], out=np.zeros((3, 3), np.uint8))
    assert clcompute.gray_many([], out=np.zeros((0, 6, 8), np.uint8)) == []
    with pytest.raises(clcompute.ArgumentError, match="devices must be selectors"):
        clcompute.gray_many([img], devices=" ")
    with pytest.raises(TypeError, match="devices must be a string"):
        clcompute.gray_many([img], devices=0)


def test_gray_refuses_an_out_over_its_input():
    img = rng.integers(0, 256, (16, 16, 3), dtype=np.uint8)
    with pytest.raises(ValueError, match="out may overlap img"):
        clcompute.gray(img, out=img.reshape(16, 48)[:, 32:])


def test_context_and_pinned_misuse_say_what_is_wrong():
    with pytest.raises(TypeError, match="device must be a selector string"):
        clcompute.Context(0)
    with pytest.raises(clcompute.ArgumentError, match="a Context is one device"):
        clcompute.Context("gpu,cpu")
    largest = clcompute.default_context().device()["max_alloc_bytes"]
    with pytest.raises(MemoryError, match="largest buffer"):
        clcompute.empty_pinned(largest + 1, np.uint8)


def test_unaligned_arrays_are_copied():
    d = (np.arange(48, dtype=np.uint16) * 50 + 500).reshape(6, 8)
    raw = b"\0" + d.tobytes()
    odd = np.frombuffer(raw, np.uint16, offset=1).reshape(6, 8)
    assert not odd.flags.aligned
    before = clcompute.copies()
    np.testing.assert_array_equal(clcompute.depth_to_points(odd, 30, 30, 4, 3),
                                  clcompute.depth_to_points(d, 30, 30, 4, 3))
    assert clcompute.copies() == before + 1
    # A buffer is read in place when its layout allows, else copied: the same rule as arrays.
    words = np.arange(1, 9, dtype=np.uint16)
    before = clcompute.copies()
    assert clcompute.sum(memoryview(words)) == 36 and clcompute.copies() == before
    odd_words = memoryview(bytearray(b"\0" + words.tobytes()))[1:].cast("B").cast("H")
    assert clcompute.sum(odd_words) == 36 and clcompute.copies() == before + 1
    assert clcompute.sum(memoryview(words.astype(">u2"))) == 36
    assert clcompute.sum([1, 2, 3]) == 6 and clcompute.copies() == before + 3
    with pytest.raises(ValueError, match="aligned to its float32 elements"):
        out = np.zeros(4 * 48 * 3 * 4 + 1, np.uint8)[1:].view(np.float32).reshape(4, 48, 3)
        clcompute.depth_to_points_many(d[None].repeat(4, 0), 30, 30, 4, 3, out=out)


def test_a_failed_group_of_frames_names_its_frames():
    d = np.full((400, 4, 4), 1000, np.uint16)  # groups of 2 or more up to 100 workers
    with pytest.raises(ValueError, match=r"all 400 items: .*fx=nan"):  # frames, not groups
        clcompute.depth_to_points_many(d, math.nan, 500, 2, 2)
    # Frames apart (a[::2]) go one by one: a group would carry the frames between them too.
    with pytest.raises(ValueError, match=r"all 200 items: .*fx=nan"):
        clcompute.depth_to_points_many(d[::2], math.nan, 500, 2, 2)
    with pytest.raises(TypeError, match="masked arrays are not supported"):
        clcompute.depth_to_points_many(np.ma.masked_equal(d, 1000), 500, 500, 2, 2)
    with pytest.raises(ValueError, match=r"depths holds empty frames"):
        clcompute.depth_to_points_many(np.zeros((3, 0, 4), np.uint16), 500, 500, 2, 2)
    with pytest.raises(ValueError, match=r"depths must be \(N, H, W\) uint16 or float32"):
        clcompute.depth_to_points_many(d.astype(np.int32), 500, 500, 2, 2)


def run_example(*args):
    """An example in a process of its own. A device that this process holds can be hidden from
    a second one (on the H200 host the child saw only PoCL while pytest had the GPU open, as an
    NVIDIA GPU in exclusive-process compute mode does): a child refused for that runs again on the
    default device, so the example is still run."""
    cmd = [sys.executable, *map(str, args)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if (r.returncode != 0 and os.environ.get("CLCOMPUTE_DEVICE")
            and "CLC_ERROR_DEVICE_NOT_MATCHED" in r.stderr):
        env = {k: v for k, v in os.environ.items() if k != "CLCOMPUTE_DEVICE"}
        warnings.warn(f"{args[0]}: CLCOMPUTE_DEVICE is not visible to a second process; the "
                      "example ran on the default device")
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    return r


def test_the_examples_run(tmp_path):
    """examples/python, as the README shows them (gray_photo needs cv2)."""
    here = pathlib.Path(__file__).resolve().parents[2]
    ex = here / "examples" / "python"
    run = run_example
    r = run(ex / "reduce.py")
    assert r.returncode == 0 and "x.sum()" in r.stdout, r.stderr
    r = run(ex / "reduce.py", "--help")
    assert r.returncode == 0 and "usage:" in r.stdout, r.stderr
    # A selector that matches nothing: one line naming it, no traceback.
    bad = subprocess.run([sys.executable, str(ex / "reduce.py"), "no-such-device"],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr, bad.stderr
    assert "no-such-device" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    depth = (rng.integers(500, 3000, (48, 64))).astype(np.uint16)
    np.save(tmp_path / "depth.npy", depth)  # needs neither OpenCV nor Open3D
    r = run(ex / "depth_to_ply.py", tmp_path / "depth.npy", tmp_path / "n.ply", "--fx", 50,
            "--fy", 50, "--cx", 32, "--cy", 24)
    assert r.returncode == 0 and (tmp_path / "n.ply").stat().st_size > 48 * 64 * 12, r.stderr
    # Wrong input and an output that cannot be written: one line each, exit 1, no file left.
    (tmp_path / "text.npy").write_text("not an array")
    (tmp_path / "folder.ply").mkdir()
    for depth_file, out in (("text.npy", "t.ply"), ("depth.npy", "folder.ply"),
                            ("missing.npy", "m.ply")):
        r = run(ex / "depth_to_ply.py", tmp_path / depth_file, tmp_path / out, "--fx", 50,
                "--fy", 50, "--cx", 32, "--cy", 24)
        assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "Traceback" not in r.stderr
    assert sorted(p.name for p in tmp_path.glob("*.ply")) == ["folder.ply", "n.ply"]
    # An output in a folder that is not there is refused before the conversion, not after it.
    r = run(ex / "depth_to_ply.py", tmp_path / "depth.npy", tmp_path / "nodir" / "m.ply", "--fx",
            50, "--fy", 50, "--cx", 32, "--cy", 24)
    assert r.returncode == 1 and "nodir is not a folder" in r.stderr, r.stderr
    assert r.stdout == "" and "Traceback" not in r.stderr, r.stdout
    # The input under another name as the output, and a format it does not write: refused, the
    # input as it was.
    (tmp_path / "same.npy").symlink_to(tmp_path / "depth.npy")
    saved = (tmp_path / "depth.npy").read_bytes()
    for out, says in (("same.npy", "the input itself"), ("c.xyz", "PLY files only")):
        r = run(ex / "depth_to_ply.py", tmp_path / "depth.npy", tmp_path / out, "--fx", 50,
                "--fy", 50, "--cx", 32, "--cy", 24)
        assert r.returncode == 1 and says in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert (tmp_path / "depth.npy").read_bytes() == saved and not (tmp_path / "c.xyz").exists()
    try:
        import cv2
    except ImportError:
        cv2 = None
    if cv2 is not None:
        cv2.imwrite(str(tmp_path / "depth.png"), depth)
        r = run(ex / "depth_to_ply.py", tmp_path / "depth.png", tmp_path / "c.ply", "--fx", 50,
                "--fy", 50, "--cx", 32, "--cy", 24)
        assert r.returncode == 0 and (tmp_path / "c.ply").stat().st_size > 48 * 64 * 12, r.stderr
        cv2.imwrite(str(tmp_path / "p.jpg"), rng.integers(0, 256, (40, 60, 3), dtype=np.uint8))
        r = run(ex / "gray_photo.py", tmp_path / "p.jpg", tmp_path / "g.png")
        assert r.returncode == 0 and (tmp_path / "g.png").exists(), r.stderr
        saved = (tmp_path / "p.jpg").read_bytes()
        r = run(ex / "gray_photo.py", tmp_path / "p.jpg", tmp_path / ".." / tmp_path.name / "p.jpg")
        assert r.returncode == 1 and "the input itself" in r.stderr, r.stderr
        assert (tmp_path / "p.jpg").read_bytes() == saved
