"""``metaeval paper-tables kishida --out DIR``: regenerate the tables of a paper that needs no data.
(``metaeval reproduce kishida``, the command's name before ``metaeval reproducibility`` -- whether a
run was reproduced -- came beside it, is a deprecated alias: hidden from the help, removed in the next
release.)

``kishida`` (Kishida (2005)) writes ``table1..table5`` (CSV at full precision and Markdown) and
``patterns.csv``; see :mod:`metaeval.kishida.reproduce` (the tables) and
:mod:`metaeval.report.kishida` (the files).  Runs in well under a second.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def _floats(text: str) -> tuple[float, ...]:
    try:
        vals = tuple(float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected numbers separated by ','") from None
    return vals


def _ints(text: str) -> tuple[int, ...]:
    try:
        vals = tuple(int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected integers separated by ','") from None
    return vals


def _pos(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a positive integer") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a positive integer")
    return v


DESCRIPTION = ("Regenerate the tables of Kishida (2005): Table 1 (Eq. 17), Table 2 "
               "(judgment-variation simulation), Tables 3-5 (indicators over all output "
               "patterns).  Writes tableN.csv (full precision), tableN.md and patterns.csv.")


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "paper-tables", help="regenerate a paper's analytic tables (kishida: Kishida (2005) Tables 1-5)",
        description=DESCRIPTION)
    _options(p)
    p.set_defaults(func=run, out_kind="folder")
    old = subparsers.add_parser("reproduce", description="Deprecated: use 'metaeval paper-tables'. " + DESCRIPTION)
    _options(old)                               # no help line: hidden from `metaeval --help`
    old.set_defaults(func=_deprecated_run, out_kind="folder")
    return p


def _deprecated_run(args) -> int:
    import sys

    print("metaeval: warning: 'metaeval reproduce' is deprecated and goes in the next release; "
          "use 'metaeval paper-tables'", file=sys.stderr)
    return run(args)


def _options(p: argparse.ArgumentParser) -> None:
    from ..meta.stages.common import SEED
    from ._types import checked, declared

    p.add_argument("target", choices=["kishida"], help="what to reproduce")
    p.add_argument("--out", required=True, help="output folder")
    g = p.add_argument_group("Table 1")
    g.add_argument("--R", type=_ints, default=(10, 50, 100), help="numbers of relevant documents (10,50,100)")
    g.add_argument("--v", type=_floats, default=(0.1, 0.3, 0.5), help="AP scores (0.1,0.3,0.5)")
    g.add_argument("--j", type=_pos, default=101, help="rank of the new relevant document (101)")
    g = p.add_argument_group("Table 2")
    g.add_argument("--thetas", type=_floats, default=(0.9, 0.5), help="relevance probabilities (0.9,0.5)")
    g.add_argument("--L", type=_pos, default=50, help="topics (50)")
    g.add_argument("--N", type=_pos, default=10, help="documents per list (10)")
    g.add_argument("--M", type=_pos, default=1000, help="repeated judgments (1000)")
    g.add_argument("--seed", type=declared("seed"), default=SEED, help=f"random seed (default {SEED})")
    g = p.add_argument_group("Tables 3-5")
    g.add_argument("--degrees", type=_ints, default=(3, 2, 1), help="relevance degrees (3,2,1)")
    g.add_argument("--n", type=_pos, default=5, help="output length (5)")
    g.add_argument("--b", type=checked(float, {"type": "number", "exclusiveMinimum": 1}), default=2.0,
                   help="log base of the DCG discount (2)")


def run(args) -> int:
    from ..errors import ConfigError
    from ..kishida.reproduce import KishidaParams
    from ..report.kishida import write_kishida

    try:
        params = KishidaParams(R=args.R, v=args.v, j=args.j, thetas=args.thetas, L=args.L, N=args.N,
                               M=args.M, seed=args.seed, degrees=args.degrees, n=args.n, b=args.b)
        paths = write_kishida(args.out, params)
    except ValueError as e:
        raise ConfigError(f"paper-tables kishida: {e}") from None
    for path in paths:             # written under the temporary folder, shown where they now are
        print(Path(args.out_shown) / Path(path).relative_to(args.out))
    return 0
