"""Display labels of runs and measures: the names a paper prints (docs/outputs.md, "Labels").

* A run's canonical name is its file stem (``metaeval.io.run_name``); it stays in every CSV (matrix
  headers, the ``run`` / ``system_x`` / ... columns).  Its **label** is what Markdown / LaTeX tables,
  figures and the compare table show: given in a labels file (``--labels FILE``, config ``labels:``),
  else :func:`default_run_labels` -- the stem without a long prefix or suffix it shares with many
  other runs (``dl-20-official-input.pash_f1`` -> ``pash_f1``), else the stem itself.
* A measure's label is its canonical name unless a labels file gives another.
* A labels file has one ``NAME LABEL`` line per run or measure (``#`` starts a comment; the label is
  the rest of the line, spaces allowed); NAME is a canonical name, a run's file stem or its runid.
* A run is accepted by its label, its file stem or its runid wherever a run is named
  (:func:`resolve_run`, e.g. ``metaeval compare --baseline``).

Above the meta layer (a measure named by any alias is the matrix it reads:
:func:`metaeval.meta.matrices.matrix_for`); the report writers, the pipeline and the command line
use it alike.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping

from .errors import InputError

__all__ = ["default_run_labels", "read_labels", "resolve_run", "run_labels", "relabel", "relabeller", "runid_of",
           "display_labels", "labels_for"]

#: characters an affix must end (prefix) or start (suffix) with: a decoration, not a word
_SEPARATORS = "._-"
#: shortest affix stripped, and the share of the runs that must carry it
_MIN_AFFIX = 6
_MIN_SHARE = 0.25


def _affixes(name: str, suffix: bool) -> list[str]:
    """The prefixes of ``name`` ending in a separator (or suffixes starting with one), long enough;
    a suffix that is a file extension (``.ndcgeval``: a dot, no other separator after it) at any
    length."""
    out = []
    for i, ch in enumerate(name):
        if ch in _SEPARATORS:
            a = name[i:] if suffix else name[:i + 1]
            ext = suffix and ch == "." and len(a) > 1 and not any(c in _SEPARATORS for c in a[1:])
            if (len(a) >= _MIN_AFFIX or ext) and len(a) < len(name):
                out.append(a)
    return out


def _best_affix(names: list[str], suffix: bool, share: float = _MIN_SHARE, strict: bool = False) -> dict[str, str]:
    """``{name: affix}``: for each name, of its affixes carried by at least ``share`` of the runs
    (more than that share when ``strict``; and two), the one carried by most runs, then the longest."""
    need = max(2, math.floor(share * len(names)) + 1 if strict else math.ceil(share * len(names)))
    count: dict[str, int] = {}
    for n in names:
        for a in set(_affixes(n, suffix)):
            count[a] = count.get(a, 0) + 1
    best = {}
    for n in names:
        cands = [a for a in _affixes(n, suffix) if count[a] >= need]
        if cands:
            best[n] = max(cands, key=lambda a: (count[a], len(a)))
    return best


def _strip(names: list[str], share: float, strict: bool, keep_system: bool) -> dict[str, str]:
    """``{name: name without its shared prefix and suffix}`` (:func:`_best_affix`); ``keep_system``:
    when stripping the prefix leaves no letter, the prefix stays (it named the system)."""
    pre, suf = _best_affix(names, False, share, strict), _best_affix(names, True, share, strict)
    out = {}
    for n in names:
        lab = n
        if n in pre:
            lab = lab[len(pre[n]):]
        if n in suf and lab.endswith(suf[n]) and len(lab) > len(suf[n]):
            lab = lab[:-len(suf[n])]
        if keep_system and not any(ch.isalpha() for ch in lab):     # only digits left: the system's name went
            lab = n[:-len(suf[n])] if n in suf and any(ch.isalpha() for ch in n[:-len(suf[n])]) else n
        out[n] = lab or n
    return out


def default_run_labels(names: Iterable[str]) -> dict[str, str]:
    """``{run name: label}``, in two steps, one rule for every command, table and figure
    (``compare``, the pipeline's tables and figures, ``judgments``, ``ppi``):

    1. the decoration of the collection: the prefix and the suffix or file extension carried by
       more than half of the runs (and two) are stripped, whatever is left
       (``dl-20-official-input.1`` -> ``1``, ``p_bm25.ndcgeval`` -> ``p_bm25``);
    2. then, on what is left, a long prefix and suffix shared with at least a quarter of the runs
       (``_msmarco-passage-trec-dl-2020-judged`` on a mixed DL 2020 set), unless that leaves no
       letter (``Fast_ForwardP_2`` beside ``Fast_ForwardP_5`` keeps its name: the prefix named the
       system).

    A name whose label would be empty or equal another's (label or name) keeps its name."""
    names = [str(n) for n in names]
    first = _strip(names, 0.5, True, False)
    rest = list(dict.fromkeys(first.values()))
    second = _strip(rest, _MIN_SHARE, False, True) if len(rest) == len(names) else {r: r for r in rest}
    labels = {n: second[first[n]] for n in names}
    seen: dict[str, list[str]] = {}
    for n, lab in labels.items():
        seen.setdefault(lab, []).append(n)
    clash = {n for lab, ns in seen.items() if len(ns) > 1 or (lab in labels and lab != ns[0]) for n in ns}
    return {n: (n if n in clash else lab) for n, lab in labels.items()}


def read_labels(path: str | os.PathLike) -> dict[str, str]:
    """``{NAME: LABEL}`` from a labels file (``NAME LABEL`` a line; blank lines and ``#`` comments
    skipped); a line without a label, or a NAME given twice, is an :class:`InputError` naming the
    file and line."""
    from .io._text import read_text

    lines = read_text(path).splitlines()            # plain or gzip; unreadable: an error naming it
    out: dict[str, str] = {}
    for i, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        parts = text.split(None, 1)
        if len(parts) < 2:
            raise InputError(f"expected 'NAME LABEL', got {text!r}", path, i)
        name, label = parts[0], parts[1].strip()
        if name in out:
            raise InputError(f"{name!r} is given a label twice", path, i)
        out[name] = label
    return out


def run_labels(runs: Iterable[str], given: Mapping[str, str] | None = None,
               runids: Mapping[str, str] | None = None) -> dict[str, str]:
    """``{run name: label}`` of ``runs``: the label ``given`` for its name (or its runid, from
    ``runids`` {run name: runid}), else its default label (:func:`default_run_labels`)."""
    runs = [str(r) for r in runs]
    labels = default_run_labels(runs)
    given = dict(given or {})
    runids = dict(runids or {})
    for r in runs:
        if r in given:
            labels[r] = given[r]
        elif runids.get(r) in given:
            labels[r] = given[runids[r]]
    return labels


def resolve_run(name: str, runs: Iterable[str], labels: Mapping[str, str] | None = None,
                runids: Mapping[str, str] | None = None) -> str:
    """The run (canonical name) that ``name`` names: a run name (file stem), its label or its
    runid; ``name`` unchanged when it names none (the caller words the error) -- a ValueError when
    it names two runs."""
    runs = [str(r) for r in runs]
    if name in runs:
        return name
    hits = sorted({r for r in runs if (labels or {}).get(r) == name or (runids or {}).get(r) == name})
    if len(hits) > 1:
        raise ValueError(f"{name!r} names {len(hits)} runs ({', '.join(hits)}); give a file stem")
    return hits[0] if hits else name


def relabel(text: str, labels: Mapping[str, str]) -> str:
    """The label of a name (a run or measure; ``AG_`` / ``G_`` prefixes of a measure kept), or
    ``text`` unchanged."""
    if text in labels:
        return labels[text]
    for p in ("AG_", "G_"):
        if text.startswith(p) and text[len(p):] in labels:
            return p + labels[text[len(p):]]
    return text


def relabeller(labels: Mapping[str, str]):
    """``f(text) -> text``: :func:`relabel` of a whole name, and in a text that names runs or
    measures among other words (``(a) AP(rel=2)``, ``trec.ndcg_cut@10 (paired)``,
    ``RR MR / PT``) every name standing as a word of its own -- between the text's ends, spaces
    and parentheses, ``AG_`` / ``G_`` prefixes kept -- replaced by its label, in one pass (a
    label is never relabelled again)."""
    import re

    labels = {str(k): str(v) for k, v in labels.items() if str(k) != str(v)}
    if not labels:
        return lambda text: text
    keys = sorted(labels, key=len, reverse=True)            # the longest name first: AP(rel=2) before AP
    pattern = re.compile(r"(?<![^\s(])((?:AG_|G_)?)(" + "|".join(map(re.escape, keys)) + r")(?![^\s)])")
    numeric = re.compile(r"[-+0-9.,%*/()\s]*")

    def one(text: str) -> str:
        whole = relabel(text, labels)
        if whole != text or numeric.fullmatch(text):
            return whole
        return pattern.sub(lambda m: m.group(1) + labels[m.group(2)], text)

    return one


def runid_of(path: str | os.PathLike) -> str | None:
    """The runid (TAG, the sixth field) of a TREC run file's first result line; None when the
    file cannot be read or has no such line."""
    import gzip

    try:
        with open(path, "rb") as fh:
            head = fh.read(2)
            fh.seek(0)
            raw = gzip.open(fh).read(1 << 16) if head == b"\x1f\x8b" else fh.read(1 << 16)  # noqa: SIM115
    except (OSError, EOFError, ValueError):
        return None
    for line in raw.split(b"\n")[:-1] or raw.split(b"\n"):
        f = line.split()
        if len(f) == 6:
            return f[5].decode("utf-8", "replace")
    return None


def display_labels(runs: Iterable[str], measures: Iterable[str] = (), given: Mapping[str, str] | None = None,
                   runids: Mapping[str, str] | None = None, resolve_measure=None) -> dict[str, str]:
    """``{name: label}`` of the runs and measures whose label differs from their name: the runs'
    labels (:func:`run_labels`) and the measures ``given`` a label -- ``resolve_measure(name)``
    maps a given name (any alias) to a measure of ``measures``.  An empty dict shows every name."""
    runs, measures = [str(r) for r in runs], [str(m) for m in measures]
    out = {r: lab for r, lab in run_labels(runs, given, runids).items() if lab != r}
    for name, label in (given or {}).items():
        m = name if name in measures else (resolve_measure(name) if resolve_measure else name)
        if m in measures and label != m:
            out[m] = label
    return out


def labels_for(runs: Iterable[str], measures: Iterable[str], labels_file=None, run_files=None) -> dict[str, str]:
    """:func:`display_labels` of a labels file (a path, or a {NAME: LABEL} mapping; None: the
    default run labels) -- ``run_files`` {run name: path} gives the runids; measures named by any
    alias (the matrix a name reads)."""
    given: dict[str, str] | None
    if isinstance(labels_file, Mapping):
        given = {str(k): str(v) for k, v in labels_file.items()}
    else:
        given = read_labels(labels_file) if labels_file else None
    runids = {}
    for r, p in (run_files or {}).items():
        if isinstance(p, (str, os.PathLike)):
            rid = runid_of(p)
            if rid:
                runids[r] = rid
    measures = list(measures)

    from .meta.matrices import matrix_for

    return display_labels(runs, measures, given, runids, lambda name: matrix_for(name, measures))
