"""Gain-value sweep (Sakai 2007a, Sec. 5.5, Tables 5-6; Sakai 2006, Sec. 5.3).

The paper writes gain vectors in S:A:B order (highest level first: "30:20:10" means gain(S)=30,
gain(A)=20, gain(B)=10).  Our measure syntax lists gains from L1 upward (NTCIREVAL ``-g``), so the
paper's "30:20:10" is our ``gains=10:20:30``: :func:`paper_to_gains` / :func:`gains_to_paper`
reverse the order.  The variants' matrices (``P-plus(gains=10:20:30)`` ...) are computed upstream
by ``metaeval matrices``; this module only compares them with the default-gain matrix.
"""

from __future__ import annotations

import pandas as pd

from .bootstrap import paired_bootstrap
from .kendall import kendall_tau
from ._validate import as_scores

__all__ = ["PAPER_GAIN_VARIANTS", "DEFAULT_SWEEP_METRICS", "paper_to_gains", "gains_to_paper",
           "variant_name", "gain_sweep"]

#: Sakai (2007a) Table 5-6 variants, in the paper's S:A:B order (default 3:2:1 excluded)
PAPER_GAIN_VARIANTS = ("30:20:10", "0.3:0.2:0.1", "1:1:1", "10:5:1")
DEFAULT_SWEEP_METRICS = ("P-plus", "P-measure", "O-measure")


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def _parse(text: str) -> list[float]:
    try:
        vals = [float(v) for v in str(text).split(":")]
    except ValueError:
        raise ValueError(f"gains {text!r}: expected numbers separated by ':'") from None
    if not vals or any(v < 0 for v in vals):
        raise ValueError(f"gains {text!r}: expected non-negative numbers")
    return vals


def paper_to_gains(paper: str) -> str:
    """Paper order (highest level first, "30:20:10") -> measure syntax (L1 first, "10:20:30")."""
    return ":".join(_fmt(v) for v in reversed(_parse(paper)))


def gains_to_paper(gains: str) -> str:
    """Measure syntax (L1 first, "1:5:10") -> paper order (S:A:B, "10:5:1")."""
    return ":".join(_fmt(v) for v in reversed(_parse(gains)))


def variant_name(metric: str, gains: str) -> str:
    """Canonical name of a gain variant, e.g. ``variant_name("P-plus", "10:20:30")``
    -> ``"P-plus(gains=10:20:30)"`` (via the measure registry when it knows the metric)."""
    try:
        import metaeval.metrics  # noqa: F401  (registers the measures)
        from metaeval.metrics.registry import parse_measure

        return parse_measure(f"{metric}(gains={gains})").name
    except Exception:  # noqa: BLE001 - any name the registry refuses keeps its written form
        return f"{metric}(gains={_fmt_list(gains)})"


def _fmt_list(gains: str) -> str:
    return ":".join(_fmt(v) for v in _parse(gains))


def gain_sweep(matrices: dict, metrics=DEFAULT_SWEEP_METRICS, variants=None, *, default_gains: str | None = None,
               samples=None, B: int = 1000, seed: int = 0, alpha: float = 0.05, variant: str = "a",
               batch: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Tables 5 and 6: Kendall's tau of every gain variant against the default gains, and the
    paired bootstrap sensitivity of the default and every variant.

    ``matrices`` holds ``metric`` (the default gains) and ``variant_name(metric, g)`` for each
    ``g`` in ``variants`` (measure syntax, L1 first; default: the paper's four variants converted).
    Returns ``(gain_kendall, gain_bootstrap)``:

    * ``gain_kendall``: ``metric, gains, tau, z0, p_value, paper_gains, variant`` -- ``metric`` the
      default-gain metric, ``gains`` the variant's gains (L1 first), ``variant`` its matrix name;
    * ``gain_bootstrap``: ``metric, pairs, significant, sensitivity, estimated_diff, gains,
      default, paper_gains`` -- ``metric`` the matrix name (``P-plus`` for the default row,
      ``P-plus(gains=10:20:30)`` for a variant), ``default`` true on the default row, whose
      ``gains`` is ``default_gains`` (or ``"default"``).

    Rows: metrics in the given order, the default first, then the variants in the given order.
    """
    if variants is None:
        variants = [paper_to_gains(p) for p in PAPER_GAIN_VARIANTS]
    krows, brows = [], []
    for m in metrics:
        if m not in matrices:
            raise ValueError(f"gain sweep: no matrix for the default-gain metric {m!r}")
        base = as_scores(matrices[m], m)
        dg = default_gains if default_gains is not None else "default"
        dp = gains_to_paper(default_gains) if default_gains is not None else "default"
        entries = [(m, dg, dp, base)]
        for g in variants:
            name = variant_name(m, g)
            if name not in matrices:
                raise ValueError(f"gain sweep: no matrix for {name!r} (compute it with metaeval matrices)")
            s = as_scores(matrices[name], name)
            if s.runs != base.runs:
                order = [s.runs.index(r) for r in base.runs]
                s = as_scores(pd.DataFrame(s.values[:, order], index=list(s.topics), columns=list(base.runs)), name)
            entries.append((name, _fmt_list(g), gains_to_paper(g), s))
        for name, g, pg, s in entries[1:]:
            r = kendall_tau(base.values.mean(axis=0), s.values.mean(axis=0), variant)
            krows.append((m, g, r.tau, r.z0, r.p_value, pg, name))
        for i, (name, g, pg, s) in enumerate(entries):
            res = paired_bootstrap(s, samples, B=B, seed=seed, alpha=alpha, batch=batch, metric=name)
            brows.append((name, res.n_pairs, res.significant, res.sensitivity, res.estimated_diff,
                          g, i == 0, pg))
    kdf = pd.DataFrame(krows, columns=["metric", "gains", "tau", "z0", "p_value", "paper_gains", "variant"])
    bdf = pd.DataFrame(brows, columns=["metric", "pairs", "significant", "sensitivity", "estimated_diff",
                                       "gains", "default", "paper_gains"])
    return kdf, bdf
