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


def write_judgments(result, out_dir, *, alpha: float = 0.05, figures: bool = True, labels=None) -> list[Path]:
    """Write every table, figure and file of ``result`` under ``out_dir``; returns the paths.
    ``labels`` ``{name: label}`` of runs, metrics and sets: shown in Markdown, LaTeX and figures."""
    out = Path(out_dir)
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
            written += write_table(texts[o.name], out / "tables" / o.name, kind=o.layout, alpha=alpha,
                                   labels=labels)
    for path, text in extra.items():
        written.append(_write_text(path, text))
    if figures:
        from .figures import PLOTTERS

        (out / "figures").mkdir(parents=True, exist_ok=True)
        for o in O.figures("judgments"):
            if o.source in omitted:                        # nothing to draw
                continue
            draw, kwargs = PLOTTERS[o.layout]
            if o.source == "run_ranks":
                kwargs = {**kwargs, "reference": result.reference, "taus": result.tables["ranking_agreement"]}
            kwargs = {**kwargs, "labels": labels}
            written += draw(result.tables[o.source], out / "figures" / o.name, **kwargs)
    return written
