/* metaeval._trecscan: one pass over a TREC run's text -> trec_eval 10.0's rankings (optional).
 *
 * The pure-numpy reader (metaeval.io.treceval.read_trec_run + _rank_one) is the specification; this
 * module computes the same (rel, num_ret, present, run id) for the usual input and answers None for
 * anything unusual, so that the caller falls back to that reader (which also words every error):
 *
 *   - a byte >= 0x80, a NUL byte inside the text, or a control byte other than TAB LF VT FF CR;
 *   - a non-blank, non-comment line with fewer than 6 fields;
 *   - no result line at all;
 *   - a NaN score (the numpy sort and trec_eval's qsort order NaNs differently);
 *   - a document retrieved twice for one topic (the caller raises trec_eval's error);
 *   - a score token whose conversion fails (cannot happen for the grammar below; defensive).
 *
 * Semantics (see the docstring of metaeval.io.treceval):
 *   fields are split at bytes <= 0x20; blank lines and lines whose first non-blank byte is '#' are
 *   skipped; at least 6 fields, extra ones ignored; RANK ignored; run id = TAG of the last result
 *   line; SCORE = C atof as metaeval.cnum.c_atof reads it: the longest prefix matching
 *   [+-]?(digits[.digits*]|.digits)([eE][+-]?digits)? | [+-]?inf(inity)? | [+-]?nan (case-insensitive),
 *   else 0.0.  Decimal prefixes whose significant digits M fit in 53 bits with a power of ten j
 *   within +-22 are converted exactly (Clinger's fast path: M and 10^|j| exact doubles, one
 *   correctly rounded IEEE operation); <= 19 digits with |j| <= 27 through long double (64-bit
 *   significand: M and 10^|j| exact, one rounding there, then one to double -- unless the long
 *   double lies exactly halfway between two doubles); the others by PyOS_string_to_double on a
 *   NUL-terminated copy of the prefix (correctly rounded, independent of the C locale: the
 *   conversion Python's float() uses, hence c_atof's).
 *   Lines of topics absent from the qrels are dropped.  Labels: judged level (>= 0), NONPOOL (-1)
 *   for a document absent from the qrels, UNJUDGED (-2) for a negative judgment.  Per topic: score
 *   descending, ties by DOCID descending in byte order (strcmp, trec_eval's comp_sim_docno); then
 *   -M (first M), -c (an absent topic gets one NONPOOL document unless M <= 0), -J (judged only).
 *
 * Plain CPython C API, no numpy headers: results are bytearrays the Python side wraps.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PAD_REL (-(1 << 30))
#define NONPOOL (-1)
#define UNJUDGED (-2)
#define CAPSULE_NAME "metaeval._trecscan.QrelsIndex"

/* ------------------------------------------------------------------ hashing */

