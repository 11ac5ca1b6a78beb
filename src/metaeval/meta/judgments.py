"""Label agreement between qrels sets: Cohen's kappa (unweighted, linear, quadratic, binary),
Krippendorff's alpha (nominal, ordinal, interval; missing labels allowed), confusion matrices,
per-topic agreement and coverage -- for every pair of sets at once.

The sets enter as one ``(S, N)`` array of levels (``-1``: the set did not judge item ``i``) over the
union of their (topic, document) items (:class:`metaeval.io.judgments.JudgmentSets`).  One pass of
``numpy.bincount`` over the code ``((pair * T + topic) * K + level_a) * K + level_b`` of every pair of
sets and every item both judged gives every per-topic confusion matrix (items in chunks: memory
only); everything else is arithmetic on those integer counts, so no result depends on the chunking.

* Cohen (1960) kappa ``1 - sum(W O) / sum(W E)``, ``O`` the confusion counts, ``E`` the product of
  their margins over the count, ``W`` ``1 - I`` (unweighted), ``|i - j|`` (linear) or ``(i - j)^2``
  (quadratic) on the level values (Cohen 1968) -- scikit-learn's ``cohen_kappa_score`` with
  ``labels`` the whole scale; ``kappa_binary`` unweighted on ``level >= threshold``.  Undefined
  (NaN) when ``sum(W E) = 0`` (both sets give one same label to everything).
* Krippendorff (2004, 2011) alpha ``1 - (n - 1) sum(o d) / sum(n_c n_k d)`` from the coincidence
  matrix ``o`` (every item judged by ``m_u >= 2`` sets adds each ordered pair of its labels with
  weight ``1 / (m_u - 1)``), ``n_c`` its margins, ``d`` the nominal, ordinal
  (``(sum_{g=c..k} n_g - (n_c + n_k) / 2)^2``) or interval (``(c - k)^2``) distance.  Per pair of
  sets on the items both judged, and over all sets at once (the ``all, all`` row).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "COVERAGE_COLUMNS",
    "LABEL_AGREEMENT_COLUMNS",
    "TOPIC_AGREEMENT_COLUMNS",
    "PairCounts",
    "alpha_from_coincidence",
    "confusion_frames",
    "coverage",
    "default_threshold",
    "kappa",
    "label_agreement",
    "pair_counts",
    "topic_agreement",
]

LABEL_AGREEMENT_COLUMNS = ["qrels_a", "qrels_b", "topics", "pairs", "agreement", "kappa", "kappa_linear",
                           "kappa_quadratic", "kappa_binary", "threshold", "alpha_nominal", "alpha_ordinal",
                           "alpha_interval", "precision", "recall", "f1", "jaccard", "ari"]
TOPIC_AGREEMENT_COLUMNS = ["qrels_a", "qrels_b", "topic", "pairs", "agreement", "kappa"]
COVERAGE_COLUMNS = ["qrels", "run", "topics", "pairs", "relevant", "levels", "judged_at_k"]
#: cells (pairs of sets x items) coded per bincount call (memory only)
CHUNK_CELLS = 1 << 22


def default_threshold(max_level: int) -> int:
    """``kappa_binary``'s threshold: 2 on a graded TREC scale (levels up to 3 or more), else 1."""
    return 2 if max_level >= 3 else 1


class PairCounts:
    """Integer counts of every pair of sets ``(a < b)``: ``per_topic[p, t, i, j]`` items of topic
    ``t`` that set ``a`` labels ``i`` and set ``b`` labels ``j``; ``by_m[m, i, j]`` the same over
    all pairs of sets, per number ``m`` of sets that judged the item (Krippendorff's units)."""

    def __init__(self, a, b, per_topic, by_m):
        self.a, self.b, self.per_topic, self.by_m = a, b, per_topic, by_m

    @property
    def confusion(self) -> np.ndarray:
        """(P, K, K) over all topics (integer sums: exact)."""
        return self.per_topic.sum(axis=1)


