/* The CPython binding of libclcompute: a thin layer over the C API, in the limited API (one
 * abi3 wheel for CPython 3.11 and later) and the buffer protocol, so numpy arrays (and anything
 * else exporting buffers: bytes, array.array, memoryview, PyTorch CPU tensors through numpy)
 * reach the library without a copy. Shapes, dtypes and numpy's result types are the Python
 * layer's business (clcompute/__init__.py); here every image is a buffer with rows, columns,
 * bytes a pixel and a pitch, checked against the buffer's own shape and strides. The GIL is
 * released around every call into the library. docs/python.md says why it is built this way. */
#define Py_LIMITED_API 0x030B0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <clcompute/clcompute.h>

static PyObject *error_type;          /* clcompute.Error */
static PyObject *argument_error_type; /* clcompute.ArgumentError */

/* Raises clcompute.Error(message) with .status = st (a clc_status) and .status_name
 * ("CLC_ERROR_INVALID_ARGUMENT"): clcompute.ArgumentError, which is a ValueError too, for the
 * statuses that say the caller's values were wrong, so that `except ValueError` catches a zero
 * focal length as it catches numpy's bad values. */
static PyObject *raise_message(clc_status st, const char *message)
{
    PyObject *type = st == CLC_ERROR_INVALID_ARGUMENT || st == CLC_ERROR_INVALID_SELECTOR ||
                             st == CLC_ERROR_SIZE_OVERFLOW
                         ? argument_error_type
                         : error_type;
    PyObject *e = PyObject_CallFunction(type, "s", message);
    PyObject *code = PyLong_FromLong((long)st);
    PyObject *name = PyUnicode_FromString(clc_status_string(st));
    if (e && code && name && PyObject_SetAttrString(e, "status", code) == 0 &&
        PyObject_SetAttrString(e, "status_name", name) == 0)
        PyErr_SetObject(type, e);
    Py_XDECREF(e), Py_XDECREF(code), Py_XDECREF(name);
    return NULL;
}

/* The library's last error on this thread, build logs included. */
static PyObject *raise_status(clc_status st)
{
    return raise_message(st, clc_last_error());
}

/* ---- images as buffers ----------------------------------------------------------------------- */

typedef struct image {
    Py_buffer view;
    int held;
    size_t rows, cols, pitch; /* pitch: bytes from one row to the next */
} image;

static void release_image(image *im)
{
    if (im->held)
        PyBuffer_Release(&im->view);
    im->held = 0;
}

/* The buffer of obj as an image of `pixel` bytes a pixel: 1-D (one row), 2-D (rows, cols) or
 * 3-D (rows, cols, channels) with the pixels of a row packed and rows at any stride of at least
 * a row (the pitch): numpy's C-contiguous arrays and row slices of larger ones. Holds nothing
 * after a failure. */
static int image_of_view(image *im, size_t pixel, const char *what);

static int get_image(PyObject *obj, int writable, size_t pixel, const char *what, image *im)
{
    memset(im, 0, sizeof *im);
    if (PyObject_GetBuffer(obj, &im->view, PyBUF_STRIDES | (writable ? PyBUF_WRITABLE : 0)) != 0)
        return -1;
    im->held = 1;
    return image_of_view(im, pixel, what);
}

/* get_image's checks of the view im holds. */
static int image_of_view(image *im, size_t pixel, const char *what)
{
    const Py_buffer *v = &im->view;
    const Py_ssize_t item = v->itemsize;
    Py_ssize_t cols = v->ndim >= 2 ? v->shape[1] : v->ndim == 1 ? v->shape[0] : 1;
    Py_ssize_t rows = v->ndim >= 2 ? v->shape[0] : 1;
    Py_ssize_t inner = item; /* bytes of one pixel as the buffer says */
    int packed = 1;
    if (v->ndim == 3) {
        inner = v->shape[2] * item;
        packed = v->strides[2] == item;
    }
    if (v->ndim >= 2)
        packed = packed && v->strides[1] == inner;
    else if (v->ndim == 1)
        packed = v->strides[0] == item;
    const Py_ssize_t pitch = v->ndim >= 2 ? v->strides[0] : cols * inner;
    if (v->ndim < 1 || v->ndim > 3 || !packed || (size_t)inner != pixel || rows <= 0 || cols <= 0 ||
        pitch < cols * inner) {
        PyErr_Format(PyExc_ValueError,
                     "%s: expected rows of packed %zu-byte pixels (a C-contiguous array or a row "
                     "slice of one)",
                     what, pixel);
        release_image(im);
        return -1;
    }
    im->rows = (size_t)rows, im->cols = (size_t)cols, im->pitch = (size_t)pitch;
    return 0;
}

/* A cloud item's depth: an (H, W) image (one frame), or (F, H, W) frames of one array, each rows
 * of packed pixels, frame f at f * *frame_bytes from the first. */
static int get_depth(PyObject *obj, size_t pixel, image *im, size_t *frames, size_t *frame_bytes)
{
    memset(im, 0, sizeof *im);
    if (PyObject_GetBuffer(obj, &im->view, PyBUF_STRIDES) != 0)
        return -1;
    im->held = 1;
    const Py_buffer *v = &im->view;
    if (v->ndim != 3) {
        *frames = 1, *frame_bytes = 0;
        return image_of_view(im, pixel, "depth");
    }
    const Py_ssize_t *n = v->shape, *step = v->strides;
    if ((size_t)v->itemsize != pixel || n[0] <= 0 || n[1] <= 0 || n[2] <= 0 ||
        step[2] != v->itemsize || step[1] < n[2] * step[2] || step[0] < n[1] * step[1]) {
        PyErr_Format(PyExc_ValueError,
                     "depth: expected (frames, rows, cols) of %zu-byte pixels, rows packed and "
                     "frames one after another",
                     pixel);
        release_image(im);
        return -1;
    }
    *frames = (size_t)n[0], *frame_bytes = (size_t)step[0];
    im->rows = (size_t)n[1], im->cols = (size_t)n[2], im->pitch = (size_t)step[1];
    return 0;
}

/* A cloud item's colour, for its `frames` depth frames of rows x cols: an (H, W, 3) RGB8 image
 * for one frame, (F, H, W, 3) frames of one array, each rows packed, for several; *frame_bytes:
 * from one frame to the next. */
