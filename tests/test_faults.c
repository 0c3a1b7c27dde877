/* Fault injection: the N-th OpenCL call the library makes fails, for every N along each public
 * call's path, until a run gets through untouched. Every run must end in an error with a message
 * (or, where the failure hit an optional step such as variant timing or the disk cache, in the
 * right result), and once the context is destroyed every cl_mem, cl_kernel, cl_program,
 * cl_command_queue and cl_context the library created or retained must have been released.
 *
 * The library's calls reach the wrappers below through the linker (-Wl,--wrap=clX, see
 * tests/CMakeLists.txt): __wrap_clX counts and may fail, __real_clX is the ICD loader's. */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/ref/cloud.h"
#include "../lib/ref/gray.h"
#include "../lib/ref/reduce.h"
#include "internal.h"

/* ---- the wrappers ---- */

static int armed;               /* counting and failing only while a scenario runs */
static unsigned calls, fail_at; /* failable calls so far; which one fails (0: none) */
/* Set when the failure injected is one the call must report: no result check can see it (the
 * device did the work anyway), so ignoring it would otherwise pass as a failure absorbed. */
static int must_report;
static long live_mem, live_kernel, live_program, live_queue, live_context;
/* Events made by the wrapped enqueues and retained, less those released. */
static long live_event;
static long buffers_made; /* every clCreateBuffer that succeeded, armed or not */
static long kernels_made; /* every clCreateKernel that succeeded, armed or not */

/* Inside variant timing or a context's destruction, where a failed command may be absorbed
 * (the timing falls back; destruction has no status to give): no failure there must be
 * reported. Both are wrapped below like the OpenCL calls. */
static int absorbing;

/* A failure injected now must be reported by the call, unless absorbing. */
static cl_int reported(cl_int err)
{
    must_report |= !absorbing;
    return err;
}

int __real_clc__tune(clc_context *, const clc_tune_family *, int);
int __wrap_clc__tune(clc_context *ctx, const clc_tune_family *family, int fallback);
int __wrap_clc__tune(clc_context *ctx, const clc_tune_family *family, int fallback)
{
    ++absorbing;
    const int v = __real_clc__tune(ctx, family, fallback);
    --absorbing;
    return v;
}

void __real_clc_context_destroy(clc_context *);
void __wrap_clc_context_destroy(clc_context *ctx);
void __wrap_clc_context_destroy(clc_context *ctx)
{
    ++absorbing;
    __real_clc_context_destroy(ctx);
    --absorbing;
}

/* Whether this failable call is the one to fail. */
static int fail_now(void)
{
    return armed && ++calls == fail_at;
}

/* Transfers made to fail on the device: enqueued, then reported failed by their event to
 * whoever asks (its status, a wait on it). A library that never asks passes unseen, hence the
 * must_report their injection sets. Each is held (outside the library's count) until the run
 * ends, so that no later event gets its address. */
static cl_event failed_events[16];
static int failed_count;
cl_int __real_clRetainEvent(cl_event);
cl_int __real_clReleaseEvent(cl_event);

static void failed_events_drop(void)
{
    for (int i = 0; i < failed_count; ++i)
        __real_clReleaseEvent(failed_events[i]);
    failed_count = 0;
}

static int event_failed(cl_event e)
{
    for (int i = 0; i < failed_count; ++i)
        if (failed_events[i] == e)
            return 1;
    return 0;
}

/* Counts the event an enqueue made, if any. */
static cl_int event_made(cl_int err, const cl_event *event)
{
    live_event += armed && err == CL_SUCCESS && event && *event;
    return err;
}

/* After a transfer was enqueued: a second failable call, where it fails on the device. */
static void maybe_fail_on_device(cl_int err, const cl_event *event)
{
    event_made(err, event);
    if (err == CL_SUCCESS && event && *event && failed_count < 16 && fail_now() &&
        __real_clRetainEvent(*event) == CL_SUCCESS) {
        failed_events[failed_count++] = *event;
        reported(CL_SUCCESS);
    }
}

#define CL_INJECTED CL_OUT_OF_RESOURCES

cl_mem __real_clCreateBuffer(cl_context, cl_mem_flags, size_t, void *, cl_int *);
cl_mem __wrap_clCreateBuffer(cl_context c, cl_mem_flags f, size_t n, void *p, cl_int *err);
cl_mem __wrap_clCreateBuffer(cl_context c, cl_mem_flags f, size_t n, void *p, cl_int *err)
{
    if (fail_now()) {
        if (err)
            *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        return NULL;
    }
    cl_mem m = __real_clCreateBuffer(c, f, n, p, err);
    live_mem += armed && m;
    buffers_made += m != NULL;
    return m;
}

cl_int __real_clRetainMemObject(cl_mem);
cl_int __wrap_clRetainMemObject(cl_mem m);
cl_int __wrap_clRetainMemObject(cl_mem m)
{
    cl_int err = __real_clRetainMemObject(m);
    live_mem += armed && err == CL_SUCCESS;
    return err;
}

cl_int __real_clReleaseMemObject(cl_mem);
cl_int __wrap_clReleaseMemObject(cl_mem m);
cl_int __wrap_clReleaseMemObject(cl_mem m)
{
    live_mem -= armed;
    return __real_clReleaseMemObject(m);
}

cl_kernel __real_clCreateKernel(cl_program, const char *, cl_int *);
cl_kernel __wrap_clCreateKernel(cl_program p, const char *name, cl_int *err);
cl_kernel __wrap_clCreateKernel(cl_program p, const char *name, cl_int *err)
{
    if (fail_now()) {
        if (err)
            *err = CL_INJECTED;
        return NULL;
    }
    cl_kernel k = __real_clCreateKernel(p, name, err);
    live_kernel += armed && k;
    kernels_made += k != NULL;
    return k;
}

cl_int __real_clReleaseKernel(cl_kernel);
cl_int __wrap_clReleaseKernel(cl_kernel k);
cl_int __wrap_clReleaseKernel(cl_kernel k)
{
    live_kernel -= armed;
    return __real_clReleaseKernel(k);
}

cl_program __real_clCreateProgramWithSource(cl_context, cl_uint, const char **, const size_t *,
                                            cl_int *);
cl_program __wrap_clCreateProgramWithSource(cl_context c, cl_uint n, const char **s,
                                            const size_t *l, cl_int *err);
