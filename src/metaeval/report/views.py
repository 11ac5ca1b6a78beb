"""What the Snakemake report embeds of a table (issue 31: the DL20 report was 82 MB, 47 MB of it
``pvalues.csv``).

``snakemake --report`` embeds every flagged file in the one HTML page.  The pipeline flags, for
every table ``C/tables/NAME.csv``, its *report view* ``C/report/NAME.csv``: the table itself when
it is at most :data:`REPORT_TABLE_MAX_BYTES` (config ``report_max_table_mb``), else its header and
as many of its first rows as fit in that size -- a valid CSV with the same columns -- and the
report's front page says that a table over the limit is shown by its first rows, the whole table
being ``C/tables/NAME.csv`` beside the report (docs/pipeline.md).  Figures are embedded as they are.

``python -m metaeval.report.views TABLES_DIR OUT_DIR [--max-mb MB] NAME...`` writes the views.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..util import atomic_write

__all__ = ["REPORT_TABLE_MAX_BYTES", "report_view", "write_report_views", "report_size", "main"]

#: the largest table embedded whole in the report (0.25 MB, some 3,000 rows; base64 makes it a third
#: more of HTML): an 80-run, 25-measure collection's report stays under 10 MB (tests/pipeline/test_console_and_report.py)
REPORT_TABLE_MAX_BYTES = 250_000


def report_view(src, dst, max_bytes: int = REPORT_TABLE_MAX_BYTES) -> dict:
    """Write the report view of table ``src`` to ``dst``: ``src``'s bytes when at most
    ``max_bytes``, else its header and first whole rows within ``max_bytes``.  Returns
    ``{"rows": rows written, "of": rows of the table, "whole": bool}``."""
    data = Path(src).read_bytes()
    lines = data.splitlines(keepends=True)
    rows = max(0, len(lines) - 1)
    if len(data) <= max_bytes:
        out, shown = data, rows
    else:
        ends = [0]
        for ln in lines:
            ends.append(ends[-1] + len(ln))
        import bisect

        k = max(2, bisect.bisect_right(ends, max_bytes) - 1)      # header + at least one row
        out, shown = b"".join(lines[:k]), k - 1
    with atomic_write(Path(dst), "wb") as fh:
        fh.write(out)
    return {"rows": shown, "of": rows, "whole": shown == rows}


def write_report_views(tables_dir, out_dir, names, max_bytes: int = REPORT_TABLE_MAX_BYTES) -> dict:
    """The report view of every ``TABLES_DIR/NAME.csv`` in ``OUT_DIR/NAME.csv``: ``{name: info}``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return {n: report_view(Path(tables_dir) / f"{n}.csv", out / f"{n}.csv", max_bytes) for n in names}


def report_size(paths) -> int:
    """Bytes the report's HTML gives the files ``paths`` (embedded as base64 data URIs)."""
    return sum(4 * ((Path(p).stat().st_size + 2) // 3) for p in paths)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m metaeval.report.views",
                                description="Write the report view of every table (docs/pipeline.md).")
    p.add_argument("tables", help="the collection's tables folder")
    p.add_argument("out", help="the folder of the views")
    p.add_argument("names", nargs="+", help="the tables (NAME of TABLES/NAME.csv)")
    p.add_argument("--max-mb", type=float, default=REPORT_TABLE_MAX_BYTES / 1e6,
                   help="largest table embedded whole, in MB (default %(default)s)")
    a = p.parse_args(argv)
    if a.max_mb <= 0:
        p.error("--max-mb must be positive")
    info = write_report_views(a.tables, a.out, a.names, int(a.max_mb * 1e6))
    for name, i in info.items():
        if not i["whole"]:
            # in the job's log only, not a note of the console summary: the views serve only a
            # report (snakemake --report), which the run may never be asked for
            print(f"metaeval: report view: the first {i['rows']} of {i['of']} rows of {name}.csv (over "
                  f"{a.max_mb:g} MB) for an HTML report; the whole table is {Path(a.tables) / name}.csv",
                  file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
