/* metaeval.treceval._trecfmt: trec_eval's per-topic lines, printed in C (optional).
 *
 * metaeval.treceval.cli formats the -q lines of a run with Python's '%' operator when this module
 * is not built (the specification); this module prints the same bytes, about ten times faster:
 *
 *   HEAD TOPIC '\t' VALUE '\n', topic after topic (those shown), the columns in order in each,
 *
 * where HEAD is the column's printed name padded as trec_eval pads it (with its tab), and VALUE is
 *   'f': printf("%6.4f") of the double, as glibc prints it: the exact binary value rounded to 4
 *        decimals, ties to even; NaN "-nan" / "nan" by its sign, infinities "inf" / "-inf",
 *        right-aligned in 6 columns;
 *   'd': printf("%ld") of the value cast to a C long as trec_eval's long counts are (truncated;
 *        NaN, the infinities and values beyond the range of a long give LONG_MIN, as x86 does);
 *   's': the column's string of that topic between single quotes (relstring).
 *
 * Fixed-point digits are computed exactly with integers (a double is M * 2^E with M < 2^53, so
 * v * 10^4 = M * 10^4 * 2^E, M * 10^4 < 2^67 in a 128-bit integer); a value of 10^15 or more goes
 * through snprintf.  Plain CPython C API, no numpy headers.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    char *p;
    size_t n, cap;
} outbuf;

static int reserve(outbuf *b, size_t extra)
{
    if (b->n + extra <= b->cap)
        return 0;
    {
        size_t cap = b->cap ? b->cap : 4096;
        char *np;
        while (cap < b->n + extra)
            cap *= 2;
        np = PyMem_Realloc(b->p, cap);
        if (!np) {
            PyErr_NoMemory();
            return -1;
        }
        b->p = np;
        b->cap = cap;
    }
    return 0;
}

/* the decimal digits of u at the end of buf[0..32): returns the first digit's address */
static char *utoa_end(char *end, uint64_t u)
{
    do {
        *--end = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    return end;
}

/* printf("%6.4f", v) into out (at least 32 bytes; larger values: 400); returns the length */
static int fmt_fixed4(char *out, double v)
{
    char tmp[40], *end = tmp + sizeof tmp, *s;
    int neg = signbit(v) != 0, len, pad;
    double a = fabs(v);
    uint64_t q;
    if (isnan(v)) {
        memcpy(out, neg ? "  -nan" : "   nan", 6);
        return 6;
    }
    if (isinf(v)) {
        memcpy(out, neg ? "  -inf" : "   inf", 6);
        return 6;
    }
#if defined(__SIZEOF_INT128__)
    if (a < 1e15) {
        int e;
        double m = frexp(a, &e);                       /* a = m * 2^e, 0.5 <= m < 1 (or a == 0) */
        uint64_t M = (uint64_t)ldexp(m, 53);           /* exact: a = M * 2^(e - 53) */
        unsigned __int128 X = (unsigned __int128)M * 10000u;
        int sh = 53 - e;                               /* a * 10^4 = X / 2^sh */
        if (sh <= 0) {
            q = (uint64_t)(X << -sh);                  /* a < 10^15: a * 10^4 < 2^64 */
        } else if (sh >= 120) {
            q = 0;                                     /* X < 2^67: below half a unit */
        } else {
            unsigned __int128 one = 1, rem = X & ((one << sh) - 1), half = one << (sh - 1);
            q = (uint64_t)(X >> sh);
            if (rem > half || (rem == half && (q & 1)))
                q++;                                   /* to nearest, ties to even */
        }
    } else
#endif
    {
        return snprintf(out, 400, "%6.4f", v);
    }
    {
        uint64_t frac = q % 10000;
        end -= 4;
        end[0] = (char)('0' + frac / 1000);
        end[1] = (char)('0' + frac / 100 % 10);
        end[2] = (char)('0' + frac / 10 % 10);
        end[3] = (char)('0' + frac % 10);
        *--end = '.';
        s = utoa_end(end, q / 10000);
        if (neg)
            *--s = '-';
    }
    len = (int)(tmp + sizeof tmp - s);
    pad = len < 6 ? 6 - len : 0;
    memset(out, ' ', (size_t)pad);
    memcpy(out + pad, s, (size_t)len);
    return pad + len;
}

/* printf("%ld", (long)v) as x86-64 casts: LONG_MIN for NaN and out-of-range values */
static int fmt_long(char *out, double v)
{
    char tmp[32], *end = tmp + sizeof tmp, *s;
    int64_t x;
    int len;
    if (!(v > -9223372036854775808.0 && v < 9223372036854775808.0)) {
        memcpy(out, "-9223372036854775808", 20);
        return 20;
    }
    x = (int64_t)v;
    s = utoa_end(end, x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x);
    if (x < 0)
        *--s = '-';
    len = (int)(end - s);
    memcpy(out, s, (size_t)len);
    return len;
}

static PyObject *format_lines(PyObject *self, PyObject *args)
{
    PyObject *heads, *strings, *topics, *show_obj, *result = NULL;
    Py_buffer kinds = {0}, values = {0}, show = {0};
    Py_ssize_t J, T, t, j;
    outbuf b = {NULL, 0, 0};
    const double *val;

    if (!PyArg_ParseTuple(args, "O!y*y*O!O!O", &PyTuple_Type, &heads, &kinds, &values, &PyTuple_Type,
                          &strings, &PyTuple_Type, &topics, &show_obj))
        return NULL;
    J = PyTuple_GET_SIZE(heads);
    T = PyTuple_GET_SIZE(topics);
    if (show_obj != Py_None && PyObject_GetBuffer(show_obj, &show, PyBUF_SIMPLE) < 0)
        goto done;
    if (kinds.len != J || PyTuple_GET_SIZE(strings) != J || values.len != (Py_ssize_t)sizeof(double) * J * T ||
        (show.buf && show.len != T)) {
        PyErr_SetString(PyExc_ValueError, "format_lines: heads, kinds, values, strings and show disagree");
        goto done;
    }
    for (j = 0; j < J; j++) {
        PyObject *h = PyTuple_GET_ITEM(heads, j), *col = PyTuple_GET_ITEM(strings, j);
        char k = ((const char *)kinds.buf)[j];
        if (!PyBytes_Check(h) || (k != 'f' && k != 'd' && k != 's') ||
            (k == 's' && (!PyTuple_Check(col) || PyTuple_GET_SIZE(col) != T))) {
            PyErr_SetString(PyExc_ValueError, "format_lines: bad column");
            goto done;
        }
    }
    for (t = 0; t < T; t++)
        if (!PyBytes_Check(PyTuple_GET_ITEM(topics, t))) {
            PyErr_SetString(PyExc_TypeError, "format_lines: topics must be bytes");
            goto done;
        }
    val = (const double *)values.buf;
    for (t = 0; t < T; t++) {
        PyObject *tp = PyTuple_GET_ITEM(topics, t);
        const char *ts = PyBytes_AS_STRING(tp);
        size_t tl = (size_t)PyBytes_GET_SIZE(tp);
        if (show.buf && !((const char *)show.buf)[t])
            continue;
        for (j = 0; j < J; j++) {
            PyObject *h = PyTuple_GET_ITEM(heads, j);
            size_t hl = (size_t)PyBytes_GET_SIZE(h);
            char k = ((const char *)kinds.buf)[j];
            PyObject *str = k == 's' ? PyTuple_GET_ITEM(PyTuple_GET_ITEM(strings, j), t) : NULL;
            size_t sl;
            if (str && !PyBytes_Check(str)) {
                PyErr_SetString(PyExc_TypeError, "format_lines: strings must be bytes");
                goto done;
            }
            sl = str ? (size_t)PyBytes_GET_SIZE(str) : 0;
            if (reserve(&b, hl + tl + sl + 408) < 0)
                goto done;
            memcpy(b.p + b.n, PyBytes_AS_STRING(h), hl);
            b.n += hl;
            memcpy(b.p + b.n, ts, tl);
            b.n += tl;
            b.p[b.n++] = '\t';
            if (k == 'f') {
                b.n += (size_t)fmt_fixed4(b.p + b.n, val[j * T + t]);
            } else if (k == 'd') {
                b.n += (size_t)fmt_long(b.p + b.n, val[j * T + t]);
            } else {
                b.p[b.n++] = '\'';
                memcpy(b.p + b.n, PyBytes_AS_STRING(str), sl);
                b.n += sl;
                b.p[b.n++] = '\'';
            }
            b.p[b.n++] = '\n';
        }
    }
    result = PyUnicode_DecodeUTF8(b.p ? b.p : "", (Py_ssize_t)b.n, "strict");
done:
    PyMem_Free(b.p);
    PyBuffer_Release(&kinds);
    PyBuffer_Release(&values);
    if (show.buf)
        PyBuffer_Release(&show);
    return result;
}

static PyObject *fixed4(PyObject *self, PyObject *arg)
{
    char out[400];
    double v = PyFloat_AsDouble(arg);
    if (v == -1.0 && PyErr_Occurred())
        return NULL;
    return PyUnicode_FromStringAndSize(out, fmt_fixed4(out, v));
}

static PyMethodDef methods[] = {
    {"format_lines", format_lines, METH_VARARGS,
     "format_lines(heads: tuple[bytes], kinds: bytes, values: float64 buffer (columns x topics),\n"
     "strings: tuple (per column: a tuple of bytes per topic for kind 's', else None),\n"
     "topics: tuple[bytes], show: uint8 buffer (topics) or None) -> str: the lines\n"
     "HEAD TOPIC\\tVALUE\\n, topic after topic; kinds: 'f' %6.4f, 'd' %ld, 's' quoted string."},
    {"fixed4", fixed4, METH_O, "fixed4(x: float) -> str: printf('%6.4f', x) as format_lines prints it."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_trecfmt",
                                       "trec_eval's per-topic lines printed in C (optional; see "
                                       "metaeval.treceval.render)",
                                       -1, methods};

PyMODINIT_FUNC PyInit__trecfmt(void) { return PyModule_Create(&moduledef); }
