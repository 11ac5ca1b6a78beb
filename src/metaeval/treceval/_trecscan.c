/* metaeval.treceval._trecscan: one pass over a TREC run's text -> trec_eval 10.0's rankings (optional).
 *
 * The pure-numpy reader (metaeval.treceval.reader.read_trec_run + _rank_one) is the specification; this
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
 * Semantics (see the docstring of metaeval.treceval.reader):
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
#include "_cnum.h"

#define PAD_REL (-(1 << 30))
#define NONPOOL (-1)
#define UNJUDGED (-2)
#define CAPSULE_NAME "metaeval.treceval._trecscan.QrelsIndex"

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
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_trecscan",
                                       "trec_eval run scanning in C (optional; see metaeval.treceval.ranking)",
                                       -1, methods};

PyMODINIT_FUNC PyInit__trecscan(void) { return PyModule_Create(&moduledef); }
