"""Score standardisation: a topic's scores on a common scale (the ``std=`` parameter of any measure).

A raw score says as much about the topic's difficulty as about the system.  Standardising each
topic ``t`` by the distribution of the *standardising runs'* scores on it puts every topic on one
scale.  Four methods, as the reference code of Urbano, Lima & Hanjalic (2019) (``R/std.R`` of
julian-urbano/sigir2019-standardization) computes them:

``z``  Webber, Moffat & Zobel (2008): ``(x - mu_t) / sigma_t``, ``mu_t`` the mean and ``sigma_t``
       the sample standard deviation (``n - 1``) of the standardising runs' scores on ``t``.
``N``  Webber et al. (2008): ``Phi(z)``, the normal CDF of the z-score (R's ``pnorm(x, mu, sigma)``).
``U``  Sakai (2016), std-AB with ``A = 0.15``, ``B = 0.5``: ``A z + B`` clipped to ``[0, 1]`` --
       computed as std.R does, the uniform CDF on ``[mu - sigma B / A, mu + sigma (1 - B) / A]``
       (R's ``punif``: ``(x - lo) / (hi - lo)``, 0 below, 1 above).
``E``  Urbano et al. (2019): the empirical CDF of the standardising runs' scores on ``t``:
       ``#{j : x_jt <= x} / n`` (R's ``ecdf``).

A topic on which every standardising run scores the same (``sigma_t = 0``) is left
unstandardised, as std.R does: ``mu_t = 0`` and ``sigma_t = 1`` for z, N and U (so z = x, N =
Phi(x), U = clip(A x + B)); E is the step at the common value.  Standardising needs at least two
runs (three with leave-one-out, which removes one).

The standardising runs are by default every run of the matrix; or a subset (``runs``, e.g. a track's
official runs when new ones are evaluated); or, with ``leave_one_out``, every run in the set is
standardised by the factors of the set *without* it (so that a run cannot move its own scale; a
run outside the set uses the whole set's factors).  The factors (:class:`StdFactors`: per topic
``mu``, ``sigma`` and the ECDF support, the standardising scores sorted) are written to
``std_factors.csv`` (:func:`write_factors`) and read back (:func:`read_factors`), which also reads
trec_eval's ``-Z`` file (``qid measure mean stddev`` per line).

Arrays are ``(runs, topics)`` as in :func:`metaeval.metrics.evaluate`; sums run in a fixed order
(``numpy.add.reduce`` along the runs axis).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .names import STD_METHODS as METHODS, parse_std

__all__ = ["METHODS", "U_A", "U_B", "FACTOR_COLUMNS", "StdFactors", "StdSettings", "parse_std", "compute_factors",
           "standardise", "standardise_matrix", "leave_one_out", "write_factors", "read_factors",
           "with_std", "without_std", "trec_measure_name", "evaluate_standardised"]

#: the methods, in the order of Urbano et al. (2019)'s tables
#: Sakai (2016)'s std-AB constants, as std.R uses them
U_A, U_B = 0.15, 0.5
#: the columns of ``std_factors.csv``
FACTOR_COLUMNS = ("metric", "topic", "mu", "sigma", "support")


@dataclass(frozen=True)
class StdFactors:
    """One measure's per-topic factors: ``mu``, ``sigma`` (``(T,)``; sigma 0 = unstandardised
    topic) and, when known, ``support`` -- per topic the standardising runs' scores, sorted (the
    ECDF of method E); ``None`` for factors read from a file that has only mu and sigma."""
    topics: tuple[str, ...]
    mu: np.ndarray
    sigma: np.ndarray
    support: tuple[np.ndarray, ...] | None = None

    def subset(self, topics) -> StdFactors:
        """The factors of ``topics`` in that order; ``KeyError`` naming the first missing topic."""
        pos = {t: i for i, t in enumerate(self.topics)}
        rows = []
        for t in topics:
            if t not in pos:
                raise KeyError(t)
            rows.append(pos[t])
        idx = np.asarray(rows, dtype=np.int64)
        sup = None if self.support is None else tuple(self.support[i] for i in idx)
        return StdFactors(tuple(topics), self.mu[idx], self.sigma[idx], sup)


@dataclass
class StdSettings:
    """How standardised measures are computed: the standardising ``runs`` (names; ``None`` = all),
    ``leave_one_out``, or fixed ``factors`` (``{measure name without std: StdFactors}``, e.g. from
    :func:`read_factors`).  ``record`` collects the factors used, for ``std_factors.csv``."""
    runs: tuple[str, ...] | None = None
    leave_one_out: bool = False
    factors: dict | None = None
    source: str | None = None                  # where ``factors`` came from (for messages)
    record: dict = field(default_factory=dict)
    _raw: dict = field(default_factory=dict, repr=False)      # the collection and its raw matrices

    def check(self) -> StdSettings:
        if self.factors is not None and (self.runs is not None or self.leave_one_out):
            raise ValueError("fixed standardisation factors replace the standardising runs: give the "
                             "factors, or the runs / leave-one-out, not both")
        return self


def _mean(x: np.ndarray, w: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(mean, n)`` along axis -2 (runs), optionally weighted 0/1, with R's second pass
    (``mean.default``: ``m + sum(x - m) / n``)."""
    if w is None:
        n = np.full(x.shape[:-2] + x.shape[-1:], float(x.shape[-2]))
        m = np.add.reduce(x, axis=-2) / n
        return m + np.add.reduce(x - m[..., None, :], axis=-2) / n, n
    n = np.add.reduce(w, axis=-2)
    m = np.add.reduce(x * w, axis=-2) / n
    return m + np.add.reduce((x - m[..., None, :]) * w, axis=-2) / n, n


