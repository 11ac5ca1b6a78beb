"""Move the flat ``tests/test_*.py`` into folders that say what they test (issue 27, item 9).

    .venv/bin/python tools/layout_tests.py            # from the repository root: move, rewrite, check
    .venv/bin/python tools/layout_tests.py --dry-run  # print what it would do, change nothing
    .venv/bin/python tools/layout_tests.py --no-check # move and rewrite without the pytest check
    .venv/bin/python tools/layout_tests.py --map test_new.py=conformance   # place a file by hand

* ``tests/unit/``        one module or command against literal loops, scipy / statsmodels, hand
                         cases, properties, bad input, the layers;
* ``tests/conformance/`` against the reference tools and the real data: NTCIREVAL, trec_eval (its own
                         test suite, the program built from its source), pytrec_eval, ir_measures,
                         cwl-eval, ndeval, std.R / R's outputs, the papers' printed numbers,
                         scikit-learn / krippendorff agreement;
* ``tests/pipeline/``    Snakemake DAG runs, dry runs, the report, results folders, the workflow's
                         lists, the config schema, whole commands end to end in subprocesses.

Helpers stay in ``tests/`` (``conftest.py`` -- which applies to the subfolders and puts ``tests/`` on
``sys.path`` --, ``_pipeline_run.py``, ``_machine_run.py``, ``_synth_tables.py``,
``metric_helpers.py``, ``report_probe.js``, ``data/``).

What it does, idempotently (a second run finds no ``tests/test_*.py`` and only checks):

1. every ``tests/test_*.py`` goes to the folder :data:`MAPPING` names; a file the mapping does not
   know goes by :func:`guess` (printed with its reason); a file importing another test module
   (``from test_x import ...``) goes to that module's folder, so that each folder collects alone;
2. ``git mv``, then in the moved file ``Path(__file__)...parent`` -> ``.parents[1]`` and
   ``.parents[N]`` -> ``.parents[N + 1]`` (every path relative to a test file pointed into ``tests/``
   or the root and still does); other uses of ``__file__`` are printed for a look;
3. every ``tests/test_NAME.py`` named in a tracked text file (README, docs, ``.ci/run``, sources,
   test docstrings) becomes ``tests/FOLDER/test_NAME.py``; ``PYTHONPATH=src python tests/...`` usage
   lines get ``src:tests`` (the moved scripts import the helpers of ``tests/``);
4. check: ``pytest --collect-only`` of each folder alone and of the whole suite; exit 1 when a
   collection fails or the whole suite's count differs from the count before the move.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

FOLDERS = ("unit", "conformance", "pipeline")

#: every test file on main on 2026-11-26 (91 files) -> its folder
MAPPING = {
    # --- against the reference tools and the real data
    "test_cli_evaluate.py": "conformance",          # NTCIREVAL's per-topic form, line for line
    "test_cli_ntcir.py": "conformance",             # NTCIREVAL-compatible drop-in: options, output
    "test_compare_urbano.py": "conformance",        # Urbano et al. (2019)'s README p-values
    "test_conformance.py": "conformance",           # every line of NTCIREVAL's reference output
    "test_cwl.py": "conformance",                   # metaeval cwl_eval against cwl-eval 1.0.12
    "test_cwl_ddot.py": "conformance",              # on cwl-eval's own test files
    "test_diversity_cli.py": "conformance",         # NTCIREVAL diversity drop-in, Sakai (2011) figures
    "test_diversity_reference.py": "conformance",   # NTCIREVAL and ndeval outputs of TREC 2013 Web
    "test_ir_measures.py": "conformance",           # ir_measures.iter_calc and trec_eval 10.0 outputs
    "test_judgments_agreement.py": "conformance",   # scikit-learn's kappa, the krippendorff package
    "test_kishida_measures.py": "conformance",      # kishida-* against NTCIREVAL's output
    "test_kishida_tables.py": "conformance",        # Kishida (2005)'s printed tables, every digit
    "test_ndeval.py": "conformance",                # the official ndeval 4.5 output
    "test_ndeval_dropin.py": "conformance",         # metaeval ndeval, line for line
    "test_pytrec_agreement.py": "conformance",      # pytrec_eval on TREC DL 2019
    "test_standardisation.py": "conformance",       # R/01-within.R of Urbano et al. (2019)
    "test_standardise.py": "conformance",           # std.R's outputs (tests/data/std_r)
    "test_treceval_dropin.py": "conformance",       # trec_eval's own test suite, byte for byte
    "test_treceval_engine.py": "conformance",       # recorded values of the 37 DL19 runs
    "test_treceval_measures.py": "conformance",     # trec.* against trec_eval's per-topic values
    "test_treceval_properties.py": "conformance",   # the real trec_eval built from its C source
    "test_urbano_tests.py": "conformance",          # the paper's README and R's wilcox.test / t.test
    "test_worked_examples.py": "conformance",       # the papers' worked examples as printed
    # --- Snakemake, the report, results folders, the workflow's lists, the schema, end to end
    "test_console_and_report.py": "pipeline",       # an 80-run report; the pipeline's console
    "test_machine_independence.py": "pipeline",     # every command in subprocesses, any BLAS/SIMD
    "test_no_common_topic.py": "pipeline",          # every entry point, the pipeline included
    "test_output_checksums.py": "pipeline",         # the DAG's outputs against the recorded ones
    "test_pipeline.py": "pipeline",
    "test_pipeline_diversity.py": "pipeline",
    "test_pipeline_dl19.py": "pipeline",
    "test_pipeline_dl19_official.py": "pipeline",
    "test_pipeline_lists.py": "pipeline",
    "test_report.py": "pipeline",
    "test_results_folder.py": "pipeline",
    "test_schema.py": "pipeline",
    # --- one module or command
    "test_api.py": "unit",
    "test_architecture.py": "unit",
    "test_bad_input.py": "unit",
    "test_bad_input_cases.py": "unit",
    "test_cli_matrices.py": "unit",
    "test_compare.py": "unit",
    "test_compare_report.py": "unit",
    "test_compare_risk.py": "unit",
    "test_conftest.py": "unit",
    "test_conventions.py": "unit",
    "test_detmath.py": "unit",
    "test_discpower.py": "unit",
    "test_discpower_outputs.py": "unit",
    "test_diversity_io.py": "unit",
    "test_diversity_properties.py": "unit",
    "test_figures.py": "unit",
    "test_figures_readable.py": "unit",
    "test_fuzz_readers.py": "unit",
    "test_gains_levels.py": "unit",
    "test_incompleteness.py": "unit",
    "test_interrupt.py": "unit",
    "test_io.py": "unit",
    "test_judgments_cli.py": "unit",
    "test_judgments_ranking.py": "unit",
    "test_kishida_indicators.py": "unit",
    "test_kishida_simulation.py": "unit",
    "test_labels.py": "unit",
    "test_margins.py": "unit",
    "test_matrices_format.py": "unit",
    "test_measure_names.py": "unit",
    "test_meta.py": "unit",
    "test_meta_cli.py": "unit",
    "test_meta_stats.py": "unit",
    "test_metrics.py": "unit",
    "test_numerics_toolkit.py": "unit",
    "test_output_modes.py": "unit",
    "test_outputs.py": "unit",
    "test_pool_runs.py": "unit",
    "test_properties.py": "unit",
    "test_rankcorr.py": "unit",
    "test_rankcorr_meta.py": "unit",
    "test_rankcorr_outputs.py": "unit",
    "test_readme.py": "unit",
    "test_risk.py": "unit",
    "test_risk_stage.py": "unit",
    "test_simulate.py": "unit",
    "test_stage_cli.py": "unit",
    "test_stage_registry.py": "unit",
    "test_summary.py": "unit",
    "test_tables.py": "unit",
    "test_test_errors.py": "unit",
    "test_treceval_fallback.py": "unit",
    "test_treceval_package.py": "unit",
    "test_trecfmt.py": "unit",
    "test_trecscan.py": "unit",
    "test_vocabulary.py": "unit",
}

#: words naming a reference tool or its recorded output (the rule for files MAPPING does not know)
REFERENCE = re.compile(r"NTCIREVAL|ntcireval|trec_eval|pytrec_eval|ir_measures|cwl[-_]eval|ndeval|std_r\b|"
                       r"std\.R|wilcox\.test|krippendorff|sklearn|reference/")
SHARED = re.compile(r"shared_data|\bDL19\b|\bWWW4\b|from conftest import[^\n]*\bDATA\b")
PIPELINE = re.compile(r"^(from _pipeline_run import|import _pipeline_run|pytestmark = pytest\.mark\.slow)", re.M)
TEST_IMPORT = re.compile(r"^\s*(?:from (test_\w+) import|import (test_\w+))", re.M)
FILE_PATH = re.compile(r"(Path\(__file__\)(?:\.resolve\(\)|\.absolute\(\))?)\.(parents\[(\d+)\]|parent\b)")
DOC_PATH = re.compile(r"tests/(test_\w+\.py)")


def guess(text: str) -> tuple[str, str]:
    """(folder, reason) of a test file MAPPING does not know, from what it imports and names."""
    if PIPELINE.search(text):
        return "pipeline", "imports _pipeline_run at module level, or every test is slow"
    if SHARED.search(text) and len(REFERENCE.findall(text)) >= 5:
        return "conformance", "reads the shared data and names a reference tool (5 times or more)"
    return "unit", "neither _pipeline_run nor shared data with a reference tool"


def sh(*cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, check=check)


def plan(root: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """{file name: folder} of every tests/test_*.py still at the top, printing the unknown ones
    (``extra``: more of MAPPING, from --map)."""
    mapping = {**MAPPING, **(extra or {})}
    flat = sorted(p.name for p in (root / "tests").glob("test_*.py"))
    placed = {p.name: p.parent.name for f in FOLDERS for p in (root / "tests" / f).glob("test_*.py")}
    texts = {n: (root / "tests" / n).read_text(encoding="utf-8") for n in flat}
    target = {}
    for n in flat:
        if n in mapping:
            target[n] = mapping[n]
        else:
            target[n], why = guess(texts[n])
            print(f"layout: {n} is not in the mapping -> tests/{target[n]}/ ({why})")
    # a test module imported by another: both in one folder (each folder collects on its own)
    for _ in range(len(flat) + 1):
        changed = False
        for n in flat:
            for m in TEST_IMPORT.finditer(texts[n]):
                dep = f"{m.group(1) or m.group(2)}.py"
                folder = target.get(dep) or placed.get(dep)
                if folder and folder != target[n]:
                    print(f"layout: {n} imports {dep}: -> tests/{folder}/ (instead of tests/{target[n]}/)")
                    target[n], changed = folder, True
        if not changed:
            break
    return target


def rewrite_test_file(path: Path) -> None:
    """Paths relative to a test file one folder deeper: .parent -> .parents[1], [N] -> [N + 1]."""
    text = path.read_text(encoding="utf-8")

    def deeper(m: re.Match) -> str:
        n = 1 if m.group(2) == "parent" else int(m.group(3)) + 1
        return f"{m.group(1)}.parents[{n}]"

    new = FILE_PATH.sub(deeper, text)
    new = new.replace("PYTHONPATH=src python tests/", "PYTHONPATH=src:tests python tests/")
    for i, line in enumerate(new.splitlines(), 1):
        rest = FILE_PATH.sub("", line)
        if re.search(r"(?<![.\w])__file__", rest) and "== __file__" not in rest:
            print(f"layout: check by hand {path}:{i}: {line.strip()}")
    if new != text:
        path.write_text(new, encoding="utf-8")


def rewrite_references(root: Path, located: dict[str, str]) -> list[str]:
    """tests/test_NAME.py -> tests/FOLDER/test_NAME.py in every tracked text file; changed files."""
    changed = []
    me = Path(__file__).resolve()
    for rel in sh("git", "ls-files").stdout.splitlines():
        path = root / rel
        if not path.is_file() or path.resolve() == me or "egg-info" in rel:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if "tests/test_" not in text:
            continue
        new = DOC_PATH.sub(lambda m: f"tests/{located[m.group(1)]}/{m.group(1)}" if m.group(1) in located
                           else m.group(0), text)
        new = new.replace("PYTHONPATH=src python tests/", "PYTHONPATH=src:tests python tests/")
        for i, line in enumerate(new.splitlines(), 1):
            for m in re.finditer(r"tests/test_[\w*?\[\]]*(\.py)?", line):
                print(f"layout: a test path not rewritten, {rel}:{i}: {m.group(0)}")
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(rel)
    return changed


README_MARK = "<!-- tests layout (tools/layout_tests.py) -->"
README_TEXT = f"""{README_MARK}
The tests are in three folders: `tests/unit/` (one module or command against literal loops,
scipy/statsmodels, hand cases and properties), `tests/conformance/` (against the reference tools
and the real data: NTCIREVAL, trec_eval, pytrec_eval, ir_measures, cwl-eval, ndeval, std.R) and
`tests/pipeline/` (Snakemake DAG runs and dry runs, the report, results folders, the config
schema); the helpers (`conftest.py`, `_pipeline_run.py`, ...) and `tests/data/` stay in `tests/`.
`python -m pytest tests/unit` runs one folder.