static inline uint64_t load_partial(const unsigned char *p, size_t n)
{
    /* n < 8 bytes at p, zero-extended; the caller guarantees 8 readable bytes at p */
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

static size_t pow2_at_least(size_t n)
{
    size_t c = 16;
    while (c < n)
        c <<= 1;
    return c;
}

/* ------------------------------------------------------------------ the qrels index */

typedef struct {
    uint32_t tag;               /* dkey >> 32: the probe of an absent document rarely goes further */
    int32_t idx;
} dslot;

typedef struct {
    Py_ssize_t T;
    unsigned char *tblob;       /* topic strings, each padded: 8 readable bytes past every end */
    Py_ssize_t *toff, *tlen;
    uint64_t *thash;
    int32_t *ttab;              /* open addressing, -1 empty */
    size_t tmask;

    Py_ssize_t N;
    unsigned char *dblob;
    Py_ssize_t *doff, *dlen;
    int32_t *dtopic, *drel;
    uint64_t *dkey;             /* hash of the DOCID */
    /* one small open-addressing table per topic (a run's lines come topic by topic: the table in
     * use stays in the L1 cache); slots of topic t: dtab[dbase[t] .. dbase[t] + dmask[t]] */
    dslot *dtab;
    size_t *dbase, *dmask;
    /* the judgments of topic t: jlist[jstart[t] .. jstart[t + 1]) */
    Py_ssize_t *jstart;
    int32_t *jlist;
} qindex;

static void qindex_free(qindex *q)
{
    if (!q)
        return;
    PyMem_Free(q->tblob);
    PyMem_Free(q->toff);
    PyMem_Free(q->tlen);
    PyMem_Free(q->thash);
    PyMem_Free(q->ttab);
    PyMem_Free(q->dblob);
    PyMem_Free(q->doff);
    PyMem_Free(q->dlen);
    PyMem_Free(q->dtopic);
    PyMem_Free(q->drel);
    PyMem_Free(q->dkey);
    PyMem_Free(q->dtab);
    PyMem_Free(q->dbase);
    PyMem_Free(q->dmask);
    PyMem_Free(q->jstart);
    PyMem_Free(q->jlist);
    PyMem_Free(q);
}

static void capsule_free(PyObject *cap)
{
    qindex_free((qindex *)PyCapsule_GetPointer(cap, CAPSULE_NAME));
}

/* fixed-width, NUL-padded strings (a numpy 'S<w>' array's buffer) -> packed blob with 8 bytes of
 * zero padding after each string */
static int unpack_fixed(const char *src, Py_ssize_t count, Py_ssize_t width, unsigned char **blob,
                        Py_ssize_t **off, Py_ssize_t **len)
{
    Py_ssize_t total = 0, i;
    *off = PyMem_Malloc(sizeof(Py_ssize_t) * (count + 1));
    *len = PyMem_Malloc(sizeof(Py_ssize_t) * (count + 1));
    if (!*off || !*len)
        return -1;
    for (i = 0; i < count; i++) {
        const char *s = src + i * width;
        Py_ssize_t l = 0;
        while (l < width && s[l])
            l++;
        (*len)[i] = l;
        (*off)[i] = total;
        total += l + 8;
    }
    *blob = PyMem_Calloc(total + 8, 1);
    if (!*blob)
        return -1;
    for (i = 0; i < count; i++)
        memcpy(*blob + (*off)[i], src + i * width, (*len)[i]);
    return 0;
}

static inline int32_t topic_lookup(const qindex *q, const unsigned char *s, Py_ssize_t n)
{
    uint64_t h = hash_bytes(s, n);
    size_t i = h & q->tmask;
    for (;;) {
        int32_t t = q->ttab[i];
        if (t < 0)
            return -1;
        if (q->thash[t] == h && q->tlen[t] == n && same_bytes(q->tblob + q->toff[t], s, (size_t)n))
            return t;
        i = (i + 1) & q->tmask;
    }
}

static PyObject *build_index(PyObject *self, PyObject *args)
{
    Py_buffer tb = {0}, db = {0}, tib = {0}, rb = {0};
    Py_ssize_t T, tw, N, dw, i;
    qindex *q = NULL;
    PyObject *cap;

    if (!PyArg_ParseTuple(args, "y*nny*nny*y*", &tb, &T, &tw, &db, &N, &dw, &tib, &rb))
        return NULL;
    if (T < 0 || N < 0 || tw < 1 || dw < 1 || tb.len < T * tw || db.len < N * dw ||
        tib.len < N * 8 || rb.len < N * 8 || T >= INT32_MAX || N >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "build_index: inconsistent sizes");
        goto fail;
    }
    q = PyMem_Calloc(1, sizeof(qindex));
    if (!q)
        goto nomem;
    q->T = T;
    q->N = N;
    if (unpack_fixed(tb.buf, T, tw, &q->tblob, &q->toff, &q->tlen) < 0)
        goto nomem;
    q->tmask = pow2_at_least(2 * (size_t)T + 1) - 1;
    q->thash = PyMem_Malloc(sizeof(uint64_t) * (T + 1));
    q->ttab = PyMem_Malloc(sizeof(int32_t) * (q->tmask + 1));
    if (!q->thash || !q->ttab)
        goto nomem;
    memset(q->ttab, 0xff, sizeof(int32_t) * (q->tmask + 1));
    for (i = 0; i < T; i++) {
        const unsigned char *s = q->tblob + q->toff[i];
        if (topic_lookup(q, s, q->tlen[i]) >= 0) {
            PyErr_SetString(PyExc_ValueError, "build_index: repeated topic");
            goto fail;
        }
        uint64_t h = hash_bytes(s, q->tlen[i]);
        size_t j = h & q->tmask;
        q->thash[i] = h;
        while (q->ttab[j] >= 0)
            j = (j + 1) & q->tmask;
        q->ttab[j] = (int32_t)i;
    }

    if (unpack_fixed(db.buf, N, dw, &q->dblob, &q->doff, &q->dlen) < 0)
        goto nomem;
    q->dtopic = PyMem_Malloc(sizeof(int32_t) * (N + 1));
    q->drel = PyMem_Malloc(sizeof(int32_t) * (N + 1));
    q->dkey = PyMem_Malloc(sizeof(uint64_t) * (N + 1));
    q->dbase = PyMem_Calloc((size_t)T + 1, sizeof(size_t));
    q->dmask = PyMem_Calloc((size_t)T + 1, sizeof(size_t));
    if (!q->dtopic || !q->drel || !q->dkey || !q->dbase || !q->dmask)
        goto nomem;
    for (i = 0; i < N; i++) {
        int64_t t, r;
        memcpy(&t, (const char *)tib.buf + 8 * i, 8);
        memcpy(&r, (const char *)rb.buf + 8 * i, 8);
        if (t < 0 || t >= T || r < INT32_MIN || r > INT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "build_index: topic index or REL out of range");
            goto fail;
        }
        q->dtopic[i] = (int32_t)t;
        q->drel[i] = r < 0 ? UNJUDGED : (int32_t)r;
        q->dkey[i] = hash_bytes(q->dblob + q->doff[i], q->dlen[i]);
        q->dmask[t]++;                  /* judgments of topic t, for now */
    }
    q->jstart = PyMem_Calloc((size_t)T + 2, sizeof(Py_ssize_t));
    q->jlist = PyMem_Malloc(sizeof(int32_t) * (N + 1));
    if (!q->jstart || !q->jlist)
        goto nomem;
    for (i = 0; i < T; i++)
        q->jstart[i + 1] = q->jstart[i] + (Py_ssize_t)q->dmask[i];
    for (i = 0; i < N; i++) {             /* dmask[t]: judgments of t not yet placed */
        int32_t t = q->dtopic[i];
        q->jlist[q->jstart[t + 1] - (Py_ssize_t)q->dmask[t]--] = (int32_t)i;
    }
    for (i = 0; i < N; i++)
        q->dmask[q->dtopic[i]]++;       /* back to the counts */
    {
        size_t total = 0;
        for (i = 0; i < T; i++) {
            size_t c = pow2_at_least(2 * q->dmask[i] + 1);
            q->dbase[i] = total;
            q->dmask[i] = c - 1;
            total += c;
        }
        q->dtab = PyMem_Malloc(sizeof(dslot) * (total + 1));
        if (!q->dtab)
            goto nomem;
        memset(q->dtab, 0xff, sizeof(dslot) * (total + 1));
    }
    for (i = 0; i < N; i++) {
        int32_t t = q->dtopic[i];
        uint64_t k = q->dkey[i];
        dslot *tab = q->dtab + q->dbase[t];
        size_t j = k & q->dmask[t];
        while (tab[j].idx >= 0) {
            int32_t o = tab[j].idx;
            if (q->dkey[o] == k && q->dlen[o] == q->dlen[i] &&
                memcmp(q->dblob + q->doff[o], q->dblob + q->doff[i], q->dlen[i]) == 0) {
                PyErr_SetString(PyExc_ValueError, "build_index: repeated judgment");
                goto fail;
            }
            j = (j + 1) & q->dmask[t];
        }
        tab[j].idx = (int32_t)i;
        tab[j].tag = (uint32_t)(k >> 32);
    }
    PyBuffer_Release(&tb);
    PyBuffer_Release(&db);
    PyBuffer_Release(&tib);
    PyBuffer_Release(&rb);
    cap = PyCapsule_New(q, CAPSULE_NAME, capsule_free);
    if (!cap)
        qindex_free(q);
    return cap;
