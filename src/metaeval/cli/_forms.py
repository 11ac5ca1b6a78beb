"""``--qrels-form`` / ``--intent-probs``: the qrels forms beside NTCIR/TREC (shared by ``ingest``,
``matrices`` and ``evaluate``)."""

from __future__ import annotations

import argparse


def add_form_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--qrels-form", choices=("auto", "intents", "ec"), default="auto",
                   help="qrels form: 'auto' (NTCIR, TREC or NTCIREVAL per-topic, told apart by shape; "
                        "default), 'intents' (diversity: TOPIC INTENT DOCID REL, ndeval's form) or "
                        "'ec' (equivalence classes: TOPIC DOCID Lk CLASS)")
    p.add_argument("--intent-probs", metavar="FILE", default=None,
                   help="with --qrels-form intents: intent probabilities 'TOPIC INTENT PROB' "
                        "(default: uniform over each topic's intents)")


def check_form_args(parser: argparse.ArgumentParser, args) -> None:
    if getattr(args, "intent_probs", None) and getattr(args, "qrels_form", "auto") != "intents":
        parser.error("--intent-probs needs --qrels-form intents")