"""


def add_readme_paragraph(root: Path) -> bool:
    """The layout's paragraph at the end of the README's "## Tests" section (once)."""
    readme = root / "README.md"
    text = readme.read_text(encoding="utf-8")
    if README_MARK in text or "\n## Tests\n" not in text:
        return False
    start = text.index("\n## Tests\n") + 1
    nxt = re.search(r"^#{2,3} ", text[start + 9:], re.M)
    at = start + 9 + nxt.start() if nxt else len(text)
    readme.write_text(text[:at] + README_TEXT + text[at:], encoding="utf-8")
    return True


def collect(root: Path, *paths: str) -> tuple[int, str]:
    """(number of tests collected, pytest's output); -1 when the collection fails."""
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0",
                        "-p", "no:cacheprovider", *paths], cwd=root, capture_output=True, text=True)
    m = re.search(r"(\d+) tests? collected", r.stdout)
    if r.returncode != 0 or not m:
        return -1, r.stdout[-4000:] + r.stderr[-2000:]
    return int(m.group(1)), r.stdout


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
    ap.add_argument("--no-check", action="store_true", help="skip the pytest collection checks")
    ap.add_argument("--map", action="append", default=[], metavar="test_x.py=FOLDER",
                    help=f"the folder of a file the mapping does not know (FOLDER: {', '.join(FOLDERS)})")
    args = ap.parse_args(argv)
    extra = dict(m.split("=", 1) for m in args.map if "=" in m)
    if len(extra) != len(args.map) or not set(extra.values()) <= set(FOLDERS):
        ap.error(f"--map takes test_x.py=FOLDER, FOLDER one of {', '.join(FOLDERS)}")
    root = Path.cwd()
    if not (root / "tests" / "conftest.py").is_file() or not (root / "pyproject.toml").is_file():
        print("layout: run from the repository root (tests/conftest.py, pyproject.toml)", file=sys.stderr)
        return 2
    target = plan(root, extra)
    if args.dry_run:
        for n, f in sorted(target.items(), key=lambda x: (x[1], x[0])):
            print(f"tests/{n} -> tests/{f}/{n}")
        return 0
    before = None
    if target and not args.no_check:
        before, out = collect(root, "tests")
        if before < 0:
            print(f"layout: the suite does not collect BEFORE the move; nothing done\n{out}", file=sys.stderr)
            return 1
        print(f"layout: {before} tests collected before the move")
    for f in FOLDERS:
        (root / "tests" / f).mkdir(exist_ok=True)
    for n, f in sorted(target.items()):
        sh("git", "mv", f"tests/{n}", f"tests/{f}/{n}")
        rewrite_test_file(root / "tests" / f / n)
        print(f"layout: tests/{n} -> tests/{f}/{n}")
    located = {p.name: p.parent.name for f in FOLDERS for p in (root / "tests" / f).glob("test_*.py")}
    for rel in rewrite_references(root, located):
        print(f"layout: test paths rewritten in {rel}")
    if add_readme_paragraph(root):
        print("layout: README.md's Tests section describes the folders")
    if args.no_check:
        return 0
    failed = False
    total = 0
    for f in FOLDERS:
        n, out = collect(root, f"tests/{f}")
        print(f"layout: tests/{f}: {n if n >= 0 else 'COLLECTION FAILED'} tests")
        if n < 0:
            print(out, file=sys.stderr)
            failed = True
        total += max(n, 0)
    after, out = collect(root, "tests")
    print(f"layout: tests: {after if after >= 0 else 'COLLECTION FAILED'} tests"
          + (f" ({before} before the move)" if before is not None else ""))
    if after < 0 or (before is not None and after != before) or (not failed and total != after):
        print(out if after < 0 else "layout: the counts differ", file=sys.stderr)
        failed = True
    if failed:
        print("layout: FAILED (the moves are staged: `git reset --hard HEAD` on a clean tree undoes them)", file=sys.stderr)
        return 1
    print("layout: done; review `git status` and commit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
