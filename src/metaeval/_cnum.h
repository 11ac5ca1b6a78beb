/* metaeval/_cnum.h: the byte and number helpers shared by the C extensions metaeval.treceval._trecscan
 * (trec_eval's run scanner) and metaeval._reader (the columns of metaeval's reader): 8-byte loads,
 * the 64-bit id hash of the scanner's tables, and SCORE as C's atof reads it (parse_score).
 * Plain C and the CPython API (PyOS_string_to_double); every function static. */
#ifndef METAEVAL_CNUM_H
#define METAEVAL_CNUM_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ hashing */

static inline uint64_t load_partial(const unsigned char *p, size_t n)
{
    /* n <= 8 bytes at p, zero-extended (little-endian value); the caller guarantees 8 readable bytes at p */
    uint64_t w;
    memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return n ? (w & (~(uint64_t)0 >> (64 - 8 * n))) : 0;
}

static inline uint64_t load8(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* a[0..n) == b[0..n); both must have 8 readable bytes past their ends */
static inline int same_bytes(const unsigned char *a, const unsigned char *b, size_t n)
{
    while (n >= 8) {
        if (load8(a) != load8(b))
            return 0;
        a += 8;
        b += 8;
        n -= 8;
    }
    return load_partial(a, n) == load_partial(b, n);
}

/* 64-bit hash of n bytes at p; reads up to 7 bytes past the end (the caller guarantees them) */
static inline uint64_t hash_bytes(const unsigned char *p, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)n * 0xff51afd7ed558ccdULL);
    while (n >= 8) {
        h = (h ^ load8(p)) * 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 31;
        p += 8;
        n -= 8;
    }
    if (n) {
        h = (h ^ load_partial(p, n)) * 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 31;
    }
    h ^= h >> 29;
    h *= 0x94d049bb133111ebULL;
    h ^= h >> 32;
    return h;
}

static inline size_t pow2_at_least(size_t n)
{
    size_t c = 16;
    while (c < n)
        c <<= 1;
    return c;
}

/* ------------------------------------------------------------------ SCORE: C atof */

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* x87 extended (64-bit significand) or IEEE quad long double: the 16..19-digit path */
#if defined(LDBL_MANT_DIG) && LDBL_MANT_DIG >= 64
#define LONG_DOUBLE_OK 1
static const long double POW10L[28] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
    1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
#else
#define LONG_DOUBLE_OK 0
#endif

static inline int lower(int c) { return c | 0x20; }