def pair_counts(labels, item_topic, n_topics: int, K: int, chunk_cells: int = CHUNK_CELLS) -> PairCounts:
    """The counts of :class:`PairCounts` in one bincount per chunk of items."""
    L = np.asarray(labels)
    S, N = L.shape
    a, b = np.triu_indices(S, 1)
    P = len(a)
    size = max(P, 1) * n_topics * K * K
    msize = (S + 1) * K * K
    per = np.zeros(size, np.int64)
    bym = np.zeros(msize, np.int64)
    if P and N:
        m_all = (L >= 0).sum(axis=0)
        step = max(1, chunk_cells // P)
        it = np.asarray(item_topic, np.int64)
        base = (np.arange(P, dtype=np.int64) * n_topics)[:, None]
        for lo in range(0, N, step):
            hi = min(N, lo + step)
            la = L[a, lo:hi].astype(np.int64)
            lb = L[b, lo:hi].astype(np.int64)
            ok = (la >= 0) & (lb >= 0)
            pair_code = la * K + lb
            key = (base + it[lo:hi]) * (K * K) + pair_code
            per += np.bincount(key[ok], minlength=size)
            mk = m_all[lo:hi].astype(np.int64) * (K * K) + pair_code
            bym += np.bincount(mk[ok], minlength=msize)
    return PairCounts(a, b, per.reshape(max(P, 1), n_topics, K, K)[:P], bym.reshape(S + 1, K, K))


def _weights(K: int, kind: str) -> np.ndarray:
    i, j = np.indices((K, K))
    if kind == "none":
        return (i != j).astype(np.float64)
    if kind == "linear":
        return np.abs(i - j).astype(np.float64)
    return ((i - j) ** 2).astype(np.float64)


def kappa(C, weights: str = "none") -> np.ndarray:
    """Cohen's kappa of confusion counts ``C`` (..., K, K) (rows: the first set), as
    ``sklearn.metrics.cohen_kappa_score`` computes it; NaN where undefined."""
    C = np.asarray(C, dtype=np.float64)
    K = C.shape[-1]
    W = _weights(K, weights)
    n = C.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        E = C.sum(axis=-1)[..., :, None] * C.sum(axis=-2)[..., None, :] / n[..., None, None]
        return 1.0 - (W * C).sum(axis=(-2, -1)) / (W * E).sum(axis=(-2, -1))


def binary_confusion(C, threshold: int) -> np.ndarray:
    """(..., K, K) -> (..., 2, 2) on ``level >= threshold``."""
    C = np.asarray(C)
    t = min(int(threshold), C.shape[-1])
    rows = np.stack([C[..., :t, :].sum(axis=-2), C[..., t:, :].sum(axis=-2)], axis=-2)
    return np.stack([rows[..., :t].sum(axis=-1), rows[..., t:].sum(axis=-1)], axis=-1)


def alpha_from_coincidence(O, values=None) -> dict[str, np.ndarray]:
    """Krippendorff's alpha (nominal, ordinal, interval) of coincidence matrices ``O`` (..., K, K)
    (symmetric; category ``c`` has value ``values[c]``, default ``c``)."""
    O = np.asarray(O, dtype=np.float64)
    K = O.shape[-1]
    v = np.arange(K, dtype=np.float64) if values is None else np.asarray(values, np.float64)
    nc = O.sum(axis=-1)
    n = nc.sum(axis=-1)
    i, j = np.indices((K, K))
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    cum = np.concatenate([np.zeros(nc.shape[:-1] + (1,)), np.cumsum(nc, axis=-1)], axis=-1)
    between = cum[..., hi + 1] - cum[..., lo]                     # sum_{g=lo..hi} n_g
    deltas = {"nominal": (i != j).astype(np.float64),
              "ordinal": (between - (nc[..., i] + nc[..., j]) / 2.0) ** 2,
              "interval": (v[i] - v[j]) ** 2}
    out = {}
    E = nc[..., :, None] * nc[..., None, :]
    for name, d in deltas.items():
        with np.errstate(invalid="ignore", divide="ignore"):
            out[name] = 1.0 - (n - 1.0) * (O * d).sum(axis=(-2, -1)) / (E * d).sum(axis=(-2, -1))
    return out


def overlap(C2: np.ndarray, truth_first) -> dict[str, np.ndarray]:
    """Precision, recall, F1 and Jaccard of the relevant labels from binary confusion counts ``C2``
    (P, 2, 2) (rows: the first set); ``truth_first[p]``: the first set is the truth (else the
    second).  NaN where a denominator is 0 (scikit-learn with ``zero_division=np.nan``)."""
    C2 = np.asarray(C2, np.float64)
    tp = C2[:, 1, 1]
    first_only, second_only = C2[:, 1, 0], C2[:, 0, 1]
    tf = np.asarray(truth_first, bool)
    fp = np.where(tf, second_only, first_only)
    fn = np.where(tf, first_only, second_only)
    with np.errstate(invalid="ignore", divide="ignore"):
        prec = np.where(tp + fp > 0, tp / (tp + fp), np.nan)
        rec = np.where(tp + fn > 0, tp / (tp + fn), np.nan)
        f1 = np.where(2 * tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), np.nan)
        jac = np.where(tp + fp + fn > 0, tp / (tp + fp + fn), np.nan)
    return {"precision": prec, "recall": rec, "f1": f1, "jaccard": jac}