nomem:
    PyErr_NoMemory();
fail:
    qindex_free(q);
    PyBuffer_Release(&tb);
    PyBuffer_Release(&db);
    PyBuffer_Release(&tib);
    PyBuffer_Release(&rb);
    return NULL;
}

static inline int32_t judgment(const qindex *q, int32_t t, const unsigned char *s, Py_ssize_t n,
                               uint64_t hdoc)
{
    const dslot *tab = q->dtab + q->dbase[t];
    size_t mask = q->dmask[t], i = hdoc & mask;
    uint32_t tag = (uint32_t)(hdoc >> 32);
    for (;;) {
        int32_t o = tab[i].idx;
        if (o < 0)
            return NONPOOL;
        if (tab[i].tag == tag && q->dkey[o] == hdoc && q->dlen[o] == n &&
            same_bytes(q->dblob + q->doff[o], s, (size_t)n))
            return q->drel[o];
        i = (i + 1) & mask;
    }
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
static int parse_score(const unsigned char *s, const unsigned char *e, const unsigned char *lo, double *out)
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

/* ------------------------------------------------------------------ the scan */

typedef struct {
    double score;
    const unsigned char *doc;
    uint64_t hash;              /* hash of the DOCID bytes */
    int32_t len;
    int32_t topic;
} entry;

typedef struct {
    double score;
    const unsigned char *doc;
    int32_t len;
    int32_t rel;
} item;

static inline int doc_cmp(const unsigned char *a, int32_t la, const unsigned char *b, int32_t lb)
{
    /* strcmp on NUL-free strings */
    int c = memcmp(a, b, (size_t)(la < lb ? la : lb));
    if (c)
        return c;
    return (la > lb) - (la < lb);
}

/* score descending, then DOCID descending (comp_sim_docno) */
static int item_cmp(const void *x, const void *y)
{
    const item *a = x, *b = y;
    if (a->score > b->score)
        return -1;
    if (a->score < b->score)
        return 1;
    return doc_cmp(b->doc, b->len, a->doc, a->len);
}

static int doc_desc_cmp(const void *x, const void *y)
{
    const item *a = x, *b = y;
    return doc_cmp(b->doc, b->len, a->doc, a->len);
}

static void rank_items(item *it, Py_ssize_t n)
{
    Py_ssize_t i, a;
    int score_sorted = 1, sorted = 1;
    for (i = 0; i + 1 < n; i++) {
        if (it[i].score < it[i + 1].score) {
            score_sorted = sorted = 0;
            break;
        }
        if (it[i].score == it[i + 1].score &&
            doc_cmp(it[i].doc, it[i].len, it[i + 1].doc, it[i + 1].len) < 0)
            sorted = 0;
    }
    if (sorted)
        return;
    if (!score_sorted) {
        qsort(it, (size_t)n, sizeof(item), item_cmp);
        return;
    }
    /* scores already descending: only the runs of equal scores need their DOCIDs ordered */
    for (a = 0; a < n;) {
        Py_ssize_t b = a + 1;
        while (b < n && it[b].score == it[a].score)
            b++;
        if (b - a > 16) {
            qsort(it + a, (size_t)(b - a), sizeof(item), doc_desc_cmp);
        } else if (b - a > 1) {
            Py_ssize_t u, v;            /* insertion sort: DOCID descending */
            for (u = a + 1; u < b; u++) {
                item tmp = it[u];
                for (v = u; v > a && doc_cmp(it[v - 1].doc, it[v - 1].len, tmp.doc, tmp.len) < 0; v--)
                    it[v] = it[v - 1];
                it[v] = tmp;
            }
        }
        a = b;
    }
}

/* whitespace bytes other than LF that may separate fields (both of the pure reader's tokenisers
 * agree on them); any other control byte sends the input to the pure reader */
static inline int ok_space(unsigned c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* token bytes: 0x21..0x7f */
static inline int tok_byte(unsigned c) { return (unsigned)(c - 0x21) < 0x5f; }

/* the first byte at or after p that is not a token byte (<= 0x20 or >= 0x80); the text ends with
 * an LF at or before end */
static inline const unsigned char *token_end(const unsigned char *p, const unsigned char *end, unsigned *stop)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* 8 bytes at a time: the lowest byte < 0x21 is flagged exactly (borrows only flag bytes above
     * it), and so is every byte >= 0x80 */
    while (end - p >= 8) {
        uint64_t w = load8(p);
        uint64_t f = ((w - 0x2121212121212121ULL) & ~w & 0x8080808080808080ULL) |
                     (w & 0x8080808080808080ULL);
        if (f) {
            unsigned k = (unsigned)__builtin_ctzll(f) >> 3;
            *stop = (unsigned)(w >> (8 * k)) & 0xff;      /* the byte at the end, without a load */
            return p + k;
        }
        p += 8;
    }
#else
    (void)end;
#endif
    while (tok_byte(*p))
        p++;
    *stop = *p;
    return p;
}

static PyObject *scan_run(PyObject *self, PyObject *args)
{
    PyObject *cap, *result = NULL;
    Py_buffer buf = {0};
    unsigned char *tail = NULL;
    const unsigned char *base;
    Py_ssize_t lim;
    int part;
    Py_ssize_t max_docs, n;
    int judged_only, complete, float32;
    const qindex *q;
    const unsigned char *p, *end;
    const unsigned char *tag_s = NULL, *tag_e = NULL;
    const unsigned char *last_topic = NULL;
    Py_ssize_t last_topic_len = -1;
    int32_t last_t = -1;
    entry *ent = NULL;
    size_t nent = 0, cap_ent = 0;
    size_t nlines = 0;
    uint32_t *order = NULL;
    dslot *dtab = NULL;
    Py_ssize_t *count = NULL, *start = NULL, *outlen = NULL;
    int32_t *seq = NULL;
    item *items = NULL;
    Py_ssize_t T, t, D = 1, maxcount = 0;
    PyObject *relb = NULL, *numb = NULL, *presb = NULL, *tagb = NULL;

    if (!PyArg_ParseTuple(args, "y*Onppp", &buf, &cap, &max_docs, &judged_only, &complete, &float32))
        return NULL;
    q = PyCapsule_GetPointer(cap, CAPSULE_NAME);
    if (!q) {
        PyBuffer_Release(&buf);
        return NULL;
    }
    T = q->T;
    n = buf.len;
    base = (const unsigned char *)buf.buf;
    /* two parts: the text up to its last LF, scanned in place (no read goes past that LF: every
     * field and separator loop stops at it, and 8-byte reads stay within a line's fields), then
     * the rest (a last line without LF) copied with an LF and zero padding */
    lim = n;
    while (lim > 0 && base[lim - 1] != '\n')
        lim--;

    cap_ent = (size_t)n / 32 + 16;
    ent = PyMem_Malloc(cap_ent * sizeof(entry));
    if (!ent)
        goto nomem;

    for (part = 0; part < 2; part++) {
    if (part == 0) {
        p = base;
        end = base + lim;
    } else {
        if (lim == n)
            break;
        tail = PyMem_Calloc((size_t)(n - lim) + 16, 1);
        if (!tail)
            goto nomem;
        memcpy(tail, base + lim, (size_t)(n - lim));
        tail[n - lim] = '\n';
        p = tail;
        end = tail + (n - lim) + 1;
    }
    while (p < end) {
        const unsigned char *fs[6], *fe[6];
        int nf = 0;
        unsigned c;
        for (;;) {
            while ((c = *p) <= 0x20) {
                if (c == '\n')
                    goto eol;
                if (c == 0) {
                    if (p == end)
                        goto eol;
                    goto fallback;
                }
                if (!ok_space(c))
                    goto fallback;
                p++;
            }
            if (c >= 0x80)
                goto fallback;
            if (nf == 0 && c == '#') {
                /* comment line: skip it, still refusing what the pure reader refuses */
                while ((c = *p) != '\n') {
                    if (c == 0) {
                        if (p == end)
                            goto eol;
                        goto fallback;
                    }
                    if (c >= 0x80 || (c < 0x20 && !ok_space(c)))
                        goto fallback;
                    p++;
                }
                goto eol;
            }
            {
                const unsigned char *s = p;
                unsigned stop;
                p = token_end(p, end, &stop);
                if (stop >= 0x80)
                    goto fallback;
                if (nf < 6) {
                    fs[nf] = s;
                    fe[nf] = p;
                }
                nf++;
                if (stop == '\n')
                    goto eol;
                if (ok_space(stop) && tok_byte(p[1])) {
                    p++;                /* one separator: the next field starts right after */
                    continue;
                }
            }
        }
    eol:
        if (nf) {
            int32_t ti;
            Py_ssize_t tl;
            if (nf < 6)
                goto fallback;
            nlines++;
            tag_s = fs[5];
            tag_e = fe[5];
            tl = fe[0] - fs[0];
            /* the topic field is followed by 5 more: 8 readable bytes past its end */
            if (tl == last_topic_len && same_bytes(fs[0], last_topic, (size_t)tl)) {
                ti = last_t;
            } else {
                ti = topic_lookup(q, fs[0], tl);
                last_topic = fs[0];
                last_topic_len = tl;
                last_t = ti;
            }
            if (ti >= 0) {
                entry *x;
                double sc;
                int r;
                if (nent == cap_ent) {
                    size_t nc = cap_ent * 2;
                    entry *ne = PyMem_Realloc(ent, nc * sizeof(entry));
                    if (!ne)
                        goto nomem;
                    ent = ne;
                    cap_ent = nc;
                }
                if (fe[2] - fs[2] >= INT32_MAX)
                    goto fallback;
                r = parse_score(fs[4], fe[4], fs[0], &sc);    /* fs[0]..fe[4]: >= 9 bytes */
                if (r)
                    goto fallback;      /* NaN (or an unexpected conversion failure) */
                if (float32)
                    sc = (double)(float)sc;
                x = &ent[nent++];
                x->score = sc;
                x->doc = fs[2];
                x->len = (int32_t)(fe[2] - fs[2]);
                /* fields 3..5 follow DOCID on its line: >= 6 readable bytes, and the NUL at end */
                x->hash = hash_bytes(fs[2], (size_t)x->len);
                x->topic = ti;
            }
        }
        if (p < end)
            p++;                        /* the LF */
    }
    }
    if (nlines == 0 || nent >= UINT32_MAX)
        goto fallback;

    /* group by topic (counting sort, file order kept) */
    count = PyMem_Calloc((size_t)T + 1, sizeof(Py_ssize_t));
    start = PyMem_Calloc((size_t)T + 1, sizeof(Py_ssize_t));
    outlen = PyMem_Calloc((size_t)T + 1, sizeof(Py_ssize_t));
    order = PyMem_Malloc((nent + 1) * sizeof(uint32_t));
    if (!count || !start || !outlen || !order)
        goto nomem;
    for (size_t i = 0; i < nent; i++)
        count[ent[i].topic]++;
    for (t = 0; t < T; t++) {
        start[t + 1] = start[t] + count[t];
        if (count[t] > maxcount)
            maxcount = count[t];
    }
    if (maxcount >= INT32_MAX / 2)
        goto fallback;                  /* per-topic tables index documents with int32 */
    {
        Py_ssize_t *fill = outlen;      /* borrowed as a cursor, reset below */
        for (size_t i = 0; i < nent; i++) {
            int32_t tt = ent[i].topic;
            order[start[tt] + fill[tt]++] = (uint32_t)i;
        }
        memset(outlen, 0, sizeof(Py_ssize_t) * ((size_t)T + 1));
    }

    {
        size_t dcap = pow2_at_least(2 * (size_t)maxcount + 1);
        Py_ssize_t total = 0;
        dtab = PyMem_Malloc(dcap * sizeof(dslot));
        items = PyMem_Malloc(((size_t)maxcount + 1) * sizeof(item));
        seq = PyMem_Malloc((nent + (size_t)T + 1) * sizeof(int32_t));
        if (!dtab || !items || !seq)
            goto nomem;
        for (t = 0; t < T; t++) {
            Py_ssize_t cnt = count[t], k, kept, o = total;
            const uint32_t *ix = order + start[t];
            Py_ssize_t qn = q->jstart[t + 1] - q->jstart[t];
            /* the topic's documents in a table (a document retrieved twice: the pure reader raises
             * trec_eval's error) */
            size_t tsize = pow2_at_least(2 * (size_t)cnt + 1);
            size_t tmask = tsize - 1;
            memset(dtab, 0xff, tsize * sizeof(dslot));
            for (k = 0; k < cnt; k++) {
                const entry *x = &ent[ix[k]];
                uint32_t tag = (uint32_t)(x->hash >> 32);
                size_t h = x->hash & tmask;
                while (dtab[h].idx >= 0) {
                    if (dtab[h].tag == tag) {
                        const item *y = &items[dtab[h].idx];
                        if (y->len == x->len && same_bytes(y->doc, x->doc, (size_t)x->len))
                            goto fallback;
                    }
                    h = (h + 1) & tmask;
                }
                dtab[h].tag = tag;
                dtab[h].idx = (int32_t)k;
                items[k].score = x->score;
                items[k].doc = x->doc;
                items[k].len = x->len;
                items[k].rel = NONPOOL;
            }
            /* labels, probing from the smaller side: the topic's judgments in the run's table, or
             * the run's documents in the topic's qrels table */
            if (qn < cnt) {
                const int32_t *jl = q->jlist + q->jstart[t];
                Py_ssize_t a;
                for (a = 0; a < qn; a++) {
                    int32_t i = jl[a];
                    uint64_t hk = q->dkey[i];
                    uint32_t tag = (uint32_t)(hk >> 32);
                    size_t h = hk & tmask;
                    while (dtab[h].idx >= 0) {
                        if (dtab[h].tag == tag) {
                            item *y = &items[dtab[h].idx];
                            if (y->len == q->dlen[i] &&
                                same_bytes(y->doc, q->dblob + q->doff[i], (size_t)y->len)) {
                                y->rel = q->drel[i];
                                break;
                            }
                        }
                        h = (h + 1) & tmask;
                    }
                }
            } else {
                for (k = 0; k < cnt; k++)
                    items[k].rel = judgment(q, (int32_t)t, items[k].doc, items[k].len, ent[ix[k]].hash);
            }
            rank_items(items, cnt);
            kept = cnt;
            if (max_docs >= 0 && kept > max_docs)
                kept = max_docs;
            for (k = 0; k < kept; k++) {
                int32_t r = items[k].rel;
                if (!judged_only || r >= 0)
                    seq[total++] = r;
            }
            if (cnt == 0 && complete && max_docs != 0 && !judged_only)
                seq[total++] = NONPOOL;     /* -c: trec_eval's one-document bogus ranking */
            outlen[t] = total - o;
            if (outlen[t] > D)
                D = outlen[t];
        }

        relb = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(T * D * (Py_ssize_t)sizeof(int32_t)));
        numb = PyByteArray_FromStringAndSize(NULL, T * (Py_ssize_t)sizeof(int64_t));
        presb = PyByteArray_FromStringAndSize(NULL, T);
        tagb = PyBytes_FromStringAndSize((const char *)tag_s, tag_e - tag_s);
        if (!relb || !numb || !presb || !tagb)
            goto error;
        {
            int32_t *rel = (int32_t *)PyByteArray_AS_STRING(relb);
            int64_t *num = (int64_t *)PyByteArray_AS_STRING(numb);
            char *pres = PyByteArray_AS_STRING(presb);
            Py_ssize_t o = 0, i2;
            for (i2 = 0; i2 < T * D; i2++)
                rel[i2] = PAD_REL;
            for (t = 0; t < T; t++) {
                memcpy(rel + t * D, seq + o, (size_t)outlen[t] * sizeof(int32_t));
                o += outlen[t];
                num[t] = outlen[t];
                pres[t] = count[t] > 0;
            }
        }
    }
    result = Py_BuildValue("(OnOOO)", relb, D, numb, presb, tagb);
    goto done;

fallback:
    result = Py_None;
    Py_INCREF(result);
    goto done;
nomem:
    PyErr_NoMemory();
error:
    result = NULL;
done:
    Py_XDECREF(relb);
    Py_XDECREF(numb);
    Py_XDECREF(presb);
    Py_XDECREF(tagb);
    PyMem_Free(ent);
    PyMem_Free(order);
    PyMem_Free(dtab);
    PyMem_Free(count);
    PyMem_Free(start);
    PyMem_Free(outlen);
    PyMem_Free(seq);
    PyMem_Free(items);
    PyMem_Free(tail);
    PyBuffer_Release(&buf);
    return result;
}

