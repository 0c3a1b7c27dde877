/* The device-selection grammar, shared by the API and CLCOMPUTE_DEVICE. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Longer selectors are refused: no device name comes near it, and the error quotes it. A list
 * may hold several. */
#define MAX_SELECTOR 256
#define MAX_LIST 1024

/* GPUs first, then accelerators, then CPUs: the order a user who asks for nothing expects. */
static int type_rank(clc_device_type type)
{
    switch (type) {
    case CLC_DEVICE_GPU:
        return 3;
    case CLC_DEVICE_ACCELERATOR:
        return 2;
    case CLC_DEVICE_CPU:
        return 1;
    case CLC_DEVICE_OTHER:
        break;
    }
    return 0;
}

/* 1 when a ranks above b; ties keep the earlier device because callers scan in order. */
static int better(const clc_device_info *a, const clc_device_info *b)
{
    if (type_rank(a->type) != type_rank(b->type))
        return type_rank(a->type) > type_rank(b->type);
    return a->compute_units > b->compute_units;
}

/* Vendor short names users type, and the platform name each stands for where the name does not
 * contain it ("pocl" is "Portable Computing Language"). */
static const struct {
    const char *word, *platform;
} vendors[] = {{"pocl", "Portable Computing Language"},
               {"nvidia", "NVIDIA"},
               {"intel", "Intel"},
               {"amd", "AMD"},
               {"apple", "Apple"}};

static int matches_vendor(const clc_device_info *d, const char *text)
{
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; ++i)
        if (clc__equals_nocase(text, vendors[i].word) &&
            clc__contains_nocase(d->platform_name, vendors[i].platform))
            return 1;
    return 0;
}

enum match_kind { MATCH_ANY, MATCH_TYPE, MATCH_NAME };

static int matches(const clc_device_info *d, enum match_kind kind, clc_device_type type,
                   const char *text)
{
    if (!d->available)
        return 0;
    switch (kind) {
    case MATCH_ANY:
        return 1;
    case MATCH_TYPE:
        return d->type == type;
    case MATCH_NAME:
        return clc__contains_nocase(d->name, text) ||
               clc__contains_nocase(d->platform_name, text) || matches_vendor(d, text);
    }
    return 0;
}

static size_t best_match(const clc_device_info *devices, size_t count, enum match_kind kind,
                         clc_device_type type, const char *text)
{
    size_t best = count;
    for (size_t i = 0; i < count; ++i) {
        if (matches(&devices[i], kind, type, text) &&
            (best == count || better(&devices[i], &devices[best])))
            best = i;
    }
    return best;
}

/* Index selectors: "P:D", two decimal numbers. Text made of digits and one colon, or digits
 * then a colon, is meant as one ("0:", ":1", "0:x" are malformed, not names: no device name
 * starts that way); anything else is not an index selector (AMD names hold colons:
 * "gfx90a:sramecc+:xnack-"). Returns 1 for P:D, 0 for not an index, -1 for malformed. */
static int parse_index(const char *s, unsigned long *p, unsigned long *d, int *overflow)
{
    const char *colon = strchr(s, ':');
    const size_t lead = strspn(s, "0123456789");
    if (!colon || (lead == 0 && colon != s) || (lead > 0 && s + lead != colon))
        return 0;
    const size_t tail = strspn(colon + 1, "0123456789");
    if (lead == 0 || tail == 0 || colon[1 + tail] != '\0')
        return -1;
    errno = 0;
    *p = strtoul(s, NULL, 10);
    *d = strtoul(colon + 1, NULL, 10);
    *overflow = errno == ERANGE || *p > 0xffffffffu || *d > 0xffffffffu;
    return 1;
}

