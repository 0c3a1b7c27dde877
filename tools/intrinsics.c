/* Camera intrinsics files for clcompute cloud --intrinsics: Open3D's PinholeCameraIntrinsic JSON,
 * or the plain text "fx fy cx cy width height". */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "intrinsics.h"

/* Intrinsics JSON is read as Python's json module reads it (RFC 8259, without its NaN and
 * Infinity), so that a file is taken only where Python and Open3D would take it too, and read as
 * they read it. A key given twice is refused although both keep the last: a reader that searched
 * for keys here once took the first, and a file that says two things is better fixed than read. */
typedef struct json_text {
    const char *path;
    char *start, *p, *end; /* *end is '\0', for strtod */
} json_text;

#define INTRINSICS_MAX_BYTES (64 * 1024) /* Open3D writes a few hundred */
#define INTRINSICS_MAX_KEYS 64
#define JSON_MAX_DEPTH 64

static void json_fail(const json_text *j, const char *fmt, ...) CLI_PRINTF(2, 3);

/* Says what is wrong and where, as line and column (1-based) of j->p. */
static void json_fail(const json_text *j, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int line = 1, column = 1;
    for (const char *q = j->start; q < j->p; ++q, ++column)
        if (*q == '\n')
            ++line, column = 0;
    cli_error("intrinsics '%s', line %d column %d: %s", j->path, line, column, what);
}

static void json_space(json_text *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        ++j->p;
}

/* What is at j->p, for messages: a character, or the end of the file. */
static const char *json_here(const json_text *j, char buf[16])
{
    if (j->p >= j->end)
        return "the end of the file";
    const unsigned char c = (unsigned char)*j->p;
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, 16, "'%c'", c);
    else
        snprintf(buf, 16, "byte 0x%02x", c);
    return buf;
}

static int json_hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
        const char c = p[i];
        const unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                           : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                           : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                                  : 16u;
        if (d == 16)
            return -1;
        v = v * 16 + d;
    }
    *out = v;
    return 0;
}

/* A string at j->p, decoded in place (escapes are never shorter than what they stand for) as
 * UTF-8, so that keys spelt differently ("w\u0069dth") compare as Python compares them. */
static int json_string(json_text *j, char **out, size_t *len)
{
    char *w = ++j->p; /* past the opening quote */
    *out = w;
    for (;;) {
        if (j->p >= j->end) {
            json_fail(j, "a string is not closed");
            return -1;
        }
        const unsigned char c = (unsigned char)*j->p;
        if (c == '"')
            break;
        if (c < 0x20) {
            json_fail(j, "control character 0x%02x in a string", c);
            return -1;
        }
        if (c != '\\') {
            *w++ = *j->p++;
            continue;
        }
        if (j->end - j->p < 2) {
            json_fail(j, "a string is not closed");
            return -1;
        }
        const char e = j->p[1];
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e != '\0' && simple) {
            *w++ = "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
            j->p += 2;
            continue;
        }
        unsigned u = 0, low = 0;
        if (e != 'u' || j->end - j->p < 6 || json_hex4(j->p + 2, &u) != 0) {
            json_fail(j, "invalid escape in a string");
            return -1;
        }
        j->p += 6;
        if (u >= 0xd800 && u < 0xdc00 && j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u' &&
            json_hex4(j->p + 2, &low) == 0 && low >= 0xdc00 && low < 0xe000) {
            u = 0x10000 + ((u - 0xd800) << 10) + (low - 0xdc00);
            j->p += 6;
        }
        if (u < 0x80) {
            *w++ = (char)u;
        } else if (u < 0x800) {
            *w++ = (char)(0xc0 | u >> 6), *w++ = (char)(0x80 | (u & 0x3f));
        } else if (u < 0x10000) {
            *w++ = (char)(0xe0 | u >> 12), *w++ = (char)(0x80 | (u >> 6 & 0x3f));
            *w++ = (char)(0x80 | (u & 0x3f));
        } else {
            *w++ = (char)(0xf0 | u >> 18), *w++ = (char)(0x80 | (u >> 12 & 0x3f));
            *w++ = (char)(0x80 | (u >> 6 & 0x3f)), *w++ = (char)(0x80 | (u & 0x3f));
        }
    }
    *len = (size_t)(w - *out);
    ++j->p;
    return 0;
}

/* A number at j->p as JSON spells one: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? (no '+',
 * no leading zeros, no '5.' or '.5', no NaN or Infinity). *text and *text_len: the number as
 * written, for messages. -1, having said nothing, if none is there. */