def adjusted_rand(C: np.ndarray) -> np.ndarray:
    """Hubert & Arabie's (1985) adjusted Rand index of the labels from confusion counts ``C`` (P, K,
    K), as ``sklearn.metrics.adjusted_rand_score`` computes it: from the pair confusion matrix, in
    exact integers (one Python step per pair of sets, not per item)."""
    C = np.asarray(C, np.int64)
    out = np.empty(C.shape[0])
    for p in range(C.shape[0]):
        c = C[p]
        n = int(c.sum())
        nc, nk = c.sum(axis=1), c.sum(axis=0)
        sq = int((c.astype(object) ** 2).sum())
        tp = sq - n
        fp = int((c.astype(object) @ nk.astype(object)).sum()) - sq
        fn = int((c.T.astype(object) @ nc.astype(object)).sum()) - sq
        tn = n * n - fp - fn - sq
        out[p] = 1.0 if fn == 0 and fp == 0 else 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))
    return out


def _row_agreement(C):
    C = np.asarray(C, dtype=np.float64)
    n = C.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.trace(C, axis1=-2, axis2=-1) / n


def label_agreement(names, counts: PairCounts, threshold: int, n_units: int = 0, n_unit_topics: int = 0,
                    reference: int | None = None, truth: int | None = None):
    """The ``label_agreement`` table: one row per pair of sets (``a < b`` in the order given) on the
    items both judged, then the ``all, all`` row (Krippendorff's alpha over every set at once;
    ``pairs``: items judged by two sets or more, ``agreement`` the share of agreeing ordered pairs
    of labels within them; kappa undefined; absent when no item is judged twice).  A pair of sets
    without an item judged by both has no row (one warning naming them); if one of them is
    ``reference`` (an index), ``ValueError``
    naming both sets."""
    import warnings

    import pandas as pd

    from ..errors import InputWarning

    C = counts.confusion
    npairs = C.sum(axis=(1, 2))
    empty = np.flatnonzero(npairs == 0)
    for p in empty.tolist():
        a, b = names[counts.a[p]], names[counts.b[p]]
        if reference is not None and reference in (counts.a[p], counts.b[p]):
            raise ValueError(f"qrels sets {a} and {b} judged no (topic, document) pair in common: "
                             f"nothing to compare")
    if len(empty):
        shown = ", ".join(f"{names[counts.a[p]]}/{names[counts.b[p]]}" for p in empty[:5].tolist())
        warnings.warn(InputWarning(f"label agreement: {len(empty)} pair(s) of qrels sets judged no (topic, "
                                   f"document) pair in common, left out: {shown}"
                                   + (", ..." if len(empty) > 5 else "")), stacklevel=2)
    keep = np.flatnonzero(npairs > 0)
    counts = PairCounts(counts.a[keep], counts.b[keep], counts.per_topic[keep], counts.by_m)
    C, npairs = C[keep], npairs[keep]
    topics = (counts.per_topic.sum(axis=(2, 3)) > 0).sum(axis=1)
    alpha = alpha_from_coincidence(C + C.transpose(0, 2, 1))
    df = pd.DataFrame({
        "qrels_a": pd.Series([names[i] for i in counts.a], dtype=object),
        "qrels_b": pd.Series([names[i] for i in counts.b], dtype=object),
        "topics": topics.astype(np.int64), "pairs": npairs.astype(np.int64),
        "agreement": _row_agreement(C), "kappa": kappa(C), "kappa_linear": kappa(C, "linear"),
        "kappa_quadratic": kappa(C, "quadratic"), "kappa_binary": kappa(binary_confusion(C, threshold)),
        "threshold": np.int64(threshold), "alpha_nominal": alpha["nominal"], "alpha_ordinal": alpha["ordinal"],
        "alpha_interval": alpha["interval"]})
    truth = reference if truth is None else truth         # the truth of precision / recall: the reference
    truth_first = np.array([truth is None or int(b) != truth for b in counts.b], bool)
    for k, v in overlap(binary_confusion(C, threshold), truth_first).items():
        df[k] = v
    df["ari"] = adjusted_rand(C)
    bym = counts.by_m.astype(np.float64)
    O = np.zeros(bym.shape[1:])
    for m in range(2, bym.shape[0]):                       # fixed order: m = 2, 3, ...
        O += (bym[m] + bym[m].T) / (m - 1.0)
    a_all = alpha_from_coincidence(O)
    all_row = {"qrels_a": "all", "qrels_b": "all", "topics": n_unit_topics, "pairs": n_units,
               "agreement": float(np.trace(O) / O.sum()) if O.sum() else np.nan,
               "kappa": np.nan, "kappa_linear": np.nan, "kappa_quadratic": np.nan, "kappa_binary": np.nan,
               "threshold": threshold, "alpha_nominal": float(a_all["nominal"]),
               "alpha_ordinal": float(a_all["ordinal"]), "alpha_interval": float(a_all["interval"]),
               "precision": np.nan, "recall": np.nan, "f1": np.nan, "jaccard": np.nan, "ari": np.nan}
    if n_units:                                            # no pair judged twice: no `all` row of NaN
        df = pd.concat([df, pd.DataFrame([all_row])], ignore_index=True)
    df["topics"] = df["topics"].astype(np.int64)
    df["pairs"] = df["pairs"].astype(np.int64)
    df["threshold"] = df["threshold"].astype(np.int64)
    return df[LABEL_AGREEMENT_COLUMNS]