static int get_color(PyObject *obj, size_t frames, size_t rows, size_t cols, image *im,
                     size_t *frame_bytes)
{
    *frame_bytes = 0;
    if (frames == 1)
        return get_image(obj, 0, 3, "color", im);
    memset(im, 0, sizeof *im);
    if (PyObject_GetBuffer(obj, &im->view, PyBUF_STRIDES) != 0)
        return -1;
    im->held = 1;
    const Py_buffer *v = &im->view;
    const Py_ssize_t *n = v->shape, *step = v->strides;
    if (v->ndim != 4 || v->itemsize != 1 || (size_t)n[0] != frames || (size_t)n[1] != rows ||
        (size_t)n[2] != cols || n[3] != 3 || step[3] != 1 || step[2] != 3 || step[1] < n[2] * 3 ||
        step[0] < n[1] * step[1]) {
        PyErr_Format(PyExc_ValueError,
                     "color: expected (%zu, %zu, %zu, 3) RGB8 frames, rows packed and frames one "
                     "after another",
                     frames, rows, cols);
        release_image(im);
        return -1;
    }
    *frame_bytes = (size_t)step[0];
    im->rows = rows, im->cols = cols, im->pitch = (size_t)step[1];
    return 0;
}

/* A contiguous buffer of at least `bytes`. */
static int get_flat(PyObject *obj, int writable, size_t bytes, const char *what, Py_buffer *view)
{
    if (PyObject_GetBuffer(obj, view, writable ? PyBUF_WRITABLE : PyBUF_SIMPLE) != 0)
        return -1;
    if ((size_t)view->len < bytes) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes, %zu needed", what, view->len, bytes);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* ---- devices --------------------------------------------------------------------------------- */

static PyObject *device_dict(const clc_device_info *d)
{
    char index[32];
    snprintf(index, sizeof index, "%u:%u", d->platform_index, d->device_index);
    return Py_BuildValue(
        "{s:s,s:s,s:s,s:s,s:s,s:s,s:I,s:K,s:K,s:O,s:O,s:O,s:s}", "index", index, "name", d->name,
        "platform", d->platform_name, "vendor", d->vendor, "type", clc_device_type_string(d->type),
        "driver", d->driver_version, "compute_units", d->compute_units, "global_mem_bytes",
        (unsigned long long)d->global_mem_bytes, "max_alloc_bytes",
        (unsigned long long)d->max_alloc_bytes, "unified_memory",
        d->unified_memory ? Py_True : Py_False, "fp64", d->fp64 ? Py_True : Py_False, "available",
        d->available ? Py_True : Py_False, "pci_bus", d->pci_bus ? d->pci_bus : "");
}

static PyObject *devices(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    clc_device_list *list = NULL;
    clc_status st;
    PyThreadState *ts_ = PyEval_SaveThread();
    st = clc_devices_query(&list);
    PyEval_RestoreThread(ts_);
    if (st != CLC_SUCCESS)
        return raise_status(st);
    PyObject *out = PyList_New(0);
    for (size_t i = 0; out && i < clc_device_list_count(list); ++i) {
        PyObject *d = device_dict(clc_device_list_get(list, i));
        if (!d || PyList_Append(out, d) != 0)
            Py_CLEAR(out);
        Py_XDECREF(d);
    }
    clc_device_list_destroy(list);
    return out;
}

/* _select(selectors) -> the "P:D" index of every device they name, in order (what a batch on
 * them would hold): the _many calls' key, so that two spellings of one set share a batch. */
static PyObject *select_devices(PyObject *self, PyObject *args)
{
    (void)self;
    const char *selectors = NULL;
    if (!PyArg_ParseTuple(args, "s", &selectors))
        return NULL;
    clc_device_list *list = NULL;
    size_t *indices = NULL, count = 0;
    PyThreadState *ts = PyEval_SaveThread();
    clc_status st = clc_devices_query(&list);
    if (st == CLC_SUCCESS) /* the count first: a device may be named any number of times */
        st = clc_device_select_many(list, selectors, NULL, 0, &count);
    if (st == CLC_ERROR_SIZE_OVERFLOW) {
        indices = malloc(count * sizeof *indices);
        st = indices ? clc_device_select_many(list, selectors, indices, count, &count)
                     : CLC_ERROR_OUT_OF_HOST_MEMORY;
    }
    PyEval_RestoreThread(ts);
    PyObject *out = st == CLC_SUCCESS                    ? PyTuple_New((Py_ssize_t)count)
                    : st == CLC_ERROR_OUT_OF_HOST_MEMORY ? PyErr_NoMemory()
                                                         : raise_status(st);
    for (size_t i = 0; out && i < count; ++i) {
        const clc_device_info *d = clc_device_list_get(list, indices[i]);
        PyObject *index = PyUnicode_FromFormat("%u:%u", d->platform_index, d->device_index);
        if (!index || PyTuple_SetItem(out, (Py_ssize_t)i, index) != 0)
            Py_CLEAR(out);
    }
    free(indices);
    clc_device_list_destroy(list);
    return out;
}

/* ---- objects holding one library handle (Context, Batch) --------------------------------------
 */

typedef struct {
    PyObject_HEAD void *handle;
} Handle;

/* __init__(selector=default): *handle = make(selector), with the GIL released (device discovery
 * and, for a batch, every worker's context take a while). */
static int handle_init(PyObject *self, PyObject *args, PyObject *kwargs, char *keyword,
                       const char *fallback, clc_status (*make)(const char *selector, void **out))
{
    char *kw[] = {keyword, NULL};
    const char *selector = fallback;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|z", kw, &selector))
        return -1;
    Handle *h = (Handle *)self;
    if (h->handle) {
        PyErr_SetString(PyExc_RuntimeError, "__init__ called twice");
        return -1;
    }
    PyThreadState *ts = PyEval_SaveThread();
    const clc_status st = make(selector, &h->handle);
    PyEval_RestoreThread(ts);
    if (st != CLC_SUCCESS) {
        raise_status(st);
        return -1;
    }
    return 0;
}

/* The handle; NULL after an exception when __init__ did not run (a subclass that skipped it). */
static void *handle_of(PyObject *self)
{
    void *handle = ((Handle *)self)->handle;
    if (!handle)
        PyErr_SetString(PyExc_RuntimeError, "the object was not initialised (__init__ not called)");
    return handle;
}

/* Frees an object of one of this module's heap types (the type holds a reference). */
static void free_object(PyObject *self)
{
    PyTypeObject *type = Py_TYPE(self);
    freefunc tp_free = (freefunc)PyType_GetSlot(type, Py_tp_free);
    tp_free(self);
    Py_DECREF(type);
}

/* Destroys the handle (GIL released: a batch waits for its workers) and frees the object. */
static void handle_dealloc(PyObject *self, void (*destroy)(void *handle))
{
    Handle *h = (Handle *)self;
    if (h->handle) {
        PyThreadState *ts = PyEval_SaveThread();
        destroy(h->handle);
        PyEval_RestoreThread(ts);
    }
    free_object(self);
}

/* ---- Context --------------------------------------------------------------------------------- */

static clc_status make_context(const char *device, void **out)
{
    clc_context_options options = {0};
    options.device = device;
    return clc_context_create(&options, (clc_context **)out);
}

/* A Context is the library context its __init__ made (lane 0) and, once threads call it at the
 * same time, more lanes: library contexts over the same OpenCL context and device, each with a
 * queue (and staging buffers) of its own, made when a call finds every lane busy, up to
 * MAX_LANES; past that, calls share lane 0, which the library allows. With one queue for all,
 * threads waited on each other's transfers and finishes: on the H200 four threads converting
 * 1080p images to gray made 0.66x the frames of one. The GIL is the lock of the lane table. */
enum { MAX_LANES = 8 };

/* Lane 0, counted: the Context holds one reference and each pinned allocation (HostMemory) one,
 * since its memory lives as long as lane 0 does. Counting lane 0 rather than the Python object
 * keeps pinned arrays stored on their own Context (ctx.frame = ctx.empty_pinned(...)) out of a
 * reference cycle that neither numpy arrays nor HostMemory would let the collector see. The GIL
 * guards refs. */
typedef struct {
    clc_context *ctx;
    Py_ssize_t refs;
} first_lane;

static void first_lane_release(first_lane *f)
{
    if (--f->refs > 0)
        return;
    PyThreadState *ts = PyEval_SaveThread(); /* destroying waits for the queue */
    clc_context_destroy(f->ctx);
    PyEval_RestoreThread(ts);
    PyMem_Free(f);
}

typedef struct {
    Handle base;
    clc_context *lane[MAX_LANES]; /* lane[0] is base.handle, once __init__ ran */
    unsigned busy;                /* bit i: lane i is in a call */
    first_lane *first;            /* lane 0's count, made by __init__ */
} ContextObject;

static int context_init(PyObject *self, PyObject *args, PyObject *kwargs)
{
    ContextObject *c = (ContextObject *)self;
    first_lane *first = PyMem_Malloc(sizeof *first);
    if (!first) {
        PyErr_NoMemory();
        return -1;
    }
    if (handle_init(self, args, kwargs, "device", NULL, make_context) != 0) {
        PyMem_Free(first);
        return -1;
    }
    first->ctx = c->lane[0] = c->base.handle;
    first->refs = 1;
    c->first = first;
    return 0;
}

/* The other lanes (peers of lane 0, so destroyed first), then this object's reference to lane 0,
 * which is destroyed here unless pinned memory still holds it. (Lane 0 exists only with its
 * count: __init__ makes both or neither.) */
static void context_dealloc(PyObject *self)
{
    ContextObject *c = (ContextObject *)self;
    PyThreadState *ts = PyEval_SaveThread();
    for (int i = 1; i < MAX_LANES; ++i)
        clc_context_destroy(c->lane[i]);
    PyEval_RestoreThread(ts);
    if (c->first)
        first_lane_release(c->first);
    free_object(self);
}

static clc_context *context_of(PyObject *self)
{
    return handle_of(self);
}

/* A lane for one call (called with the GIL; *slot is -1 when the call shares lane 0). A free
 * lane not made yet is made here, reserved while the GIL is released for it; if that fails the
 * call shares lane 0 (the failure is a resource limit, and lane 0 still works). */
static clc_context *lane_acquire(PyObject *self, int *slot)
{
    ContextObject *c = (ContextObject *)self;
    c->lane[0] = c->base.handle; /* set by __init__ (without the GIL, so read it here) */
    for (int i = 0; i < MAX_LANES; ++i) {
        if (c->busy & (1u << i))
            continue;
        c->busy |= 1u << i;
        if (!c->lane[i]) {
            clc_context *made = NULL;
            /* Lanes stage their transfers: the driver's own path takes one at a time. */
            clc_context_options options = {0};
            options.transfers = CLC_TRANSFERS_STAGED;
            PyThreadState *ts = PyEval_SaveThread();
            clc_status st =
                clc_context_wrap(clc_context_cl_context(c->lane[0]),
                                 clc_context_cl_device(c->lane[0]), NULL, &options, &made);
            /* A peer of lane 0: its pinned memory (empty_pinned) and its timed variants. */
            if (st == CLC_SUCCESS && (st = clc_context_share(made, c->lane[0])) != CLC_SUCCESS)
                clc_context_destroy(made);
            PyEval_RestoreThread(ts);
            if (st != CLC_SUCCESS) {
                c->busy &= ~(1u << i);
                break;
            }
            c->lane[i] = made;
        }
        *slot = i;
        return c->lane[i];
    }
    *slot = -1;
    return c->lane[0];
}

static void lane_release(PyObject *self, int slot)
{
    if (slot >= 0)
        ((ContextObject *)self)->busy &= ~(1u << slot);
}

/* How many lanes the context has made (for tests). */
static PyObject *context_lanes(PyObject *self, PyObject *unused)
{
    (void)unused;
    const ContextObject *c = (const ContextObject *)self;
    int n = 0;
    for (int i = 0; i < MAX_LANES; ++i)
        n += c->lane[i] != NULL;
    return PyLong_FromLong(n);
}

static PyObject *context_device(PyObject *self, PyObject *unused)
{
    (void)unused;
    clc_context *ctx = context_of(self);
    return ctx ? device_dict(clc_context_device(ctx)) : NULL;
}

static PyObject *context_reason(PyObject *self, PyObject *unused)
{
    (void)unused;
    clc_context *ctx = context_of(self);
    return ctx ? PyUnicode_FromString(clc_context_selection_reason(ctx)) : NULL;
}

/* [{"family": "gray", "variant": "blocks-words", "source": "timed"}, ...]: clc_context_tuned. */
static PyObject *context_tuned(PyObject *self, PyObject *unused)
{
    (void)unused;
    static const char *const sources[] = {"timed", "stored", "default"};
    clc_context *ctx = context_of(self);
    if (!ctx)
        return NULL;
    /* Without the GIL: the list waits for a family another thread is timing. Larger arrays
     * while another thread's first calls add families meanwhile. */
    clc_tuned_choice fixed[8], *c = fixed;
    size_t room = sizeof fixed / sizeof fixed[0], n = 0;
    for (;;) {
        PyThreadState *ts = PyEval_SaveThread();
        const clc_status st = clc_context_tuned(ctx, c, room, &n);
        PyEval_RestoreThread(ts);
        if (st != CLC_SUCCESS) {
            if (c != fixed)
                free(c);
            return raise_status(st);
        }
        if (n <= room)
            break;
        if (c != fixed)
            free(c);
        room = n + 4;
        if (!(c = malloc(room * sizeof *c)))
            return PyErr_NoMemory();
    }
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; ++i) {
        PyObject *d = Py_BuildValue("{s:s,s:s,s:s}", "family", c[i].family, "variant", c[i].variant,
                                    "source", sources[c[i].source]);
        if (!d || PyList_SetItem(list, (Py_ssize_t)i, d) != 0) /* steals d, even on failure */
            Py_CLEAR(list);
    }
    if (c != fixed)
        free(c);
    return list;
}