/* atof(token) as scan_run reads SCORE (for tests): a float, or None for NaN */
static PyObject *atof_token(PyObject *self, PyObject *args)
{
    const char *s;
    Py_ssize_t n;
    double x;
    int r;
    unsigned char *buf;
    if (!PyArg_ParseTuple(args, "y#", &s, &n))
        return NULL;
    buf = PyMem_Malloc((size_t)n + 16);     /* 8 bytes before the token, as in a run line */
    if (!buf)
        return PyErr_NoMemory();
    memset(buf, ' ', 8);
    memcpy(buf + 8, s, (size_t)n);
    memset(buf + 8 + n, 0, 8);
    r = parse_score(buf + 8, buf + 8 + n, buf, &x);
    PyMem_Free(buf);
    if (r < 0) {
        PyErr_SetString(PyExc_ValueError, "atof_token: conversion failed");
        return NULL;
    }
    if (r > 0)
        Py_RETURN_NONE;
    return PyFloat_FromDouble(x);
}

/* ------------------------------------------------------------------ columns of metaeval's reader
 *
 * metaeval.io._text's tokenizer gives every field of a column as a byte span (start, end) of one
 * buffer that holds the file's bytes (after a leading LF) followed by zero padding (>= 8 bytes):
 * the two functions below read such a column; the numpy code of metaeval.io._text is their
 * specification and fallback (tests/unit/test_reader_c.py compares them). */

