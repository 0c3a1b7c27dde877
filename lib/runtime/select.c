/* The device-selection grammar, shared by the API and CLCOMPUTE_DEVICE. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Longer selectors are refused: no device name comes near it, and the error quotes it. */
#define MAX_SELECTOR 256

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
        return clc__contains_nocase(d->name, text) || clc__contains_nocase(d->platform_name, text);
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

/* "P:D" with both parts plain decimal; anything else is not an index selector. */
static int parse_index(const char *s, unsigned long *p, unsigned long *d, int *overflow)
{
    const char *colon = strchr(s, ':');
    if (!colon || colon == s || !colon[1])
        return 0;
    for (const char *c = s; *c; ++c) {
        if (c != colon && !isdigit((unsigned char)*c))
            return 0;
    }
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

clc_status clc__select_among(const clc_device_info *devices, size_t count, const char *selector,
                             const char *origin, size_t *index, char *reason, size_t reason_size)
{
    if (!devices || !count || !index)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "device selection: no devices");

    /* The caller's text, trimmed; the quoted form in messages is the original. */
    char text[MAX_SELECTOR + 1];
    const char *start = selector ? selector : "";
    while (isspace((unsigned char)*start))
        ++start;
    size_t len = strlen(start);
    while (len > 0 && isspace((unsigned char)start[len - 1]))
        --len;
    if (len > MAX_SELECTOR)
        return clc__fail(NULL, CLC_ERROR_INVALID_SELECTOR,
                         "%s is %zu characters long; the limit is %d", origin, len, MAX_SELECTOR);
    memcpy(text, start, len);
    text[len] = '\0';
    if (selector && *selector && len == 0)
        return clc__fail(NULL, CLC_ERROR_INVALID_SELECTOR, "%s \"%s\" is blank", origin, selector);

    size_t found = count;
    char why[MAX_SELECTOR + 64];
    const int by_default = len == 0 || clc__equals_nocase(text, "default");
    if (by_default) {
        found = best_match(devices, count, MATCH_ANY, CLC_DEVICE_OTHER, NULL);
        if (found < count)
            snprintf(why, sizeof why, "the %s with the most compute units (%u)%s",
                     clc_device_type_string(devices[found].type), devices[found].compute_units,
                     devices[found].type == CLC_DEVICE_GPU ? "" : ", as no GPU is available");
    } else if (clc__equals_nocase(text, "gpu") || clc__equals_nocase(text, "cpu") ||
               clc__equals_nocase(text, "accelerator")) {
        clc_device_type type = clc__equals_nocase(text, "gpu")   ? CLC_DEVICE_GPU
                               : clc__equals_nocase(text, "cpu") ? CLC_DEVICE_CPU
                                                                 : CLC_DEVICE_ACCELERATOR;
        found = best_match(devices, count, MATCH_TYPE, type, NULL);
        if (found < count)
            snprintf(why, sizeof why, "the %s with the most compute units (%u)",
                     clc_device_type_string(type), devices[found].compute_units);
    } else {
        unsigned long p = 0, d = 0;
        int overflow = 0;
        if (parse_index(text, &p, &d, &overflow)) {
            if (overflow)
                return clc__fail(NULL, CLC_ERROR_INVALID_SELECTOR, "%s \"%s\": index out of range",
                                 origin, text);
            for (size_t i = 0; i < count; ++i) {
                if (devices[i].platform_index == p && devices[i].device_index == d &&
                    devices[i].available)
                    found = i;
            }
            if (found < count)
                snprintf(why, sizeof why, "platform %lu, device %lu", p, d);
        } else {
            found = best_match(devices, count, MATCH_NAME, CLC_DEVICE_OTHER, text);
            if (found < count)
                snprintf(why, sizeof why, "%s name contains \"%s\"",
                         clc__contains_nocase(devices[found].name, text) ? "device" : "platform",
                         text);
        }
    }

    if (found == count) {
        char available[1024];
        list_devices(available, sizeof available, devices, count);
        if (by_default)
            return clc__fail(NULL, CLC_ERROR_NO_DEVICE, "no available device; devices: %s",
                             available);
        return clc__fail(NULL, CLC_ERROR_DEVICE_NOT_MATCHED,
                         "%s \"%s\" matched no available device; devices: %s", origin, text,
                         available);
    }
    *index = found;
    if (by_default)
        say(reason, reason_size, "default rule: %s", why);
    else
        say(reason, reason_size, "%s \"%s\": %s", origin, text, why);
    return CLC_SUCCESS;
}

clc_status clc_device_select(const clc_device_list *list, const char *selector, size_t *index,
                             char *reason, size_t reason_size)
{
    if (!list || !index)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_device_select: list and index must not be NULL");
    const char *origin = "selector";
    if (!selector || !*selector) {
        const char *env = getenv(CLC_DEVICE_ENV);
        if (env && *env) {
            selector = env;
            origin = CLC_DEVICE_ENV;
        }
    }
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
    const char *origin = "selector";
    if (!selectors || !*selectors) {
        const char *env = getenv(CLC_DEVICE_ENV);
        selectors = env && *env ? env : "default";
        origin = env && *env ? CLC_DEVICE_ENV : "selector";
    }
    const clc_device_info *devices = clc_device_list_get(list, 0);
    const size_t n = clc_device_list_count(list);
    size_t found = 0;
    char part[MAX_SELECTOR + 1];
    const char *p = selectors;
    while (*p == ' ')
        ++p;
    if (clc__equals_nocase(p, "all")) {
        for (size_t i = 0; i < n; ++i) {
            if (!devices[i].available)
                continue;
            if (found < capacity)
                indices[found] = i;
            ++found;
        }
        if (!found)
            return clc__fail(NULL, CLC_ERROR_NO_DEVICE, "%s \"all\": no available device", origin);
    } else {
        for (;;) {
            const char *comma = strchr(p, ',');
            const size_t len = comma ? (size_t)(comma - p) : strlen(p);
            if (len > MAX_SELECTOR)
                return clc__fail(NULL, CLC_ERROR_INVALID_SELECTOR,
                                 "%s \"%s\": a part is longer than %d characters", origin,
                                 selectors, MAX_SELECTOR);
            memcpy(part, p, len);
            part[len] = '\0';
            /* An empty part ("gpu,,cpu", a trailing comma) is a mistake, not "default". */
            size_t index = 0;
            clc_status st = CLC_SUCCESS;
            if (strspn(part, " \t") == len)
                st = clc__fail(NULL, CLC_ERROR_INVALID_SELECTOR, "%s \"%s\" has an empty part",
                               origin, selectors);
            else
                st = clc__select_among(devices, n, part, origin, &index, NULL, 0);
            if (st != CLC_SUCCESS)
                return st;
            if (found < capacity)
                indices[found] = index;
            ++found;
            if (!comma)
                break;
            p = comma + 1;
        }
    }
    *count = found;
    if (found > capacity)
        return clc__fail(NULL, CLC_ERROR_SIZE_OVERFLOW, "%s \"%s\" names %zu devices; room for %zu",
                         origin, selectors, found, capacity);
    return CLC_SUCCESS;
}
