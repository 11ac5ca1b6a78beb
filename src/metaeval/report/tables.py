"""Write one table as ``STEM.csv`` (the data), ``STEM.md`` and ``STEM.tex`` (the presentation).

The layout comes from :data:`metaeval.report.layout_catalogue.KINDS`, the caption from the table's
declaration in :mod:`metaeval.outputs` (with the configured alpha and swap threshold).
"""

from __future__ import annotations

from typing import Any

from pathlib import Path

import pandas as pd

from .. import outputs as O
from ..util import atomic_dir_outputs, atomic_write
from .csvio import csv_blocks as _csv_blocks, csv_text
from .layout_catalogue import kind_for
from .render import Cell, Layout, render_latex, render_markdown

__all__ = ["write_table", "table_caption", "table_texts", "csv_frame", "write_csv_part", "relabel_layout", "first_rows",
           "TABLE_MAX_ROWS"]


def table_caption(kind: str, *, context: dict | None = None, **params: float) -> str:
    """The caption of a table layout key (``bootstrap_paired``, ``summary_kendall``); '' for a
    kind no output declares (e.g. ``generic``); ``context``: what was computed
    (:func:`metaeval.outputs.caption_context`); ``params``: the caption parameters' values
    (:data:`metaeval.outputs.CAPTION_PARAMS`: ``alpha``, ``swap_threshold``)."""
    out = O.for_layout(kind)
    return O.caption(out, context=context, **params) if out is not None else ""


def relabel_layout(layout: Layout, labels) -> Layout:
    """The layout with every run or measure name shown by its label (:mod:`metaeval.labels`), a
    cell that is one name and a name among the words of a cell (``(a) AP(rel=2)``, ``RR (paired)``,
    ``nDCG@10 MR / PT``: :func:`metaeval.labels.relabeller`); the CSV keeps the canonical names."""
    if not labels:
        return layout
    from ..labels import relabeller

    shown = relabeller(labels)

    def cell(c):
        text = c.text if isinstance(c, Cell) else c
        if not isinstance(text, str):
            return c
        new = shown(text)
        if new == text:
            return c
        return Cell(new, c.bold, c.tex) if isinstance(c, Cell) else new

    return Layout([cell(h) for h in layout.header], [[cell(c) for c in row] for row in layout.rows],
                  layout.align)


def table_texts(df: pd.DataFrame, stem_name: str, *, kind: str | None = None,
                caption: str | None = None, labels=None, pair_runs: dict | None = None,
                csv_blocks: bool = False, context: dict | None = None, label: str | None = None,
                **params: float) -> dict[str, Any]:
    """``{".csv": ..., ".md": ..., ".tex": ...}`` of :func:`write_table`, without writing;
    ``labels`` ({name: label}) relabels runs and measures in the Markdown and LaTeX texts.
    ``pair_runs`` (:func:`metaeval.report.per_pair.pair_runs_for`): a per-pair table's Markdown
    and LaTeX show the pairs of those runs only, the CSV every pair.  ``csv_blocks``: the CSV as an
    iterable of its blocks of text, produced as they are consumed (:func:`write_table` of a long
    table).  ``context``: what was computed (:func:`metaeval.outputs.caption_context`: the primary
    measure, the number of runs), for the caption and the layouts that read it; ``params``: the
    caption parameters' values (``alpha``, ``swap_threshold``).  ``label``: the LaTeX ``\\label``'s
    name (``COLLECTION:TABLE`` -> ``tab:COLLECTION:TABLE``; default the stem)."""
    from .per_pair import PER_PAIR_TABLES, pair_note, restrict_pairs

    spec = kind_for(kind, stem_name)
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"write_table: expected a pandas DataFrame, got {type(df).__name__}")
    data = csv_frame(df, stem_name, kind=kind)
    if caption is None:
        caption = table_caption(spec.name, context=context, **params)
    if pair_runs is not None and spec.name in PER_PAIR_TABLES:
        caption = (caption or "") + pair_note(stem_name, pair_runs)
        layout = relabel_layout(spec.lay_out(restrict_pairs(data, pair_runs["runs"]), context), labels)
    else:
        layout = relabel_layout(spec.lay_out(data, context), labels)
    total = len(layout.rows)
    md_caption = caption
    if spec.name not in PER_PAIR_TABLES:        # a per-pair table: the pairs of the top runs (or every pair asked)
        layout, note = first_rows(layout, stem_name)
        md_caption = (caption or "") + note
    # the LaTeX: the rows that fit a page (metaeval.report.texfit), its caption saying so
    return {".csv": _Blocks(data) if csv_blocks else csv_text(data), ".md": render_markdown(layout, md_caption),
            ".tex": render_latex(layout, caption, label=label or stem_name, csv=f"{stem_name}.csv",
                                 total_rows=total)}


