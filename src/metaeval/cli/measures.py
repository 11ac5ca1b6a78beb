"""``metaeval measures [PATTERN]``: every measure of the registry with its family, cutoff,
parameters and source, then the ir_measures names and what they mean (``docs/metrics.md``)."""

from __future__ import annotations

import argparse
import sys


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "measures", help="list every measure: family, parameters, source",
        description="List every measure name the registry knows (the canonical bases; aliases in "
                    "brackets) with its family, whether it takes a cutoff (@k), its parameters with "
                    "their defaults and the reference it is exact to; then the ir_measures names and "
                    "the canonical measure each means. PATTERN (a substring, or a glob with * ? [ ]) "
                    "keeps the rows whose name matches it, case-insensitively.")
    p.add_argument("pattern", nargs="?", metavar="PATTERN", help="e.g. ndcg, 'trec.*', RR")
    p.set_defaults(func=run, _parser=p)
    return p


def _match(pattern: str | None, *names: str) -> bool:
    if not pattern:
        return True
    import fnmatch

    pat = pattern.lower()
    glob = any(c in pat for c in "*?[")
    for n in names:
        n = n.lower()
        if (fnmatch.fnmatchcase(n, pat) if glob else pat in n):
            return True
    return False


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1] for r in rows]


def _default(key, p) -> str:
    if p.default is None:
        return "(collection)" if key in ("gains", "penalties", "stops") else "(none)"
    return p.fmt(p.default)


def measure_rows(pattern: str | None = None) -> list[list[str]]:
    """[name, family, cutoff, parameters, source] per registered measure matching ``pattern``."""
    from ..metrics.registry import ALIASES, REGISTRY, family_of

    aliases: dict[str, list[str]] = {}
    for a, (target, _) in ALIASES.items():
        aliases.setdefault(target, []).append(a)
    rows = []
    for base in sorted(REGISTRY, key=str.lower):
        d = REGISTRY[base]
        al = sorted(aliases.get(base, []))
        if not _match(pattern, base, *al):
            continue
        fam, src = family_of(d)
        name = base + (f" [{', '.join(al)}]" if al else "")
        cut = {"forbidden": "-", "optional": "@k optional", "required": "@k required"}[d.cutoff]
        params = ", ".join(f"{k}={_default(k, p)}" for k, p in d.params.items()) or "-"
        rows.append([name, fam, cut, params, src or "-"])
    return rows


def vocabulary_rows(pattern: str | None = None) -> list[list[str]]:
    """[ir_measures name, provider, meaning] per ir_measures name matching ``pattern``."""
    from ..metrics.vocabulary import IR_MEASURES

    return [[e.name, e.provider, e.doc] for n, e in sorted(IR_MEASURES.items(), key=lambda x: x[0].lower())
            if _match(pattern, n)]


def run(args) -> int:
    from ..errors import InputError

    rows = measure_rows(args.pattern)
    vrows = vocabulary_rows(args.pattern)
    if not rows and not vrows:
        from ..metrics.registry import nearest_names

        raise InputError(f"no measure matches {args.pattern!r}; did you mean "
                         f"{', '.join(nearest_names(args.pattern.strip('*?[]'), 3))}?")
    out = []
    if rows:
        out += _table([["MEASURE", "FAMILY", "CUTOFF", "PARAMETERS", "SOURCE"]] + rows)
        out.append(f"({len(rows)} measure{'' if len(rows) == 1 else 's'}; every measure also takes judged_only=True: computed on the "
                   f"condensed lists, unjudged documents removed; and std=z|N|U|E: standardised per topic, "
                   f"docs/metrics.md)")
    if vrows:
        if out:
            out.append("")
        out += _table([["IR_MEASURES NAME", "PROVIDER (ir_measures 0.4.3)", "MEANING"]] + vrows)
        out.append("(names read in vocabulary ir_measures; nDCG@k, AP@k, ERR@k and RBP mean NTCIREVAL's "
                   "measures in vocabulary ntcireval; docs/metrics.md)")
    sys.stdout.write("\n".join(out) + "\n")
    return 0