cl_program __wrap_clCreateProgramWithSource(cl_context c, cl_uint n, const char **s,
                                            const size_t *l, cl_int *err)
{
    if (fail_now()) {
        if (err)
            *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    cl_program p = __real_clCreateProgramWithSource(c, n, s, l, err);
    live_program += armed && p;
    return p;
}

cl_program __real_clCreateProgramWithBinary(cl_context, cl_uint, const cl_device_id *,
                                            const size_t *, const unsigned char **, cl_int *,
                                            cl_int *);
cl_program __wrap_clCreateProgramWithBinary(cl_context c, cl_uint n, const cl_device_id *d,
                                            const size_t *l, const unsigned char **b,
                                            cl_int *status, cl_int *err);
cl_program __wrap_clCreateProgramWithBinary(cl_context c, cl_uint n, const cl_device_id *d,
                                            const size_t *l, const unsigned char **b,
                                            cl_int *status, cl_int *err)
{
    if (fail_now()) {
        if (err)
            *err = CL_INVALID_BINARY;
        return NULL;
    }
    cl_program p = __real_clCreateProgramWithBinary(c, n, d, l, b, status, err);
    live_program += armed && p;
    return p;
}

cl_int __real_clReleaseProgram(cl_program);
cl_int __wrap_clReleaseProgram(cl_program p);
cl_int __wrap_clReleaseProgram(cl_program p)
{
    live_program -= armed;
    return __real_clReleaseProgram(p);
}

cl_int __real_clBuildProgram(cl_program, cl_uint, const cl_device_id *, const char *,
                             void(CL_CALLBACK *)(cl_program, void *), void *);
cl_int __wrap_clBuildProgram(cl_program p, cl_uint n, const cl_device_id *d, const char *o,
                             void(CL_CALLBACK *f)(cl_program, void *), void *u);
cl_int __wrap_clBuildProgram(cl_program p, cl_uint n, const cl_device_id *d, const char *o,
                             void(CL_CALLBACK *f)(cl_program, void *), void *u)
{
    return fail_now() ? CL_BUILD_PROGRAM_FAILURE : __real_clBuildProgram(p, n, d, o, f, u);
}

cl_command_queue __real_clCreateCommandQueue(cl_context, cl_device_id, cl_command_queue_properties,
                                             cl_int *);
cl_command_queue __wrap_clCreateCommandQueue(cl_context c, cl_device_id d,
                                             cl_command_queue_properties p, cl_int *err);
cl_command_queue __wrap_clCreateCommandQueue(cl_context c, cl_device_id d,
                                             cl_command_queue_properties p, cl_int *err)
{
    if (fail_now()) {
        if (err)
            *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    cl_command_queue q = __real_clCreateCommandQueue(c, d, p, err);
    live_queue += armed && q;
    return q;
}

cl_int __real_clReleaseCommandQueue(cl_command_queue);
cl_int __wrap_clReleaseCommandQueue(cl_command_queue q);
cl_int __wrap_clReleaseCommandQueue(cl_command_queue q)
{
    live_queue -= armed;
    return __real_clReleaseCommandQueue(q);
}

cl_context __real_clCreateContext(const cl_context_properties *, cl_uint, const cl_device_id *,
                                  void(CL_CALLBACK *)(const char *, const void *, size_t, void *),
                                  void *, cl_int *);
cl_context __wrap_clCreateContext(const cl_context_properties *p, cl_uint n, const cl_device_id *d,
                                  void(CL_CALLBACK *f)(const char *, const void *, size_t, void *),
                                  void *u, cl_int *err);
cl_context __wrap_clCreateContext(const cl_context_properties *p, cl_uint n, const cl_device_id *d,
                                  void(CL_CALLBACK *f)(const char *, const void *, size_t, void *),
                                  void *u, cl_int *err)
{
    if (fail_now()) {
        if (err)
            *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    cl_context c = __real_clCreateContext(p, n, d, f, u, err);
    live_context += armed && c;
    return c;
}

cl_int __real_clRetainContext(cl_context);
cl_int __wrap_clRetainContext(cl_context c);
cl_int __wrap_clRetainContext(cl_context c)
{
    if (fail_now())
        return CL_OUT_OF_HOST_MEMORY;
    const cl_int err = __real_clRetainContext(c);
    live_context += armed && err == CL_SUCCESS;
    return err;
}

cl_int __real_clRetainCommandQueue(cl_command_queue);
cl_int __wrap_clRetainCommandQueue(cl_command_queue q);
cl_int __wrap_clRetainCommandQueue(cl_command_queue q)
{
    if (fail_now())
        return CL_OUT_OF_HOST_MEMORY;
    const cl_int err = __real_clRetainCommandQueue(q);
    live_queue += armed && err == CL_SUCCESS;
    return err;
}

cl_int __real_clReleaseContext(cl_context);
cl_int __wrap_clReleaseContext(cl_context c);
cl_int __wrap_clReleaseContext(cl_context c)
{
    live_context -= armed;
    return __real_clReleaseContext(c);
}

/* Enqueues and waits: fail with CL_OUT_OF_RESOURCES, as a driver under memory pressure does. */
cl_int __real_clEnqueueNDRangeKernel(cl_command_queue, cl_kernel, cl_uint, const size_t *,
                                     const size_t *, const size_t *, cl_uint, const cl_event *,
                                     cl_event *);
cl_int __wrap_clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *o,
                                     const size_t *g, const size_t *l, cl_uint n, const cl_event *w,
                                     cl_event *e);
cl_int __wrap_clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *o,
                                     const size_t *g, const size_t *l, cl_uint n, const cl_event *w,
                                     cl_event *e)
{
    return fail_now() ? CL_INJECTED
                      : event_made(__real_clEnqueueNDRangeKernel(q, k, dims, o, g, l, n, w, e), e);
}

cl_int __real_clEnqueueWriteBuffer(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *,
                                   cl_uint, const cl_event *, cl_event *);
cl_int __wrap_clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s,
                                   const void *p, cl_uint n, const cl_event *w, cl_event *e);
cl_int __wrap_clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s,
                                   const void *p, cl_uint n, const cl_event *w, cl_event *e)
{
    if (fail_now())
        return CL_INJECTED;
    const cl_int err = __real_clEnqueueWriteBuffer(q, m, b, o, s, p, n, w, e);
    maybe_fail_on_device(err, e);
    return err;
}

cl_int __real_clEnqueueReadBuffer(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *,
                                  cl_uint, const cl_event *, cl_event *);
cl_int __wrap_clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s,
                                  void *p, cl_uint n, const cl_event *w, cl_event *e);
cl_int __wrap_clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s,
                                  void *p, cl_uint n, const cl_event *w, cl_event *e)
{
    if (fail_now())
        return CL_INJECTED;
    const cl_int err = __real_clEnqueueReadBuffer(q, m, b, o, s, p, n, w, e);
    maybe_fail_on_device(err, e);
    return err;
}

void *__real_clEnqueueMapBuffer(cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t, size_t,
                                cl_uint, const cl_event *, cl_event *, cl_int *);
void *__wrap_clEnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool b, cl_map_flags f, size_t o,
                                size_t s, cl_uint n, const cl_event *w, cl_event *e, cl_int *err);
void *__wrap_clEnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool b, cl_map_flags f, size_t o,
                                size_t s, cl_uint n, const cl_event *w, cl_event *e, cl_int *err)
{
    if (fail_now()) {
        if (err)
            *err = CL_MAP_FAILURE;
        return NULL;
    }
    cl_int made = CL_SUCCESS;
    void *p = __real_clEnqueueMapBuffer(q, m, b, f, o, s, n, w, e, &made);
    if (err)
        *err = made;
    event_made(made, e);
    return p;
}

cl_int __real_clFinish(cl_command_queue);
cl_int __wrap_clFinish(cl_command_queue q);
cl_int __wrap_clFinish(cl_command_queue q)
{
    /* The queue really finishes either way: what fails is only the report. */
    const cl_int err = __real_clFinish(q);
    return fail_now() ? CL_INJECTED : err;
}

