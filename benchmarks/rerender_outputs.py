"""Re-render every table and figure of a results folder from its CSVs and compare the bytes.

    PYTHONPATH=src python benchmarks/rerender_outputs.py RESULTS [RESULTS ...] [--alpha A] [--swap-threshold T]

For each collection folder ``RESULTS/C`` (one with ``tables/``): every declared table is read
back from ``tables/NAME.csv`` and rendered again (CSV, Markdown, LaTeX) with
:func:`metaeval.report.tables.table_texts`; every declared figure is redrawn from the CSVs with
:func:`metaeval.report.figures.make_all_figures`.  ``RESULTS/summary`` is rebuilt from the
collection folders with :func:`metaeval.report.summary.write_summary`; ``RESULTS/kishida`` is
recomputed by its stage's generic writer, :func:`metaeval.pipeline.write_own_job` (default parameters).

Every file is compared byte for byte.  A table's caption line (the first line of the ``.md``,
the ``\\caption`` line of the ``.tex``) is reported apart: those lines are expected to change
when a caption's wording changes, and everything else must be identical.  Exit status 1 when
any other byte differs (or a declared file is missing).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from metaeval import outputs as O
from metaeval.report.csvio import read_table
from metaeval.report.tables import table_texts


def _caption_line(suffix: str, lines: list[str]) -> int | None:
    if suffix == ".md":
        return 0 if lines and lines[0].startswith("**") else None
    for i, line in enumerate(lines):
        if line.startswith(r"\caption{"):
            return i
    return None


def compare_text(path: Path, new: str, suffix: str, report: dict) -> None:
    old = path.read_text(encoding="utf-8")
    if old == new:
        report["identical"] += 1
        return
    a, b = old.split("\n"), new.split("\n")
    ia, ib = _caption_line(suffix, a), _caption_line(suffix, b)
    if ia is not None and ib is not None and ia == ib and len(a) == len(b):
        rest_a = a[:ia] + a[ia + 1:]
        rest_b = b[:ib] + b[ib + 1:]
        if rest_a == rest_b:
            report["caption_only"].append((path, a[ia], b[ib]))
            return
    report["different"].append(path)


def compare_bytes(old: Path, new: Path, report: dict) -> None:
    if not old.is_file():
        report["missing"].append(old)
    elif old.read_bytes() == new.read_bytes():
        report["identical"] += 1
    else:
        report["different"].append(old)


def check_collection(cdir: Path, report: dict, alpha: float, threshold: float) -> None:
    tables = cdir / "tables"
    for out in O.tables("collection"):
        csv = tables / f"{out.name}.csv"
        if not csv.is_file():
            if out.condition is None:
                report["missing"].append(csv)
            continue
        texts = table_texts(read_table(csv), out.name, kind=out.layout, alpha=alpha,
                            swap_threshold=threshold)
        for suffix, text in texts.items():
            compare_text(tables / f"{out.name}{suffix}", text, suffix, report)
    from metaeval.report.figures import make_all_figures

    with tempfile.TemporaryDirectory() as tmp:
        for p in make_all_figures(tables, tmp, alpha=alpha, swap_threshold=threshold):
            compare_bytes(cdir / "figures" / p.name, p, report)


def check_summary(root: Path, collections: list[Path], report: dict, alpha: float,
                  threshold: float) -> None:
    from metaeval.report.summary import write_summary

    with tempfile.TemporaryDirectory() as tmp:
        written = write_summary({c.name: c for c in collections}, tmp, alpha=alpha,
                                swap_threshold=threshold)
        for p in written:
            old = root / "summary" / p.name
            if p.suffix in (".md", ".tex", ".csv"):
                if not old.is_file():
                    report["missing"].append(old)
                    continue
                compare_text(old, p.read_text(encoding="utf-8"), p.suffix, report)
            else:
                compare_bytes(old, p, report)


def check_kishida(root: Path, report: dict) -> None:
    from metaeval.pipeline import write_own_job

    with tempfile.TemporaryDirectory() as tmp:
        for p in write_own_job("kishida", None, tmp):
            compare_bytes(root / "kishida" / p.name, p, report)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+", type=Path)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--swap-threshold", type=float, default=0.05)
    args = ap.parse_args(argv)
    report = {"identical": 0, "caption_only": [], "different": [], "missing": []}
    for root in args.results:
        collections = sorted(p for p in root.iterdir() if (p / "tables").is_dir())
        for c in collections:
            check_collection(c, report, args.alpha, args.swap_threshold)
        if (root / "summary").is_dir():
            check_summary(root, collections, report, args.alpha, args.swap_threshold)
        if (root / "kishida").is_dir():
            check_kishida(root, report)
    print(f"identical files: {report['identical']}")
    changes = {}
    for path, old, new in report["caption_only"]:
        changes.setdefault((old, new), []).append(path)
    print(f"files differing only in the caption line: {len(report['caption_only'])} "
          f"({len(changes)} distinct caption changes)")
    for (old, new), paths in changes.items():
        print(f"  {len(paths)} x {paths[0].name}\n    - {old}\n    + {new}")
    for key in ("different", "missing"):
        print(f"{key}: {len(report[key])}")
        for p in report[key]:
            print(f"  {p}")
    return 1 if report["different"] or report["missing"] else 0


if __name__ == "__main__":
    sys.exit(main())
