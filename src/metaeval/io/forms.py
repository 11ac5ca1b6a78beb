"""One entry point per qrels form, and the npz cache of a loaded collection.

* :func:`load_form` -- qrels in the declared form (``auto``: NTCIR, TREC or NTCIREVAL per-topic
  qrels; ``intents``: per-intent diversity qrels; ``ec``: equivalence classes) + runs ->
  the collection of that form;
* :func:`load_or_build` -- the same through an npz cache keyed by the content of the input files.

Above the per-form readers (:mod:`metaeval.io.ingest`, :mod:`metaeval.io.intents`,
:mod:`metaeval.io.ec`), which do not import it: the readers import downward only.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import replace
from pathlib import Path
from collections.abc import Callable, Iterable

from ..collection import Collection
from ..errors import InputError
from .ec import load_ec_collection
from .ingest import _runs_arg, _runs_info, load_collection
from .intents import load_diversity_collection
from .qrels import Qrels, qrels_files

__all__ = ["QRELS_FORMS", "load_form", "load_or_build", "fingerprint"]


QRELS_FORMS = ("auto", "intents", "ec")


def load_form(qrels, runs, qrels_form: str | None = None, intent_probs=None, order: str | None = None,
              depth: int | None = 1000, max_level: int | None = None, progress=None,
              trec_eval_version: int = 10):
    """Load a collection in the declared qrels form: ``auto``/None (NTCIR, TREC or NTCIREVAL
    per-topic qrels: :func:`metaeval.io.load_collection`), ``intents`` (per-intent diversity
    qrels: :func:`metaeval.io.intents.load_diversity_collection`) or ``ec`` (equivalence classes:
    :func:`metaeval.io.ec.load_ec_collection`)."""
    form = qrels_form or "auto"
    if form not in QRELS_FORMS:
        raise ValueError(f"qrels form must be one of {', '.join(QRELS_FORMS)}, got {form!r}")
    if intent_probs is not None and form != "intents":
        raise InputError("intent probabilities apply to the per-intent qrels form only "
                         "(--qrels-form intents)", intent_probs)
    if form != "auto" and order is None:
        order = "file"                   # declared forms keep NTCIREVAL's order (docs/io.md, "Conventions")
    if form == "intents":
        return load_diversity_collection(qrels, runs, intent_probs, order=order, depth=depth,
                                         max_level=max_level, progress=progress,
                                         trec_eval_version=trec_eval_version)
    if form == "ec":
        return load_ec_collection(qrels, runs, order=order, depth=depth, max_level=max_level,
                                  progress=progress, trec_eval_version=trec_eval_version)
    return load_collection(qrels, runs, order=order, depth=depth, max_level=max_level,
                           progress=progress, trec_eval_version=trec_eval_version)


def fingerprint(path: str | os.PathLike) -> str:
    """Content key of one input file: its size and a BLAKE2b hash of its bytes (not its mtime: a
    file replaced by another with an older or equal mtime must not keep the old values)."""
    from ..util import is_input_file, source_bytes

    h = hashlib.blake2b(digest_size=16)
    if is_input_file(path) and not os.path.isfile(path):     # a FIFO, <(cmd): read once, kept for the reader
        data = source_bytes(path, keep=True)
        h.update(data)
        return f"{len(data)}:{h.hexdigest()}"
    size = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 22):
            h.update(chunk)
            size += len(chunk)
    return f"{size}:{h.hexdigest()}"


def _fingerprints(paths: Iterable[str]) -> dict[str, str]:
    try:
        return {str(p): fingerprint(p) for p in paths}
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", e.filename) from None


def load_or_build(qrels, runs, cache_path: str | os.PathLike, order: str | None = None,
                  depth: int | None = 1000, max_level: int | None = None,
                  progress: Callable[[int, int, str], None] | None = None, *,
                  qrels_form: str | None = None, intent_probs=None, trec_eval_version: int = 10) -> Collection:
    """Load the npz cache at ``cache_path`` if it was built from the same input files (same paths,
    same sizes and same content hashes: :func:`fingerprint`) with the same
    ``order``/``depth``/``max_level``/``qrels_form``/``intent_probs``/``trec_eval_version``; otherwise build it (with
    :func:`load_collection`, or :func:`load_form` for the ``intents`` and ``ec``
    forms) and save it (atomically).  File times play no part."""
    form = qrels_form or "auto"
    cache_path = Path(cache_path)
    if form == "auto":
        qfiles = list(qrels.sources) if isinstance(qrels, Qrels) else [f for f, _ in qrels_files(qrels)]
    else:
        qfiles = [str(qrels)]
    extra = [] if intent_probs is None else [str(intent_probs)]
    sources = _runs_arg(runs)
    if order is None:
        from .conventions import default_order

        order = default_order(None, qrels, sources, qrels_form)
    prints = _fingerprints(list(qfiles) + extra + [f for s in sources for f in s.files])
    if cache_path.exists():
        try:
            c = Collection.load(cache_path)
        except Exception:  # noqa: BLE001 -- an unreadable cache is rebuilt
            c = None
        if c is not None:
            info = c.info
            same = ((form != "auto" or c.has_documents)       # caches before document identity: rebuilt
                    and info.get("order") == order and info.get("depth") == depth
                    and info.get("runs") == _runs_info(sources) and sorted(info.get("qrels", [])) == sorted(qfiles)
                    and (info.get("qrels_form") if info.get("qrels_form") in ("intents", "ec") else "auto") == form
                    and info.get("intent_probs") == (extra[0] if extra else None)
                    and info.get("trec_eval_version", 9) == trec_eval_version
                    and (max_level is None or info.get("max_level") == max_level)
                    and info.get("fingerprints") == prints)
            if same:
                return c
    if form == "auto":
        c = load_collection(qrels, sources, order=order, depth=depth, max_level=max_level, progress=progress,
                            trec_eval_version=trec_eval_version)
    else:
        c = load_form(qrels, sources, form, intent_probs, order=order, depth=depth, max_level=max_level,
                      progress=progress, trec_eval_version=trec_eval_version)
    c = replace(c, info={**c.info, "fingerprints": prints})
    c.save(cache_path)
    return c
