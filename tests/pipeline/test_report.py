"""`snakemake --report` builds a self-contained HTML report that renders in a real browser
(headless Chromium) with every figure decoded and captioned."""

from __future__ import annotations

import html
import json
import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from _pipeline_run import reduced_copy, snakemake
from conftest import require

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parents[1]
FIGURES = ["asl_paired", "asl_unpaired", "mr_pt", "pvalues", "run_means", "swap_rates", "tstar", "rank_correlation",
           "incompleteness", "pool_reuse"]
SUMMARY_FIGURES = ["asl_paired", "asl_unpaired", "discriminative_power", "run_means", "sensitivity_paired",
                   "sensitivity_unpaired", "swap_pct_satisfying"]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run", "--disable-sync"]


def chromium() -> str:
    return require("browser")           # skips (fails when CI is set) without a browser


def render(page: Path, *extra: str, budget_ms: int = 60000) -> str:
    with tempfile.TemporaryDirectory(prefix="metaeval-chromium-") as profile:
        r = subprocess.run([chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                            f"--virtual-time-budget={budget_ms}", *extra, page.as_uri()],
                           capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    work = reduced_copy(tmp_path_factory.mktemp("report") / "work")
    snakemake(work, "--configfile", "reduced.yaml", "--report", "results/report.html")
    return work / "results" / "report.html"


def test_report_is_self_contained_html(report):
    head = report.read_bytes()[:200].lstrip().lower()
    assert head.startswith(b"<!doctype html")                 # Snakemake 9: one HTML file, not a zip
    text = report.read_text(encoding="utf-8")
    # every figure of both collections and the summary embedded as a PNG data URI
    assert text.count("data:image/png") == 2 * len(FIGURES) + len(SUMMARY_FIGURES)
    assert "metaeval meta-evaluation report" in text


@pytest.mark.browser
def test_report_renders_every_figure_in_headless_chromium(report, tmp_path):
    probe = (HERE / "report_probe.js").read_text()
    cats = ["simA", "simB", "Summary"]
    src = report.read_text(encoding="utf-8")
    i = src.rfind("</body>")
    page = tmp_path / "report_probe.html"
    page.write_text(src[:i] + f"<script>window.METAEVAL_CATEGORIES = {json.dumps(cats)};</script>"
                    f"<script>{probe}</script>" + src[i:], encoding="utf-8")
    dom = render(page, "--dump-dom")
    assert "Snakemake" in dom and "simA" in dom
    # the last match: the probe's own source (in a <script>) mentions the element too
    found = re.findall(r'<pre id="metaeval-probe">(.*?)</pre>', dom, re.S)
    assert found, "the report did not finish rendering (no probe output)"
    result = json.loads(html.unescape(found[-1]))
    assert result["errors"] == []
    shown = {(f["category"], f["label"].split("/")[-1]): f for f in result["found"]}
    want = [(c, f) for c in ("simA", "simB") for f in FIGURES]
    want += [("Summary", f) for f in SUMMARY_FIGURES]
    for key in want:
        assert key in shown, f"figure {key} not listed in the report"
        assert shown[key]["width"] > 100, f"figure {key} not decoded by the browser"
        assert shown[key]["caption_has_paper"], f"figure {key}: caption names no paper"


@pytest.mark.browser
def test_report_screenshot_is_not_blank(report, tmp_path):
    shot = tmp_path / "report.png"
    render(report, f"--screenshot={shot}", "--window-size=1280,900", budget_ms=5000)
    assert shot.is_file() and shot.stat().st_size > 10000
    from PIL import Image

    im = Image.open(shot).convert("L")
    lo, hi = im.getextrema()
    assert hi - lo > 50                                       # something was drawn


@pytest.mark.browser
def test_report_opens_at_its_title_and_shows_tables_inline(report, tmp_path):
    """Issue 47 item 6, in headless Chromium: the front page's title is in the first screen with its
    box scrolled to the top (Snakemake centres the page: a tall one used to open mid-configuration,
    its title out of reach), no block of it is wider than its box (long configuration lines wrap),
    and a table's eye button shows the table inline (its report view, an HTML page) instead of
    downloading a CSV."""
    probe = (HERE / "report_front_probe.js").read_text()
    src = report.read_text(encoding="utf-8")
    i = src.rfind("</body>")
    page = tmp_path / "front_probe.html"
    page.write_text(src[:i] + '<script>window.METAEVAL_CATEGORY = "simA";</script>'
                    f"<script>{probe}</script>" + src[i:], encoding="utf-8")
    dom = render(page, "--dump-dom", "--window-size=1280,900", budget_ms=20000)
    found = re.findall(r'<pre id="metaeval-front-probe">(.*?)</pre>', dom, re.S)
    assert found, "the report did not finish rendering (no probe output)"
    got = json.loads(html.unescape(found[-1]))
    assert got["errors"] == []
    assert 0 <= got["title_top"] < got["window_height"] / 4            # the title at the top of the first screen
    assert got["title_top_scrolled_up"] == got["title_top"]           # ... and nothing above it
    assert got["clipped"] == []
    assert got["tables"] >= 10 and got["downloads"] == 0
    assert got["inline"] and got["inline"][0].startswith("data:text/html")
