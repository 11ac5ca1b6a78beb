"""Stage ``reproducibility``: was it reproduced?  The reproducibility and replicability measures of
Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer & Soboroff (2020) for an original pair of runs
(baseline, advanced) and any number of reproductions of it (:mod:`metaeval.meta.reproducibility`,
exact to repro_eval 0.5.0).  An own job for the whole run (kind ``other`` with a ``run``,
``run_wide``) on the files its parameters name -- file parameters: the qrels (``Path``), the
original pair (``tuple[Path, ...]``), the reproductions (``tuple[NamedFiles, ...]``, each a name and
its two runs: :func:`reproduction`): ``metaeval stage reproducibility``, ``metaeval.run_stage(
"reproducibility", ...)`` and, when ``reproducibility: {enabled: true}``, the generic rule
``own_job_reproducibility`` (``workflow/rules/own_job.smk``, one job; no plan: its parameters are
config keys, ``reproductions: {NAME: [B, A]}`` read as named sets, and the files they name its
inputs, :meth:`metaeval.dag.Plan.job_inputs`) run it into ``RESULTS/reproducibility/``; its own
command (``metaeval reproducibility``, :mod:`metaeval.cli.reproducibility`, the same parser of a
reproduction) and API function (:func:`metaeval.api.reproducibility`, returning the whole result)
write through the same writer (:func:`metaeval.pipeline.write_own_outputs`).  Its parameters, its
config section, its tables and figures are declared here (standard library only)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from ...stages import NamedFiles, Scope, StageInfo, parameter

#: the measures of the config's default (ir_measures' names: trec_eval's values)
DEFAULT_METRICS = ("AP", "nDCG@10", "P@10", "RR")
_REF = "Breuer et al. (2020)"
_R = "reproducibility"


def _files(value: list) -> list[str]:
    return list(value)


def reproduction(text: str | NamedFiles) -> NamedFiles:
    """``NAME=BASELINE,ADVANCED`` -> the reproduction's name and its two run files (baseline,
    advanced), exactly two (a usage error otherwise); a :class:`NamedFiles` is checked as its word."""
    if isinstance(text, NamedFiles) and len(text.files) == 2:
        return text
    name, eq, files = str(text).partition("=")
    parts = files.split(",")
    if not eq or not name or len(parts) != 2 or not all(parts):
        raise argparse.ArgumentTypeError(f"expected NAME=BASELINE,ADVANCED (two run files), got {str(text)!r}")
    return NamedFiles(name, (Path(parts[0]), Path(parts[1])))


_TABLE = {"kind": "table", "scope": _R, "condition": _R}
_FIGURE = {"kind": "figure", "scope": _R, "condition": _R}

def run(inputs, params: ReproducibilityParams) -> dict:
    """The measures of every reproduction (``inputs``: nothing read; the files are the
    parameters'): the three tables of :func:`metaeval.meta.reproducibility.reproducibility`."""
    from ..reproducibility import Reproduction, reproducibility

    missing = [o for o, v in (("--rp-qrels", params.rp_qrels), ("--rp-orig", params.rp_orig),
                              ("--rp-reps", params.rp_reps)) if not v]
    if missing:
        raise ValueError(f"give {', '.join(missing)} (the original's qrels, its two runs, the reproductions)")
    # each NamedFiles checked, a word (run_stage's keyword: rp_reps=["NAME=B,A"]) parsed
    reps = [Reproduction(nf.name, str(nf.files[0]), str(nf.files[1]))
            for nf in map(reproduction, params.rp_reps or ())]
    res = reproducibility(str(params.rp_qrels), [str(f) for f in params.rp_orig or ()], reps,
                          [str(m) for m in params.rp_metrics],
                          rep_qrels=None if params.rp_rep_qrels is None else str(params.rp_rep_qrels),
                          depth=params.rp_depth, rbo_p=params.rp_rbo_p)
    return dict(res.tables)


@dataclass(frozen=True)
class ReproducibilityParams:
    """The stage's parameters: the options of its command (no MetaConfig fields)."""

    rp_qrels: Path | None = parameter(None, "qrels of the original collection", flag="--qrels", config=(_R, "qrels"),
        metavar="FILE", parse=Path, field=False, schema={"type": ["string", "null"]},
        doc="Qrels of the original experiment's collection.")
    rp_orig: tuple[Path, ...] | None = parameter(None, "the original baseline and advanced runs", flag="--orig",
        nargs="+", metavar="FILE", parse=Path, config=(_R, "orig"), field=False, render=_files,
        schema={"type": ["array", "null"], "items": {"type": "string", "minLength": 1}, "minItems": 2,
                "maxItems": 2},
        doc="The original baseline and advanced run files.")
    rp_reps: tuple[NamedFiles, ...] | None = parameter(None, "reproductions NAME=BASELINE,ADVANCED", flag="--rep",
        nargs="+", metavar="NAME=B,A", parse=reproduction, config=(_R, "reproductions"), field=False,
        schema={"type": ["object", "null"],
                "additionalProperties": {"type": "array", "items": {"type": "string", "minLength": 1},
                                         "minItems": 2, "maxItems": 2}},
        doc="The reproductions, each NAME: [baseline run file, advanced run file] (a CENTRE-style "
        "campaign: every participant's pair).")
    rp_rep_qrels: Path | None = parameter(None, "qrels of another collection (replicability)", flag="--rep-qrels",
        metavar="FILE", parse=Path, config=(_R, "rep_qrels"), field=False, schema={"type": ["string", "null"]},
        doc="Qrels of the collection the reproductions ran on when it is not the original's "
        "(replicability: only the unpaired t test, ER and Delta RI).")
    rp_metrics: tuple[str, ...] = parameter(DEFAULT_METRICS, "measures (ir_measures' names)", flag="--metrics",
        nargs="+", config=(_R, "metrics"), field=False,
        schema={"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
        doc="The measures, in ir_measures' vocabulary (trec_eval's values, as repro_eval evaluates).")
    rp_depth: int = parameter(1000, "documents per topic kept", flag="--depth", config=(_R, "depth"), field=False,
        schema={"type": "integer", "minimum": 1},
        doc="Documents kept per topic, in repro_eval's order (its RUN_LENGTH), and RBO's depth.")
    rp_rbo_p: float = parameter(0.95, "RBO persistence", flag="--rbo-p", config=(_R, "rbo_p"), field=False,
        schema={"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        doc="The persistence p of rank-biased overlap (repro_eval's RBO_P).")


STAGE = StageInfo(
    "reproducibility", "other", run,   # its tables: `outputs` below (scope reproducibility, not per collection)
    run_wide=True, runtime=60, table_texts="metaeval.report.reproducibility:stage_texts",
    scopes=(Scope(_R, folders=(("table", "tables"), ("figure", "figures"))),),
    condition=_R, switch=(_R, "enabled"), switch_default=False,
    switch_doc="Run the stage (one job: tables reproducibility, effects and reproducibility_topics).",
    title=f"was it reproduced? reproducibility and replicability measures ({_REF})",
    params=ReproducibilityParams,
    reads=("rp_qrels", "rp_orig", "rp_reps", "rp_rep_qrels", "rp_metrics", "rp_depth", "rp_rbo_p"),
    sections=(((_R,),
               (f"Was it reproduced? (stage reproducibility, one job, `metaeval reproducibility`): Kendall's tau "
               f"Union, RBO, RMSE, nRMSE, the t test's p-value, Effect Ratio and Delta RI of every reproduction of "
               f"an original pair of runs, as {_REF} define them and repro_eval 0.5.0 computes them; writes "
               f"RESULTS/reproducibility/. See docs/meta.md.")),),
    outputs=(
        dict(name="reproducibility", **_TABLE,
             caption=f"Was it reproduced? Per reproduction, run and measure: Kendall's tau Union (KTU) and rank-biased "
                     f"overlap (RBO) of the document orderings (mean over the topics), RMSE and normalised RMSE of the "
                     f"per-topic scores against the original's, and the two-sided t test's p-value (paired; unpaired "
                     f"when replicated on another collection, where KTU, RBO and RMSE are empty), as {_REF}",
             regenerates=f"the reproducibility measures of {_REF} (repro_eval 0.5.0)",
             columns=("reproduction", "run", "metric", "ktu", "rbo", "rmse", "nrmse", "p_value")),
        dict(name="effects", **_TABLE,
             caption=f"Was the effect reproduced? Per reproduction and measure: Effect Ratio (the reproduced mean "
                     f"improvement of the advanced over the baseline run divided by the original's) and Delta "
                     f"Relative Improvement (the original's relative improvement minus the reproduced one), as {_REF}",
             regenerates=f"ER and Delta RI of {_REF}", columns=("reproduction", "metric", "er", "dri")),
        dict(name="reproducibility_topics", **_TABLE,
             caption=f"Kendall's tau Union and RBO of the document orderings per reproduction, run and topic ({_REF})",
             regenerates=f"the per-topic KTU and RBO of {_REF}", columns=("reproduction", "run", "topic", "ktu", "rbo")),
        dict(name="reproducibility_effects", **_FIGURE, source="effects",
             draw="metaeval.report.reproducibility:plot_reproducibility_effects",
             caption=f"Effect Ratio against Delta RI, one point per reproduction, one panel per measure: (1, 0) is "
                     f"a perfect reproduction, ER < 1 a smaller effect, Delta RI > 0 a smaller relative improvement "
                     f"({_REF}, Figure 3)",
             regenerates=f"the ER / Delta RI plot of {_REF}"),
        dict(name="reproducibility_rmse", **_FIGURE, source="reproducibility",
             draw="metaeval.report.reproducibility:plot_reproducibility_rmse",
             caption=f"RMSE of the per-topic scores against the measure's cutoff (P@k, nDCG@k, ...), one line per "
                     f"reproduction and run ({_REF})",
             regenerates=f"the RMSE-by-cutoff plots of {_REF}"),
    ),
)