def units(labels, item_topic) -> tuple[int, int]:
    """Krippendorff's pairable units: items judged by two sets or more, and their topics."""
    m = (np.asarray(labels) >= 0).sum(axis=0)
    sel = m >= 2
    return int(sel.sum()), len(np.unique(np.asarray(item_topic)[sel]))


def agreement_tables(names, labels, item_topic, topics, threshold: int | None = None, K: int | None = None,
                     reference: int | None = None, truth: int | None = None):
    """``(label_agreement, topic_agreement, {(a, b): confusion DataFrame})`` of the sets."""
    L = np.asarray(labels)
    H = int(L.max(initial=0))
    K = H + 1 if K is None else int(K)
    thr = default_threshold(H) if threshold is None else int(threshold)
    counts = pair_counts(L, item_topic, len(topics), K)
    la = label_agreement(names, counts, thr, *units(L, item_topic), reference=reference, truth=truth)
    pos = {(x, y): i for i, (x, y) in enumerate(zip(counts.a.tolist(), counts.b.tolist()))}
    rows = la[la["qrels_a"] != "all"]
    keep = [pos[(names.index(x), names.index(y))] for x, y in zip(rows["qrels_a"], rows["qrels_b"])]
    counts = PairCounts(counts.a[keep], counts.b[keep], counts.per_topic[keep], counts.by_m)
    return la, topic_agreement(names, counts, topics), confusion_frames(names, counts)