/* _gray(src, src_format, dst, dst_format, weights) */
static PyObject *context_gray(PyObject *self, PyObject *args)
{
    PyObject *src_obj, *dst_obj;
    int src_format, dst_format, weights;
    clc_context *ctx = context_of(self);
    if (!ctx ||
        !PyArg_ParseTuple(args, "OiOii", &src_obj, &src_format, &dst_obj, &dst_format, &weights))
        return NULL;
    image src, dst;
    if (get_image(src_obj, 0, clc_pixel_size((clc_pixel_format)src_format), "img", &src) != 0)
        return NULL;
    if (get_image(dst_obj, 1, clc_pixel_size((clc_pixel_format)dst_format), "out", &dst) != 0) {
        release_image(&src);
        return NULL;
    }
    const clc_image_desc s = {(clc_pixel_format)src_format, src.cols, src.rows, src.pitch};
    const clc_image_desc d = {(clc_pixel_format)dst_format, dst.cols, dst.rows, dst.pitch};
    clc_gray_options o = {(clc_gray_weights)weights};
    clc_status st;
    int slot;
    clc_context *lane = lane_acquire(self, &slot);
    PyThreadState *ts_ = PyEval_SaveThread();
    st = clc_gray(lane, &s, src.view.buf, &d, dst.view.buf, &o);
    PyEval_RestoreThread(ts_);
    lane_release(self, slot);
    release_image(&src);
    release_image(&dst);
    if (st != CLC_SUCCESS)
        return raise_status(st);
    Py_RETURN_NONE;
}