cl_int __real_clEnqueueReadBufferRect(cl_command_queue, cl_mem, cl_bool, const size_t *,
                                      const size_t *, const size_t *, size_t, size_t, size_t,
                                      size_t, void *, cl_uint, const cl_event *, cl_event *);
cl_int __wrap_clEnqueueReadBufferRect(cl_command_queue q, cl_mem m, cl_bool b, const size_t *bo,
                                      const size_t *ho, const size_t *r, size_t brp, size_t bsp,
                                      size_t hrp, size_t hsp, void *p, cl_uint n, const cl_event *w,
                                      cl_event *e);
cl_int __wrap_clEnqueueReadBufferRect(cl_command_queue q, cl_mem m, cl_bool b, const size_t *bo,
                                      const size_t *ho, const size_t *r, size_t brp, size_t bsp,
                                      size_t hrp, size_t hsp, void *p, cl_uint n, const cl_event *w,
                                      cl_event *e)
{
    return fail_now() ? CL_INJECTED
                      : event_made(__real_clEnqueueReadBufferRect(q, m, b, bo, ho, r, brp, bsp, hrp,
                                                                  hsp, p, n, w, e),
                                   e);
}

cl_int __real_clEnqueueBarrierWithWaitList(cl_command_queue, cl_uint, const cl_event *, cl_event *);
cl_int __wrap_clEnqueueBarrierWithWaitList(cl_command_queue q, cl_uint n, const cl_event *w,
                                           cl_event *e);
cl_int __wrap_clEnqueueBarrierWithWaitList(cl_command_queue q, cl_uint n, const cl_event *w,
                                           cl_event *e)
{
    if (fail_now())
        return reported(CL_INJECTED);
    return event_made(__real_clEnqueueBarrierWithWaitList(q, n, w, e), e);
}

cl_int __wrap_clRetainEvent(cl_event e);
cl_int __wrap_clRetainEvent(cl_event e)
{
    const cl_int err = __real_clRetainEvent(e);
    live_event += armed && err == CL_SUCCESS;
    return err;
}

cl_int __wrap_clReleaseEvent(cl_event e);
cl_int __wrap_clReleaseEvent(cl_event e)
{
    live_event -= armed;
    return __real_clReleaseEvent(e);
}

cl_int __real_clFlush(cl_command_queue);
cl_int __wrap_clFlush(cl_command_queue q);
cl_int __wrap_clFlush(cl_command_queue q)
{
    if (fail_now())
        return reported(CL_INJECTED);
    return __real_clFlush(q);
}

/* A command that failed on the device, as its event tells once it has ended: the status a
 * driver gives it is the negative error. */
cl_int __real_clGetEventInfo(cl_event, cl_event_info, size_t, void *, size_t *);
cl_int __wrap_clGetEventInfo(cl_event ev, cl_event_info what, size_t size, void *value,
                             size_t *returned);
cl_int __wrap_clGetEventInfo(cl_event ev, cl_event_info what, size_t size, void *value,
                             size_t *returned)
{
    const cl_int err = __real_clGetEventInfo(ev, what, size, value, returned);
    if (err != CL_SUCCESS || what != CL_EVENT_COMMAND_EXECUTION_STATUS || !value ||
        size < sizeof(cl_int))
        return err;
    if (event_failed(ev))
        *(cl_int *)value = CL_INJECTED;
    else if (fail_now())
        *(cl_int *)value = reported(CL_INJECTED);
    return err;
}

/* A waited-for command that failed on the device: the wait reports it once the command ended. */
cl_int __real_clWaitForEvents(cl_uint, const cl_event *);
cl_int __wrap_clWaitForEvents(cl_uint n, const cl_event *events);
cl_int __wrap_clWaitForEvents(cl_uint n, const cl_event *events)
{
    const cl_int err = __real_clWaitForEvents(n, events);
    for (cl_uint i = 0; err == CL_SUCCESS && i < n; ++i)
        if (event_failed(events[i]))
            return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    if (err == CL_SUCCESS && fail_now())
        return reported(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    return err;
}

cl_int __real_clSetKernelArg(cl_kernel, cl_uint, size_t, const void *);
cl_int __wrap_clSetKernelArg(cl_kernel k, cl_uint i, size_t s, const void *v);
cl_int __wrap_clSetKernelArg(cl_kernel k, cl_uint i, size_t s, const void *v)
{
    return fail_now() ? CL_INVALID_ARG_SIZE : __real_clSetKernelArg(k, i, s, v);
}

/* ---- scenarios ---- */

enum { W = 45, H = 21 };

/* One public call path on a new context; returns its status and checks the result when it
 * succeeded. The context is destroyed before returning. */
typedef clc_status (*scenario)(const char *cache_dir);

static clc_status open_context(const char *cache_dir, clc_context **ctx)
{
    clc_context_options o = fixture_options();
    o.cache = cache_dir ? CLC_CACHE_ON : CLC_CACHE_OFF;
    o.cache_dir = cache_dir;
    const clc_status st = clc_context_create(&o, ctx);
    if (st == CLC_SUCCESS)
        (*ctx)->tune_quick = 1;
    return st;
}

static clc_status gray_call(const char *cache_dir)
{
    clc_context *ctx = NULL;
    clc_status st = open_context(cache_dir, &ctx);
    if (st != CLC_SUCCESS)
        return st;
    const clc_image_desc src = {CLC_PIXEL_RGB8, W, H, 0}, dst = {CLC_PIXEL_GRAY8, W, H, 0};
    unsigned char in[W * H * 3], out[W * H], ref[W * H];
    for (size_t i = 0; i < sizeof in; ++i)
        in[i] = (unsigned char)(i * 37);
    st = clc_gray(ctx, &src, in, &dst, out, NULL);
    clc__ref_gray(&src, in, &dst, ref, CLC_GRAY_BT601);
    if (st == CLC_SUCCESS && memcmp(out, ref, sizeof out) != 0)
        fail_msg("gray succeeded with a wrong result (call %u failed)", fail_at);
    clc_context_destroy(ctx);
    return st;
}

/* Host-pointer calls that follow each other on one context: the second gray and reduce take
 * the buffers the first ones left in the context's pool (pool.c; device buffers exist where
 * transfers are staged: faults_pool runs this with CLCOMPUTE_STAGING=always), a smaller gray
 * one larger than it needs. Every result is checked. */
/* Two int32 sums (3001 and 3000 elements) on ctx, each checked when it succeeds and required to
 * succeed where an earlier call took the failure: `first`, or where it was a success the first
 * failure. */
static clc_status two_sums(clc_context *ctx, clc_status first)
{
    static int32_t x[3001];
    for (int i = 0; i < 3001; ++i)
        x[i] = (i * 7919) % 1000 - 500;
    for (int round = 0; round < 2; ++round) {
        clc_reduce_result r, want;
        const int after = calls >= fail_at;
        const clc_status st =
            clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_I32, x, 3001 - (size_t)round, &r);
        clc__ref_reduce(CLC_REDUCE_SUM, CLC_DTYPE_I32, x, 3001 - (size_t)round, &want, NULL);
        if (st == CLC_SUCCESS && r.i != want.i)
            fail_msg("sum %d succeeded with a wrong result (call %u failed)", round, fail_at);
        if (after && st != CLC_SUCCESS)
            fail_msg("sum %d failed after an earlier call's failure (call %u): %s", round, fail_at,
                     clc_last_error());
        if (first == CLC_SUCCESS)
            first = st;
    }
    return first;
}

