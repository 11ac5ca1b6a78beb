/* metaeval._reader: the hot loops of metaeval's own reader (optional; see metaeval.io._cext).
 *
 * metaeval.io._text's tokenizer holds a file as one buffer (a leading LF, the file's bytes, an LF,
 * then zero padding of >= 8 bytes) and every field of a column as a byte span (start, end) of it;
 * metaeval.io.ingest labels runs with hashes of their ids.  The functions below compute what the
 * numpy code of those modules computes, which stays the specification and the fallback
 * (tests/unit/test_reader_c.py compares them):
 *
 *   regular_split  the separator positions of a regular file (_text._fast_split's form), one pass
 *   number_column  a RANK/SCORE column checked (decimal numbers only) and read as (float) atof
 *                  (number_column64: as atof, in double precision)
 *   hash_column    the 64-bit hash of every id of a column (_text.hash_rows)
 *   first_index    the first occurrence of every uint64 key (judgments, repeated documents)
 *   order_ties     tied scores ordered by DOCID descending within each group of equal keys
 *   pow_column     x[i] ** y[i] by the C library's pow, as Python's math.pow gives it
 *                  (metaeval.detmath.power; its Python loop is the fallback)
 *
 * Plain CPython C API, no numpy headers: the Python side passes numpy arrays as buffers.
 */
#include "_cnum.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/* the arguments (buf, starts, ends, out) of a column function: buf bytes-like, starts and ends int64
 * buffers of n spans, each in range with 8 readable bytes after it, and out a writable buffer of n
 * items of `item` bytes (or None when `optional`).  0, or -1 with an exception set. */
static int column_args(PyObject *args, Py_buffer *b, Py_buffer *sb, Py_buffer *eb, Py_buffer *ob,
                       Py_ssize_t item, int optional, Py_ssize_t *n)
{
    const int64_t *s, *e;
    PyObject *out;
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "y*y*y*O", b, sb, eb, &out))
        return -1;
    if (sb->len != eb->len || sb->len % 8) {
        PyErr_SetString(PyExc_ValueError, "starts and ends must be int64 buffers of one length");
        return -1;
    }
    *n = sb->len / 8;
    s = sb->buf;
    e = eb->buf;
    for (i = 0; i < *n; i++) {
        if (s[i] < 0 || e[i] < s[i] || e[i] + 8 > b->len) {
            PyErr_SetString(PyExc_ValueError, "a span outside the buffer (8 bytes of padding needed)");
            return -1;
        }
    }
    if (out == Py_None && optional)
        return 0;
    if (PyObject_GetBuffer(out, ob, PyBUF_WRITABLE) < 0)
        return -1;
    if (ob->len != *n * item) {
        PyErr_SetString(PyExc_ValueError, "out must be a writable buffer of one item per span");
        return -1;
    }
    return 0;
}

static void release_column(Py_buffer *b, Py_buffer *sb, Py_buffer *eb, Py_buffer *ob)
{
    if (b->obj)
        PyBuffer_Release(b);
    if (sb->obj)
        PyBuffer_Release(sb);
    if (eb->obj)
        PyBuffer_Release(eb);
    if (ob->obj)
        PyBuffer_Release(ob);
}

/* the column's numbers as (float) atof (single, trec_eval 9.0.x's SCORE) or atof (double) */
static PyObject *number_column_as(PyObject *args, int dbl)
{
    Py_buffer b = {0}, sb = {0}, eb = {0}, ob = {0};
    PyObject *res = NULL;
    Py_ssize_t n = 0, i, bad = -1;
    if (column_args(args, &b, &sb, &eb, &ob, dbl ? (Py_ssize_t)sizeof(double) : (Py_ssize_t)sizeof(float),
                    1, &n) < 0)
        goto fail;
    {
        const unsigned char *base = b.buf;
        const int64_t *s = sb.buf, *e = eb.buf;
        float *o = ob.buf;
        double *o64 = ob.buf;
        for (i = 0; i < n; i++) {
            const unsigned char *p = base + s[i], *q = base + e[i];
            double x;
            if (!decimal_token(p, q) || (o && parse_score(p, q, base, &x) != 0)) {
                bad = i;
                break;
            }
            if (o && dbl)
                o64[i] = x;
            else if (o)
                o[i] = (float)x;
        }
    }
    res = PyLong_FromSsize_t(bad);
fail:
    release_column(&b, &sb, &eb, &ob);
    return res;
}

static PyObject *number_column(PyObject *self, PyObject *args)
{
    return number_column_as(args, 0);
}

static PyObject *number_column64(PyObject *self, PyObject *args)
{
    return number_column_as(args, 1);
}

#define DENSE_MAX 64

static PyObject *hash_column(PyObject *self, PyObject *args)
{
    Py_buffer b = {0}, sb = {0}, eb = {0}, ob = {0};
    PyObject *res = NULL;
    Py_ssize_t n = 0, i, longer = 0;
    if (column_args(args, &b, &sb, &eb, &ob, 8, 0, &n) < 0)
        goto fail;
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
                uint64_t w = load_partial(p + 8 * j, len - 8 * j < 8 ? len - 8 * j : 8), x;
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
    res = PyLong_FromSsize_t(longer);
fail:
    release_column(&b, &sb, &eb, &ob);
    return res;
}

