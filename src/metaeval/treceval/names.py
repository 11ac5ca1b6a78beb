"""trec_eval's printed measure names -> the registry's ``trec.*`` names (``metaeval judgments
--results``): ``map`` -> ``trec.map``; a cutoff measure ``P_10`` / ``ndcg_cut_10`` -> ``trec.P@10`` /
``trec.ndcg_cut@10``; ``iprec_at_recall_0.10`` -> ``trec.iprec_at_recall(recall=0.1)``,
``Rprec_mult_0.20`` -> ``trec.Rprec_mult(mult=0.2)``; any other name ``trec.NAME``; then the
registry's canonical spelling where it parses."""

from __future__ import annotations

__all__ = ["registry_name", "trec_measure_name"]

_DOUBLE_PARAM = {"iprec_at_recall": "recall", "Rprec_mult": "mult"}


def registry_name(printed: str) -> str:
    """The registry name of a measure as trec_eval prints it (see the module docstring)."""
    from ..metrics.registry import parse_measure
    from . import measures  # noqa: F401  (registers every measure's row)
    from .table import MEASURES

    name = f"trec.{printed}"
    if printed not in MEASURES:
        base, _, param = printed.rpartition("_")
        if base in MEASURES and param:
            if MEASURES[base].kind == "cut_long":
                name = f"trec.{base}@{int(param)}"
            elif base in _DOUBLE_PARAM:
                name = f"trec.{base}({_DOUBLE_PARAM[base]}={float(param):g})"
    try:
        return parse_measure(name).name
    except ValueError:
        return name


def trec_measure_name(printed: str) -> str:
    """:func:`registry_name` of a name trec_eval prints for one of its measures (``map``,
    ``ndcg_cut_10``, ``iprec_at_recall_0.10``); any other name as given (a leaderboard's own
    measure, ``coarse``)."""
    from . import measures  # noqa: F401  (registers every measure's row)
    from .table import MEASURES

    base = printed if printed in MEASURES else printed.rpartition("_")[0]
    return registry_name(printed) if base in MEASURES else printed
