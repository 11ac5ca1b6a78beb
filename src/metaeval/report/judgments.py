"""The display of what stage ``judgments`` computed (:class:`metaeval.meta.judgments_run.JudgmentsResult`):
what its tables' captions and labels show (:func:`judgments_shown`), the ranking-agreement caption's
note on the topics each ranking is over (:func:`ranking_agreement_note`); the stage declares its
tables, figures and folder (:mod:`metaeval.meta.stages.judgments`, scope ``judgments``) and
:func:`metaeval.pipeline.write_own_outputs` writes them under ``DIR/tables``, ``DIR/figures`` and
``DIR/judgments/`` (confusion matrices, per-topic agreement, coverage, filled qrels)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import outputs as O
from ..meta.stages.judgments import confusion_name

if TYPE_CHECKING:
    from ..meta.judgments_run import JudgmentsResult

__all__ = ["confusion_name", "judgment_labels", "judgments_shown", "ranking_agreement_note"]


def judgment_labels(res: JudgmentsResult, labels_file: str | dict | None = None) -> dict:
    """``{name: label}`` of the runs (their default labels, :func:`metaeval.labels.default_run_labels`,
    and those given), the metrics (by any alias) and the sets named in ``labels_file`` (a path, a
    mapping or None: the default run labels alone), as ``metaeval compare --labels``."""
    from ..labels import labels_for, read_labels

    given = (dict(labels_file) if isinstance(labels_file, dict)
             else read_labels(labels_file) if labels_file else {})
    rr = res.tables.get("run_ranks")
    runs = [str(r) for r in dict.fromkeys(rr["run"].tolist())] if rr is not None and len(rr) else []
    out = labels_for(runs, list(res.metrics), given)
    la = res.tables.get("label_agreement")
    sets = set(res.scores) | (set(la["qrels_a"]) | set(la["qrels_b"]) if la is not None else set())
    out.update({s: given[s] for s in sets if s in given})
    return out


def _decision_test(test: str, correction: str | None) -> str:
    """The test of the decisions as a caption names it (``paired t-test, Holm correction over the
    run pairs``): ``correction`` None is ``metaeval compare``'s default (Holm, none for a test that
    controls the family-wise error itself)."""
    from ..meta.compare import CORRECTION_NAMES, FAMILY_TESTS, TEST_NAMES

    corr = correction if correction is not None else ("none" if test in FAMILY_TESTS else "holm")
    name = CORRECTION_NAMES.get(corr, corr)
    return f"{TEST_NAMES.get(test, test)}, {name if corr == 'none' else name + ' correction'} over the run pairs"


def judgments_context(result, *, test: str = "paired-t", correction: str | None = None, B: int | None = None,
                      labels=None) -> dict:
    """The caption fields of a judgments result (:func:`metaeval.outputs.caption_context`): the runs
    compared, the reference's topics, the bootstrap samples of the intervals, the decisions' test."""
    rr = result.tables.get("run_ranks")
    runs = rr["run"].nunique() if rr is not None and len(rr) else None
    ref = result.scores.get(result.reference) or {}
    topics = len(next(iter(ref.values())).index) if ref else None
    return O.caption_context(runs=runs, topics=topics, B=B, test=_decision_test(test, correction))


def ranking_topics_note(table, labels=None) -> str:
    """The ranking-agreement caption's sentence on the topics each ranking is over, when a set
    ranks over other topics than the reference (``--topic-set own``): ``Topics ranked over: nist 54,
    syndl 146.``; '' when every set is compared on the reference's topics."""
    from ..labels import relabel

    if table is None or not len(table) or "topics_reference" not in table.columns:
        return ""
    rows = table.drop_duplicates("qrels")
    if all(str(a) == str(b) for a, b in zip(rows["topics"], rows["topics_reference"])):
        return ""
    ref = rows.iloc[0]
    parts = [f"{relabel(str(ref['reference']), labels or {})} {int(ref['topics_reference'])}"]
    parts += [f"{relabel(str(r['qrels']), labels or {})} {int(r['topics'])}" for _, r in rows.iterrows()
              if str(r["topics"]) not in ("nan", "<NA>")]
    return " Topics each ranking is over: " + ", ".join(parts) + "."


def ranking_agreement_note(table, matrices=None, labels=None) -> str:
    """:func:`ranking_topics_note` as the stage's caption note of ``ranking_agreement``
    (:attr:`metaeval.stages.StageInfo.caption_notes`: ``note(table, matrices, labels)``)."""
    return ranking_topics_note(table, labels)


def judgments_shown(inputs, frames, params, labels_file=None):
    """What the stage's outputs show of a run (:attr:`metaeval.stages.StageInfo.shown`): its result
    (``inputs.extra["result"]``) and its parameters' test, correction, bootstrap samples and alpha
    give the captions their fields (:func:`judgments_context`), the run-means figure its reference;
    the labels of its runs, metrics and sets (:func:`judgment_labels` of ``labels_file``)."""
    from ..stages import Shown

    res = inputs.extra["result"]
    labels = judgment_labels(res, labels_file)           # the default run labels without a labels file
    context = judgments_context(res, test=params.judgments_test, correction=params.judgments_correction,
                                B=params.judgments_B, labels=labels)
    return Shown(context={**context, "alpha": params.judgments_alpha, "reference": res.reference}, labels=labels)