static inline int is_digit(unsigned c) { return c - '0' < 10u; }

/* the whole token p..e is a decimal number: [+-]?(d+(.d*)?|.d+)([eE][+-]?d+)? */
static int decimal_token(const unsigned char *p, const unsigned char *e)
{
    int digits = 0;
    if (p < e && (*p == '+' || *p == '-'))
        p++;
    while (p < e && is_digit(*p)) {
        p++;
        digits = 1;
    }
    if (p < e && *p == '.') {
        p++;
        while (p < e && is_digit(*p)) {
            p++;
            digits = 1;
        }
    }
    if (!digits)
        return 0;
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        if (!(p < e && is_digit(*p)))
            return 0;
        while (p < e && is_digit(*p))
            p++;
    }
    return p == e;
}

/* the spans of a column: buf (bytes-like), starts and ends (int64 buffers of n) checked in range */
static int column_args(Py_buffer *b, Py_buffer *sb, Py_buffer *eb, Py_ssize_t *n)
{
    const int64_t *s = sb->buf, *e = eb->buf;
    Py_ssize_t i;
    if (sb->len != eb->len || sb->len % 8) {
        PyErr_SetString(PyExc_ValueError, "starts and ends must be int64 buffers of one length");
        return -1;
    }
    *n = sb->len / 8;
    for (i = 0; i < *n; i++) {
        if (s[i] < 0 || e[i] < s[i] || e[i] + 8 > b->len) {
            PyErr_SetString(PyExc_ValueError, "a span outside the buffer (8 bytes of padding needed)");
            return -1;
        }
    }
    return 0;
}

