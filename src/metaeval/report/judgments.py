"""Write what ``metaeval judgments`` computed (:class:`metaeval.meta.judgments_run.JudgmentsResult`):
the tables declared in :mod:`metaeval.outputs` (scope ``judgments``) as CSV / Markdown / LaTeX under
``DIR/tables``, the figures under ``DIR/figures``, and ``DIR/judgments/`` (confusion matrices,
per-topic agreement, coverage, filled qrels).  Everything is computed before the first file is
written, each file atomically."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .. import outputs as O
from ..util import atomic_write, file_name
from .csvio import csv_text
from .tables import write_table

if TYPE_CHECKING:
    from ..meta.judgments_run import JudgmentsResult

__all__ = ["confusion_name", "judgment_labels", "write_judgments"]


def confusion_name(a: str, b: str) -> str:
    """``confusion/A__B.csv`` (each a plain name: :func:`metaeval.util.file_name`)."""
    return f"confusion/{file_name(a, 'qrels set')}__{file_name(b, 'qrels set')}.csv"


def _write_text(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    return path


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


def write_judgments(result, out_dir, *, alpha: float = 0.05, figures: bool = True, labels=None,
                    context: dict | None = None) -> list[Path]:
    """Write every table, figure and file of ``result`` under ``out_dir``; returns the paths.
    ``labels`` ``{name: label}`` of runs, metrics and sets: shown in Markdown, LaTeX and figures;
    ``context``: the captions' fields (:func:`judgments_context`; default: without the test's
    settings)."""
    out = Path(out_dir)
    if context is None:
        context = judgments_context(result, labels=labels)
    texts = {}
    for name, df in result.tables.items():
        texts[name] = df
    folder = out / "judgments"
    omitted = set(getattr(result, "omitted", ()))          # nothing fills them: not written header-only
    for name in omitted:
        texts.pop(name, None)
    extra = {folder / f"{name}.csv": csv_text(df) for name, df in
             (("topic_agreement", result.topic_agreement), ("coverage", result.coverage)) if name not in omitted}
    for (a, b), df in result.confusion.items():
        extra[folder / confusion_name(a, b)] = csv_text(df)
    for name, text in result.qrels.items():
        extra[folder / "qrels" / f"{file_name(name, 'qrels set')}.txt"] = text
    written: list[Path] = []
    (out / "tables").mkdir(parents=True, exist_ok=True)
    for o in O.tables("judgments"):
        if o.name in texts and tuple(o.formats) == ("csv",):     # a long table: the CSV alone
            written.append(_write_text(out / "tables" / f"{o.name}.csv", csv_text(texts[o.name])))
        elif o.name in texts:
            caption = O.caption(o, alpha=alpha, context=context)
            if o.name == "ranking_agreement":
                caption += ranking_topics_note(texts[o.name], labels)
            written += write_table(texts[o.name], out / "tables" / o.name, kind=o.layout, alpha=alpha,
                                   caption=caption, context=context,
                                   labels=labels)
    for path, text in extra.items():
        written.append(_write_text(path, text))
    if figures:
        from .figures import plotter

        (out / "figures").mkdir(parents=True, exist_ok=True)
        for o in O.figures("judgments"):
            if o.source in omitted:                        # nothing to draw
                continue
            draw, kwargs = plotter(o.layout)
            if o.source == "run_ranks":
                kwargs = {**kwargs, "reference": result.reference, "taus": result.tables["ranking_agreement"]}
            kwargs = {**kwargs, "labels": labels}
            written += draw(result.tables[o.source], out / "figures" / o.name, **kwargs)
    return written