static void list_devices(char *buf, size_t size, const clc_device_info *devices, size_t count)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < count && used < size; ++i) {
        int n = snprintf(buf + used, size - used, "%s%u:%u %s [%s, %s%s]", i ? "; " : "",
                         devices[i].platform_index, devices[i].device_index, devices[i].name,
                         clc_device_type_string(devices[i].type), devices[i].platform_name,
                         devices[i].available ? "" : ", unavailable");
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

static void say(char *reason, size_t size, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void say(char *reason, size_t size, const char *fmt, ...)
{
    if (!reason || !size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, size, fmt, ap);
    va_end(ap);
}

/* Copies text[0..len) trimmed of blanks into out (MAX_SELECTOR + 1 bytes); -1 when too long. */
static int trimmed(const char *text, size_t len, char *out)
{
    while (len > 0 && isspace((unsigned char)*text))
        ++text, --len;
    while (len > 0 && isspace((unsigned char)text[len - 1]))
        --len;
    if (len > MAX_SELECTOR)
        return -1;
    memcpy(out, text, len);
    out[len] = '\0';
    return 0;
}

/* The launchers' local rank variables, in the order they are read. */
static const char *const local_rank_vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                              "SLURM_LOCALID", "LOCAL_RANK"};

static int by_pci_bus(const clc_device_info *devices, size_t a, size_t b)
{
    const char *x = devices[a].pci_bus ? devices[a].pci_bus : "";
    const char *y = devices[b].pci_bus ? devices[b].pci_bus : "";
    if (*x && *y && strcmp(x, y) != 0)
        return strcmp(x, y) < 0;
    return a < b; /* unknown buses keep the list's order */
}

/* "localrank": the local rank modulo the node's GPUs (else CPUs) in PCI bus order, so that the
 * ranks of a node spread over its GPUs the same way in every process. */
static clc_status select_local_rank(const clc_device_info *devices, size_t count,
                                    const char *origin, size_t *found, char *why, size_t why_size)
{
    const char *var = NULL, *value = NULL;
    for (size_t i = 0; i < sizeof local_rank_vars / sizeof local_rank_vars[0] && !value; ++i) {
        const char *v = getenv(local_rank_vars[i]);
        if (v && *v)
            var = local_rank_vars[i], value = v;
    }
    if (!value)
        return clc__fail(NULL, CLC_ERROR_INVALID_SELECTOR,
                         "%s \"localrank\": no local rank in the environment (none of "
                         "OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID, LOCAL_RANK "
                         "is set: launch with mpirun, srun or torchrun, or name the device)",
                         origin);
    char *end = NULL;
    errno = 0;
    const unsigned long rank = strtoul(value, &end, 10);
    if (!isdigit((unsigned char)value[0]) || *end != '\0' || errno == ERANGE)
        return clc__fail(NULL, CLC_ERROR_INVALID_SELECTOR,
                         "%s \"localrank\": %s is \"%s\", not a rank", origin, var, value);
    clc_device_type type = CLC_DEVICE_GPU;
    size_t n = 0;
    for (size_t i = 0; i < count; ++i)
        n += devices[i].available && devices[i].type == CLC_DEVICE_GPU;
    if (!n) {
        type = CLC_DEVICE_CPU;
        for (size_t i = 0; i < count; ++i)
            n += devices[i].available && devices[i].type == CLC_DEVICE_CPU;
    }
    *found = count;
    if (!n)
        return CLC_SUCCESS;
    /* The (rank mod n)-th of the candidates in bus order: count those that come before. */
    const size_t want = rank % n;
    for (size_t i = 0; i < count && *found == count; ++i) {
        if (!devices[i].available || devices[i].type != type)
            continue;
        size_t before = 0;
        for (size_t j = 0; j < count; ++j)
            before += j != i && devices[j].available && devices[j].type == type &&
                      by_pci_bus(devices, j, i);
        if (before == want)
            *found = i;
    }
    say(why, why_size, "local rank %lu (%s) of %zu %s%s ordered by PCI bus", rank, var, n,
        clc_device_type_string(type), n == 1 ? "" : "s");
    return CLC_SUCCESS;
}

/* A term's syntax: an index P:D is two numbers, each within 32 bits. */
static clc_status check_term(const char *term, const char *origin)
{
    unsigned long p = 0, d = 0;
    int overflow = 0;
    const int index = parse_index(term, &p, &d, &overflow);
    if (index < 0)
        return clc__fail(NULL, CLC_ERROR_INVALID_SELECTOR,
                         "%s \"%s\" is malformed: a device index is P:D, two numbers (\"0:1\")",
                         origin, term);
    if (index > 0 && overflow)
        return clc__fail(NULL, CLC_ERROR_INVALID_SELECTOR, "%s \"%s\": index out of range", origin,
                         term);
    return CLC_SUCCESS;
}

/* One term (no ',' or '/'), already trimmed, non-empty and checked (check_term). Sets *found
 * (count when nothing matches) and the reason; fails only where "localrank" finds no rank.
 * "all" here is the default rule; the list form expands it. */
static clc_status select_term(const clc_device_info *devices, size_t count, const char *text,
                              const char *origin, size_t *found, char *why, size_t why_size)
{
    *found = count;
    if (clc__equals_nocase(text, "default") || clc__equals_nocase(text, "all")) {
        *found = best_match(devices, count, MATCH_ANY, CLC_DEVICE_OTHER, NULL);
        if (*found < count)
            say(why, why_size, "the %s with the most compute units (%u)%s",
                clc_device_type_string(devices[*found].type), devices[*found].compute_units,
                devices[*found].type == CLC_DEVICE_GPU ? "" : ", as no GPU is available");
        return CLC_SUCCESS;
    }
    if (clc__equals_nocase(text, "localrank"))
        return select_local_rank(devices, count, origin, found, why, why_size);
    if (clc__equals_nocase(text, "gpu") || clc__equals_nocase(text, "cpu") ||
        clc__equals_nocase(text, "accelerator")) {
        const clc_device_type type = clc__equals_nocase(text, "gpu")   ? CLC_DEVICE_GPU
                                     : clc__equals_nocase(text, "cpu") ? CLC_DEVICE_CPU
                                                                       : CLC_DEVICE_ACCELERATOR;
        *found = best_match(devices, count, MATCH_TYPE, type, NULL);
        if (*found < count)
            say(why, why_size, "the %s with the most compute units (%u)",
                clc_device_type_string(type), devices[*found].compute_units);
        return CLC_SUCCESS;
    }
    unsigned long p = 0, d = 0;
    int overflow = 0;
    if (parse_index(text, &p, &d, &overflow) > 0) {
        for (size_t i = 0; i < count; ++i)
            if (devices[i].platform_index == p && devices[i].device_index == d &&
                devices[i].available)
                *found = i;
        if (*found < count)
            say(why, why_size, "platform %lu, device %lu", p, d);
        return CLC_SUCCESS;
    }
    *found = best_match(devices, count, MATCH_NAME, CLC_DEVICE_OTHER, text);
    if (*found < count)
        say(why, why_size, "%s \"%s\"",
            clc__contains_nocase(devices[*found].name, text)            ? "device name contains"
            : clc__contains_nocase(devices[*found].platform_name, text) ? "platform name contains"
                                                                        : "platform of vendor",
            text);
    return CLC_SUCCESS;
}

/* One alternative: appends what it names to out[*n] (counting past cap), or nothing. */
static clc_status try_term(const clc_device_info *devices, size_t count, const char *term,
                           const char *part, size_t len, const char *whole, const char *origin,
                           int many, size_t *out, size_t cap, size_t *n, char *why, size_t why_size)
{
    if (many && clc__equals_nocase(term, "all")) {
        for (size_t i = 0; i < count; ++i) {
            if (!devices[i].available)
                continue;
            if (*n < cap)
                out[*n] = i;
            ++*n;
        }
        return CLC_SUCCESS;
    }
    size_t found = count;
    char reason[MAX_SELECTOR + 128];
    const clc_status st = select_term(devices, count, term, origin, &found, reason, sizeof reason);
    if (st != CLC_SUCCESS || found == count)
        return st;
    if (*n < cap)
        out[*n] = found;
    ++*n;
    /* A selector of one term reads "...: the GPU with ..."; otherwise say which term it was. */
    char whole_term[MAX_SELECTOR + 1];
    if (part == whole && len == strlen(whole) && trimmed(whole, len, whole_term) == 0 &&
        strcmp(whole_term, term) == 0)
        say(why, why_size, "%s", reason);
    else
        say(why, why_size, "\"%s\" of \"%s\": %s", term, whole, reason);
    return CLC_SUCCESS;
}

/* One part of a list: alternatives "a/b/c", the first that matches anything. `all` collects
 * every available device into out (when many). Appends to out[*n] (room for cap) and counts
 * in *n beyond cap. Fails for a malformed term, and when no alternative matches; with
 * `only_check`, only for a malformed term (nothing is matched). */
static clc_status select_part(const clc_device_info *devices, size_t count, const char *part,
                              size_t len, const char *whole, const char *origin, int many,
                              size_t *out, size_t cap, size_t *n, char *why, size_t why_size,
                              int only_check)
{
    char term[MAX_SELECTOR + 1];
    const size_t before = *n;
    for (const char *p = part;;) {
        const char *slash = memchr(p, '/', len - (size_t)(p - part));
        const size_t tlen = slash ? (size_t)(slash - p) : len - (size_t)(p - part);
        if (trimmed(p, tlen, term) != 0)
            return clc__fail(NULL, CLC_ERROR_INVALID_SELECTOR,
                             "%s \"%s\": a part is longer than %d characters", origin, whole,
                             MAX_SELECTOR);
        if (!term[0])
            return clc__fail(NULL, CLC_ERROR_INVALID_SELECTOR, "%s \"%s\" has an empty part",
                             origin, whole);
        const clc_status st = only_check ? check_term(term, origin)
                                         : try_term(devices, count, term, part, len, whole, origin,
                                                    many, out, cap, n, why, why_size);
        if (st != CLC_SUCCESS || *n > before)
            return st;
        if (!slash)
            break;
        p = slash + 1;
    }
    if (only_check)
        return CLC_SUCCESS;
    char available[1024];
    list_devices(available, sizeof available, devices, count);
    char shown[MAX_SELECTOR + 1];
    if (trimmed(part, len, shown) != 0)
        shown[0] = '\0';
    if (clc__equals_nocase(shown, "default") || clc__equals_nocase(shown, "all"))
        return clc__fail(NULL, CLC_ERROR_NO_DEVICE, "no available device; devices: %s", available);
    return clc__fail(NULL, CLC_ERROR_DEVICE_NOT_MATCHED,
                     "%s \"%s\" matched no available device; devices: %s", origin, shown,
                     available);
}

/* A whole selector: parts separated by ',', alternatives by '/'. Every part must match. Every
 * term is checked before any is matched: "gpu," and "gpu/0:" are mistakes whether or not there
 * is a GPU. */
static clc_status select_list(const clc_device_info *devices, size_t count, const char *selector,
                              const char *origin, int many, size_t *out, size_t cap, size_t *n,
                              char *why, size_t why_size)
{
    for (int check = 1; check >= 0; --check) {
        *n = 0;
        for (const char *p = selector;;) {
            const char *comma = strchr(p, ',');
            const size_t len = comma ? (size_t)(comma - p) : strlen(p);
            const clc_status st = select_part(devices, count, p, len, selector, origin, many, out,
                                              cap, n, *n ? NULL : why, why_size, check);
            if (st != CLC_SUCCESS)
                return st;
            if (!comma)
                break;
            p = comma + 1;
        }
    }
    return CLC_SUCCESS;
}

clc_status clc__select_among(const clc_device_info *devices, size_t count, const char *selector,
                             const char *origin, size_t *index, char *reason, size_t reason_size)
{
    if (!devices || !count || !index)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "device selection: no devices");
    const char *text = selector && *selector ? selector : "default";
    const size_t len = strlen(text);
    if (len > MAX_LIST)
        return clc__fail(NULL, CLC_ERROR_INVALID_SELECTOR,
                         "%s is %zu characters long; the limit is %d", origin, len, MAX_LIST);
    if (strspn(text, " \t\r\n\v\f") == len)
        return clc__fail(NULL, CLC_ERROR_INVALID_SELECTOR, "%s \"%s\" is blank", origin, text);
    /* A list names several devices; one device is wanted here: its first. */
    size_t first = count, n = 0;
    char why[MAX_LIST + 128];
    const clc_status st =
        select_list(devices, count, text, origin, 0, &first, 1, &n, why, sizeof why);
    if (st != CLC_SUCCESS)
        return st;
    *index = first;
    const int by_default = clc__equals_nocase(text, "default");
    if (by_default)
        say(reason, reason_size, "default rule: %s", why);
    else if (n > 1)
        say(reason, reason_size, "%s \"%s\": the first of its %zu devices, %s", origin, text, n,
            why);
    else
        say(reason, reason_size, "%s \"%s\": %s", origin, text, why);
    return CLC_SUCCESS;
}