static PyObject *number_column(PyObject *self, PyObject *args)
{
    Py_buffer b = {0}, sb = {0}, eb = {0}, ob = {0};
    PyObject *out;
    Py_ssize_t n = 0, i, bad = -1;
    if (!PyArg_ParseTuple(args, "y*y*y*O", &b, &sb, &eb, &out))
        return NULL;
    if (column_args(&b, &sb, &eb, &n) < 0)
        goto fail;
    if (out != Py_None) {
        if (PyObject_GetBuffer(out, &ob, PyBUF_WRITABLE) < 0)
            goto fail;
        if (ob.len != n * (Py_ssize_t)sizeof(float)) {
            PyErr_SetString(PyExc_ValueError, "out must be a float32 buffer of n");
            goto fail;
        }
    }
    {
        const unsigned char *base = b.buf;
        const int64_t *s = sb.buf, *e = eb.buf;
        float *o = ob.buf;
        for (i = 0; i < n; i++) {
            const unsigned char *p = base + s[i], *q = base + e[i];
            double x;
            if (!decimal_token(p, q) || (o && parse_score(p, q, base, &x) != 0)) {
                bad = i;
                break;
            }
            if (o)
                o[i] = (float)x;
        }
    }
    PyBuffer_Release(&b);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&eb);
    if (ob.obj)
        PyBuffer_Release(&ob);
    return PyLong_FromSsize_t(bad);
fail:
    PyBuffer_Release(&b);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&eb);
    if (ob.obj)
        PyBuffer_Release(&ob);
    return NULL;
}

/* the little-endian value of the n <= 8 bytes at p (zero-extended); 8 bytes readable at p */
static inline uint64_t load_le(const unsigned char *p, size_t n)
{
    uint64_t w;
    memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return n >= 8 ? w : (n ? (w & (~(uint64_t)0 >> (64 - 8 * n))) : 0);
}

#define DENSE_MAX 64

static PyObject *hash_column(PyObject *self, PyObject *args)
{
    Py_buffer b = {0}, sb = {0}, eb = {0}, ob = {0};
    PyObject *out;
    Py_ssize_t n = 0, i, longer = 0;
    if (!PyArg_ParseTuple(args, "y*y*y*O", &b, &sb, &eb, &out))
        return NULL;
    if (column_args(&b, &sb, &eb, &n) < 0)
        goto fail;
    if (PyObject_GetBuffer(out, &ob, PyBUF_WRITABLE) < 0)
        goto fail;
    if (ob.len != n * 8) {
        PyErr_SetString(PyExc_ValueError, "out must be a uint64 buffer of n");
        goto fail;
    }
    {
        const unsigned char *base = b.buf;
        const int64_t *s = sb.buf, *e = eb.buf;
        uint64_t *o = ob.buf;
        for (i = 0; i < n; i++) {
            const unsigned char *p = base + s[i];
            size_t len = (size_t)(e[i] - s[i]), j;
            uint64_t h = 0x9E3779B97F4A7C15ULL;
            if (len > DENSE_MAX) {
                longer++;
                continue;
            }
            /* metaeval.io._text.hash_rows: the first word always, then the non-zero ones */
            for (j = 0; j == 0 || 8 * j < len; j++) {
                uint64_t w = load_le(p + 8 * j, len - 8 * j < 8 ? len - 8 * j : 8), x;
                if (j && !w)
                    continue;
                x = (h ^ w) * 0xBF58476D1CE4E5B9ULL;
                x ^= x >> 29;
                x *= 0x94D049BB133111EBULL;
                x ^= x >> 32;
                h = x;
            }
            o[i] = h;
        }
    }
    PyBuffer_Release(&b);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&eb);
    PyBuffer_Release(&ob);
    return PyLong_FromSsize_t(longer);