/* The token s..e as c_atof reads it.  0: *out set; 1: NaN (caller falls back); -1: error. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWAR_OK 1
/* 8 ASCII digits in a little-endian word (fast_float's tests) */
static inline int is_8digits(uint64_t v)
{
    return ((v & 0xF0F0F0F0F0F0F0F0ULL) | (((v + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) ==
           0x3333333333333333ULL;
}

static inline uint64_t parse_8digits(uint64_t v)
{
    const uint64_t mask = 0x000000FF000000FFULL;
    const uint64_t mul1 = 0x000F424000000064ULL;     /* 100 + (1000000 << 32) */
    const uint64_t mul2 = 0x0000271000000001ULL;     /* 1 + (10000 << 32) */
    v -= 0x3030303030303030ULL;
    v = (v * 10) + (v >> 8);
    v = (((v & mask) * mul1) + (((v >> 16) & mask) * mul2)) >> 32;
    return v & 0xFFFFFFFFULL;
}
#else
#define SWAR_OK 0
#endif

/* lo: the lowest readable address (<= s) */
static inline int parse_score(const unsigned char *s, const unsigned char *e, const unsigned char *lo, double *out)
{
    const unsigned char *p = s, *num;
    int neg = 0, any = 0, sig = 0, ebig = 0;
    uint64_t m = 0;
    long frac = 0, ev = 0;

    if (p < e && (*p == '+' || *p == '-')) {
        neg = *p == '-';
        p++;
    }
    num = p;
    while (p < e && (unsigned)(*p - '0') < 10) {
        unsigned d;
#if SWAR_OK
        /* 8 significant digits at once (m < 10^11 before: no overflow, sig stays <= 19) */
        if ((sig || *p != '0') && sig <= 11 && e - p >= 8 && is_8digits(load8(p))) {
            m = m * 100000000ULL + parse_8digits(load8(p));
            any = 1;
            sig += 8;
            p += 8;
            continue;
        }
#endif
        d = *p - '0';
        any = 1;
        if (sig || d) {
            if (sig < 19)
                m = m * 10 + d;
            else
                frac--;                 /* a dropped integer digit: one more power of ten */
            sig++;
        }
        p++;
    }
    if (p < e && *p == '.') {
        const unsigned char *dot = p++;
        while (p < e && (unsigned)(*p - '0') < 10) {
            unsigned d;
#if SWAR_OK
            /* digits from here on are significant once one non-zero digit has been seen */
            if ((sig || *p != '0') && e - p >= 8 && sig <= 11 && is_8digits(load8(p))) {
                m = m * 100000000ULL + parse_8digits(load8(p));
                any = 1;
                sig += 8;
                frac += 8;
                p += 8;
                continue;
            }
            if ((sig || *p != '0') && e - p < 8 && sig + (e - p) <= 19 && e - lo >= 8) {
                /* the last k < 8 bytes of the token, when all are digits: read as the 8 bytes
                 * that end the token (readable from lo on), those before the k replaced by '0' */
                int k = (int)(e - p);
                uint64_t lowmask = (~0ULL) >> (8 * k);          /* the 8 - k bytes before */
                uint64_t w = (load8(e - 8) & ~lowmask) | (0x3030303030303030ULL & lowmask);
                if (is_8digits(w)) {
                    static const uint64_t P10[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
                    m = m * P10[k] + parse_8digits(w);
                    any = 1;
                    sig += k;
                    frac += k;
                    p = e;
                    break;
                }
            }
#endif
            d = *p - '0';
            any = 1;
            if (sig || d) {
                if (sig < 19) {
                    m = m * 10 + d;
                    frac++;
                }
                sig++;
            } else {
                frac++;
            }
            p++;
        }
        if (!any)
            p = dot;
    }
    if (!any) {
        /* inf / infinity / nan, case-insensitive; anything else reads as 0 */
        p = num;
        if (e - p >= 3 && lower(p[0]) == 'i' && lower(p[1]) == 'n' && lower(p[2]) == 'f') {
            *out = neg ? -Py_HUGE_VAL : Py_HUGE_VAL;
            return 0;
        }
        if (e - p >= 3 && lower(p[0]) == 'n' && lower(p[1]) == 'a' && lower(p[2]) == 'n')
            return 1;
        *out = 0.0;
        return 0;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        const unsigned char *q = p + 1;
        int eneg = 0;
        if (q < e && (*q == '+' || *q == '-')) {
            eneg = *q == '-';
            q++;
        }
        if (q < e && (unsigned)(*q - '0') < 10) {
            while (q < e && (unsigned)(*q - '0') < 10) {
                if (ev < 100000000L)
                    ev = ev * 10 + (*q - '0');
                else
                    ebig = 1;           /* a huge exponent: the exact conversion below */
                q++;
            }
            if (eneg)
                ev = -ev;
            p = q;
        }
    }
    if (sig == 0) {
        *out = neg ? -0.0 : 0.0;
        return 0;
    }
    {
        long j = ev - frac;
        if (sig <= 19 && m <= (1ULL << 53) && !ebig && j >= -22 && j <= 22) {
            double x = (double)m;       /* every digit in m, m <= 2^53: exact */
            x = j < 0 ? x / POW10[-j] : x * POW10[j];
            *out = neg ? -x : x;
            return 0;
        }
    }
#if LONG_DOUBLE_OK
    {
        /* <= 19 digits (m < 2^64, exact in a 64-bit significand), |j| <= 27 (10^j exact): one
         * rounding to long double, then to double.  Rounding twice equals rounding once unless the
         * long double lies exactly halfway between two doubles (halfway points are representable
         * with 54 bits and rounding is monotone): that case takes the exact conversion below. */
        long j = ev - frac;
        if (sig <= 19 && !ebig && j >= -27 && j <= 27) {
            long double x = (long double)m, r, up, down;
            double d;
            x = j < 0 ? x / POW10L[-j] : x * POW10L[j];
            d = (double)x;
#if LDBL_MANT_DIG == 64 && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            {
                /* x87 extended: the explicit 64-bit significand is the first 8 bytes; x is
                 * halfway between two (normal) doubles iff its 11 bits below a double's last
                 * are 10000000000 */
                uint64_t sig64;
                (void)r;
                (void)up;
                (void)down;
                memcpy(&sig64, &x, 8);
                if ((sig64 & 0x7ff) != 0x400) {
                    *out = neg ? -d : d;
                    return 0;
                }
            }
#else
            r = x - (long double)d;     /* exact */
            if (r < 0)
                r = -r;
            up = (long double)nextafter(d, Py_HUGE_VAL) - (long double)d;
            down = (long double)d - (long double)nextafter(d, -Py_HUGE_VAL);
            if (r == 0 || (2 * r != up && 2 * r != down)) {
                *out = neg ? -d : d;
                return 0;
            }
#endif
        }
    }
#endif
    {
        /* the matched prefix s..p, NUL-terminated, through CPython's correctly rounded strtod */
        char small[64], *buf = small, *end = NULL;
        size_t n = (size_t)(p - s);
        double x;
        if (n + 1 > sizeof small) {
            buf = PyMem_Malloc(n + 1);
            if (!buf)
                return -1;
        }
        memcpy(buf, s, n);
        buf[n] = 0;
        x = PyOS_string_to_double(buf, &end, NULL);
        if (buf != small)
            PyMem_Free(buf);
        if (x == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return -1;
        }
        if (end != buf + n)
            return -1;
        *out = x;
        return 0;
    }
}

#endif