/* the state of regular_split: separators found (p[0..k)), the index of the next one that must be
 * the LF, the position of the last one */
typedef struct {
    const unsigned char *x;
    int64_t *p;
    Py_ssize_t k, cap, nc, next_nl, prev;
} splitter;

/* x[i] <= 0x20: record it; -1 when the file is not in the regular form */
static inline int split_at(splitter *s, Py_ssize_t i)
{
    int nl = s->x[i] == '\n';
    if (i == s->prev + 1 || nl != (s->k == s->next_nl) || s->k >= s->cap)
        return -1;
    if (nl)
        s->next_nl = s->k + s->nc;
    s->p[s->k++] = i;
    s->prev = i;
    return 0;
}

/* regular_split(buf, body, ncols) -> int64 bytearray of the separator positions (bytes <= 0x20)
 * of buf[0..body), or None: metaeval.io._text._fast_split's form (buf[0] and every ncols-th
 * separator after it an LF, no other LF, no two separators adjacent, at least one line) only. */
static PyObject *regular_split(PyObject *self, PyObject *args)
{
    Py_buffer b = {0};
    Py_ssize_t body, nc, i = 0;
    PyObject *res = NULL;
    splitter sp;
    if (!PyArg_ParseTuple(args, "y*nn", &b, &body, &nc))
        return NULL;
    if (body < 1 || body > b.len || nc < 1) {
        PyErr_SetString(PyExc_ValueError, "regular_split: bad sizes");
        goto done;
    }
    sp.x = b.buf;
    sp.k = 0;
    sp.nc = nc;
    sp.next_nl = 0;
    sp.prev = -2;
    sp.cap = body / 2 + 2;              /* no two separators adjacent: at most every other byte */
    res = PyByteArray_FromStringAndSize(NULL, sp.cap * 8);
    if (!res)
        goto done;
    sp.p = (int64_t *)PyByteArray_AS_STRING(res);
#if defined(__SSE2__) && defined(__GNUC__)
    {
        /* 16 bytes at a time: a mask of the bytes <= 0x20 (unsigned min(v, 0x20) == v) */
        const __m128i lim = _mm_set1_epi8(0x20);
        for (; body - i >= 16; i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(sp.x + i));
            unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(v, lim), v));
            for (; m; m &= m - 1)
                if (split_at(&sp, i + __builtin_ctz(m)) < 0)
                    goto irregular;
        }
    }
#elif defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* 8 bytes at a time: the lowest byte < 0x21 of a word is flagged exactly (as in _trecscan) */
    while (body - i >= 8) {
        uint64_t w = load8(sp.x + i);
        uint64_t f = (w - 0x2121212121212121ULL) & ~w & 0x8080808080808080ULL;
        if (f) {
            i += (Py_ssize_t)((unsigned)__builtin_ctzll(f) >> 3);
            if (split_at(&sp, i) < 0)
                goto irregular;
        }
        i += f ? 1 : 8;
    }
#endif
    for (; i < body; i++)
        if (sp.x[i] <= 0x20 && split_at(&sp, i) < 0)
            goto irregular;
    if (sp.k < 2 || (sp.k - 1) % nc)
        goto irregular;
    if (PyByteArray_Resize(res, sp.k * 8) < 0)
        Py_CLEAR(res);
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
    PyObject *res = NULL;
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
    res = PyLong_FromSsize_t(tiedn);
fail:
    PyMem_Free(t);
    PyMem_Free(tmp);
    PyBuffer_Release(&ob);
    PyBuffer_Release(&kb);
    PyBuffer_Release(&rb);
    PyBuffer_Release(&db);
    return res;
}

/* One value of Python's math.pow (CPython 3.11's math_pow_impl), where metaeval.detmath._pow1 turns
 * its errors into values: an overflow (ERANGE) and 0 ** negative (EDOM with an infinite result)
 * give +inf, a NaN result of finite arguments (EDOM) Python's NaN. */
static double py_pow(double x, double y)
{
    double r;
    if (!isfinite(x) || !isfinite(y)) {
        if (isnan(x))
            r = y == 0.0 ? 1.0 : x;                       /* NaN**0 = 1 */
        else if (isnan(y))
            r = x == 1.0 ? 1.0 : y;                       /* 1**NaN = 1 */
        else if (isinf(x)) {
            int odd_y = isfinite(y) && fmod(fabs(y), 2.0) == 1.0;
            if (y > 0.)
                r = odd_y ? x : fabs(x);
            else if (y == 0.)
                r = 1.;
            else                                          /* y < 0. */
                r = odd_y ? copysign(0., x) : 0.;
        }
        else {                                            /* isinf(y) */
            if (fabs(x) == 1.0)
                r = 1.;
            else if (y > 0. && fabs(x) > 1.0)
                r = y;
            else if (y < 0. && fabs(x) < 1.0)
                r = -y;                                   /* result is +inf */
            else
                r = 0.;
        }
        return r;
    }
    r = pow(x, y);
    if (isnan(r))
        return Py_NAN;
    if (isinf(r))
        return Py_HUGE_VAL;
    return r;
}