static clc_status repeat_calls(const char *cache_dir)
{
    clc_context *ctx = NULL;
    clc_status st = open_context(cache_dir, &ctx);
    if (st != CLC_SUCCESS)
        return st;
    unsigned char in[W * H * 3], out[W * H], ref[W * H];
    for (size_t i = 0; i < sizeof in; ++i)
        in[i] = (unsigned char)(i * 41 + 3);
    /* Every round runs whatever failed before it (only one OpenCL call fails): the calls after
     * a failed one take what it left in the pool, the case most likely to go wrong. The first
     * failure is the scenario's status. */
    clc_status first = CLC_SUCCESS;
    for (int round = 0; round < 3; ++round) {
        const size_t h = round == 2 ? H - H / 4 : H;
        const clc_image_desc src = {CLC_PIXEL_RGB8, W, h, 0}, dst = {CLC_PIXEL_GRAY8, W, h, 0};
        memset(out, 0, sizeof out);
        const int after = calls >= fail_at;
        st = clc_gray(ctx, &src, in, &dst, out, NULL);
        clc__ref_gray(&src, in, &dst, ref, CLC_GRAY_BT601);
        if (st == CLC_SUCCESS && memcmp(out, ref, W * h) != 0)
            fail_msg("gray %d succeeded with a wrong result (call %u failed)", round, fail_at);
        if (after && st != CLC_SUCCESS)
            fail_msg("gray %d failed after an earlier call's failure (call %u): %s", round, fail_at,
                     clc_last_error());
        if (first == CLC_SUCCESS)
            first = st;
    }
    first = two_sums(ctx, first);
    clc_context_destroy(ctx);
    return first;
}

static clc_status cloud_call(const char *cache_dir)
{
    clc_context *ctx = NULL;
    clc_status st = open_context(cache_dir, &ctx);
    if (st != CLC_SUCCESS)
        return st;
    const clc_image_desc depth = {CLC_PIXEL_DEPTH_U16, W, H, 0};
    const clc_intrinsics k = {30.0, 30.0, W / 2.0, H / 2.0};
    uint16_t d[W * H];
    for (size_t i = 0; i < W * H; ++i)
        d[i] = (uint16_t)(i % 7 ? 500 + i : 0);
    float points[W * H * 3], ref[(W * H + 1) * 3];
    size_t count = 0;
    st = clc_depth_to_points(ctx, &depth, d, NULL, NULL, &k, NULL, points, NULL, W * H, &count);
    const clc_ref_cloud p = clc__ref_cloud_params(1000.0, 1000.0, &k, 1, W, H, CLC_CLOUD_DENSE);
    const size_t want = clc__ref_depth_to_points(&depth, d, NULL, NULL, &p, ref, NULL);
    if (st == CLC_SUCCESS && (count != want || memcmp(points, ref, want * 12) != 0))
        fail_msg("cloud succeeded with a wrong result (call %u failed)", fail_at);
    clc_context_destroy(ctx);
    return st;
}

/* An argmax of n int32 on ctx, checked when it succeeds; destroys ctx. */
static clc_status reduce_on(clc_context *ctx, size_t n)
{
    int32_t *x = malloc(n * sizeof *x);
    if (!x)
        fail_msg("out of memory");
    for (size_t i = 0; i < n; ++i)
        x[i] = (int32_t)((i * 7919) % 1000) - 500;
    clc_reduce_result r, want;
    const clc_status st = clc_reduce(ctx, CLC_REDUCE_ARGMAX, CLC_DTYPE_I32, x, n, &r);
    clc__ref_reduce(CLC_REDUCE_ARGMAX, CLC_DTYPE_I32, x, n, &want, NULL);
    if (st == CLC_SUCCESS && (r.i != want.i || r.index != want.index))
        fail_msg("reduce succeeded with a wrong result (call %u failed)", fail_at);
    free(x);
    clc_context_destroy(ctx);
    return st;
}

static clc_status reduce_call(const char *cache_dir)
{
    clc_context *ctx = NULL;
    const clc_status st = open_context(cache_dir, &ctx);
    return st != CLC_SUCCESS ? st : reduce_on(ctx, 3001);
}

/* The reduction of an array larger than a piece (CLCOMPUTE_REDUCE_PIECE of 4 KiB): three
 * pieces, their results combined by a fourth launch. */
static clc_status pieces_call(const char *cache_dir)
{
    clc_context *ctx = NULL;
    const clc_status st = open_context(cache_dir, &ctx);
    if (st != CLC_SUCCESS)
        return st;
    clc__switch_set(ctx, CLC_SW_REDUCE_PIECE, "4096");
    return reduce_on(ctx, 3001);
}

/* The reduction again with its transfers staged and the staging timed first, as on a GPU with
 * memory of its own (a CPU device made to stage, timing a small probe): a failure anywhere in
 * the timing is absorbed (the untimed chunk serves), one in the transfers is reported. */
static clc_status timed_staging_call(const char *cache_dir)
{
    clc_context *ctx = NULL;
    clc_status st = open_context(cache_dir, &ctx);
    if (st != CLC_SUCCESS)
        return st;
    ctx->staging_mode = CLC_STAGING_ALWAYS;
    ctx->staging_fixed = 0;
    ctx->staging_probe = (64u << 10) + 3;
    /* A first, small sum leaves buffers of 64 KiB; the argmax's 1.2 MB grows them (where the
     * larger ones fail, the old ones carry it in their chunks). */
    float small[100];
    for (int i = 0; i < 100; ++i)
        small[i] = (float)i;
    clc_reduce_result r;
    st = clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, small, 100, &r);
    if (st == CLC_SUCCESS && r.f != 4950.0)
        fail_msg("sum succeeded with a wrong result (call %u failed)", fail_at);
    if (st != CLC_SUCCESS) {
        clc_context_destroy(ctx);
        return st;
    }
    return reduce_on(ctx, 300001);
}

/* Gray in bands of rows (lib/ops/image.c), staged as on a device with its own memory: an
 * ordinary source and a clc_host_alloc destination (both kinds of transfer), twice, the second
 * call taking the first one's pooled buffers. Results checked. */
/* A context whose transfers are staged as CLCOMPUTE_STAGING=always would make them, in fixed
 * small chunks (so that every transfer crosses chunk boundaries and no staging timing runs),
 * and no variant timed (gray_faults covers that): a few hundred failable calls a scenario. */
static clc_status open_staged_context(const char *cache_dir, size_t chunk, clc_context **ctx)
{
    const clc_status st = open_context(cache_dir, ctx);
    if (st == CLC_SUCCESS) {
        (*ctx)->staging_mode = CLC_STAGING_ALWAYS;
        (*ctx)->staging_fixed = 1;
        (*ctx)->staging_chunk = chunk;
        clc__switch_set(*ctx, CLC_SW_TUNE, "0");
    }
    return st;
}

