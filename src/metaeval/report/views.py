"""What the Snakemake report embeds of a table (the DL20 report was 82 MB, 47 MB of it
``pvalues.csv``).

``snakemake --report`` embeds every flagged file in the one HTML page.  The pipeline flags, for
every table ``C/tables/NAME.csv``, its *report view* ``C/report/NAME.html``: the table as the paper
prints it -- its Markdown view ``C/tables/NAME.md`` (4 decimals, the labels, a long table's first
rows) as an HTML table, which the report shows inline (a CSV it offers as a download) -- whole when at most :data:`REPORT_TABLE_MAX_BYTES` (config ``report_max_table_mb``),
else its first rows; its caption links the whole table ``C/tables/NAME.csv`` beside the report
(docs/pipeline.md).  Figures are embedded as they are.

``python -m metaeval.report.views TABLES_DIR OUT_DIR [--max-mb MB] NAME...`` writes the views.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import sys
from pathlib import Path

from ..util import atomic_write

__all__ = ["REPORT_TABLE_MAX_BYTES", "markdown_cells", "paper_view_csv", "report_view", "report_view_html",
           "html_rows", "write_report_views", "report_size", "main"]

#: the largest table embedded whole in the report (0.25 MB, some 3,000 rows; base64 makes it a third
#: more of HTML): an 80-run, 25-measure collection's report stays under 10 MB (tests/pipeline/test_console_and_report.py)
REPORT_TABLE_MAX_BYTES = 250_000


_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_UNESCAPE = re.compile(r"\\([\\|*`])")


def markdown_cells(text: str) -> list[list[str]]:
    """The cells of a Markdown pipe table as :func:`metaeval.report.render.render_markdown` writes
    it: the header row, then the body rows (the caption and the alignment row left out; the
    escapes undone, bold dropped)."""
    out = []
    for line in text.splitlines():
        if not line.startswith("|") or re.fullmatch(r"\|(:?-+:?\|)+", line):
            continue
        cells = _CELL_SPLIT.split(line.strip()[1:-1])
        row = []
        for c in cells:
            c = c.strip()
            if c.startswith("**") and c.endswith("**") and len(c) >= 4:
                c = c[2:-2]
            row.append(_UNESCAPE.sub(r"\1", c))
        out.append(row)
    return out


def paper_view_csv(md_path) -> bytes:
    """The Markdown view of a table (``NAME.md``: the paper's rounding, the runs' and measures'
    labels, a long table's first rows) as CSV text: what the report shows."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(markdown_cells(Path(md_path).read_text(encoding="utf-8")))
    return buf.getvalue().encode("utf-8")


def _view(src, max_bytes: int) -> tuple[bytes, dict]:
    """The view's CSV bytes of table ``src`` and ``{"rows", "of", "whole"}`` (see :func:`report_view`)."""
    md = Path(src).with_name(Path(src).name[:-len(".csv")] + ".md") if str(src).endswith(".csv") else None
    data = paper_view_csv(md) if md is not None and md.is_file() else Path(src).read_bytes()
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
    return out, {"rows": shown, "of": rows, "whole": shown == rows}


def report_view(src, dst, max_bytes: int = REPORT_TABLE_MAX_BYTES) -> dict:
    """Write the report view of table ``src`` to ``dst`` as CSV: the paper view of ``src``'s Markdown
    (:func:`paper_view_csv`) when ``NAME.md`` is beside it, else ``src``'s bytes; whole when at most
    ``max_bytes``, else its header and first whole rows within ``max_bytes``.  Returns ``{"rows":
    rows written, "of": rows of the view, "whole": bool}``."""
    out, info = _view(src, max_bytes)
    with atomic_write(Path(dst), "wb") as fh:
        fh.write(out)
    return info


#: the report view's page: compact rows, the header kept in sight, numbers right-aligned, long
#: texts wrapped (nothing clipped in the report's frame)
_HTML_STYLE = ("body{font:13px/1.35 system-ui,-apple-system,'Segoe UI',sans-serif;margin:8px;color:#111}"
               "table{border-collapse:collapse}"
               "th,td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top;"
               "max-width:40em;overflow-wrap:anywhere}"
               "th{position:sticky;top:0;background:#f3f4f6}td.n{text-align:right;font-variant-numeric:tabular-nums;"
               "white-space:nowrap}p{color:#444}")
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?[*\u2020\u2021]*|n/a|nan|-")


def report_view_html(src, dst, max_bytes: int = REPORT_TABLE_MAX_BYTES) -> dict:
    """Write the report view of table ``src`` to ``dst`` as an HTML page holding its table (the
    rows :func:`report_view` writes as CSV; a view of the first rows says so, naming the whole
    table): what the report shows inline.  Returns :func:`report_view`'s ``{"rows", "of", "whole"}``."""
    import html

    data, info = _view(src, max_bytes)
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
    name = Path(src).name
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{html.escape(name)}</title><style>{_HTML_STYLE}</style></head><body>", "<table>"]
    if rows:
        out.append("<thead><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in rows[0]) + "</tr></thead><tbody>")
        for r in rows[1:]:
            out.append("<tr>" + "".join(f'<td class="n">{html.escape(c)}</td>' if _NUMBER.fullmatch(c.strip())
                                        else f"<td>{html.escape(c)}</td>" for c in r) + "</tr>")
        out.append("</tbody>")
    out.append("</table>")
    if not info["whole"]:
        out.append(f"<p>The first {info['rows']} of {info['of']} rows; every row is in {html.escape(name)}.</p>")
    out.append("</body></html>")
    with atomic_write(Path(dst), "w") as fh:
        fh.write("\n".join(out) + "\n")
    return info


def html_rows(path) -> list[list[str]]:
    """The cells of a report view written by :func:`report_view_html`, header row first (its text
    unescaped): the rows its CSV view holds."""
    import html

    text = Path(path).read_text(encoding="utf-8")
    return [[html.unescape(c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", tr)]
            for tr in re.findall(r"<tr>(.*?)</tr>", text)]


def write_report_views(tables_dir, out_dir, names, max_bytes: int = REPORT_TABLE_MAX_BYTES) -> dict:
    """The report view of every ``TABLES_DIR/NAME.csv`` in ``OUT_DIR/NAME.html``
    (:func:`report_view_html`): ``{name: info}``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return {n: report_view_html(Path(tables_dir) / f"{n}.csv", out / f"{n}.html", max_bytes) for n in names}


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
