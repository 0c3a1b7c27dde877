/* Host copies split over a few threads, for staging: one thread copies from ordinary memory into
 * pinned memory at 10 GB/s on the H200 host, four at 36 (and PCIe moves 53-55), so a transfer
 * from pageable memory is bound by how many threads copy. The threads are the context's, started
 * with its first staged transfer and ended with it; the caller's thread copies a share too. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

struct clc_copier {
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    pthread_t *threads;
    unsigned helpers; /* threads besides the caller's */
    unsigned long generation;
    int quit;
    /* The copy in progress: its pieces end to end, cut into `parts` slices of `part` bytes (the
     * last shorter). */
    const clc_piece *pieces;
    size_t count, bytes, part;
    unsigned parts, next, finished;
};

/* Copies slice i, bytes [i * part, (i + 1) * part) of the pieces end to end; with the lock not
 * held. */
static void copy_slice(const clc_copier *c, unsigned i)
{
    const size_t lo = (size_t)i * c->part, hi = lo + c->part < c->bytes ? lo + c->part : c->bytes;
    size_t start = 0; /* of piece k, end to end */
    for (size_t k = 0; k < c->count && start < hi; start += c->pieces[k++].bytes) {
        const size_t end = start + c->pieces[k].bytes;
        const size_t a = lo > start ? lo : start, b = hi < end ? hi : end;
        if (a < b)
            memcpy((unsigned char *)c->pieces[k].dst + (a - start),
                   (const unsigned char *)c->pieces[k].src + (a - start), b - a);
    }
}

/* Takes slices until none is left; called and returning with the lock held. */
static void take_slices(clc_copier *c)
{
    while (c->next < c->parts) {
        const unsigned i = c->next++;
        pthread_mutex_unlock(&c->lock);
        copy_slice(c, i);
        pthread_mutex_lock(&c->lock);
        if (++c->finished == c->parts)
            pthread_cond_signal(&c->done);
    }
}

static void *helper(void *arg)
{
    clc_copier *c = arg;
    unsigned long seen = 0;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->quit && c->generation == seen)
            pthread_cond_wait(&c->work, &c->lock);
        if (c->quit)
            break;
        seen = c->generation;
        take_slices(c);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

long clc__host_cores(void)
{
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? cores : 0;
}

unsigned clc__copier_default_threads(void)
{
    /* Half the host's cores, 2 to 8: on the H200 host (16 cores) a 1 GiB staged upload took 144,
     * 76, 49 and 35 ms with 1, 2, 4 and 8 threads (docs/perf/h200-staging-threads.md); the other
     * half stays with the caller's threads and the driver's. */
    const long cores = clc__host_cores();
    const long half = cores > 0 ? cores / 2 : 2;
    return (unsigned)(half < 2 ? 2 : half > 8 ? 8 : half);
}

clc_copier *clc__copier_create(unsigned threads)
{
    if (threads < 2)
        return NULL;
    clc_copier *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->threads = calloc(threads - 1, sizeof *c->threads);
    if (!c->threads || pthread_mutex_init(&c->lock, NULL) != 0) {
        free(c->threads);
        free(c);
        return NULL;
    }
    pthread_cond_init(&c->work, NULL);
    pthread_cond_init(&c->done, NULL);
    for (unsigned i = 0; i + 1 < threads; ++i) {
        if (pthread_create(&c->threads[i], NULL, helper, c) != 0)
            break;
        ++c->helpers;
    }
    return c; /* with fewer helpers than asked if the system refused some: still correct */
}

void clc__copier_destroy(clc_copier *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    c->quit = 1;
    pthread_cond_broadcast(&c->work);
    pthread_mutex_unlock(&c->lock);
    for (unsigned i = 0; i < c->helpers; ++i)
        pthread_join(c->threads[i], NULL);
    pthread_cond_destroy(&c->work);
    pthread_cond_destroy(&c->done);
    pthread_mutex_destroy(&c->lock);
    free(c->threads);
    free(c);
}

void clc__copier_memcpy(clc_copier *c, unsigned threads, void *dst, const void *src, size_t bytes)
{
    const clc_piece one = {dst, src, bytes};
    clc__copier_copy(c, threads, &one, 1);
}

void clc__copier_copy(clc_copier *c, unsigned threads, const clc_piece *pieces, size_t count)
{
    size_t bytes = 0;
    for (size_t k = 0; k < count; ++k)
        bytes += pieces[k].bytes;
    /* Below a megabyte a single memcpy is done before threads would have woken. */
    if (!c || !c->helpers || threads < 2 || bytes < ((size_t)1 << 20)) {
        for (size_t k = 0; k < count; ++k)
            memcpy(pieces[k].dst, pieces[k].src, pieces[k].bytes);
        return;
    }
    pthread_mutex_lock(&c->lock);
    c->pieces = pieces;
    c->count = count;
    c->bytes = bytes;
    c->parts = threads < c->helpers + 1 ? threads : c->helpers + 1;
    c->part = (bytes + c->parts - 1) / c->parts;
    c->part = (c->part + 63) / 64 * 64; /* whole cache lines a thread */
    c->next = c->finished = 0;
    ++c->generation;
    pthread_cond_broadcast(&c->work);
    take_slices(c);
    while (c->finished < c->parts)
        pthread_cond_wait(&c->done, &c->lock);
    pthread_mutex_unlock(&c->lock);
}