static clc_status banded_gray_call(const char *cache_dir)
{
    clc_context *ctx = NULL;
    clc_status st = open_staged_context(cache_dir, 4099, &ctx);
    if (st != CLC_SUCCESS)
        return st;
    clc__switch_set(ctx, CLC_SW_BANDS, "3");
    /* 22 rows: bands of 7, 7 and 8. The second round writes a padded destination (rows read
     * back one by one), whose padding must stay as it was. */
    enum { HB = H + 1, PAD = 5 };
    const clc_image_desc src = {CLC_PIXEL_RGB8, W, HB, 0};
    static unsigned char in[W * HB * 3], ref[(W + PAD) * HB];
    for (size_t i = 0; i < sizeof in; ++i)
        in[i] = (unsigned char)(i * 29 + 1);
    unsigned char *out = NULL;
    st = clc_host_alloc(ctx, sizeof ref, (void **)&out);
    for (int round = 0; round < 2 && st == CLC_SUCCESS; ++round) {
        const clc_image_desc dst = {CLC_PIXEL_GRAY8, W, HB, round ? W + PAD : 0};
        const size_t span = round ? sizeof ref - PAD : W * HB;
        memset(out, 0xA5, span);
        memset(ref, 0xA5, span);
        clc__ref_gray(&src, in, &dst, ref, CLC_GRAY_BT601);
        st = clc_gray(ctx, &src, in, &dst, out, NULL);
        if (st == CLC_SUCCESS && memcmp(out, ref, span) != 0)
            fail_msg("banded gray %d succeeded with a wrong result (call %u failed)", round,
                     fail_at);
    }
    clc_context_destroy(ctx); /* frees `out` too */
    return st;
}

/* Depth and colour from ordinary memory through the staging buffers (four upload events a call
 * to check), a single frame, then two frames in one call: every failure along the uploads, and
 * the colour's after the depth's succeeded, must be reported and release what it holds. */
static clc_status staged_cloud_call(const char *cache_dir)
{
    clc_context *ctx = NULL;
    clc_status st = open_staged_context(cache_dir, 700, &ctx); /* depth in 3 chunks, colour 5 */
    if (st != CLC_SUCCESS)
        return st;
    enum { FRAMES = 2 };
    const clc_image_desc depth = {CLC_PIXEL_DEPTH_U16, W, H, 0}, color = {CLC_PIXEL_RGB8, W, H, 0};
    const clc_intrinsics k = {30.0, 30.0, W / 2.0, H / 2.0};
    static uint16_t d[FRAMES * W * H];
    static unsigned char c[FRAMES * W * H * 3], colors[FRAMES * W * H * 3],
        ref_colors[(W * H + 1) * 3];
    static float points[FRAMES * W * H * 3], ref[(W * H + 1) * 3];
    for (size_t i = 0; i < FRAMES * W * H; ++i)
        d[i] = (uint16_t)(i % 7 ? 500 + i : 0);
    for (size_t i = 0; i < sizeof c; ++i)
        c[i] = (unsigned char)(i * 13 + 7);
    const clc_ref_cloud p = clc__ref_cloud_params(1000.0, 1000.0, &k, 1, W, H, CLC_CLOUD_DENSE);
    /* The single frame reads back through the staging buffers; the frames come back into
     * clc_host_alloc memory, so that nothing after their uploads waits on the staging slots
     * and only the call's own check of its upload events can see one fail. */
    size_t counts[FRAMES] = {0};
    float *pp = NULL;
    unsigned char *pc = NULL;
    st =
        clc_depth_to_points(ctx, &depth, d, &color, c, &k, NULL, points, colors, W * H, &counts[0]);
    if (st == CLC_SUCCESS)
        st = clc_host_alloc(ctx, sizeof points, (void **)&pp);
    if (st == CLC_SUCCESS)
        st = clc_host_alloc(ctx, sizeof colors, (void **)&pc);
    for (size_t f = 0; f < FRAMES && st == CLC_SUCCESS; ++f) {
        const size_t want = clc__ref_depth_to_points(&depth, d + f * W * H, &color,
                                                     c + f * W * H * 3, &p, ref, ref_colors);
        if (f == 0 && (counts[0] != want || memcmp(points, ref, want * 12) != 0 ||
                       memcmp(colors, ref_colors, want * 3) != 0))
            fail_msg("staged cloud succeeded with a wrong result (call %u failed)", fail_at);
        if (f == 0)
            st = clc_depth_to_points_many(ctx, FRAMES, &depth, d, 0, &color, c, 0, &k, NULL, pp, pc,
                                          counts);
        if (st == CLC_SUCCESS &&
            (counts[f] != want || memcmp(pp + f * W * H * 3, ref, want * 12) != 0 ||
             memcmp(pc + f * W * H * 3, ref_colors, want * 3) != 0))
            fail_msg("staged cloud frame %zu succeeded with a wrong result (call %u failed)", f,
                     fail_at);
    }
    clc_context_destroy(ctx); /* frees pp and pc too */
    return st;
}

/* Two staged reductions in three chunks each on one context: whatever failure the first call
 * reports, the second must succeed; a failed upload chunk the first call reported must not
 * fail it again through the staging slot it used (the second upload starts there). */
static clc_status staged_reduce_twice_call(const char *cache_dir)
{
    clc_context *ctx = NULL;
    clc_status st = open_staged_context(cache_dir, 4096, &ctx);
    if (st != CLC_SUCCESS)
        return st;
    st = two_sums(ctx, CLC_SUCCESS);
    clc_context_destroy(ctx);
    return st;
}

/* Two staged uploads in flight at once, as two threads' calls on one context can be: the second
 * starts in the staging slot holding the first's middle chunk, then takes the one holding its
 * last. A chunk of the first that fails on the device is the first's to report, when it checks
 * its events after finishing the queue; the second must not fail on it, and both must land. */
static clc_status interleaved_uploads_call(const char *cache_dir)
{
    clc_context *ctx = NULL;
    clc_status st = open_staged_context(cache_dir, 4096, &ctx);
    if (st != CLC_SUCCESS)
        return st;
    enum { BYTES = 3 * 4096 - 100 }; /* three chunks each */
    static unsigned char in[2][BYTES], back[BYTES];
    for (size_t i = 0; i < BYTES; ++i)
        in[0][i] = (unsigned char)(i * 31 + 3), in[1][i] = (unsigned char)(i * 17 + 11);
    cl_int err = CL_SUCCESS;
    cl_mem buf[2] = {NULL, NULL};
    for (int u = 0; u < 2 && err == CL_SUCCESS; ++u)
        buf[u] = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, BYTES, NULL, &err);
    /* Both uploads run whatever happened to the first, as another thread's would. */
    const int made = err == CL_SUCCESS;
    clc_status up[2] = {made ? CLC_SUCCESS : clc__cl_fail(ctx, err, "clCreateBuffer"), CLC_SUCCESS};
    cl_event events[2][2] = {{NULL, NULL}, {NULL, NULL}};
    unsigned first_ends = calls; /* the last failable call of the first upload */
    for (int u = 0; u < 2 && made; ++u) {
        err = clc__staged_write(ctx, ctx->queue, buf[u], 0, in[u], BYTES, events[u]);
        if (err != CL_SUCCESS)
            up[u] = clc__cl_fail(ctx, err, "clc__staged_write");
        if (u == 0)
            first_ends = calls;
    }
    int idle;
    up[1] = clc__host_finish(ctx, up[1], events[1], 2, "second", &idle);
    up[0] = clc__host_finish(ctx, up[0], events[0], 2, "first", &idle);
    if (fail_at <= first_ends && up[1] != CLC_SUCCESS)
        fail_msg("call %u, of the first upload, failed the second: %s", fail_at, clc_last_error());
    st = up[0] != CLC_SUCCESS ? up[0] : up[1];
    for (int u = 0; u < 2 && st == CLC_SUCCESS; ++u) {
        err = clEnqueueReadBuffer(ctx->queue, buf[u], CL_TRUE, 0, BYTES, back, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            st = clc__cl_fail(ctx, err, "clEnqueueReadBuffer");
        else if (memcmp(back, in[u], BYTES) != 0)
            fail_msg("upload %d succeeded with wrong bytes (call %u failed)", u, fail_at);
    }
    for (int u = 0; u < 2; ++u)
        clc__release_mem(&buf[u]);
    clc_context_destroy(ctx);
    return st;
}