fail:
    PyBuffer_Release(&b);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&eb);
    if (ob.obj)
        PyBuffer_Release(&ob);
    return NULL;
}

/* regular_split(buf, body, ncols) -> int64 bytearray of the separator positions (bytes <= 0x20)
 * of buf[0..body), or None: metaeval.io._text._fast_split's form (buf[0] and every ncols-th
 * separator after it an LF, no other LF, no two separators adjacent, at least one line) only. */
static PyObject *regular_split(PyObject *self, PyObject *args)
{
    Py_buffer b = {0};
    Py_ssize_t body, nc, i, k = 0, cap;
    PyObject *res = NULL;
    int64_t *p;
    if (!PyArg_ParseTuple(args, "y*nn", &b, &body, &nc))
        return NULL;
    if (body < 1 || body > b.len || nc < 1) {
        PyErr_SetString(PyExc_ValueError, "regular_split: bad sizes");
        goto done;
    }
    {
        const unsigned char *x = b.buf;
        Py_ssize_t next_nl = 0, prev = -2;
        cap = body / 2 + 2;             /* no two separators adjacent: at most every other byte */
        res = PyByteArray_FromStringAndSize(NULL, cap * 8);
        if (!res)
            goto done;
        p = (int64_t *)PyByteArray_AS_STRING(res);
        for (i = 0; i < body; i++) {
            unsigned c;
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            /* 8 bytes at a time: the lowest byte < 0x21 of a word is flagged exactly (token_end) */
            while (body - i >= 8) {
                uint64_t w = load8(x + i);
                uint64_t f = (w - 0x2121212121212121ULL) & ~w & 0x8080808080808080ULL;
                if (f) {
                    i += (Py_ssize_t)((unsigned)__builtin_ctzll(f) >> 3);
                    break;
                }
                i += 8;
            }
            if (i >= body)
                break;
#endif
            c = x[i];
            if (c > 0x20)
                continue;
            if (i == prev + 1 || (c == '\n') != (k == next_nl) || k >= cap)
                goto irregular;
            if (c == '\n')
                next_nl = k + nc;
            p[k++] = i;
            prev = i;
        }
        if (k < 2 || (k - 1) % nc)
            goto irregular;
        if (PyByteArray_Resize(res, k * 8) < 0) {
            Py_CLEAR(res);
            goto done;
        }
    }
    goto done;
irregular:
    Py_CLEAR(res);
    res = Py_None;
    Py_INCREF(res);
done:
    PyBuffer_Release(&b);
    return res;
}

/* first_index(keys, out): out[i] = the first j with keys[j] == keys[i] (uint64 keys, int64 out);
 * returns the number of i with out[i] != i.  One open-addressing table, O(n). */
static PyObject *first_index(PyObject *self, PyObject *args)
{
    Py_buffer kb = {0}, ob = {0};
    Py_ssize_t n, i, repeats = 0;
    int64_t *tab = NULL;
    if (!PyArg_ParseTuple(args, "y*w*", &kb, &ob))
        return NULL;
    n = kb.len / 8;
    if (kb.len % 8 || ob.len != kb.len) {
        PyErr_SetString(PyExc_ValueError, "first_index: keys uint64 and out int64 of one length");
        goto fail;
    }
    {
        const uint64_t *k = kb.buf;
        int64_t *o = ob.buf;
        size_t size = pow2_at_least(2 * (size_t)n + 1), mask = size - 1;
        int shift = 64;
        while ((size_t)1 << (64 - shift) < size)
            shift--;
        tab = PyMem_Malloc(size * sizeof(int64_t));
        if (!tab) {
            PyErr_NoMemory();
            goto fail;
        }
        memset(tab, 0xff, size * sizeof(int64_t));
        for (i = 0; i < n; i++) {
            uint64_t key = k[i];
            size_t h = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> shift) & mask;
            for (;;) {
                int64_t j = tab[h];
                if (j < 0) {
                    tab[h] = i;
                    o[i] = i;
                    break;
                }
                if (k[j] == key) {
                    o[i] = j;
                    repeats++;
                    break;
                }
                h = (h + 1) & mask;
            }
        }
    }
    PyMem_Free(tab);
    PyBuffer_Release(&kb);
    PyBuffer_Release(&ob);
    return PyLong_FromSsize_t(repeats);
fail:
    PyBuffer_Release(&kb);
    PyBuffer_Release(&ob);
    return NULL;
}

/* tie order: DOCID descending (byte order of NUL-padded fixed-width ids), then position ascending */
typedef struct {
    const unsigned char *doc;
    int64_t pos;
} tied;

static inline int tied_before(const tied *x, const tied *y, size_t w)
{
    int c = memcmp(x->doc, y->doc, w);
    return c > 0 || (c == 0 && x->pos < y->pos);
}

