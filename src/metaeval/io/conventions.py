"""Which conventions an input is read with: trec_eval's or NTCIREVAL's (docs/io.md, "Conventions").

One rule for files, DataFrames, the command line, the Python API and the pipeline:

* **TREC input** -- every run in TREC's six-column form (a run file, or a DataFrame ``query_id,
  doc_id, score``) and the qrels in TREC form (``TOPIC ITER DOCID REL``, or a DataFrame ``query_id,
  doc_id, relevance``) -- is read with trec_eval's conventions: ranked by score (``order="score"``)
  and measure names in the ``ir_measures`` vocabulary (``nDCG@10`` is trec_eval's ``ndcg_cut.10``).
* **NTCIR input** -- NTCIR-form qrels (``TOPIC DOCID Lk``), NTCIREVAL's per-topic ``.rel`` / ``.res``
  layouts, or a declared qrels form (``intents``, ``ec``) -- keeps NTCIREVAL's: the run file's line
  order (``order="file"``) and the ``ntcireval`` vocabulary.
* ``order`` (``--order``, config ``order:``) overrides the order, and the vocabulary follows it
  unless ``vocabulary`` (``--vocabulary``, config ``vocabulary:``) is given too.

:func:`input_form` tells the two apart from the first line of the qrels file (no full read) and the
kind of each run source; :func:`default_order` applies the rule.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path

__all__ = ["input_form", "default_order", "qrels_form_of", "config_order", "conventional", "is_conventional"]

_PEEK = 1 << 16


def _first_line_fields(path) -> int | None:
    """Number of fields of the first non-blank line of a (possibly gzip) text file; None when the
    file cannot be read or holds no such line (the reader words that error later)."""
    from ..util import source_bytes

    try:                                   # read once: the parser gets these bytes (a FIFO too)
        data = source_bytes(path, keep=True)
        if data[:2] == b"\x1f\x8b":
            data = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, _PEEK)
        else:
            data = data[:_PEEK]
    except (OSError, EOFError, ValueError, zlib.error):
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    for line in data.split(b"\n"):
        fields = line.split()
        if fields:
            return len(fields)
    return None


def qrels_form_of(qrels) -> str:
    """``"trec"`` or ``"ntcir"``: the form of a qrels argument (a path, a list of paths, a directory
    of per-topic ``.rel`` files, a :class:`~metaeval.io.qrels.Qrels` or a DataFrame)."""
    if hasattr(qrels, "columns"):
        return "trec"                                   # query_id, doc_id, relevance: TREC's grades
    form = getattr(qrels, "form", None)
    if isinstance(form, str):
        return "trec" if form and set(form.split("+")) <= {"trec", "frame"} else "ntcir"
    paths = [qrels] if isinstance(qrels, (str, os.PathLike)) else list(qrels)
    if not paths:
        return "ntcir"
    for p in paths:
        p = Path(p)
        if p.is_dir() or p.suffix == ".rel" or _first_line_fields(p) != 4:
            return "ntcir"
    return "trec"


def _runs_form(runs) -> str:
    """``"trec"`` unless some run is an NTCIREVAL per-topic ``.res`` layout."""
    from .runs import RunSource, expand_runs

    if runs is None:
        return "trec"
    if hasattr(runs, "columns") or isinstance(runs, dict):
        return "trec"                                   # DataFrames: query_id, doc_id, score
    if isinstance(runs, (str, os.PathLike, RunSource)):
        runs = [runs]
    specs = []
    for r in runs:
        if hasattr(r, "columns"):
            continue
        if isinstance(r, RunSource):
            if r.path is None:
                return "ntcir"
            continue
        specs.append(r)
    try:
        sources = expand_runs(specs) if specs else []
    except Exception:  # noqa: BLE001 -- bad run arguments are reported by the reader itself
        return "trec"
    return "ntcir" if any(s.path is None for s in sources) else "trec"


def input_form(qrels, runs, qrels_form: str | None = "auto") -> str:
    """``"trec"`` (TREC six-column runs with TREC-form qrels) or ``"ntcir"`` (anything else)."""
    if qrels_form not in (None, "auto"):
        return "ntcir"                                  # intents / ec: declared forms keep file order
    if qrels_form_of(qrels) != "trec":
        return "ntcir"
    return _runs_form(runs)


class _Conventional(str):
    """An order the input's conventions chose (no ``order`` was given): equal to the plain string;
    the readers warn on a run whose own order is not by decreasing score only when its order was
    not asked for explicitly as ``score``."""

    __slots__ = ()


def conventional(order: str) -> str:
    """``order`` (``"file"`` or ``"score"``) marked as the input's conventions' choice."""
    return _Conventional(order)


def is_conventional(order) -> bool:
    """Whether ``order`` was chosen by the input's conventions (:func:`default_order`), not given."""
    return isinstance(order, _Conventional)


def default_order(order: str | None, qrels, runs, qrels_form: str | None = "auto") -> str:
    """``order`` if given, else ``"score"`` for TREC input and ``"file"`` for NTCIR input (marked
    :func:`conventional`)."""
    if order is not None:
        return order
    return conventional("score" if input_form(qrels, runs, qrels_form) == "trec" else "file")


def config_order(collection: dict) -> str:
    """The order of a pipeline collection's config (``order: null`` = the input's conventions;
    simulated collections are written in NTCIR form: ``file``)."""
    if collection.get("order") is not None:
        return collection["order"]
    if "simulate" in collection:
        return "file"
    runs = collection["runs"]
    return default_order(None, collection["qrels"], [runs] if isinstance(runs, str) else list(runs),
                         collection.get("qrels_form"))