static clc_status copy_call(const char *cache_dir)
{
    clc_context *ctx = NULL;
    clc_status st = open_context(cache_dir, &ctx);
    if (st != CLC_SUCCESS)
        return st;
    double gbps = 0.0;
    st = clc_measure_copy_bandwidth(ctx, (size_t)1 << 20, 1, &gbps);
    clc_context_destroy(ctx);
    return st;
}

/* The enqueue forms on device buffers the scenario makes (and releases) itself: gray, then a
 * reduction of the gray bytes, chained through events. */
static clc_status enqueue_calls(const char *cache_dir)
{
    clc_context *ctx = NULL;
    clc_status st = open_context(cache_dir, &ctx);
    if (st != CLC_SUCCESS)
        return st;
    const clc_image_desc src = {CLC_PIXEL_RGB8, W, H, 0}, dst = {CLC_PIXEL_GRAY8, W, H, 0};
    unsigned char in[W * H * 3], ref[W * H];
    for (size_t i = 0; i < sizeof in; ++i)
        in[i] = (unsigned char)(i * 13);
    clc__ref_gray(&src, in, &dst, ref, CLC_GRAY_BT601);
    cl_int err = CL_SUCCESS;
    cl_context cl = clc_context_cl_context(ctx);
    cl_mem a = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
    cl_mem b = err == CL_SUCCESS ? clCreateBuffer(cl, CL_MEM_READ_WRITE, W * H, NULL, &err) : NULL;
    cl_mem r = err == CL_SUCCESS
                   ? clCreateBuffer(cl, CL_MEM_READ_WRITE, CLC_REDUCE_RESULT_BYTES, NULL, &err)
                   : NULL;
    st = (clc_status)err;
    cl_event gray_done = NULL, sum_done = NULL;
    if (st == CLC_SUCCESS)
        st = clc_gray_enqueue(ctx, &src, a, 0, &dst, b, 0, NULL, 0, NULL, &gray_done);
    if (st == CLC_SUCCESS)
        st = clc_reduce_enqueue(ctx, CLC_REDUCE_SUM, CLC_DTYPE_U8, b, 0, W * H, r, 1, &gray_done,
                                &sum_done);
    unsigned char words[CLC_REDUCE_RESULT_BYTES];
    if (st == CLC_SUCCESS)
        st = (clc_status)clEnqueueReadBuffer(clc_context_cl_queue(ctx), r, CL_TRUE, 0, sizeof words,
                                             words, 1, &sum_done, NULL);
    if (st == CLC_SUCCESS) {
        clc_reduce_result got;
        uint64_t want = 0;
        for (size_t i = 0; i < W * H; ++i)
            want += ref[i];
        assert_int_equal(clc_reduce_decode(CLC_REDUCE_SUM, CLC_DTYPE_U8, words, W * H, &got), 0);
        if (got.u != want)
            fail_msg("enqueue chain succeeded with a wrong sum (call %u failed)", fail_at);
    }
    if (gray_done)
        clReleaseEvent(gray_done);
    if (sum_done)
        clReleaseEvent(sum_done);
    cl_mem all[] = {a, b, r};
    for (int i = 0; i < 3; ++i)
        if (all[i])
            clReleaseMemObject(all[i]);
    clc_context_destroy(ctx);
    return st;
}

/* The test device's platform and handle, for scenarios that make their own OpenCL objects. */
static void test_device(cl_platform_id *platform, cl_device_id *device)
{
    clc_device_list *list = NULL;
    size_t index = 0;
    assert_int_equal(clc_devices_query(&list), CLC_SUCCESS);
    assert_int_equal(clc_device_select(list, fixture_options().device, &index, NULL, 0),
                     CLC_SUCCESS);
    *platform = clc_device_list_get(list, index)->platform;
    *device = clc_device_list_get(list, index)->device;
    clc_device_list_destroy(list);
}

/* The caller's own context and queue, wrapped, then the cloud's enqueue form on device buffers
 * (dense, so all three passes and the count) and the caller's read-back. */
static clc_status wrapped_cloud_enqueue(const char *cache_dir)
{
    (void)cache_dir;
    setenv("CLCOMPUTE_TUNE", "0", 1); /* variant timing under faults: cloud_faults */
    cl_platform_id platform = NULL;
    cl_device_id device = NULL;
    test_device(&platform, &device);
    /* The caller's own objects are made and released with injection paused: only the
     * library's calls may fail, and only its objects are counted. */
    armed = 0;
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_int err = CL_SUCCESS;
    cl_context cl = clCreateContext(props, 1, &device, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_command_queue q = clCreateCommandQueue(cl, device, 0, &err);
    assert_int_equal(err, CL_SUCCESS);
    const clc_image_desc depth = {CLC_PIXEL_DEPTH_U16, W, H, 0};
    const clc_intrinsics k = {30.0, 30.0, W / 2.0, H / 2.0};
    uint16_t d[W * H];
    for (size_t i = 0; i < W * H; ++i)
        d[i] = (uint16_t)(i % 5 ? 700 + i : 0);
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof d, d, &err);
    cl_mem pts = clCreateBuffer(cl, CL_MEM_WRITE_ONLY, W * H * 12, NULL, &err);
    cl_mem cnt = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof(cl_uint), NULL, &err);
    assert_true(in && pts && cnt);
    armed = 1;

    clc_context *ctx = NULL;
    clc_context_options o = {0};
    o.cache = CLC_CACHE_OFF; /* compiled and timed here, whatever the user's cache holds */
    clc_status st = clc_context_wrap(cl, device, q, &o, &ctx);
    cl_event done = NULL;
    if (st == CLC_SUCCESS)
        st = clc_depth_to_points_enqueue(ctx, &depth, in, 0, NULL, NULL, 0, &k, NULL, pts, NULL,
                                         cnt, 0, NULL, &done);
    clc_context_destroy(ctx);
    live_event -= done != NULL; /* the caller's, released below with injection paused */

    armed = 0;
    if (st == CLC_SUCCESS) {
        cl_uint n = 0;
        float points[W * H * 3], ref[(W * H + 1) * 3];
        assert_int_equal(clEnqueueReadBuffer(q, cnt, CL_TRUE, 0, sizeof n, &n, 1, &done, NULL),
                         CL_SUCCESS);
        assert_int_equal(
            clEnqueueReadBuffer(q, pts, CL_TRUE, 0, sizeof points, points, 0, NULL, NULL),
            CL_SUCCESS);
        const clc_ref_cloud p = clc__ref_cloud_params(1000.0, 1000.0, &k, 1, W, H, CLC_CLOUD_DENSE);
        const size_t want = clc__ref_depth_to_points(&depth, d, NULL, NULL, &p, ref, NULL);
        if (n != want || memcmp(points, ref, want * 12) != 0)
            fail_msg("wrapped cloud enqueue succeeded with a wrong result (call %u failed)",
                     fail_at);
    }
    if (done)
        clReleaseEvent(done);
    clReleaseMemObject(in);
    clReleaseMemObject(pts);
    clReleaseMemObject(cnt);
    clReleaseCommandQueue(q);
    clReleaseContext(cl);
    armed = 1;
    unsetenv("CLCOMPUTE_TUNE");
    return st;
}

