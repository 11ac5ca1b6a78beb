"""Files -> :class:`~metaeval.collection.Collection`: qrels and runs in TREC / NTCIR / NTCIREVAL
per-topic forms, parsed and labelled with vectorised numpy (no Python loop per line).

Main entry points:

* :func:`load_collection` (qrels, runs, order=, depth=, max_level=) -> Collection
* :func:`load_or_build` -- the same with an npz cache rebuilt when inputs are newer
* :func:`read_qrels` / :func:`read_rel` -> :class:`Qrels` (per-topic ``{docid: level}`` access)
* :func:`read_run`, :func:`expand_runs`, :func:`run_name`

Input formats and policies: ``docs/io.md``.
"""

from .._lazy import lazy_attributes

# imported on first use (PEP 562): ``metaeval.treceval.reader`` / ``metaeval.cwl.reader`` (the drop-ins)
# do not load the collection readers they do not need
_LAZY = {"label_run": "ingest", "load_collection": "ingest", "load_or_build": "forms",
         "Qrels": "qrels", "read_qrels": "qrels", "read_rel": "qrels",
         "ParsedRun": "runs", "RunSource": "runs", "expand_runs": "runs", "read_run": "runs",
         "run_name": "runs"}
__all__ = list(_LAZY)

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY)
