r"""The pipeline's outputs are byte-identical to those written before the code was reorganised
(one module per job, one job per collection x metric): tests/data/*_outputs.sha256 list the SHA-256
of every table (CSV, Markdown, LaTeX), matrix, runs_used.csv, summary table and Kishida table that
the code of version 0.1 wrote.  Figures are not listed: their bytes depend on the matplotlib version.

Changes were made on purpose since, and the record was taken with both applied to the 0.1
outputs (:func:`normalised`), so that everything else is compared to the byte:

* captions cite papers by author and year and state the configured alpha, so the caption line of
  each Markdown (``**...**``) and LaTeX (``\caption{...}``) table is left out of the comparison;
* ``PDoc@l`` is an alias of ``Prec@l`` (one name per measure), so the 0.1 outputs' ``PDoc@1000``
  reads ``Prec@1000`` (file names and contents);
* the t* table's mean and s.d. are those of the finite t* (a zero-variance bootstrap sample gives
  t* = +-inf, which 0.1 averaged into an infinite mean): in the reduced config's ``simB`` the RR
  row changed from ``inf | -`` to finite values, and its ``tstar.md``/``tstar.tex`` were recorded
  from the new code;
* the numbers no longer depend on the CPU's BLAS kernel (docs/meta.md; the 0.1 record held with
  OpenBLAS' Haswell kernel only): the bootstrap sums are exact before one rounding, so the last
  digits of estimated differences, t*, swap maxima and Kishida's Table 4 correlations were
  recorded from the new code, and a pair whose two runs have exactly equal means gets
  ``t(z) = 0`` and ``ASL = 1`` (the ASL of three such pairs had been decided by rounding noise:
  RR RUN07/RUN05 of the reduced ``simA``, one Prec@1000 pair each of the default
  ``ntcir3-japanese`` and ``ntcir5-chinese``).

Outputs that did not exist in 0.1 (tables added since) are not compared here.  Record an output
again (only when it is meant to change, and say why in the commit: replace its line in the list,
then rewrite the archive):

    PYTHONPATH=src:tests python tests/pipeline/test_output_checksums.py RESULTS_DIR [--rename OLD=NEW] > tests/data/NAME_outputs.sha256
    PYTHONPATH=src:tests python tests/pipeline/test_output_checksums.py RESULTS_DIR --archive NAME

The record holds with the library versions of ``constraints.txt`` (numpy, scipy and pandas decide
the bytes) and is then compared byte for byte, on any CPU.  With other versions the last digit of
a float may differ: an output whose bytes differ is then compared with its recorded content
(``NAME_outputs.tar.xz``, the same normalised bytes) token by token -- text, counts and integers
exactly, numbers with a decimal point or exponent to a relative :data:`RTOL` (plus an absolute
:data:`ATOL` for values that are zero up to rounding) -- and the test passes with a warning naming
the versions.

(``dl19_outputs.sha256``, the DL19 example config, is compared by tests/pipeline/test_pipeline_dl19.py.)
"""

from __future__ import annotations

import hashlib
import io
import math
import os
import re
import sys
import tarfile
import warnings
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

from _pipeline_run import ROOT, reduced_run, snakemake

DATA = Path(__file__).resolve().parents[1] / "data"
PATTERNS = ["*/tables/*.csv", "*/tables/*.md", "*/tables/*.tex", "*/matrices/*.csv", "*/runs_used.csv",
            "summary/*.csv", "summary/*.md", "summary/*.tex", "kishida/*.csv", "kishida/*.md"]


def normalised(path: Path, renames: dict[str, str] | None = None) -> bytes:
    """The bytes compared: without the caption line of a Markdown or LaTeX table, with ``renames``
    (old measure name -> new) applied."""
    data = path.read_bytes()
    for old, new in (renames or {}).items():
        data = data.replace(old.encode(), new.encode())
    if path.suffix in (".md", ".tex"):
        lines = data.split(b"\n")
        keep = [ln for ln in lines if not (ln.startswith(b"\\caption{")
                                          or (ln.startswith(b"**") and ln.endswith(b"**")))]
        data = b"\n".join(keep)
    return data


def checksums(results: Path, renames: dict[str, str] | None = None) -> dict[str, str]:
    """``{path relative to results/: sha256}`` of every compared output (:func:`normalised`)."""
    out = {}
    for pat in PATTERNS:
        for p in results.glob(pat):
            rel = p.relative_to(results).as_posix()
            for old, new in (renames or {}).items():
                rel = rel.replace(old, new)
            out[rel] = hashlib.sha256(normalised(p, renames)).hexdigest()
    return dict(sorted(out.items()))


def recorded(name: str) -> dict[str, str]:
    out = {}
    for line in (DATA / f"{name}_outputs.sha256").read_text().splitlines():
        digest, path = line.split(maxsplit=1)
        out[path] = digest
    return out