static clc_status gray_item(clc_context *ctx, size_t item, void *user)
{
    unsigned char *frames = user;
    const clc_image_desc src = {CLC_PIXEL_RGB8, W, H, 0}, dst = {CLC_PIXEL_GRAY8, W, H, 0};
    return clc_gray(ctx, &src, frames + item * W * H * 4, &dst,
                    frames + item * W * H * 4 + W * H * 3, NULL);
}

/* A batch of one worker (so that the calls, and which one fails, stay in one order): its
 * context shared with the device, four gray items, every result checked. */
static clc_status batch_call(const char *cache_dir)
{
    (void)cache_dir;
    setenv("CLCOMPUTE_TUNE", "0", 1); /* variant timing under faults: gray_faults */
    clc_batch_options o = {0};
    o.devices = fixture_options().device;
    o.workers_per_device = 1;
    o.cache = CLC_CACHE_OFF;
    clc_batch *b = NULL;
    clc_status st = clc_batch_create(&o, &b);
    enum { ITEMS = 4 };
    unsigned char frames[ITEMS * W * H * 4], ref[W * H];
    for (size_t i = 0; i < sizeof frames; ++i)
        frames[i] = (unsigned char)(i * 29);
    if (st == CLC_SUCCESS)
        st = clc_batch_run(b, ITEMS, gray_item, frames, NULL, NULL, NULL);
    const clc_image_desc src = {CLC_PIXEL_RGB8, W, H, 0}, dst = {CLC_PIXEL_GRAY8, W, H, 0};
    for (size_t i = 0; i < ITEMS && st == CLC_SUCCESS; ++i) {
        clc__ref_gray(&src, frames + i * W * H * 4, &dst, ref, CLC_GRAY_BT601);
        if (memcmp(frames + i * W * H * 4 + W * H * 3, ref, W * H) != 0)
            fail_msg("batch succeeded with a wrong item %zu (call %u failed)", i, fail_at);
    }
    clc_batch_destroy(b);
    unsetenv("CLCOMPUTE_TUNE");
    return st;
}

/* Fails call 1, 2, ... of the scenario until a run makes fewer failable calls than the index. */
static void every_failure_along(scenario run, const char *name, const char *cache_dir)
{
    unsigned n = 0, total = 0;
    for (fail_at = 1; fail_at < 5000; ++fail_at) {
        calls = 0;
        must_report = 0;
        live_mem = live_kernel = live_program = live_queue = live_context = live_event = 0;
        armed = 1;
        const clc_status st = run(cache_dir);
        armed = 0;
        failed_events_drop();
        if (live_mem || live_kernel || live_program || live_queue || live_context || live_event)
            fail_msg("%s, call %u failing: still held at the end: %ld buffers, %ld kernels, "
                     "%ld programs, %ld queues, %ld contexts, %ld events",
                     name, fail_at, live_mem, live_kernel, live_program, live_queue, live_context,
                     live_event);
        if (must_report && st == CLC_SUCCESS)
            fail_msg("%s, call %u failing: a failure the call must report, and it succeeded", name,
                     fail_at);
        if (calls < fail_at) { /* nothing failed: the path is covered */
            if (st != CLC_SUCCESS)
                fail_msg("%s without a failure: %s", name, clc_last_error());
            total = calls;
            break;
        }
        if (st != CLC_SUCCESS) {
            ++n;
            const char *message = clc_last_error();
            if (!message || !*message)
                fail_msg("%s, call %u failing: status %d without a message", name, fail_at, st);
        }
    }
    assert_true(total > 0);
    printf("%s: %u failable calls, each failed once: %u errors reported, %u absorbed (optional "
           "steps)\n",
           name, total, n, total - n);
}

static void gray_faults(void **state)
{
    (void)state;
    every_failure_along(gray_call, "gray", NULL);
}

static void cloud_faults(void **state)
{
    (void)state;
    every_failure_along(cloud_call, "cloud", NULL);
}

static void reduce_faults(void **state)
{
    (void)state;
    every_failure_along(reduce_call, "reduce", NULL);
    every_failure_along(pieces_call, "reduce in pieces", NULL);
}

static void timed_staging_faults(void **state)
{
    (void)state;
    every_failure_along(timed_staging_call, "reduce, staging timed", NULL);
}

/* Without failures: later calls of the same size make no device buffer (they take the first
 * call's from the pool). */
static void pool_reuses_buffers(void **state)
{
    (void)state;
    if (!getenv("CLCOMPUTE_STAGING"))
        skip();
    clc_context *ctx = NULL;
    assert_int_equal(open_context(NULL, &ctx), CLC_SUCCESS);
    const clc_image_desc src = {CLC_PIXEL_RGB8, W, H, 0}, dst = {CLC_PIXEL_GRAY8, W, H, 0};
    unsigned char in[W * H * 3], out[W * H];
    memset(in, 9, sizeof in);
    assert_int_equal(clc_gray(ctx, &src, in, &dst, out, NULL), CLC_SUCCESS);
    const long after_first = buffers_made;
    for (int i = 0; i < 3; ++i)
        assert_int_equal(clc_gray(ctx, &src, in, &dst, out, NULL), CLC_SUCCESS);
    assert_int_equal(buffers_made, after_first);
    clc_context_destroy(ctx);
}

/* Without failures: a context keeps its kernels, so calls after the first of each kind create
 * none (each call sets every argument again; the results are checked). */
