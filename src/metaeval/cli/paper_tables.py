"""``metaeval paper-tables kishida --out DIR``: regenerate the tables of a paper that needs no data.
(``metaeval reproduce kishida``, the command's name before ``metaeval reproducibility`` -- whether a
run was reproduced -- came beside it, is a deprecated alias: hidden from the help, removed in the next
release.)

``kishida`` (Kishida (2005)) writes ``table1..table5`` (CSV at full precision and Markdown) and
``patterns.csv``: the stage ``kishida`` (:mod:`metaeval.meta.stages.kishida`: its options, the
tables of :mod:`metaeval.kishida.reproduce`, their Markdown :mod:`metaeval.report.kishida`) through
the generic writer of an own job, as ``metaeval stage kishida`` and the pipeline's job run it.
Runs in well under a second.
"""

from __future__ import annotations

import argparse
from pathlib import Path


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
    # the stage's options, declared by its parameter class (metaeval/meta/stages/kishida.py)
    from ._meta_options import add_command_args

    p.add_argument("target", choices=["kishida"], help="what to reproduce")
    p.add_argument("--out", required=True, help="output folder")
    add_command_args(p.add_argument_group("Table 1"), "kishida", only=("--R", "--v", "--j"))
    add_command_args(p.add_argument_group("Table 2"), "kishida", only=("--thetas", "--L", "--N", "--M", "--seed"))
    add_command_args(p.add_argument_group("Tables 3-5"), "kishida", only=("--degrees", "--n", "--b"))


def run(args) -> int:
    from .. import pipeline
    from ..errors import ConfigError
    from ..meta.stages import get
    from ._meta_options import command_dest, command_values

    st = get("kishida")
    given = command_values(args, "kishida")
    try:
        assert st.params_class is not None
        params = st.params_class(**{prm.name: tuple(v) if isinstance(v, list) else v
                                    for prm in st.params for v in (given[command_dest(prm)],)})
        paths = pipeline.write_own_job("kishida", None, args.out, params)
    except ValueError as e:
        raise ConfigError(f"paper-tables kishida: {e}") from None
    # written under the temporary folder, shown where they now are: the CSVs, then the Markdown
    for path in sorted(paths, key=lambda q: Path(q).suffix != ".csv"):
        print(Path(args.out_shown) / Path(path).relative_to(args.out))
    return 0