/* _median(src, format, dst, ksize) */
static PyObject *context_median(PyObject *self, PyObject *args)
{
    PyObject *src_obj, *dst_obj;
    int format;
    unsigned ksize;
    clc_context *ctx = context_of(self);
    if (!ctx || !PyArg_ParseTuple(args, "OiOI", &src_obj, &format, &dst_obj, &ksize))
        return NULL;
    const size_t pixel = clc_pixel_size((clc_pixel_format)format);
    image src, dst;
    if (get_image(src_obj, 0, pixel, "img", &src) != 0)
        return NULL;
    if (get_image(dst_obj, 1, pixel, "out", &dst) != 0) {
        release_image(&src);
        return NULL;
    }
    const clc_image_desc s = {(clc_pixel_format)format, src.cols, src.rows, src.pitch};
    const clc_image_desc d = {(clc_pixel_format)format, dst.cols, dst.rows, dst.pitch};
    clc_status st;
    int slot;
    clc_context *lane = lane_acquire(self, &slot);
    PyThreadState *ts_ = PyEval_SaveThread();
    st = clc_median(lane, &s, src.view.buf, &d, dst.view.buf, ksize);
    PyEval_RestoreThread(ts_);
    lane_release(self, slot);
    release_image(&src);
    release_image(&dst);
    if (st != CLC_SUCCESS)
        return raise_status(st);
    Py_RETURN_NONE;
}

/* _depth_to_points(depth, depth_format, color_or_None, (fx, fy, cx, cy), scale, trunc, stride,
 * organized, points, colors_or_None) -> count. points and colors hold the whole grid. */
static PyObject *context_cloud(PyObject *self, PyObject *args)
{
    PyObject *depth_obj, *color_obj, *points_obj, *colors_obj;
    int format, organized;
    double fx, fy, cx, cy, scale, trunc;
    unsigned stride;
    clc_context *ctx = context_of(self);
    if (!ctx ||
        !PyArg_ParseTuple(args, "OiO(dddd)ddIpOO", &depth_obj, &format, &color_obj, &fx, &fy, &cx,
                          &cy, &scale, &trunc, &stride, &organized, &points_obj, &colors_obj))
        return NULL;
    image depth, color = {0};
    Py_buffer points = {0}, colors = {0};
    int have_points = 0, have_colors = 0;
    PyObject *result = NULL;
    if (get_image(depth_obj, 0, clc_pixel_size((clc_pixel_format)format), "depth", &depth) != 0)
        return NULL;
    if (color_obj != Py_None && get_image(color_obj, 0, 3, "color", &color) != 0)
        goto done;
    const clc_image_desc d = {(clc_pixel_format)format, depth.cols, depth.rows, depth.pitch};
    const clc_image_desc c = {CLC_PIXEL_RGB8, color.cols, color.rows, color.pitch};
    clc_cloud_options o = {scale, trunc, stride, organized ? CLC_CLOUD_ORGANIZED : CLC_CLOUD_DENSE};
    size_t grid = 0;
    clc_status st = clc_cloud_grid_size(&d, &o, &grid);
    if (st != CLC_SUCCESS) {
        raise_status(st);
        goto done;
    }
    if (get_flat(points_obj, 1, grid * 12, "points", &points) != 0)
        goto done;
    have_points = 1;
    if (colors_obj != Py_None) {
        if (get_flat(colors_obj, 1, grid * 3, "colors", &colors) != 0)
            goto done;
        have_colors = 1;
    }
    size_t count = 0;
    const int with_color = color_obj != Py_None;
    int slot;
    clc_context *lane = lane_acquire(self, &slot);
    PyThreadState *ts_ = PyEval_SaveThread();
    st = clc_depth_to_points(lane, &d, depth.view.buf, with_color ? &c : NULL,
                             with_color ? color.view.buf : NULL, &(clc_intrinsics){fx, fy, cx, cy},
                             &o, points.buf, have_colors ? colors.buf : NULL, grid, &count);
    PyEval_RestoreThread(ts_);
    lane_release(self, slot);
    if (st != CLC_SUCCESS)
        raise_status(st);
    else
        result = PyLong_FromSize_t(count);
done:
    if (have_points)
        PyBuffer_Release(&points);
    if (have_colors)
        PyBuffer_Release(&colors);
    release_image(&color);
    release_image(&depth);
    return result;
}