static int json_number(json_text *j, double *value, const char **text, int *text_len)
{
    char *q = j->p;
    if (q < j->end && *q == '-')
        ++q;
    if (q >= j->end || !isdigit((unsigned char)*q))
        return -1;
    if (*q == '0') {
        if (++q < j->end && isdigit((unsigned char)*q))
            return -1; /* 037: Python's json refuses it, JavaScript once read it as octal */
    } else {
        while (q < j->end && isdigit((unsigned char)*q))
            ++q;
    }
    if (q < j->end && *q == '.') {
        if (++q >= j->end || !isdigit((unsigned char)*q))
            return -1;
        while (q < j->end && isdigit((unsigned char)*q))
            ++q;
    }
    if (q < j->end && (*q == 'e' || *q == 'E')) {
        if (++q < j->end && (*q == '+' || *q == '-'))
            ++q;
        if (q >= j->end || !isdigit((unsigned char)*q))
            return -1;
        while (q < j->end && isdigit((unsigned char)*q))
            ++q;
    }
    /* strtod would read on where JSON stops ("0x10" as hex), so it sees only the number. */
    const char saved = *q;
    *q = '\0';
    *value = strtod(j->p, NULL);
    *q = saved;
    *text = j->p;
    *text_len = (int)(q - j->p);
    j->p = q;
    return 0;
}

/* Any value, read to its end and dropped: those of keys Open3D does not read. */
static int json_skip(json_text *j, int depth)
{
    char buf[16];
    json_space(j);
    if (depth > JSON_MAX_DEPTH) {
        json_fail(j, "nested more than %d deep", JSON_MAX_DEPTH);
        return -1;
    }
    if (j->p < j->end && *j->p == '"') {
        char *s;
        size_t n;
        return json_string(j, &s, &n);
    }
    if (j->p < j->end && (*j->p == '{' || *j->p == '[')) {
        const char close = *j->p == '{' ? '}' : ']';
        ++j->p;
        json_space(j);
        if (j->p < j->end && *j->p == close) {
            ++j->p;
            return 0;
        }
        for (;;) {
            if (close == '}') {
                json_space(j);
                char *s;
                size_t n;
                if (j->p >= j->end || *j->p != '"') {
                    json_fail(j, "a key (a string) expected, not %s", json_here(j, buf));
                    return -1;
                }
                if (json_string(j, &s, &n) != 0)
                    return -1;
                json_space(j);
                if (j->p >= j->end || *j->p != ':') {
                    json_fail(j, "':' expected, not %s", json_here(j, buf));
                    return -1;
                }
                ++j->p;
            }
            if (json_skip(j, depth + 1) != 0)
                return -1;
            json_space(j);
            if (j->p < j->end && *j->p == close) {
                ++j->p;
                return 0;
            }
            if (j->p >= j->end || *j->p != ',') {
                json_fail(j, "',' or '%c' expected, not %s", close, json_here(j, buf));
                return -1;
            }
            ++j->p;
        }
    }
    static const char *const words[3] = {"true", "false", "null"};
    for (int i = 0; i < 3; ++i) {
        const size_t n = strlen(words[i]);
        if ((size_t)(j->end - j->p) >= n && memcmp(j->p, words[i], n) == 0) {
            j->p += n;
            return 0;
        }
    }
    double v;
    int len;
    const char *text;
    if (json_number(j, &v, &text, &len) != 0) {
        json_fail(j, "a value expected, not %s", json_here(j, buf));
        return -1;
    }
    return 0;
}

/* "intrinsic_matrix": exactly nine numbers, column by column. */
static int json_matrix(json_text *j, double m[9])
{
    char buf[16];
    json_space(j);
    if (j->p >= j->end || *j->p != '[') {
        json_fail(j, "\"intrinsic_matrix\" is not a list of nine numbers");
        return -1;
    }
    ++j->p;
    json_space(j);
    int count = 0;
    if (j->p < j->end && *j->p == ']') {
        ++j->p;
    } else {
        for (;;) {
            json_space(j);
            double v;
            int len;
            const char *text;
            if (json_number(j, &v, &text, &len) != 0) {
                json_fail(j, "element %d of \"intrinsic_matrix\" is not a JSON number", count + 1);
                return -1;
            }
            if (count < 9)
                m[count] = v;
            ++count;
            json_space(j);
            if (j->p < j->end && *j->p == ']') {
                ++j->p;
                break;
            }
            if (j->p >= j->end || *j->p != ',') {
                json_fail(j, "',' or ']' expected in \"intrinsic_matrix\", not %s",
                          json_here(j, buf));
                return -1;
            }
            ++j->p;
        }
    }
    if (count != 9) {
        json_fail(j,
                  "\"intrinsic_matrix\" has %d number%s; it must have 9 (the 3 x 3 matrix, "
                  "column by column)",
                  count, count == 1 ? "" : "s");
        return -1;
    }
    return 0;
}