/* stable merge sort of t[0..n) by tied_before, tmp of n */
static void sort_tied(tied *t, tied *tmp, Py_ssize_t n, size_t w)
{
    Py_ssize_t width, i;
    if (n <= 16) {
        for (i = 1; i < n; i++) {
            tied x = t[i];
            Py_ssize_t j = i;
            for (; j > 0 && tied_before(&x, &t[j - 1], w); j--)
                t[j] = t[j - 1];
            t[j] = x;
        }
        return;
    }
    for (width = 1; width < n; width *= 2) {
        for (i = 0; i < n; i += 2 * width) {
            Py_ssize_t a = i, m = i + width < n ? i + width : n, b = i + 2 * width < n ? i + 2 * width : n;
            Py_ssize_t p = a, q = m, k = a;
            while (p < m && q < b)
                tmp[k++] = tied_before(&t[q], &t[p], w) ? t[q++] : t[p++];
            while (p < m)
                tmp[k++] = t[p++];
            while (q < b)
                tmp[k++] = t[q++];
        }
        memcpy(t, tmp, (size_t)n * sizeof(tied));
    }
}

/* order_ties(order, keys, rows, docs, width): ``order`` (int64, a stable argsort of ``keys``,
 * uint64) reordered in place so that within every run of equal keys[order] the entries go by
 * DOCID descending (docs: a numpy 'S<width>' buffer, the DOCID of entry i being docs[rows[i]]),
 * then by order's value.  Returns the number of tied entries. */
static PyObject *order_ties(PyObject *self, PyObject *args)
{
    Py_buffer ob = {0}, kb = {0}, rb = {0}, db = {0};
    Py_ssize_t w, n, a, b, tiedn = 0, ndocs;
    tied *t = NULL, *tmp = NULL;
    if (!PyArg_ParseTuple(args, "w*y*y*y*n", &ob, &kb, &rb, &db, &w))
        return NULL;
    n = ob.len / 8;
    if (w < 1 || ob.len % 8 || kb.len != ob.len || rb.len != ob.len || db.len % w) {
        PyErr_SetString(PyExc_ValueError, "order_ties: inconsistent sizes");
        goto fail;
    }
    ndocs = db.len / w;
    {
        int64_t *o = ob.buf;
        const uint64_t *k = kb.buf;
        const int64_t *rows = rb.buf;
        const unsigned char *docs = db.buf;
        for (a = 0; a < n; a++) {
            if (o[a] < 0 || o[a] >= n || rows[o[a]] < 0 || rows[o[a]] >= ndocs) {
                PyErr_SetString(PyExc_ValueError, "order_ties: an index out of range");
                goto fail;
            }
        }
        t = PyMem_Malloc(((size_t)n + 1) * sizeof(tied));
        tmp = PyMem_Malloc(((size_t)n + 1) * sizeof(tied));
        if (!t || !tmp) {
            PyErr_NoMemory();
            goto fail;
        }
        for (a = 0; a < n; a = b) {
            Py_ssize_t i;
            uint64_t key = k[o[a]];
            for (b = a + 1; b < n && k[o[b]] == key; b++)
                ;
            if (b - a < 2)
                continue;
            tiedn += b - a;
            for (i = a; i < b; i++) {
                t[i - a].doc = docs + (size_t)rows[o[i]] * (size_t)w;
                t[i - a].pos = o[i];
            }
            sort_tied(t, tmp, b - a, (size_t)w);
            for (i = a; i < b; i++)
                o[i] = t[i - a].pos;
        }
    }
    PyMem_Free(t);
    PyMem_Free(tmp);
    PyBuffer_Release(&ob);
    PyBuffer_Release(&kb);
    PyBuffer_Release(&rb);
    PyBuffer_Release(&db);
    return PyLong_FromSsize_t(tiedn);
fail:
    PyMem_Free(t);
    PyMem_Free(tmp);
    PyBuffer_Release(&ob);
    PyBuffer_Release(&kb);
    PyBuffer_Release(&rb);
    PyBuffer_Release(&db);
    return NULL;
}

static PyMethodDef methods[] = {
    {"build_index", build_index, METH_VARARGS,
     "build_index(topics, T, topic_width, docs, N, doc_width, topic_index, rel) -> capsule\n\n"
     "topics/docs: buffers of numpy 'S<width>' arrays; topic_index, rel: int64 buffers."},
    {"scan_run", scan_run, METH_VARARGS,
     "scan_run(data: buffer (bytes, mmap), index, max_docs, judged_only, complete, float32)\n"
     "-> (rel bytearray int32 (T, D), D, num_ret bytearray int64 (T,), present bytearray (T,), "
     "run_id bytes), or None: read the run with the pure reader instead.\n"
     "max_docs < 0: no -M."},
    {"atof_token", atof_token, METH_VARARGS,
     "atof_token(token: bytes) -> float or None (NaN): SCORE as scan_run reads it."},
    {"number_column", number_column, METH_VARARGS,
     "number_column(buf, starts, ends, out) -> index of the first token buf[starts[i]:ends[i]] that is\n"
     "not a decimal number in full, or -1; out (a writable float32 buffer, or None): (float) atof of\n"
     "each token, up to the first bad one."},
    {"regular_split", regular_split, METH_VARARGS,
     "regular_split(buf, body, ncols) -> separator positions (int64 bytearray) of a file in\n"
     "metaeval.io._text._fast_split's form with ncols fields a line, else None."},
    {"first_index", first_index, METH_VARARGS,
     "first_index(keys, out) -> number of repeated keys; out[i] (int64): the first j with\n"
     "keys[j] == keys[i] (uint64 buffers)."},
    {"order_ties", order_ties, METH_VARARGS,
     "order_ties(order, keys, rows, docs, width) -> tied entries: within each run of equal\n"
     "keys[order], order (int64, in place) by DOCID docs[rows[i]] descending ('S<width>' buffer),\n"
     "then by value."},
    {"hash_column", hash_column, METH_VARARGS,
     "hash_column(buf, starts, ends, out) -> number of tokens longer than 64 bytes (out left as is\n"
     "there); out (writable uint64 buffer): metaeval.io._text.hash_rows of every other token."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_trecscan",
                                       "trec_eval run scanning in C (optional; see metaeval.io.treceval)",
                                       -1, methods};

PyMODINIT_FUNC PyInit__trecscan(void) { return PyModule_Create(&moduledef); }