clc_status clc__select_many_among(const clc_device_info *devices, size_t count,
                                  const char *selectors, const char *origin, size_t *indices,
                                  size_t capacity, size_t *found)
{
    if (strlen(selectors) > MAX_LIST)
        return clc__fail(NULL, CLC_ERROR_INVALID_SELECTOR,
                         "%s is %zu characters long; the limit is %d", origin, strlen(selectors),
                         MAX_LIST);
    const clc_status st =
        select_list(devices, count, selectors, origin, 1, indices, capacity, found, NULL, 0);
    if (st != CLC_SUCCESS)
        return st;
    if (*found > capacity)
        return clc__fail(NULL, CLC_ERROR_SIZE_OVERFLOW, "%s \"%s\" names %zu devices; room for %zu",
                         origin, selectors, *found, capacity);
    return CLC_SUCCESS;
}

/* The selector to use: the caller's, else CLCOMPUTE_DEVICE, else the default; origin names it. */
static const char *effective(const char *selector, const char **origin)
{
    *origin = "selector";
    if (selector && *selector)
        return selector;
    const char *env = getenv(CLC_DEVICE_ENV);
    if (env && *env) {
        *origin = CLC_DEVICE_ENV;
        return env;
    }
    return "default";
}

clc_status clc_device_select(const clc_device_list *list, const char *selector, size_t *index,
                             char *reason, size_t reason_size)
{
    if (!list || !index)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_device_select: list and index must not be NULL");
    const char *origin = NULL;
    selector = effective(selector, &origin);
    return clc__select_among(clc_device_list_get(list, 0), clc_device_list_count(list), selector,
                             origin, index, reason, reason_size);
}

clc_status clc_device_select_many(const clc_device_list *list, const char *selectors,
                                  size_t *indices, size_t capacity, size_t *count)
{
    if (!list || !count || (!indices && capacity))
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_device_select_many: list and count must not be NULL");
    *count = 0;
    const char *origin = NULL;
    selectors = effective(selectors, &origin);
    return clc__select_many_among(clc_device_list_get(list, 0), clc_device_list_count(list),
                                  selectors, origin, indices, capacity, count);
}