/* pow_column(x, y, out): out[i] = math.pow(x[i], y[i]) (three float64 buffers of one length). */
static PyObject *pow_column(PyObject *self, PyObject *args)
{
    Py_buffer xb = {0}, yb = {0}, ob = {0};
    PyObject *res = NULL;
    Py_ssize_t i, n;
    if (!PyArg_ParseTuple(args, "y*y*w*", &xb, &yb, &ob))
        return NULL;
    if (xb.len % 8 || yb.len != xb.len || ob.len != xb.len) {
        PyErr_SetString(PyExc_ValueError, "pow_column: inconsistent sizes");
        goto fail;
    }
    n = xb.len / 8;
    {
        const double *x = xb.buf, *y = yb.buf;
        double *o = ob.buf;
        for (i = 0; i < n; i++)
            o[i] = py_pow(x[i], y[i]);
    }
    res = Py_None;
    Py_INCREF(res);
fail:
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    PyBuffer_Release(&ob);
    return res;
}

/* gather_sums(flat, perm, out, n, m): out[r*m + j] = sum over t = 0..n-1, in that order, of
   flat[t*m + perm[(r*n + t)*m + j]] (the first term, then each added: numpy's add.reduce over
   axis 1 of flat[perm + t*m] for a (rows, n, m) array of positions within each topic's row): the
   permuted system sums of the randomised Tukey HSD test (metaeval.meta.rthsd), without the
   (rows, n, m) array of gathered values; perm is int16 (m <= 32767), a quarter of the memory. */
static PyObject *gather_sums(PyObject *self, PyObject *args)
{
    Py_buffer fb = {0}, pb = {0}, ob = {0};
    PyObject *res = NULL;
    Py_ssize_t n, m, rows, r, t, j;
    if (!PyArg_ParseTuple(args, "y*y*w*nn", &fb, &pb, &ob, &n, &m))
        return NULL;
    if (n < 1 || m < 1 || m > 32767 || fb.len != 8 * n * m || pb.len % (2 * n * m)
        || ob.len != 8 * m * (pb.len / (2 * n * m))) {
        PyErr_SetString(PyExc_ValueError, "gather_sums: inconsistent sizes");
        goto fail;
    }
    rows = pb.len / (2 * n * m);
    {
        const double *f = fb.buf;
        const short *p = pb.buf;
        double *o = ob.buf;
        int bad = 0;
        for (r = 0; r < rows; r++) {
            const short *pr = p + r * n * m;
            double *orow = o + r * m;
            for (j = 0; j < m; j++) {
                bad |= (unsigned short)pr[j] >= (unsigned short)m;
                orow[j] = f[bad ? 0 : pr[j]];
            }
            for (t = 1; t < n; t++) {
                const short *pt = pr + t * m;
                const double *ft = f + t * m;
                for (j = 0; j < m; j++) {
                    unsigned short v = (unsigned short)pt[j];
                    bad |= v >= (unsigned short)m;
                    orow[j] += ft[v < (unsigned short)m ? v : 0];
                }
            }
        }
        if (bad) {
            PyErr_SetString(PyExc_IndexError, "gather_sums: index out of range");
            goto fail;
        }
    }
    res = Py_None;
    Py_INCREF(res);
fail:
    PyBuffer_Release(&fb);
    PyBuffer_Release(&pb);
    PyBuffer_Release(&ob);
    return res;
}

static PyMethodDef methods[] = {
    {"number_column", number_column, METH_VARARGS,
     "number_column(buf, starts, ends, out) -> index of the first token buf[starts[i]:ends[i]] that is\n"
     "not a decimal number in full, or -1; out (a writable float32 buffer, or None): (float) atof of\n"
     "each token, up to the first bad one."},
    {"number_column64", number_column64, METH_VARARGS,
     "number_column64(buf, starts, ends, out): number_column with out a float64 buffer (atof, the\n"
     "double trec_eval 10.0 keeps)."},
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
    {"pow_column", pow_column, METH_VARARGS,
     "pow_column(x, y, out): out[i] = math.pow(x[i], y[i]) (float64 buffers), an overflow and\n"
     "0 ** negative +inf, a NaN of finite arguments NaN (metaeval.detmath.power)."},
    {"gather_sums", gather_sums, METH_VARARGS,
     "gather_sums(flat, perm, out, n, m): out[r, j] = sum over t in order of flat[t, perm[r, t, j]]\n"
     "(float64 flat (n, m) and out (rows, m), int16 perm (rows, n, m)): metaeval.meta.rthsd's permuted sums."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_reader",
                                       "the hot loops of metaeval's reader in C (optional; see metaeval.io._cext)",
                                       -1, methods};

PyMODINIT_FUNC PyInit__reader(void) { return PyModule_Create(&moduledef); }
