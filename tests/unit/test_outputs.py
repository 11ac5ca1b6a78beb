"""The configured alpha and swap threshold reach every caption and figure; docs/outputs.md agrees
with the declarations in metaeval.outputs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from _synth_tables import frames, write_csvs
from metaeval import outputs as O

ROOT = Path(__file__).resolve().parents[2]
ALPHA, THRESHOLD = 0.01, 0.1


def test_captions_take_alpha_and_threshold():
    swap = O.caption(O.get("swap"), alpha=ALPHA, swap_threshold=THRESHOLD)
    assert "swap rate <= 10%" in swap and "5%" not in swap
    boot = O.caption(O.get("bootstrap_paired"), alpha=ALPHA, swap_threshold=THRESHOLD)
    assert "alpha = 0.01" in boot and "0.05" not in boot
    assert "alpha = 0.05" in O.caption(O.get("bootstrap_paired"))
    assert "2.5%" in O.caption(O.get("swap"), swap_threshold=0.025)
    # every caption that names alpha or the threshold uses the given value
    for o in O.OUTPUTS:
        text = O.caption(o, alpha=ALPHA, swap_threshold=THRESHOLD)
        assert "0.05" not in text and " 5%" not in text, o.key


def test_table_files_carry_the_configured_values(tmp_path):
    from metaeval.report.tables import write_table

    synth = frames(seed=3)
    write_table(synth["swap"], tmp_path / "swap", alpha=ALPHA, swap_threshold=THRESHOLD)
    write_table(synth["bootstrap_paired"], tmp_path / "bootstrap_paired", alpha=ALPHA,
                swap_threshold=THRESHOLD)
    assert "swap rate <= 10%" in (tmp_path / "swap.md").read_text()
    assert r"swap rate \textless{}= 10\%" in (tmp_path / "swap.tex").read_text()
    assert "alpha = 0.01" in (tmp_path / "bootstrap_paired.md").read_text()


@pytest.fixture
def captured(monkeypatch):
    """Every matplotlib Figure saved, instead of writing it."""
    from metaeval.report import figures as F

    figs = {}

    def save(fig, stem):
        figs[Path(stem).name] = fig
        return []
    monkeypatch.setattr(F, "save_figure", save)
    monkeypatch.setattr("metaeval.report.figure_layout.save_figure", save)   # the plug-in modules' figures
    return figs


def _texts(fig) -> str:
    out = []
    for ax in fig.axes:
        out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
    return "\n".join(out)


def test_per_collection_figures_use_alpha_and_threshold(captured, tmp_path):
    from metaeval.report.figures import make_all_figures

    write_csvs(frames(seed=4), tmp_path / "tables")
    make_all_figures(tmp_path / "tables", tmp_path / "figures", alpha=ALPHA,
                     swap_threshold=THRESHOLD)
    assert set(captured) == set(O.names("collection", "figure"))
    assert "alpha = 0.01" in _texts(captured["asl_paired"])
    assert "alpha = 0.01" in _texts(captured["asl_unpaired"])
    hlines = [ln.get_ydata()[0] for ln in captured["swap_rates"].axes[0].lines
              if ln.get_linestyle() == ":"]
    assert hlines == [THRESHOLD]                                 # the dotted threshold line
    asl_lines = [ln.get_ydata()[0] for ln in captured["asl_paired"].axes[0].lines
                 if ln.get_linestyle() == ":"]
    assert asl_lines == [ALPHA]


def test_summary_figures_and_tables_use_alpha_and_threshold(captured, tmp_path):
    from metaeval.report.summary import write_summary

    write_csvs(frames(seed=5), tmp_path / "A" / "tables")
    write_summary({"A": tmp_path / "A"}, tmp_path / "summary", alpha=ALPHA,
                  swap_threshold=THRESHOLD)
    assert set(captured) == set(O.names("summary", "figure"))
    assert "swap rate <= 10%" in _texts(captured["swap_pct_satisfying"])
    asl = [ln.get_ydata()[0] for ax in captured["asl_paired"].axes for ln in ax.lines
           if ln.get_linestyle() == ":"]
    assert asl and set(asl) == {ALPHA}
    assert "swap rate <= 10%" in (tmp_path / "summary" / "swap_diff_required.md").read_text()
    assert "alpha = 0.01" in (tmp_path / "summary" / "sensitivity_paired.md").read_text()


def test_default_values_keep_the_published_wording(captured, tmp_path):
    """The default config's figures say what they always said (byte-identical outputs)."""
    from metaeval.report.summary import write_summary

    write_csvs(frames(seed=5), tmp_path / "A" / "tables")
    write_summary({"A": tmp_path / "A"}, tmp_path / "summary")
    assert captured["swap_pct_satisfying"].axes[0].get_title() == "Swap method (swap rate <= 5%)"


# ----------------------------------------------------------------------------- docs/outputs.md
DOC = ROOT / "docs" / "outputs.md"
_BLOCK = re.compile(r"<!-- BEGIN outputs:(?P<scope>\w+) -->\n(?P<body>.*?)<!-- END outputs:(?P=scope) -->",
                    re.S)


def test_docs_outputs_reference_tables_are_generated_from_the_declarations():
    text = DOC.read_text(encoding="utf-8")
    blocks = {m["scope"]: m["body"] for m in _BLOCK.finditer(text)}
    assert set(blocks) == set(O.SCOPES), "docs/outputs.md needs one generated block per scope"
    for scope, body in blocks.items():
        assert body == O.markdown_reference(scope), (
            f"docs/outputs.md block {scope!r} is out of date: paste "
            f"metaeval.outputs.markdown_reference({scope!r})")


def test_docs_outputs_describes_every_declared_output():
    text = DOC.read_text(encoding="utf-8")
    hand = _BLOCK.sub("", text)                                  # the hand-written part
    for o in O.OUTPUTS:
        if o.scope == "kishida":
            continue                                             # described in docs/kishida.md
        assert f"`{o.name}`" in hand, f"docs/outputs.md does not describe {o.key}"
    assert "paper 00" not in text.lower()


def test_summary_job_reads_only_the_tables_its_builders_read():
    """The summary rule's inputs are metaeval.outputs.SUMMARY_SOURCES (workflow/rules/common.smk):
    exactly the tables report/summary.py reads, so that a stage it does not read (standardisation,
    test errors) does not re-run it."""
    import re

    from conftest import ROOT

    src = (ROOT / "src" / "metaeval" / "report" / "summary.py").read_text(encoding="utf-8")
    reads = set(re.findall(r'read\("([a-z_]+)"\)', src))
    assert reads == set(O.SUMMARY_SOURCES)
    assert "_outputs.SUMMARY_SOURCES" in (ROOT / "workflow" / "rules" / "common.smk").read_text(encoding="utf-8")
    assert not {"standardisation_within", "test_errors_power", "risk"} & set(O.SUMMARY_SOURCES)