/* _reduce(op, dtype, data, count) -> (f, i, u, index) */
static PyObject *context_reduce(PyObject *self, PyObject *args)
{
    int op, type;
    PyObject *obj;
    Py_ssize_t count;
    clc_context *ctx = context_of(self);
    if (!ctx || !PyArg_ParseTuple(args, "iiOn", &op, &type, &obj, &count))
        return NULL;
    Py_buffer view;
    const size_t esize = clc_dtype_size((clc_dtype)type);
    if (count < 0 || get_flat(obj, 0, (size_t)count * esize, "a", &view) != 0)
        return NULL;
    clc_reduce_result r;
    clc_status st;
    int slot;
    clc_context *lane = lane_acquire(self, &slot);
    PyThreadState *ts_ = PyEval_SaveThread();
    st = clc_reduce(lane, (clc_reduce_op)op, (clc_dtype)type, view.buf, (size_t)count, &r);
    PyEval_RestoreThread(ts_);
    lane_release(self, slot);
    PyBuffer_Release(&view);
    if (st != CLC_SUCCESS)
        return raise_status(st);
    return Py_BuildValue("(dLKK)", r.f, (long long)r.i, (unsigned long long)r.u,
                         (unsigned long long)r.index);
}

/* ---- pinned host memory (clc_host_alloc) ---------------------------------------------------- */

/* Memory from clc_host_alloc, exported as a writable buffer (numpy views it): on a Context's
 * first lane, holding a reference to that lane (not to the Context), or on one device of a
 * Batch, holding the Batch (clc_batch_context: every worker of that device knows it as pinned;
 * a CPU device of the batch reads any host memory in place). The other lanes of a Context are
 * peers of the first (clc_context_share), so they know it as pinned too; a Context's memory is
 * ordinary memory to a batch and a batch's to a Context (staged: correct, at the staged speed). */
typedef struct {
    PyObject_HEAD first_lane *owner; /* NULL for a batch's memory */
    PyObject *batch;                 /* the Batch, for a batch's memory */
    clc_context *ctx;                /* the context that allocated it */
    void *ptr;
    Py_ssize_t bytes;
} HostMemory;

static Py_ssize_t host_memory_live; /* HostMemory objects alive (tests; the GIL guards it) */

static PyObject *host_memory_type;

static int host_memory_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    const HostMemory *h = (const HostMemory *)self;
    return PyBuffer_FillInfo(view, self, h->ptr, h->bytes, 0, flags);
}

static void host_memory_dealloc(PyObject *self)
{
    HostMemory *h = (HostMemory *)self;
    if (h->ptr) {
        PyThreadState *ts = PyEval_SaveThread(); /* the free waits for the queue */
        clc_host_free(h->ctx, h->ptr);           /* cannot fail: the pointer is ctx's */
        PyEval_RestoreThread(ts);
        if (h->owner)
            first_lane_release(h->owner);
        Py_XDECREF(h->batch);
        --host_memory_live;
    }
    free_object(self);
}

static PyType_Slot host_memory_slots[] = {
    {Py_tp_doc, "Pinned host memory of a Context or Batch (clc_host_alloc), as a buffer."},
    {Py_bf_getbuffer, host_memory_getbuffer},
    {Py_tp_dealloc, host_memory_dealloc},
    {0, NULL}};

static PyType_Spec host_memory_spec = {"clcompute._clcompute.HostMemory", sizeof(HostMemory), 0,
                                       Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
                                       host_memory_slots};

/* HostMemory of `bytes` (> 0) from clc_host_alloc on ctx, which belongs to `first` (a
 * Context's lane 0) or to `batch` (a device's context); the object holds that one. */
static PyObject *host_memory_new(clc_context *ctx, first_lane *first, PyObject *batch,
                                 Py_ssize_t bytes)
{
    if (bytes <= 0) {
        PyErr_SetString(PyExc_ValueError, "pinned memory of 0 bytes or fewer");
        return NULL;
    }
    PyTypeObject *type = (PyTypeObject *)host_memory_type;
    allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
    HostMemory *h = (HostMemory *)alloc(type, 0);
    if (!h)
        return NULL;
    void *ptr = NULL;
    PyThreadState *ts = PyEval_SaveThread(); /* mapping a large buffer takes a while */
    const clc_status st = clc_host_alloc(ctx, (size_t)bytes, &ptr);
    PyEval_RestoreThread(ts);
    if (st != CLC_SUCCESS) {
        Py_DECREF(h); /* ptr NULL: nothing to free */
        return raise_status(st);
    }
    if (first)
        ++first->refs;
    Py_XINCREF(batch);
    ++host_memory_live;
    h->owner = first;
    h->batch = batch;
    h->ctx = ctx;
    h->ptr = ptr;
    h->bytes = bytes;
    return (PyObject *)h;
}

/* _host_alloc(bytes) -> HostMemory of that many bytes on lane 0. */
static PyObject *context_host_alloc(PyObject *self, PyObject *args)
{
    clc_context *ctx = context_of(self);
    Py_ssize_t bytes = 0;
    if (!ctx || !PyArg_ParseTuple(args, "n", &bytes))
        return NULL;
    return host_memory_new(ctx, ((ContextObject *)self)->first, NULL, bytes);
}

/* The library's own test of whether [data, data + bytes) is clc_host_alloc memory of ctx's group
 * (lib/runtime/internal.h; the static library is linked in): the tests' proof that a call reads
 * pinned memory as such, which on a CPU device nothing else shows. */
int clc__host_pinned(clc_context *ctx, const void *data, size_t bytes);

