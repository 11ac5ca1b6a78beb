"""The runs that formed a pool and their groups, for the pool methods of the incompleteness stage
(:mod:`metaeval.meta.incompleteness`: ``depth`` and ``leave-one-group-out``; docs/meta.md).

A test collection's pool is formed by the runs submitted to it (the contributors); runs built
later (re-rankers, a new system) are evaluated on that pool without having formed it.  The
contributors are named by a list, a glob or a file (:func:`pool_contributors`), grouped by a
regular expression, a file or, by default, by submitting team read from TREC's run names
(:func:`run_groups`).
"""

from __future__ import annotations

from typing import Any

import os
import re
from pathlib import Path

__all__ = ["DEFAULT_GROUPS", "AUTO_GROUP_REGEX", "pool_contributors", "run_groups", "group_summary"]

#: the default grouping (:func:`run_groups`): each run name without TREC's ``input.`` prefix
#: and without a prefix shared by every grouped run, by its leading letters (``bm25base_p`` and
#: ``bm25tuned_p`` -> ``bm``; ``dl-20-official-input.pash_f1`` -> ``pash``)
DEFAULT_GROUPS = "auto"
#: the grouping regular expression applied to the names so shortened
AUTO_GROUP_REGEX = r"^([A-Za-z]+)"


def pool_contributors(runs, spec) -> list[str]:
    """The runs (of ``runs``, in their order) that formed the pool: ``spec`` None (every run), a
    run name, a glob (``dl-20-official-input.*``), a run's own file (``runs/X.run.gz``: run ``X``),
    the path of a file of run names or globs (one a line, ``#`` comments; plain or gzip), or a list
    of any of these.  A name or glob matching no run is an
    error (:class:`~metaeval.errors.InputError` naming the file and line when read from a file)."""
    import fnmatch

    from ..errors import InputError

    runs = [str(r) for r in runs]
    if spec is None:
        return runs
    where: list[tuple[str, tuple[str, int] | None]] = []   # (name or glob, (file, line) or None)
    from ..io.runs import run_name

    for item in ([spec] if isinstance(spec, (str, Path)) else list(spec)):
        if Path(item).is_file() and run_name(item) in runs and run_name(item) != Path(item).name:
            where.append((run_name(item), None))      # a run's own file (X.run.gz): that run
        elif Path(item).is_file():
            from ..io._text import read_text

            lines = read_text(item).splitlines()
            where += [(line.split()[0], (str(item), i)) for i, line in enumerate(lines, 1)
                      if line.strip() and not line.lstrip().startswith("#")]
        else:
            where.append((str(item), None))
    if not where:
        raise ValueError(f"pool runs: no run named in {spec!r}")
    chosen: set[Any] = set()
    for pat, loc in where:
        hit = fnmatch.filter(runs, pat) if pat not in runs else [pat]
        if not hit:
            msg = f"pool runs: {pat!r} names no run of the collection ({', '.join(runs[:5])}{', ...' if len(runs) > 5 else ''})"
            raise InputError(msg, *loc) if loc else ValueError(msg)
        chosen.update(hit)
    return [r for r in runs if r in chosen]


def _auto_names(runs) -> list[str]:
    """The run names the ``auto`` grouping reads: without TREC's ``input.`` prefix (an official
    submission's file, ``input.RUNID``, ``dl-20-official-input.RUNID``), then without the prefix
    every run shares, cut after its last ``.``, ``-`` or ``_`` (a prefix shared by every run is no
    group)."""
    names = [re.sub(r"^.*?input\.", "", r, count=1) for r in runs]
    if len(names) > 1:
        common = os.path.commonprefix(names)
        cut = max(common.rfind(ch) for ch in ".-_") + 1
        if cut and all(len(n) > cut for n in names):
            names = [n[cut:] for n in names]
    return names


def run_groups(runs, groups) -> dict[str, str]:
    """Run -> group: ``groups`` ``"auto"`` (the default: the names without TREC's ``input.``
    prefix and without the prefix every run shares, :func:`_auto_names`, by their leading letters,
    so ``dl-20-official-input.pash_f1`` -> ``pash``), a regular expression whose first group (or
    whole match) names the group, a ``{run: group}`` mapping, or the path of a two-column file
    ``RUN GROUP``."""
    from ..errors import InputError

    if isinstance(groups, str) and groups == "auto":
        rx = re.compile(AUTO_GROUP_REGEX)
        mapping = {}
        for r, n in zip(runs, _auto_names(runs)):
            m = rx.search(n)
            mapping[r] = m.group(1) if m else n
        return mapping
    if isinstance(groups, dict):
        mapping = {str(k): str(v) for k, v in groups.items()}
    elif isinstance(groups, (str, Path)) and Path(groups).is_file():
        mapping = {}
        from ..io._text import read_text

        for i, line in enumerate(read_text(groups).splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = line.split()
            if len(parts) != 2:
                raise InputError(f"expected two fields RUN GROUP, got {len(parts)}", groups, i)
            mapping[parts[0]] = parts[1]
    else:
        try:
            rx = re.compile(str(groups))
        except re.error as e:
            raise ValueError(f"groups: not a regular expression or a file: {groups!r} ({e})") from None
        mapping = {}
        for r in runs:
            m = rx.search(r)
            if m is None:
                raise ValueError(f"groups: run {r!r} does not match {groups!r}")
            mapping[r] = m.group(1) if rx.groups and m.group(1) is not None else m.group(0)
    missing = [r for r in runs if r not in mapping]
    if missing:
        raise ValueError(f"groups: no group for run(s) {', '.join(missing[:5])}")
    return {r: mapping[r] for r in runs}


def group_summary(groups: dict) -> str:
    """One line naming every group and its number of runs: ``3 groups: bm (8 runs), ...``."""
    count: dict = {}
    for g in groups.values():
        count[g] = count.get(g, 0) + 1
    parts = [f"{g} ({n} run{'s' if n != 1 else ''})" for g, n in sorted(count.items())]
    return f"{len(count)} group{'s' if len(count) != 1 else ''}: " + ", ".join(parts)