/* "width" or "height": a whole number of pixels. */
static int json_size(json_text *j, const char *key, long long *out)
{
    json_space(j);
    double v;
    int len;
    const char *text;
    char *at = j->p;
    if (json_number(j, &v, &text, &len) != 0) {
        json_fail(j, "\"%s\" is not a JSON number", key);
        return -1;
    }
    /* 37.0 is taken as 37, as Python (37.0 == 37) and Open3D's asInt() take it. */
    if (v != floor(v) || v < 1 || v > INT_MAX) {
        j->p = at;
        json_fail(j, "\"%s\" is %.*s; it must be a whole number of pixels from 1 to %d", key,
                  len > 40 ? 40 : len, text, INT_MAX);
        return -1;
    }
    *out = (long long)v;
    return 0;
}

/* Open3D's PinholeCameraIntrinsic JSON, as o3d.io.write_pinhole_camera_intrinsic writes it:
 * {"width": W, "height": H, "intrinsic_matrix": [9 numbers]}, keys in any order. Keys it does
 * not read are skipped, as Open3D skips them. */
static int json_intrinsics(json_text *j, double m[9], long long *w, long long *h)
{
    char buf[16];
    static const char *const wanted[3] = {"width", "height", "intrinsic_matrix"};
    int found[3] = {0, 0, 0};
    struct {
        const char *s;
        size_t n;
    } keys[INTRINSICS_MAX_KEYS];
    int nkeys = 0;
    ++j->p; /* '{' */
    json_space(j);
    if (j->p < j->end && *j->p == '}')
        ++j->p;
    else {
        for (;;) {
            json_space(j);
            char *key;
            size_t n;
            char *at = j->p;
            if (j->p >= j->end || *j->p != '"') {
                json_fail(j, "a key (a string) expected, not %s", json_here(j, buf));
                return -1;
            }
            if (json_string(j, &key, &n) != 0)
                return -1;
            for (int i = 0; i < nkeys; ++i) {
                if (keys[i].n == n && memcmp(keys[i].s, key, n) == 0) {
                    j->p = at;
                    json_fail(j,
                              "the key \"%.*s\" is given twice; Python's json and Open3D "
                              "would take the last, so which is meant is unclear",
                              (int)(n > 60 ? 60 : n), key);
                    return -1;
                }
            }
            if (nkeys == INTRINSICS_MAX_KEYS) {
                j->p = at;
                json_fail(j, "more than %d keys", INTRINSICS_MAX_KEYS);
                return -1;
            }
            keys[nkeys].s = key, keys[nkeys].n = n, ++nkeys;
            json_space(j);
            if (j->p >= j->end || *j->p != ':') {
                json_fail(j, "':' expected after a key, not %s", json_here(j, buf));
                return -1;
            }
            ++j->p;
            int k = 0;
            while (k < 3 && !(strlen(wanted[k]) == n && memcmp(wanted[k], key, n) == 0))
                ++k;
            const int rc = k == 0   ? json_size(j, "width", w)
                           : k == 1 ? json_size(j, "height", h)
                           : k == 2 ? json_matrix(j, m)
                                    : json_skip(j, 1);
            if (rc != 0)
                return -1;
            if (k < 3)
                found[k] = 1;
            json_space(j);
            if (j->p < j->end && *j->p == '}') {
                ++j->p;
                break;
            }
            if (j->p >= j->end || *j->p != ',') {
                json_fail(j, "',' or '}' expected, not %s", json_here(j, buf));
                return -1;
            }
            ++j->p;
        }
    }
    json_space(j);
    if (j->p < j->end) {
        json_fail(j, "%s after the closing '}'", json_here(j, buf));
        return -1;
    }
    int parameters = 0; /* PinholeCameraParameters keeps the intrinsics under "intrinsic" */
    for (int i = 0; i < nkeys; ++i)
        parameters |= keys[i].n == 9 && memcmp(keys[i].s, "intrinsic", 9) == 0;
    for (int k = 0; k < 3; ++k) {
        if (!found[k]) {
            cli_error("intrinsics '%s' has no \"%s\"; Open3D's PinholeCameraIntrinsic JSON has "
                      "\"width\", \"height\" and \"intrinsic_matrix\"%s",
                      j->path, wanted[k],
                      parameters ? " (this looks like PinholeCameraParameters: save its "
                                   ".intrinsic with o3d.io.write_pinhole_camera_intrinsic)"
                                 : "");
            return -1;
        }
    }
    return 0;
}