/* Whether ctx knows view's memory as pinned; releases the view. */
static PyObject *is_pinned(clc_context *ctx, Py_buffer *view)
{
    const int pinned = clc__host_pinned(ctx, view->buf, (size_t)view->len);
    PyBuffer_Release(view);
    return PyBool_FromLong(pinned);
}

/* _is_pinned(buffer) -> whether lane 0 knows the buffer's memory as pinned (tests). */
static PyObject *context_is_pinned(PyObject *self, PyObject *args)
{
    clc_context *ctx = context_of(self);
    Py_buffer view;
    if (!ctx || !PyArg_ParseTuple(args, "y*", &view))
        return NULL;
    return is_pinned(ctx, &view);
}

/* How many pinned allocations are alive (for tests: that they are freed). */
static PyObject *pinned_live(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return PyLong_FromSsize_t(host_memory_live);
}

static PyMethodDef context_methods[] = {
    {"device", context_device, METH_NOARGS, "The device: a dict as devices() gives."},
    {"reason", context_reason, METH_NOARGS, "Why this device was chosen."},
    {"tuned", context_tuned, METH_NOARGS,
     "The variants chosen so far (gray, cloud, staging), each a dict of family, variant and "
     "source: 'timed' in this process, 'stored' (read from the disk cache) or 'default'."},
    {"_lanes", context_lanes, METH_NOARGS, NULL},
    {"_gray", context_gray, METH_VARARGS, NULL},
    {"_median", context_median, METH_VARARGS, NULL},
    {"_depth_to_points", context_cloud, METH_VARARGS, NULL},
    {"_reduce", context_reduce, METH_VARARGS, NULL},
    {"_host_alloc", context_host_alloc, METH_VARARGS, NULL},
    {"_is_pinned", context_is_pinned, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyType_Slot context_slots[] = {
    {Py_tp_doc, "A device, its OpenCL context and queue, and the kernels built for it."},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_init, context_init},
    {Py_tp_dealloc, context_dealloc},
    {Py_tp_methods, context_methods},
    {0, NULL}};

static PyType_Spec context_spec = {"clcompute._clcompute.Context", sizeof(ContextObject), 0,
                                   Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, context_slots};

/* ---- Batch ----------------------------------------------------------------------------------- */

static clc_status make_batch(const char *devices, void **out)
{
    clc_batch_options options = {0};
    options.devices = devices;
    return clc_batch_create(&options, (clc_batch **)out);
}

static int batch_init(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return handle_init(self, args, kwargs, "devices", "all", make_batch);
}

static void destroy_batch(void *batch)
{
    clc_batch_destroy(batch);
}

static void batch_dealloc(PyObject *self)
{
    handle_dealloc(self, destroy_batch);
}

static clc_batch *batch_of(PyObject *self)
{
    return handle_of(self);
}

/* The items of a batch run, their buffers held (with the GIL) before the run. */
typedef struct item {
    image src, dst;  /* gray: image and output; cloud: depth and colour (dst.held: with colour) */
    Py_buffer extra; /* cloud: points */
    int have_extra;
    Py_buffer colors; /* cloud with colour: the points' colours */
    int have_colors;
    size_t color_frame_bytes;
    int src_format, dst_format, weights;
    double k[4], scale, trunc;
    unsigned stride;
    int organized;
    size_t frames, frame_bytes; /* cloud: depth frames of the item, and from one to the next */
    size_t *counts;             /* cloud: points made in each frame */
    char error[512]; /* the library's message when the item failed (from its worker's thread) */
} item;

/* Keeps the worker thread's message of a failed item. */
static clc_status noted(item *it, clc_status st)
{
    if (st != CLC_SUCCESS)
        snprintf(it->error, sizeof it->error, "%s", clc_last_error());
    return st;
}

static clc_status gray_job(clc_context *ctx, size_t i, void *user)
{
    item *it = (item *)user + i;
    const clc_image_desc s = {(clc_pixel_format)it->src_format, it->src.cols, it->src.rows,
                              it->src.pitch};
    const clc_image_desc d = {(clc_pixel_format)it->dst_format, it->dst.cols, it->dst.rows,
                              it->dst.pitch};
    clc_gray_options o = {(clc_gray_weights)it->weights};
    return noted(it, clc_gray(ctx, &s, it->src.view.buf, &d, it->dst.view.buf, &o));
}

static clc_status cloud_job(clc_context *ctx, size_t i, void *user)
{
    item *it = (item *)user + i;
    const clc_image_desc d = {(clc_pixel_format)it->src_format, it->src.cols, it->src.rows,
                              it->src.pitch};
    clc_cloud_options o = {it->scale, it->trunc, it->stride,
                           it->organized ? CLC_CLOUD_ORGANIZED : CLC_CLOUD_DENSE};
    const clc_intrinsics k = {it->k[0], it->k[1], it->k[2], it->k[3]};
    const clc_image_desc c = {CLC_PIXEL_RGB8, it->dst.cols, it->dst.rows, it->dst.pitch};
    const int with_color = it->have_colors;
    size_t grid = 0;
    clc_status st = clc_cloud_grid_size(&d, &o, &grid);
    /* A frame alone keeps the single call's path; frames of one array are one call, a launch or
     * two for all of them (what a small frame needs to reach the bus on a GPU). */
    if (st == CLC_SUCCESS && it->frames == 1)
        st = clc_depth_to_points(ctx, &d, it->src.view.buf, with_color ? &c : NULL,
                                 with_color ? it->dst.view.buf : NULL, &k, &o, it->extra.buf,
                                 with_color ? it->colors.buf : NULL, grid, it->counts);
    else if (st == CLC_SUCCESS)
        st = clc_depth_to_points_many(ctx, it->frames, &d, it->src.view.buf, it->frame_bytes,
                                      with_color ? &c : NULL, with_color ? it->dst.view.buf : NULL,
                                      it->color_frame_bytes, &k, &o, it->extra.buf,
                                      with_color ? it->colors.buf : NULL, it->counts);
    return noted(it, st);
}

static void release_items(item *items, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        release_image(&items[i].src);
        release_image(&items[i].dst);
        if (items[i].have_extra)
            PyBuffer_Release(&items[i].extra);
        if (items[i].have_colors)
            PyBuffer_Release(&items[i].colors);
        PyMem_Free(items[i].counts);
    }
    PyMem_Free(items);
}

/* The frames an item stands for in a failure's message: a gray item, and a cloud item of one
 * frame, are one. */
