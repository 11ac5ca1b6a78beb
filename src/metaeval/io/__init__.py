"""Files -> :class:`~metaeval.collection.Collection`: qrels and runs in TREC / NTCIR / NTCIREVAL
per-topic forms, parsed and labelled with vectorised numpy (no Python loop per line).

Main entry points:

* :func:`load_collection` (qrels, runs, order=, depth=, max_level=) -> Collection
* :func:`load_or_build` -- the same with an npz cache rebuilt when inputs are newer
* :func:`read_qrels` / :func:`read_rel` -> :class:`Qrels` (per-topic ``{docid: level}`` access)
* :func:`read_run`, :func:`expand_runs`, :func:`run_name`

Input formats and policies: ``docs/io.md``.
"""

from .ingest import label_run, load_collection, load_or_build
from .qrels import Qrels, read_qrels, read_rel
from .runs import ParsedRun, RunSource, expand_runs, read_run, run_name

__all__ = ["load_collection", "load_or_build", "label_run", "Qrels", "read_qrels", "read_rel",
           "ParsedRun", "RunSource", "expand_runs", "read_run", "run_name"]