#: the packages whose versions decide the bytes of a number (constraints.txt pins them)
NUMERIC_PACKAGES = ("numpy", "scipy", "pandas")
#: tolerance of a float when the library versions are not the pinned ones: relative, plus an
#: absolute one for values that are zero up to rounding
RTOL = 1e-9
ATOL = 1e-12
_NUMBER = re.compile(rb"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)\b")


def pinned_versions() -> dict[str, str]:
    """``{package: version}`` of :data:`NUMERIC_PACKAGES` in constraints.txt."""
    out = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        name, sep, ver = line.partition("==")
        if sep and name.strip().lower() in NUMERIC_PACKAGES:
            out[name.strip().lower()] = ver.strip()
    return out


def unpinned_versions() -> list[str]:
    """The installed numeric packages whose version is not the pinned one (empty: the record holds
    byte for byte)."""
    out = []
    for pkg, want in pinned_versions().items():
        try:
            have = version(pkg)
        except PackageNotFoundError:  # pragma: no cover - a dependency
            have = "missing"
        if have != want:
            out.append(f"{pkg} {have} (pinned {want})")
    return out


def reference(name: str) -> dict[str, bytes]:
    """The recorded (normalised) bytes of every output of ``NAME_outputs.tar.xz``."""
    with tarfile.open(DATA / f"{name}_outputs.tar.xz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def _same_number(a: bytes, b: bytes) -> bool:
    if a == b:
        return True
    if not any(c in x for x in (a, b) for c in (b".", b"e", b"E", b"inf", b"nan")):
        return False                                      # integers (counts): exactly
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or math.isinf(y):
        return (math.isnan(x) and math.isnan(y)) or x == y
    return abs(x - y) <= RTOL * max(abs(x), abs(y)) + ATOL


def close_enough(want: bytes, got: bytes) -> str | None:
    """``None`` when ``got`` is ``want`` up to the last digits of its floats (:data:`RTOL`), else
    the first difference.  Text between numbers, the numbers' count and every integer must agree."""
    wl, gl = want.split(b"\n"), got.split(b"\n")
    if len(wl) != len(gl):
        return f"{len(gl)} lines instead of {len(wl)}"
    for i, (w, g) in enumerate(zip(wl, gl), 1):
        if w == g:
            continue
        wn, gn = _NUMBER.findall(w), _NUMBER.findall(g)
        if _NUMBER.sub(b"#", w) != _NUMBER.sub(b"#", g) or len(wn) != len(gn):
            return f"line {i}: {g[:120]!r} instead of {w[:120]!r}"
        for a, b in zip(wn, gn):
            if not _same_number(a, b):
                return f"line {i}: {b.decode()} instead of {a.decode()}"
    return None


def compare(results: Path, name: str) -> None:
    want, got = recorded(name), checksums(results)
    missing = sorted(set(want) - set(got))
    assert not missing, f"recorded outputs not written: {missing[:10]}"
    differ = [p for p in want if got[p] != want[p]]
    if not differ:
        return
    other = unpinned_versions()
    assert other, (f"{len(differ)} of {len(want)} outputs differ from the record: {differ[:10]} "
                   "(with the pinned versions of constraints.txt every byte must agree)")
    ref = reference(name)
    bad = {p: close_enough(ref[p], normalised(results / p)) for p in differ}
    bad = {p: why for p, why in bad.items() if why}
    assert not bad, (f"with {', '.join(other)}: {len(bad)} of {len(want)} outputs differ from the record "
                     f"beyond the last digits of floats (rtol {RTOL:g}): "
                     + "; ".join(f"{p}: {why}" for p, why in list(bad.items())[:5]))
    warnings.warn(f"{len(differ)} of {len(want)} outputs differ from the record in the last digits of "
                  f"floats only (rtol {RTOL:g}), with {', '.join(other)} instead of constraints.txt's")


@pytest.mark.parametrize("name", ["reduced", "default", "dl19"])
def test_archives_hold_the_recorded_outputs(name):
    """The content the tolerant comparison falls back to is the recorded one, file for file."""
    ref, want = reference(name), recorded(name)
    assert sorted(ref) == sorted(want)
    assert all(hashlib.sha256(ref[p]).hexdigest() == want[p] for p in want)


def test_other_library_versions_may_change_float_digits_only():
    want = b"metric,pairs,significant,sensitivity,estimated_diff\nAP,435,226,0.5195402298850574,0.098486082454\n"
    assert close_enough(want, want.replace(b"0.098486082454", b"0.0984860824540001")) is None
    assert close_enough(b"t\n1e-17\n", b"t\n0.0\n") is None                 # zero up to rounding
    assert "226" in close_enough(want, want.replace(b",226,", b",227,"))       # a count: exactly
    assert close_enough(want, want.replace(b"0.098486082454", b"0.0984861")) is not None
    assert close_enough(want, want.replace(b"AP,", b"Q,")) is not None          # text: exactly
    assert close_enough(b"x,True\n", b"x,False\n") is not None                 # decisions: exactly
    assert close_enough(want, want + b"AP,1,1,1.0,1.0\n") is not None
    assert close_enough(b"| 0.0210 | 1.0000 |", b"| 0.0210 | 0.9990 |") is not None
    assert close_enough(b"inf,nan\n", b"inf,nan\n") is None
    assert close_enough(b"inf\n", b"-inf\n") is not None


def test_compare_is_exact_with_the_pinned_versions_and_tolerant_without(tmp_path, monkeypatch):
    """The recorded reduced outputs, one float's last digit changed: a failure with the pinned
    versions, a warning with others; a changed count fails with any versions."""
    ref = reference("reduced")
    for rel, data in ref.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    compare(tmp_path, "reduced")                                        # the record itself
    target = tmp_path / "simA" / "tables" / "bootstrap_paired.csv"
    text = target.read_text()
    value = text.splitlines()[1].split(",")[-1]                         # an estimated difference
    nudged = repr(float(value) * (1 + 4e-16))
    assert nudged != value
    target.write_text(text.replace(value, nudged, 1))
    monkeypatch.setattr(sys.modules[__name__], "unpinned_versions", lambda: [])
    with pytest.raises(AssertionError, match="every byte must agree"):
        compare(tmp_path, "reduced")
    monkeypatch.setattr(sys.modules[__name__], "unpinned_versions", lambda: ["numpy 9.9 (pinned 2.4.6)"])
    with pytest.warns(UserWarning, match="last digits of floats only"):
        compare(tmp_path, "reduced")
    row = text.splitlines()[1].split(",")
    row[2] = str(int(row[2]) + 1)                                       # the number of significant pairs
    target.write_text(text.replace(text.splitlines()[1], ",".join(row), 1))
    with pytest.raises(AssertionError, match="beyond the last digits"):
        compare(tmp_path, "reduced")


def test_pinned_versions_are_read_from_the_constraints():
    pins = pinned_versions()
    assert set(pins) == set(NUMERIC_PACKAGES) and all(v[0].isdigit() for v in pins.values())


@pytest.mark.slow
def test_reduced_dag_outputs_are_the_recorded_ones():
    compare(reduced_run() / "results", "reduced")


#: the results folder of the README's main job (``snakemake --profile workflow/profiles/default`` in
#: the clone), which .ci/run runs after the suite and then compares with this test
DEFAULT_RESULTS = os.environ.get("METAEVAL_DEFAULT_RESULTS")


@pytest.mark.slow
@pytest.mark.skipif(not (DEFAULT_RESULTS or os.environ.get("METAEVAL_FULL_DAG")),
                    reason="the README's main job (the whole default config, 1.5 minutes on 2 cores): .ci/run runs "
                           "it after the suite and compares its results/ here (METAEVAL_DEFAULT_RESULTS=results); "
                           "METAEVAL_FULL_DAG=1 runs it in this test")
def test_default_config_outputs_are_the_recorded_ones(tmp_path):
    """The outputs of the shipped config.yaml: those of the README's main job when
    ``METAEVAL_DEFAULT_RESULTS`` names its results folder (.ci/run), else of the whole DAG run here."""
    if DEFAULT_RESULTS:
        results = Path(DEFAULT_RESULTS).resolve()
        assert (results / "effective-config.yaml").is_file(), f"{results}: not the results of a DAG run"
    else:
        snakemake(tmp_path, "--configfile", str(ROOT / "config.yaml"), "--cores", "2", "--quiet", "rules",
                  timeout=3600)
        results = tmp_path / "results"
    compare(results, "default")


def write_archive(results: Path, name: str) -> None:
    """tests/data/NAME_outputs.tar.xz: the normalised bytes of every output that
    NAME_outputs.sha256 lists, taken from ``results`` (which must match the list)."""
    want = recorded(name)
    with tarfile.open(DATA / f"{name}_outputs.tar.xz", "w:xz", preset=9) as tar:
        for rel in sorted(want):
            data = normalised(results / rel)
            if hashlib.sha256(data).hexdigest() != want[rel]:
                raise SystemExit(f"{rel}: not the recorded output")
            info = tarfile.TarInfo(rel)
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            tar.addfile(info, io.BytesIO(data))


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--archive" in args:
        write_archive(Path(args[0]), args[args.index("--archive") + 1])
    else:
        renames = dict(args[i + 1].split("=", 1) for i, a in enumerate(args) if a == "--rename")
        for path, digest in checksums(Path(args[0]), renames).items():
            print(f"{digest}  {path}")