static size_t frames_of(const item *it)
{
    return it->frames ? it->frames : 1;
}

/* Runs the items; for a failure raises naming the first failed item by its place among the
 * frames (an item of gray, or a cloud item that is one frame, is one), or saying "all" when
 * every item failed alike (an argument of the whole call, such as fx=0). */
static int run_items(clc_batch *b, item *items, size_t n, clc_batch_job job)
{
    clc_status *statuses = PyMem_Calloc(n ? n : 1, sizeof *statuses);
    if (!statuses) {
        PyErr_NoMemory();
        return -1;
    }
    clc_status st;
    PyThreadState *ts_ = PyEval_SaveThread();
    st = clc_batch_run(b, n, job, items, statuses, NULL, NULL);
    PyEval_RestoreThread(ts_);
    int rc = 0;
    if (st != CLC_SUCCESS) {
        size_t bad = 0;
        while (bad < n && statuses[bad] == CLC_SUCCESS)
            ++bad;
        const clc_status first = bad < n ? statuses[bad] : st;
        const char *why = bad < n && items[bad].error[0] ? items[bad].error : clc_last_error();
        size_t at = 0, frames = 0;
        for (size_t i = 0; i < n; ++i) {
            at += i < bad ? frames_of(&items[i]) : 0;
            frames += frames_of(&items[i]);
        }
        const size_t span = bad < n ? frames_of(&items[bad]) : 1;
        int alike = bad == 0 && n > 1 && items[0].error[0];
        for (size_t i = 1; alike && i < n; ++i)
            alike = statuses[i] == first && strcmp(items[i].error, items[0].error) == 0;
        PyObject *text = bad == n   ? PyUnicode_FromString(why) /* the run itself failed */
                         : alike    ? PyUnicode_FromFormat("all %zu items: %s", frames, why)
                         : span > 1 ? PyUnicode_FromFormat("items %zu-%zu of %zu: %s", at,
                                                           at + span - 1, frames, why)
                                    : PyUnicode_FromFormat("item %zu of %zu: %s", at, frames, why);
        const char *utf8 = text ? PyUnicode_AsUTF8AndSize(text, NULL) : NULL;
        if (utf8)
            raise_message(first, utf8);
        Py_XDECREF(text);
        rc = -1;
    }
    PyMem_Free(statuses);
    return rc;
}

/* The batch and the list of a _many call, and zeroed items for the list; NULL after an
 * exception. */
static item *items_for(PyObject *self, PyObject *args, clc_batch **b, PyObject **list,
                       Py_ssize_t *n)
{
    *b = batch_of(self);
    if (!*b || !PyArg_ParseTuple(args, "O!", &PyList_Type, list))
        return NULL;
    *n = PyList_Size(*list);
    item *items = PyMem_Calloc(*n ? (size_t)*n : 1, sizeof *items);
    if (!items)
        PyErr_NoMemory();
    return items;
}

/* _gray_many([(src, src_format, dst, dst_format, weights), ...]) */
static PyObject *batch_gray(PyObject *self, PyObject *args)
{
    clc_batch *b;
    PyObject *list;
    Py_ssize_t n;
    item *items = items_for(self, args, &b, &list, &n);
    if (!items)
        return NULL;
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject *src, *dst;
        item *it = &items[i];
        if (!PyArg_ParseTuple(PyList_GetItem(list, i), "OiOii", &src, &it->src_format, &dst,
                              &it->dst_format, &it->weights) ||
            get_image(src, 0, clc_pixel_size((clc_pixel_format)it->src_format), "img", &it->src) !=
                0 ||
            get_image(dst, 1, clc_pixel_size((clc_pixel_format)it->dst_format), "out", &it->dst) !=
                0) {
            release_items(items, (size_t)n);
            return NULL;
        }
    }
    const int rc = run_items(b, items, (size_t)n, gray_job);
    release_items(items, (size_t)n);
    if (rc != 0)
        return NULL;
    Py_RETURN_NONE;
}

/* _depth_to_points_many([(depth, format, (fx, fy, cx, cy), scale, trunc, stride, organized,
 * points, color, colors), ...]) -> [count, ...], a count for each frame of each item in order.
 * depth is one (H, W) frame or (F, H, W) frames of one array; points holds F grids of points;
 * color (None, or RGB8 frames as the depth's: (H, W, 3) or (F, H, W, 3)) and colors (F grids of
 * RGB8) come together or not at all. */
static PyObject *batch_cloud(PyObject *self, PyObject *args)
{
    clc_batch *b;
    PyObject *list;
    Py_ssize_t n;
    item *items = items_for(self, args, &b, &list, &n);
    if (!items)
        return NULL;
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject *depth, *points, *color, *colors;
        item *it = &items[i];
        if (!PyArg_ParseTuple(PyList_GetItem(list, i), "Oi(dddd)ddIpOOO", &depth, &it->src_format,
                              &it->k[0], &it->k[1], &it->k[2], &it->k[3], &it->scale, &it->trunc,
                              &it->stride, &it->organized, &points, &color, &colors) ||
            get_depth(depth, clc_pixel_size((clc_pixel_format)it->src_format), &it->src,
                      &it->frames, &it->frame_bytes) != 0) {
            release_items(items, (size_t)n);
            return NULL;
        }
        const size_t stride = it->stride ? it->stride : 1;
        const size_t grid =
            ((it->src.cols + stride - 1) / stride) * ((it->src.rows + stride - 1) / stride);
        if (get_flat(points, 1, it->frames * grid * 12, "points", &it->extra) != 0) {
            release_items(items, (size_t)n);
            return NULL;
        }
        it->have_extra = 1;
        if ((color == Py_None) != (colors == Py_None)) {
            PyErr_SetString(PyExc_ValueError, "color and colors come together or not at all");
            release_items(items, (size_t)n);
            return NULL;
        }
        if (color != Py_None &&
            (get_color(color, it->frames, it->src.rows, it->src.cols, &it->dst,
                       &it->color_frame_bytes) != 0 ||
             get_flat(colors, 1, it->frames * grid * 3, "colors", &it->colors) != 0)) {
            release_items(items, (size_t)n);
            return NULL;
        }
        it->have_colors = color != Py_None;
        if (!(it->counts = PyMem_Calloc(it->frames, sizeof *it->counts))) {
            release_items(items, (size_t)n);
            return PyErr_NoMemory();
        }
    }
    const int rc = run_items(b, items, (size_t)n, cloud_job);
    PyObject *counts = rc == 0 ? PyList_New(0) : NULL;
    for (Py_ssize_t i = 0; counts && i < n; ++i)
        for (size_t f = 0; counts && f < items[i].frames; ++f) {
            PyObject *c = PyLong_FromSize_t(items[i].counts[f]);
            if (!c || PyList_Append(counts, c) != 0)
                Py_CLEAR(counts);
            Py_XDECREF(c);
        }
    release_items(items, (size_t)n);
    return counts;
}