def _sd(x: np.ndarray, m: np.ndarray, n: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    """The sample standard deviation along axis -2 (two passes, as R's ``sd``)."""
    d = x - m[..., None, :]
    sq = d * d if w is None else d * d * w
    return np.sqrt(np.add.reduce(sq, axis=-2) / (n - 1.0))


def compute_factors(scores, topics) -> StdFactors:
    """The factors of the standardising runs' ``scores`` (``(runs, topics)``, at least 2 runs)."""
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != len(topics):
        raise ValueError(f"scores must be (runs, {len(topics)} topics), got shape {x.shape}")
    if x.shape[0] < 2:
        raise ValueError(f"standardising needs at least 2 runs, got {x.shape[0]}")
    mu, n = _mean(x)
    sigma = _sd(x, mu, n)
    srt = np.sort(x, axis=0)
    const = srt[0] == srt[-1]                   # every run alike: sigma exactly 0, mu the value
    sigma = np.where(const, 0.0, sigma)
    mu = np.where(const, srt[0], mu)
    return StdFactors(tuple(str(t) for t in topics), mu, sigma, tuple(np.ascontiguousarray(srt.T)))


def _effective(mu, sigma):
    """std.R's rule: sigma 0 -> mu 0, sigma 1 (the topic unstandardised)."""
    zero = sigma == 0
    return np.where(zero, 0.0, mu), np.where(zero, 1.0, sigma)


def _transform(x, mu, sigma, method: str) -> np.ndarray:
    """z, N or U of ``x`` given (already effective) ``mu``, ``sigma`` (broadcasting)."""
    if method == "z":
        return (x - mu) / sigma
    if method == "N":
        from scipy.special import ndtr

        return ndtr((x - mu) / sigma)
    if method == "U":
        lo = mu - sigma * U_B / U_A
        hi = mu + sigma * (1 - U_B) / U_A
        return np.where(x <= lo, 0.0, np.where(x >= hi, 1.0, (x - lo) / (hi - lo)))
    raise ValueError(f"unknown standardisation {method!r}")


def standardise(values, factors: StdFactors, method: str) -> np.ndarray:
    """``values`` (``(runs, topics)``, topics as ``factors.topics``) standardised by ``factors``."""
    method = parse_std(method)
    x = np.asarray(values, dtype=np.float64)
    if method == "E":
        if factors.support is None:
            raise ValueError("E-standardisation needs the ECDF support (the standardising scores); these "
                             "factors have mu and sigma only")
        out = np.empty_like(x)
        for t, sup in enumerate(factors.support):        # one searchsorted per topic, all runs at once
            out[:, t] = np.searchsorted(sup, x[:, t], side="right") / float(len(sup))
        return out
    mu, sigma = _effective(factors.mu, factors.sigma)
    return _transform(x, mu[None, :], sigma[None, :], method)


def leave_one_out(values, in_set, method: str, chunk: int = 64) -> np.ndarray:
    """``values`` (``(runs, topics)``) standardised leaving each run out: a run with ``in_set``
    True by the factors of the other runs of the set, a run outside the set by the whole set's.
    Runs in chunks (``chunk`` runs at a time, each a 0/1 weighting of the set's rows)."""
    method = parse_std(method)
    x = np.asarray(values, dtype=np.float64)
    in_set = np.asarray(in_set, dtype=bool)
    S = x[in_set]
    if S.shape[0] < 3:
        raise ValueError(f"leave-one-out standardisation needs at least 3 standardising runs, got {S.shape[0]}")
    pos = np.cumsum(in_set) - 1                          # a set run's row in S
    out = np.empty_like(x)
    srt = np.sort(S, axis=0)
    for a in range(0, x.shape[0], chunk):
        b = min(a + chunk, x.shape[0])
        w = np.ones((b - a, S.shape[0], 1))
        own = np.flatnonzero(in_set[a:b])
        w[own, pos[a:b][own], 0] = 0.0
        xs = x[a:b]
        if method == "E":
            cnt = np.stack([np.searchsorted(srt[:, t], xs[:, t], side="right") for t in range(x.shape[1])], axis=1)
            n = np.full(b - a, float(S.shape[0]))
            n[own] -= 1.0
            cnt = cnt - in_set[a:b, None]                 # the run's own score is <= itself
            out[a:b] = cnt / n[:, None]
            continue
        Sb = np.broadcast_to(S, (b - a,) + S.shape)
        mu, n = _mean(Sb, w)
        sigma = _sd(Sb, mu, n, w)
        # others all alike -> sigma exactly 0 (std.R: unstandardised)
        big = np.where(w > 0, Sb, -np.inf).max(axis=1)
        small = np.where(w > 0, Sb, np.inf).min(axis=1)
        sigma = np.where(big == small, 0.0, sigma)
        mu_e, sigma_e = _effective(mu, sigma)
        out[a:b] = _transform(xs, mu_e, sigma_e, method)
    return out


def standardise_matrix(values, topics, runs, method: str, settings: StdSettings | None = None,
                       key: str | None = None, where: str | None = None) -> tuple[np.ndarray, StdFactors]:
    """``values`` (``(runs, topics)``) standardised as ``settings`` says; returns the standardised
    array and the factors (of the whole standardising set).  ``key``: the measure name without
    ``std`` (looked up in fixed factors); ``where``: named in messages.  ``ValueError`` with a
    one-line message on an unknown run, a missing topic or too few runs."""
    s = (settings or StdSettings()).check()
    topics = [str(t) for t in topics]
    runs = [str(r) for r in runs]
    x = np.asarray(values, dtype=np.float64)
    if s.factors is not None:
        f = s.factors.get(key) if key is not None else None
        if f is None:
            have = sorted(s.factors)
            more = f", ... ({len(have)} in all)" if len(have) > 8 else ""
            raise ValueError(f"no standardisation factors for {key!r} (have: {', '.join(have[:8]) or 'none'}{more})")
        try:
            f = f.subset(topics)
        except KeyError as e:
            raise ValueError(f"no standardisation factors of {key} for topic {e.args[0]}") from None
        return standardise(x, f, method), f
    if s.runs is None:
        in_set = np.ones(len(runs), dtype=bool)
    else:
        unknown = [r for r in s.runs if r not in runs]
        if unknown:
            raise ValueError(f"standardising run(s) {', '.join(unknown[:5])} not among the runs"
                             + (f" of {where}" if where else ""))
        wanted = set(s.runs)
        in_set = np.array([r in wanted for r in runs], dtype=bool)
    if in_set.sum() < 2:
        raise ValueError(f"standardising needs at least 2 runs, got {int(in_set.sum())}")
    f = compute_factors(x[in_set], topics)
    if s.leave_one_out:
        return leave_one_out(x, in_set, method), f
    return standardise(x, f, method), f


# ------------------------------------------------------------------------------- names
def with_std(name: str, method: str) -> str:
    """The matrix name of ``name`` standardised by ``method``: the canonical measure name with
    ``std=`` (``AP`` -> ``AP(std=z)``, ``nDCG@10`` -> ``nDCG(std=z)@10``... as the registry writes
    it); a name that is not a measure (another tool's) gets ``(std=X)`` appended."""
    from .registry import parse_measure, Measure

    try:
        m = parse_measure(name)
    except ValueError:
        return f"{name}(std={method})"
    params = dict(m.params)
    params["std"] = method
    return Measure(m.base, m.cutoff, tuple(sorted(params.items()))).name


def without_std(name: str) -> tuple[str, str | None]:
    """``(name without std, method)``: ``AP(std=z)`` -> (``AP``, ``z``); (name, None) otherwise."""
    from .registry import Measure, parse_measure, split_param

    try:
        m = parse_measure(name)
    except ValueError:
        base, v = split_param(name, "std")
        return base, (parse_std(v) if v is not None else None)
    method = dict(m.params).get("std")
    if method is None:
        return m.name, None
    return Measure(m.base, m.cutoff, tuple((k, v) for k, v in m.params if k != "std")).name, method


_TREC_CUT = re.compile(r"^(?P<base>.+)_(?P<cut>\d+)$")


def trec_measure_name(name: str) -> str:
    """trec_eval's printed name -> the canonical ``trec.*`` measure name (``map`` ->
    ``trec.map``, ``P_5`` -> ``trec.P@5``, ``iprec_at_recall_0.10`` ->
    ``trec.iprec_at_recall(recall=0.1)``); a name that maps to none is returned as is."""
    from .registry import REGISTRY, parse_measure

    cands = [f"trec.{name}"]
    m = _TREC_CUT.match(name)
    if m:
        cands.append(f"trec.{m['base']}@{m['cut']}")
    if name.startswith("iprec_at_recall_"):
        cands.append(f"trec.iprec_at_recall(recall={name[len('iprec_at_recall_'):]})")
    if name.startswith("Rprec_mult_"):
        cands.append(f"trec.Rprec_mult(mult={name[len('Rprec_mult_'):]})")
    for c in cands:
        if c.split("(")[0].split("@")[0] in REGISTRY:
            try:
                return parse_measure(c).name
            except ValueError:
                continue
    return name


# ------------------------------------------------------------------------------- files
def write_factors(factors: dict, path) -> None:
    """``std_factors.csv``: ``metric, topic, mu, sigma, support`` (support: the standardising
    scores, sorted ascending, separated by spaces; exact ``repr`` texts), metrics in the order given,
    topics in the factors' order.  Written atomically."""
    from ..util import atomic_write

    lines = [",".join(FACTOR_COLUMNS)]
    for metric, f in factors.items():
        mq = _field(metric)
        for i, t in enumerate(f.topics):
            sup = "" if f.support is None else " ".join(map(repr, f.support[i].tolist()))
            lines.append(f"{mq},{_field(t)},{float(f.mu[i])!r},{float(f.sigma[i])!r},{sup}")
    with atomic_write(Path(path), newline="", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def _field(s: str) -> str:
    return '"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\r\n') else s


def _num(text: str, path, line: int, what: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not math.isfinite(v):
        from ..errors import InputError

        raise InputError(f"{what} {text!r} is not a finite number", path, line)
    return v


def read_factors(path) -> dict:
    """``{metric: StdFactors}`` from ``std_factors.csv`` (:func:`write_factors`) or from a trec_eval
    ``-Z`` file (``qid measure mean stddev``, whitespace separated; trec_eval's measure names are
    read as the ``trec.*`` measures, :func:`trec_measure_name`).  Raises
    :class:`~metaeval.errors.InputError` naming the file and line."""
    import csv

    from ..errors import InputError
    from ..util import open_text

    path = Path(path)
    try:
        fh = open_text(path)
    except FileNotFoundError:
        raise InputError("standardisation factors file not found", path) from None
    with fh:
        try:
            text = fh.read()
        except UnicodeDecodeError as e:
            raise InputError(f"unreadable text: {e}", path) from None
    lines = text.splitlines()
    first = next((ln for ln in lines if ln.strip()), None)
    if first is None:
        raise InputError("empty standardisation factors file", path, 1)
    rows: dict[str, dict[str, tuple]] = {}
    if first.strip().lstrip("\ufeff").startswith("metric,"):
        reader = csv.reader(lines)
        header = [h.strip().lstrip("\ufeff") for h in next(reader)]
        if tuple(header) != FACTOR_COLUMNS:
            raise InputError(f"expected the header {','.join(FACTOR_COLUMNS)}, got {','.join(header)}", path, 1)
        for lineno, row in enumerate(reader, start=2):
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != len(FACTOR_COLUMNS):
                raise InputError(f"expected {len(FACTOR_COLUMNS)} fields, got {len(row)}", path, lineno)
            metric, topic, mu, sigma, sup = (c.strip() for c in row)
            vals = [_num(v, path, lineno, "support value") for v in sup.split()] if sup else None
            if vals is not None and sorted(vals) != vals:
                raise InputError("support values must be sorted ascending", path, lineno, topic)
            _put(rows, metric, topic, (_num(mu, path, lineno, "mu"), _num(sigma, path, lineno, "sigma"), vals),
                 path, lineno)
    else:                                                   # trec_eval -Z: qid measure mean stddev
        for lineno, ln in enumerate(lines, start=1):
            parts = ln.split()
            if not parts:
                continue
            if len(parts) != 4:
                raise InputError(f"expected 'qid measure mean stddev' (4 fields, trec_eval -Z form), got "
                                 f"{len(parts)}", path, lineno)
            qid, meas, mu, sigma = parts
            _put(rows, trec_measure_name(meas), qid,
                 (_num(mu, path, lineno, "mean"), _num(sigma, path, lineno, "stddev"), None), path, lineno)
    out = {}
    for metric, per in rows.items():
        topics = tuple(per)
        sig = np.array([per[t][1] for t in topics])
        if (sig < 0).any():
            raise InputError(f"{metric}: negative sigma", path)
        sups = [per[t][2] for t in topics]
        if any(s is None for s in sups) and not all(s is None for s in sups):
            raise InputError(f"{metric}: the ECDF support is given for some topics only", path)
        support = None if sups[0] is None else tuple(np.asarray(s, dtype=np.float64) for s in sups)
        out[metric] = StdFactors(topics, np.array([per[t][0] for t in topics]), sig, support)
    return out


def _put(rows, metric, topic, value, path, lineno):
    from ..errors import InputError

    per = rows.setdefault(metric, {})
    if topic in per:
        raise InputError(f"{metric}: topic {topic} given twice", path, lineno, topic)
    per[topic] = value


def evaluate_standardised(ctx, m, settings: StdSettings | None, evaluate) -> np.ndarray:
    """The ``(runs, topics)`` matrix of the standardised measure ``m`` on ``ctx``: the measure
    without ``std`` (``evaluate``) standardised as ``settings`` says; its factors are recorded in
    ``settings.record`` under the name without ``std``."""
    from .registry import Measure

    s = settings if settings is not None else StdSettings()
    base = Measure(m.base, m.cutoff, tuple((k, v) for k, v in m.params if k != "std"))
    c = ctx.collection
    if s._raw.get("collection") is not c:      # the raw matrices of this collection only
        s._raw = {"collection": c}
    if base.name not in s._raw:                # AP(std=z) and AP(std=E) share AP's matrix
        s._raw[base.name] = evaluate(ctx, [base])[base.name]
    raw = s._raw[base.name]
    vals, f = standardise_matrix(raw, c.topics, c.runs, m.param("std"), s, key=base.name)
    s.record[base.name] = f
    return vals
