"""``metaeval simulate``: write simulated NTCIR-like collections (qrels + runs) for the pipeline."""

from __future__ import annotations

import argparse
import json
import sys
import time


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "simulate",
        help="write deterministic simulated collections (NTCIR qrels + TREC runs)",
        description="Write simulated test collections shaped like the NTCIR CLIR data of papers "
                    "000/001 (Table 1): OUT/qrels.txt (NTCIR form TOPIC DOCID Lk), OUT/runs/RUN.run "
                    "(TREC 6-column form) and OUT/params.json. Written atomically (temporary "
                    "directory beside OUT, committed when complete: the simulation's files of an "
                    "earlier run replaced, the other files in OUT left as they are). The model is described in docs/simulation.md.",
    )
    p.add_argument("presets", nargs="*", metavar="PRESET",
                   help="preset names (default: all four: ntcir3-chinese ntcir3-japanese "
                        "ntcir5-chinese ntcir5-japanese)")
    p.add_argument("--out-root", default=None,
                   help="write each preset to OUT_ROOT/PRESET (default: data/simulated)")
    p.add_argument("--out", help="output directory (exactly one preset, or --params without a preset)")
    p.add_argument("--params", metavar="JSON", type=_json_object,
                   help="JSON object of parameters overriding the preset (e.g. "
                        "'{\"topics\": 20, \"seed\": 7}'); see metaeval.simulate.SimParams")
    p.add_argument("--seed", type=int, help="override the preset's seed")
    p.add_argument("--list", action="store_true", help="print the presets' parameters and exit")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=run, out_kind="folder", _parser=p)
    return p


def _json_object(text: str) -> dict:
    """``--params``'s value: a JSON object, else a usage error (exit 2) saying what is wrong."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise argparse.ArgumentTypeError(f"not valid JSON: {e}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object ({{\"topics\": 20, ...}}), got {text!r}")
    return value


def run(args) -> int:
    from ..errors import ConfigError
    from ..simulate import PRESETS, SimParams, write_collection

    if args.list:
        json.dump({k: v.to_dict() for k, v in PRESETS.items()}, sys.stdout, indent=1, sort_keys=True)
        print()
        return 0
    if args.out and args.out_root is not None:   # one output: --out or OUT_ROOT/PRESET, not both ignored
        args._parser.error("--out-root names the folder of every preset's output; with --out (one folder) give "
                           "one of them")
    args.out_root = "data/simulated" if args.out_root is None else args.out_root
    overrides = dict(args.params or {})           # a JSON object: checked as it is parsed (_json_object)
    base_name = overrides.pop("preset", None)
    if args.seed is not None:
        overrides["seed"] = args.seed
    names = list(args.presets) or ([base_name] if base_name else None)
    if names is None:
        names = [None] if (args.out and overrides) else sorted(PRESETS)
    if args.out and len(names) != 1:
        raise ConfigError("--out takes exactly one preset")
    for name in names:
        if name is not None and name not in PRESETS:
            raise ConfigError(f"unknown preset {name!r}; known: {', '.join(sorted(PRESETS))}")
        base = PRESETS[name].to_dict() if name else SimParams().to_dict()
        try:
            params = SimParams.from_dict({**base, **overrides})
        except (TypeError, ValueError) as e:
            raise ConfigError(f"simulation parameters{f' of {name}' if name else ''}: {e}") from None
        out = args.out or f"{args.out_root}/{name}"
        t0 = time.perf_counter()
        try:
            write_collection(params, out)
        except ValueError as e:             # parameters that cannot be simulated (too few candidates)
            raise ConfigError(f"simulation parameters{f' of {name}' if name else ''}: {e}") from None
        if not args.quiet:
            print(f"metaeval simulate: {args.out_shown or out}: {params.topics} topics, {params.runs} runs "
                  f"({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
    return 0