/* "fx fy cx cy width height", separated by white space, nothing else. */
static int text_intrinsics(char *text, const char *end, double k[4], long long *w, long long *h)
{
    char *p = text;
    for (int i = 0; i < 6; ++i) {
        char *e = NULL;
        errno = 0;
        if (i < 4)
            k[i] = strtod(p, &e);
        else
            *(i == 4 ? w : h) = strtoll(p, &e, 10);
        if (e == p || (i >= 4 && errno == ERANGE))
            return -1;
        if (i < 4 && strcspn(p, "xX") < (size_t)(e - p)) /* strtod reads hex: decimal only */
            return -1;
        if (e < end && !isspace((unsigned char)*e))
            return -1; /* "37.5" as a width, "1,2", "1-2" */
        p = e;
    }
    while (p < end && isspace((unsigned char)*p))
        ++p;
    return p == end ? 0 : -1; /* a NUL byte is not the end of the file */
}

int intrinsics_read(const char *path, clc_intrinsics *k_out, int *width, int *height)
{
    struct stat st;
    FILE *f = NULL;
    if (stat(path, &st) != 0 || (S_ISREG(st.st_mode) && !(f = fopen(path, "rb")))) {
        cli_error("cannot read intrinsics '%s': %s", path, strerror(errno));
        return -1;
    }
    if (!f) {
        cli_error("cannot read intrinsics '%s': not a regular file", path);
        return -1;
    }
    char *text = malloc(INTRINSICS_MAX_BYTES + 1);
    if (!text) {
        fclose(f);
        cli_error("cannot read intrinsics '%s': out of memory", path);
        return -1;
    }
    const size_t n = fread(text, 1, INTRINSICS_MAX_BYTES + 1, f);
    const int failed = ferror(f);
    fclose(f);
    int rc = -1;
    if (failed) {
        cli_error("cannot read intrinsics '%s': a read error", path);
        goto done;
    }
    if (n == 0) {
        cli_error("cannot read intrinsics '%s': the file is empty", path);
        goto done;
    }
    if (n > INTRINSICS_MAX_BYTES) {
        cli_error("intrinsics '%s' is larger than %d KiB; an intrinsics file is a few hundred "
                  "bytes",
                  path, INTRINSICS_MAX_BYTES / 1024);
        goto done;
    }
    text[n] = '\0';
    json_text j = {path, text, text, text + n};
    if (n >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        j.p += 3; /* a UTF-8 byte order mark, as some Windows editors write */
    json_space(&j);
    double m[9] = {0}, fx, fy, cx, cy;
    long long w = 0, h = 0;
    if (j.p < j.end && *j.p == '{') {
        if (json_intrinsics(&j, m, &w, &h) != 0)
            goto done;
        fx = m[0], fy = m[4], cx = m[6], cy = m[7];
    } else {
        double k[4];
        if (text_intrinsics(j.p, j.end, k, &w, &h) != 0) {
            cli_error("'%s' is neither Open3D intrinsics JSON (\"intrinsic_matrix\", \"width\", "
                      "\"height\") nor the six numbers \"fx fy cx cy width height\"",
                      path);
            goto done;
        }
        fx = k[0], fy = k[1], cx = k[2], cy = k[3];
    }
    /* The options' rules: floats, the focal lengths with a float reciprocal. */
    if (w <= 0 || h <= 0 || w > INT_MAX || h > INT_MAX || !cli_float_ok(fx, CLI_NONZERO) ||
        !cli_float_ok(fy, CLI_NONZERO) || !cli_float_ok(cx, CLI_FINITE) ||
        !cli_float_ok(cy, CLI_FINITE)) {
        cli_error("intrinsics '%s': fx %g, fy %g, cx %g, cy %g, %lld x %lld; the focal lengths "
                  "must be non-zero and within a float's range (about 1.2e-38 to 3.4e38 in "
                  "magnitude), the principal point finite (at most about 3.4e38) and the width "
                  "and height from 1 to %d",
                  path, fx, fy, cx, cy, w, h, INT_MAX);
        goto done;
    }
    *k_out = (clc_intrinsics){fx, fy, cx, cy};
    *width = (int)w;
    *height = (int)h;
    rc = 0;
done:
    free(text);
    return rc;
}