static void kernels_reused(void **state)
{
    (void)state;
    clc_context *ctx = NULL;
    assert_int_equal(open_context(NULL, &ctx), CLC_SUCCESS);
    const clc_image_desc src = {CLC_PIXEL_RGB8, W, H, 0}, dst = {CLC_PIXEL_GRAY8, W, H, 0};
    const clc_image_desc depth = {CLC_PIXEL_DEPTH_U16, W, H, 0};
    const clc_intrinsics k = {30.0, 30.0, W / 2.0, H / 2.0};
    static unsigned char in[W * H * 3], out[W * H], ref[W * H];
    static uint16_t d[W * H];
    static float points[W * H * 3], want_points[(W * H + 1) * 3];
    static int32_t x[4001];
    long after_first = 0;
    for (int round = 0; round < 4; ++round) {
        for (size_t i = 0; i < sizeof in; ++i)
            in[i] = (unsigned char)(i * 37 + (size_t)round);
        for (size_t i = 0; i < W * H; ++i)
            d[i] = (uint16_t)(i % 7 ? 500 + i + (size_t)round : 0);
        for (int i = 0; i < 4001; ++i)
            x[i] = (i * 7919 + round) % 1000 - 500;
        assert_int_equal(clc_gray(ctx, &src, in, &dst, out, NULL), CLC_SUCCESS);
        clc__ref_gray(&src, in, &dst, ref, CLC_GRAY_BT601);
        assert_memory_equal(out, ref, sizeof out);
        clc_reduce_result r, want;
        assert_int_equal(clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_I32, x, 4001, &r), CLC_SUCCESS);
        clc__ref_reduce(CLC_REDUCE_SUM, CLC_DTYPE_I32, x, 4001, &want, NULL);
        assert_true(r.i == want.i);
        size_t count = 0;
        assert_int_equal(
            clc_depth_to_points(ctx, &depth, d, NULL, NULL, &k, NULL, points, NULL, W * H, &count),
            CLC_SUCCESS);
        const clc_ref_cloud p = clc__ref_cloud_params(1000.0, 1000.0, &k, 1, W, H, CLC_CLOUD_DENSE);
        assert_int_equal(count,
                         clc__ref_depth_to_points(&depth, d, NULL, NULL, &p, want_points, NULL));
        assert_memory_equal(points, want_points, count * 12);
        if (round == 0)
            after_first = kernels_made;
        else
            assert_int_equal(kernels_made, after_first);
    }
    clc_context_destroy(ctx);
}

/* Without failures: with more kernels made than the context keeps (33 reduction programs, each
 * run in one launch and in two: 99 kernels; an argmin shares its min's), the ones taken since
 * still come from the table: gray and a sum after it, repeated, make no kernel after their
 * first round. */
static void kernels_replaced_when_full(void **state)
{
    (void)state;
    clc_context *ctx = NULL;
    assert_int_equal(open_context(NULL, &ctx), CLC_SUCCESS);
    static const clc_reduce_op ops[] = {CLC_REDUCE_SUM, CLC_REDUCE_MIN, CLC_REDUCE_MAX};
    static const clc_dtype types[] = {CLC_DTYPE_F32, CLC_DTYPE_I32, CLC_DTYPE_U32, CLC_DTYPE_U8,
                                      CLC_DTYPE_I64, CLC_DTYPE_U64, CLC_DTYPE_I16, CLC_DTYPE_U16,
                                      CLC_DTYPE_I8,  CLC_DTYPE_F16, CLC_DTYPE_BOOL};
    static const unsigned char bytes[16 * 8] = {3, 1, 4, 1, 5, 9, 2, 6}; /* 16 of any type */
    const long before = kernels_made;
    for (int passes = 1; passes <= 2; ++passes) {
        clc__switch_set(ctx, CLC_SW_REDUCE_PASSES, passes == 1 ? "1" : "2");
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o)
            for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t) {
                clc_reduce_result r;
                assert_int_equal(clc_reduce(ctx, ops[o], types[t], bytes, 16, &r), CLC_SUCCESS);
            }
    }
    clc__switch_set(ctx, CLC_SW_REDUCE_PASSES, getenv("CLCOMPUTE_REDUCE_PASSES"));
    if (kernels_made - before <= 64) /* the table must have overflowed */
        fail_msg("only %ld kernels made", kernels_made - before);
    const clc_image_desc src = {CLC_PIXEL_RGB8, W, H, 0}, dst = {CLC_PIXEL_GRAY8, W, H, 0};
    static unsigned char in[W * H * 3], out[W * H], ref[W * H];
    for (size_t i = 0; i < sizeof in; ++i)
        in[i] = (unsigned char)(i * 13);
    clc__ref_gray(&src, in, &dst, ref, CLC_GRAY_BT601);
    long after_first = 0;
    for (int round = 0; round < 3; ++round) {
        assert_int_equal(clc_gray(ctx, &src, in, &dst, out, NULL), CLC_SUCCESS);
        assert_memory_equal(out, ref, sizeof out);
        clc_reduce_result r;
        assert_int_equal(clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_U8, in, sizeof in, &r),
                         CLC_SUCCESS);
        if (round == 0)
            after_first = kernels_made;
        else
            assert_int_equal(kernels_made, after_first);
    }
    clc_context_destroy(ctx);
}

static void pool_repeat_faults(void **state)
{
    (void)state;
    /* Where the device shares host memory only staging makes device buffers to keep: the plain
     * run leaves this to faults_pool. */
    if (!getenv("CLCOMPUTE_STAGING"))
        skip();
    every_failure_along(repeat_calls, "gray and sum repeated on one context", NULL);
}

static void banded_gray_faults(void **state)
{
    (void)state;
    every_failure_along(banded_gray_call, "gray in bands, staged", NULL);
}

static void staged_cloud_faults(void **state)
{
    (void)state;
    every_failure_along(staged_cloud_call, "cloud with colour, staged", NULL);
}

static void staged_reduce_twice_faults(void **state)
{
    (void)state;
    every_failure_along(staged_reduce_twice_call, "two staged sums on one context", NULL);
}

static void interleaved_uploads_faults(void **state)
{
    (void)state;
    every_failure_along(interleaved_uploads_call, "two staged uploads in flight at once", NULL);
}

static void copy_faults(void **state)
{
    (void)state;
    every_failure_along(copy_call, "copy", NULL);
}

static void enqueue_faults(void **state)
{
    (void)state;
    every_failure_along(enqueue_calls, "gray then sum, enqueued", NULL);
}

/* With the disk cache on: loading and storing binaries, and the stored variant choice. */
static void gray_faults_with_cache(void **state)
{
    (void)state;
    char *dir = fixture_temp_dir("faults");
    armed = 0;
    assert_int_equal(gray_call(dir), CLC_SUCCESS); /* fill the cache: the next runs load */
    every_failure_along(gray_call, "gray, cache warm", dir);
    fixture_remove_dir(dir);
    free(dir);
}

static void wrapped_cloud_faults(void **state)
{
    (void)state;
    every_failure_along(wrapped_cloud_enqueue, "cloud enqueued on a wrapped context", NULL);
}

static void batch_faults(void **state)
{
    (void)state;
    every_failure_along(batch_call, "batch of four gray items", NULL);
}

int main(int argc, char **argv)
{
    if (argc > 1) /* a test name pattern, to run one */
        cmocka_set_test_filter(argv[1]);
    /* Variant timing stays on: its failures must be absorbed, never reported. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(copy_faults),
        cmocka_unit_test(reduce_faults),
        cmocka_unit_test(timed_staging_faults),
        cmocka_unit_test(gray_faults),
        cmocka_unit_test(pool_repeat_faults),
        cmocka_unit_test(pool_reuses_buffers),
        cmocka_unit_test(cloud_faults),
        cmocka_unit_test(gray_faults_with_cache),
        cmocka_unit_test(enqueue_faults),
        cmocka_unit_test(wrapped_cloud_faults),
        cmocka_unit_test(batch_faults),
        cmocka_unit_test(kernels_reused),
        cmocka_unit_test(banded_gray_faults),
        cmocka_unit_test(staged_cloud_faults),
        cmocka_unit_test(staged_reduce_twice_faults),
        cmocka_unit_test(interleaved_uploads_faults),
        cmocka_unit_test(kernels_replaced_when_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