#: the most body rows a Markdown/LaTeX table shows (with its caption and header, some 250 lines: a
#: page of a paper's appendix); a longer table shows its first rows and says so, the CSV has all
TABLE_MAX_ROWS = 240


def first_rows(layout: Layout, name: str, max_rows: int = TABLE_MAX_ROWS) -> tuple[Layout, str]:
    """``layout`` cut to its first ``max_rows`` rows, and the caption's sentence saying so ('' when
    it fits)."""
    n = len(layout.rows)
    if n <= max_rows:
        return layout, ""
    return (Layout(layout.header, layout.rows[:max_rows], layout.align),
            f" Shown: the first {max_rows} of {n} rows; every row is in {name}.csv.")


#: a table with more rows than this has its CSV written a block at a time (:func:`csv_blocks`),
#: not held in memory as one string beside its encoding (campaign scale: 8 million p-values,
#: 668 MB of CSV)
STREAM_ROWS = 1_000_000


def write_table(df: pd.DataFrame, path_stem, *, kind: str | None = None,
                caption: str | None = None, labels=None, pair_runs: dict | None = None,
                context: dict | None = None, formats: tuple[str, ...] | None = None,
                label_scope: str | None = None, **params: float) -> list[Path]:
    """Write ``STEM.csv``, ``STEM.md`` and ``STEM.tex`` (``formats``: those of them only, e.g.
    ``("csv",)``); return their paths.  ``label_scope``: the LaTeX label is
    ``tab:SCOPE:NAME`` (a collection's name, ``summary``), else ``tab:NAME``.

    ``kind`` selects the layout (a key of :data:`metaeval.report.layout_catalogue.KINDS`); by default the
    stem's file name (``.../tables/kendall`` -> ``kendall``), else the generic layout.
    ``caption`` defaults to the declared caption (:func:`metaeval.outputs.caption`) with the
    caption parameters' values ``params`` (``alpha``, ``swap_threshold``).  All three texts are rendered before any file is touched
    (the CSV of a table over :data:`STREAM_ROWS` rows: while written), and each file is written
    atomically, so a failure leaves no partial output.  ``df`` is not modified.
    """
    stem = Path(path_stem)
    stream = isinstance(df, pd.DataFrame) and len(df) > STREAM_ROWS
    texts = table_texts(df, stem.name, kind=kind, caption=caption, labels=labels, pair_runs=pair_runs,
                        csv_blocks=stream, context=context,
                        label=f"{label_scope}:{stem.name}" if label_scope else stem.name, **params)
    paths: list[Path] = []
    with atomic_dir_outputs(paths):              # a failure on file 2 or 3 removes file 1 too
        for suffix, text in texts.items():
            if formats is not None and suffix.lstrip(".") not in formats:
                continue
            path = Path(str(stem) + suffix)      # not with_suffix: names may contain dots
            with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
                for part in (text if isinstance(text, _Blocks) else (text,)):
                    fh.write(part)
            paths.append(path)
    return paths


def csv_frame(df: pd.DataFrame, stem_name: str, *, kind: str | None = None) -> pd.DataFrame:
    """The rows of table ``stem_name``'s CSV, in the CSV's order (its layout's sort, if any): what
    :func:`write_table` writes and a figure drawn from the CSV reads."""
    spec = kind_for(kind, stem_name)
    return spec.sort(df) if spec.sort is not None else df


def write_csv_part(df: pd.DataFrame, path, stem_name: str, start: int, stop: int, *,
                   kind: str | None = None) -> Path:
    """Rows ``start:stop`` of table ``stem_name``'s CSV text into ``path`` (the header with the
    first part; ``start`` a multiple of :data:`metaeval.report.csvio.CSV_BLOCK_ROWS`): the parts of
    a long table written side by side, then joined into its CSV (:func:`metaeval.pipeline.write_tables`)."""
    data = csv_frame(df, stem_name, kind=kind)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.writelines(_csv_blocks(data, start, stop))
    return Path(path)


class _Blocks:
    """The CSV of a long table as its blocks (:func:`csv_blocks`), produced while written."""

    def __init__(self, data):
        self.data = data

    def __iter__(self):
        return _csv_blocks(self.data)

