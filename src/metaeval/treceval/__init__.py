"""The trec_eval family and its drop-in: every measure of trec_eval 10.0's ``all_trec`` set, exact
to trec_eval, and ``metaeval trec_eval``, which prints what trec_eval prints, byte for byte.

One module per job, as trec_eval has one ``m_*.c`` file per measure and one table row:

* :mod:`.table` -- the measure table (:class:`MeasureInfo` rows: parameter kind, defaults,
  printing, aggregation, gained, empty-zeroed, bounded, registry parameters), nicknames,
  :class:`Spec`;
* :mod:`.measures` -- one function per measure, registered with its row (in printing order);
* :mod:`.engine` -- the rankings as arrays and the bucketed compressed view every measure runs on
  (:func:`compute`), with :mod:`.gains`, the per-topic gain tables;
* :mod:`.summaries` -- the "all" values (``meas_avg.c``);
* :mod:`.adapter` -- the measures in the registry as ``trec.NAME`` (loaded by the registry);
* the drop-in: :mod:`.reader` (trec_eval's qrels and run readers), :mod:`.ranking` (a run ranked
  as ``form_res_rels.c`` ranks it; the optional C scanner ``_trecscan``), :mod:`.options` (the
  command line, ``-m name.params``), :mod:`.evaluate` (a group of runs), :mod:`.render` (the printed
  lines; the optional C printer ``_trecfmt``), :mod:`.zscores` (``-Z``), :mod:`.schedule` (groups,
  the forked second process), :mod:`.dropin` (the run) and :mod:`.cli` (``metaeval trec_eval``:
  parses the arguments and reports).

Over the shared toolkit: :mod:`metaeval.cnum` (C's ``atof``/``atol``), :mod:`metaeval.detmath`, the
readers' tokenizer and C core (:mod:`metaeval.io._text`, :mod:`metaeval.io._cext`).

Adding a measure: one function in :mod:`.measures` with its row in ``@measure(...)``.
"""

from __future__ import annotations

from . import measures as _measures  # noqa: F401 - fills the table
from .engine import PAD_REL, compute, compute_ctx
from .options import make_spec
from .summaries import aggregate, summary, totals
from .table import (INFAP_EPSILON, MEASURES, MIN_GEO_MEAN, MISSING_ZSCORE_VALUE, NICKNAMES, PREFERENCE_SETS,
                    MeasureInfo, Spec, TrecEvalError, empty_zeroed)

#: the measures trec_eval zeroes on a topic evaluated as an empty ranking (-c), after computing them
EMPTY_ZEROED = empty_zeroed()

__all__ = ["MEASURES", "NICKNAMES", "PREFERENCE_SETS", "Spec", "make_spec", "compute", "compute_ctx", "summary",
           "totals", "aggregate", "MIN_GEO_MEAN", "INFAP_EPSILON", "MISSING_ZSCORE_VALUE", "EMPTY_ZEROED",
           "PAD_REL", "MeasureInfo", "TrecEvalError"]