static PyObject *batch_devices(PyObject *self, PyObject *unused)
{
    (void)unused;
    clc_batch *b = batch_of(self);
    PyObject *out = b ? PyList_New(0) : NULL;
    for (size_t i = 0; out && i < clc_batch_device_count(b); ++i) {
        PyObject *d = device_dict(clc_batch_device(b, i));
        if (d) {
            PyObject *done = PyLong_FromSize_t(clc_batch_items_done(b, i));
            PyObject *workers = PyLong_FromSize_t(clc_batch_workers(b, i));
            if (!done || !workers || PyDict_SetItemString(d, "items_done", done) != 0 ||
                PyDict_SetItemString(d, "workers", workers) != 0)
                Py_CLEAR(d);
            Py_XDECREF(done);
            Py_XDECREF(workers);
        }
        if (!d || PyList_Append(out, d) != 0)
            Py_CLEAR(out);
        Py_XDECREF(d);
    }
    return out;
}

/* The context of the batch's device `device` (with the Python error when there is none). */
static clc_context *batch_device_context(PyObject *self, Py_ssize_t device)
{
    clc_batch *b = batch_of(self);
    clc_context *ctx = b && device >= 0 ? clc_batch_context(b, (size_t)device) : NULL;
    if (b && !ctx)
        PyErr_Format(PyExc_IndexError, "the batch has no device %zd", device);
    return ctx;
}

/* _host_alloc(device, bytes) -> HostMemory of that many bytes on that device's first worker. */
static PyObject *batch_host_alloc(PyObject *self, PyObject *args)
{
    Py_ssize_t device = 0, bytes = 0;
    if (!PyArg_ParseTuple(args, "nn", &device, &bytes))
        return NULL;
    clc_context *ctx = batch_device_context(self, device);
    return ctx ? host_memory_new(ctx, NULL, self, bytes) : NULL;
}

/* _is_pinned(device, buffer) -> whether that device's workers know the memory as pinned (tests). */
static PyObject *batch_is_pinned(PyObject *self, PyObject *args)
{
    Py_ssize_t device = 0;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "ny*", &device, &view))
        return NULL;
    clc_context *ctx = batch_device_context(self, device);
    if (!ctx) {
        PyBuffer_Release(&view);
        return NULL;
    }
    return is_pinned(ctx, &view);
}

static PyMethodDef batch_methods[] = {
    {"devices", batch_devices, METH_NOARGS,
     "The devices taking part, each with its workers and the items it did in the last run."},
    {"_gray_many", batch_gray, METH_VARARGS, NULL},
    {"_depth_to_points_many", batch_cloud, METH_VARARGS, NULL},
    {"_host_alloc", batch_host_alloc, METH_VARARGS, NULL},
    {"_is_pinned", batch_is_pinned, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyType_Slot batch_slots[] = {
    {Py_tp_doc, "Workers on every selected device, sharing a list of items by their speed."},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_init, batch_init},
    {Py_tp_dealloc, batch_dealloc},
    {Py_tp_methods, batch_methods},
    {0, NULL}};

static PyType_Spec batch_spec = {"clcompute._clcompute.Batch", sizeof(Handle), 0,
                                 Py_TPFLAGS_DEFAULT, batch_slots};

/* ---- module ---------------------------------------------------------------------------------- */

static PyMethodDef module_methods[] = {
    {"devices", devices, METH_NOARGS, "Every OpenCL device: a list of dicts."},
    {"_pinned_live", pinned_live, METH_NOARGS, NULL},
    {"_select", select_devices, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static int module_exec(PyObject *m)
{
    PyObject *context = PyType_FromSpec(&context_spec);
    PyObject *batch = context ? PyType_FromSpec(&batch_spec) : NULL;
    host_memory_type = batch ? PyType_FromSpec(&host_memory_spec) : NULL;
    error_type =
        host_memory_type
            ? PyErr_NewExceptionWithDoc(
                  "clcompute.Error",
                  "A failure reported by libclcompute: str(e) is the library's message (build "
                  "logs included), e.status and e.status_name its status.",
                  PyExc_RuntimeError, NULL)
            : NULL;
    PyObject *bases = error_type ? PyTuple_Pack(2, error_type, PyExc_ValueError) : NULL;
    argument_error_type =
        bases
            ? PyErr_NewExceptionWithDoc(
                  "clcompute.ArgumentError",
                  "A clcompute.Error that says an argument was wrong (CLC_ERROR_INVALID_ARGUMENT, "
                  "_INVALID_SELECTOR or _SIZE_OVERFLOW); a ValueError too.",
                  bases, NULL)
            : NULL;
    Py_XDECREF(bases);
    if (!argument_error_type || PyModule_AddObjectRef(m, "Context", context) != 0 ||
        PyModule_AddObjectRef(m, "Batch", batch) != 0 ||
        PyModule_AddObjectRef(m, "Error", error_type) != 0 ||
        PyModule_AddObjectRef(m, "ArgumentError", argument_error_type) != 0 ||
        PyModule_AddStringConstant(m, "library_version", CLC_VERSION_STRING) != 0) {
        Py_XDECREF(context), Py_XDECREF(batch);
        Py_CLEAR(host_memory_type);
        Py_CLEAR(error_type);
        Py_CLEAR(argument_error_type);
        return -1;
    }
    Py_DECREF(context), Py_DECREF(batch);
    return 0;
}

static PyModuleDef_Slot module_slots[] = {{Py_mod_exec, module_exec}, {0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT,
                                    "_clcompute",
                                    "libclcompute's C API for the clcompute package.",
                                    0,
                                    module_methods,
                                    module_slots,
                                    NULL,
                                    NULL,
                                    NULL};

PyMODINIT_FUNC PyInit__clcompute(void)
{
    return PyModuleDef_Init(&module);
}