def topic_agreement(names, counts: PairCounts, topics):
    """``qrels_a, qrels_b, topic, pairs, agreement, kappa`` per pair of sets and topic both judged
    (topics in the collection's order)."""
    import pandas as pd

    C = counts.per_topic
    n = C.sum(axis=(2, 3))
    p, t = np.nonzero(n > 0)
    Ct = C[p, t]
    return pd.DataFrame({
        "qrels_a": pd.Series([names[counts.a[i]] for i in p], dtype=object),
        "qrels_b": pd.Series([names[counts.b[i]] for i in p], dtype=object),
        "topic": pd.Series([topics[i] for i in t], dtype=object),
        "pairs": n[p, t].astype(np.int64), "agreement": _row_agreement(Ct), "kappa": kappa(Ct)},
        columns=TOPIC_AGREEMENT_COLUMNS)


def confusion_frames(names, counts: PairCounts) -> dict:
    """``{(a, b): DataFrame}``: counts, a's levels as rows (index ``qrels_a\\qrels_b``), b's as columns."""
    import pandas as pd

    out = {}
    C = counts.confusion
    K = C.shape[-1]
    for p in range(C.shape[0]):
        a, b = names[counts.a[p]], names[counts.b[p]]
        df = pd.DataFrame(C[p].astype(np.int64), columns=[str(j) for j in range(K)])
        df.insert(0, f"{a}\\{b}", [str(i) for i in range(K)])
        out[(a, b)] = df
    return out


def coverage(names, labels, item_topic, topics_of, run_names, entry, lengths, top_k: int):
    """``coverage.csv``: per set ``qrels, topics, pairs, relevant, levels`` (``relevant``: level >=
    1; ``levels`` the levels used, space-separated), then per run and set ``run, qrels,
    judged_at_k``: of the run's top ``top_k`` documents over the topics the set judged (ranked by
    :func:`metaeval.io.judgments.label_sets`), the fraction the set judged."""
    import pandas as pd

    L = np.asarray(labels)
    it = np.asarray(item_topic)
    rows = []
    for s, name in enumerate(names):
        lab = L[s]
        j = lab >= 0
        used = np.unique(lab[j])
        rows.append({"qrels": name, "run": "", "topics": len(np.unique(it[j])), "pairs": int(j.sum()),
                     "relevant": int((lab >= 1).sum()), "levels": " ".join(str(int(v)) for v in used),
                     "judged_at_k": np.nan})
    set_rows = pd.DataFrame(rows, columns=COVERAGE_COLUMNS)
    k = min(int(top_k), entry.shape[2])
    ent = entry[:, :, :k]                                   # (R, T, k) item or -1 / PAD
    present = ent != -2
    # per set: which topics of the ranking it judged, which ranked items it judged
    topic_judged = np.zeros((len(names), len(topics_of)), bool)
    for s in range(len(names)):                             # a loop over sets, not over documents
        tj = np.zeros(int(it.max(initial=-1)) + 1, bool)
        tj[np.unique(it[L[s] >= 0])] = True
        topic_judged[s] = tj[topics_of] if len(tj) else False
    lab_at = np.where(ent[None] >= 0, L[:, np.maximum(ent, 0)], -1)             # (S, R, T, k)
    judged = (lab_at >= 0) & present[None] & topic_judged[:, None, :, None]
    shown = present[None] & topic_judged[:, None, :, None]
    num = judged.sum(axis=(2, 3))
    den = shown.sum(axis=(2, 3))
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = num / den
    R = len(run_names)
    run_rows = pd.DataFrame({"qrels": np.repeat(np.array(names, dtype=object), R),
                             "run": np.tile(np.array(run_names, dtype=object), len(names)),
                             "topics": np.nan, "pairs": np.nan, "relevant": np.nan, "levels": "",
                             "judged_at_k": frac.reshape(-1)}, columns=COVERAGE_COLUMNS)
    out = pd.concat([set_rows, run_rows], ignore_index=True)
    for c in ("topics", "pairs", "relevant"):
        out[c] = out[c].astype("Int64")
    return out
