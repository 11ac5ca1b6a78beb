"""Values computed once, on demand: the caching pattern of every measure family, public.

A context that measures share (:class:`metaeval.metrics.context.EvalContext`, the trec_eval
engine's rankings and buckets, a C/W/L case) derives from :class:`Memo`; a measure keeps what it
derives from the context there, under a key naming the measure family and its parameters::

    ap_terms = ctx.cached(("trec_eval", "ap", rel), lambda: ...)

The value is computed the first time and returned as is afterwards (the caller does not modify
it).  Standard library only."""

from __future__ import annotations

from typing import Any
from collections.abc import Callable, Hashable

__all__ = ["Memo"]


class Memo:
    """A per-object cache: ``cached(key, fn)`` is ``fn()`` the first time, the same object after;
    ``memo`` holds the values (a subclass calls ``Memo.__init__`` or sets ``memo`` itself)."""

    memo: dict

    def __init__(self) -> None:
        self.memo = {}

    def cached(self, key: Hashable, fn: Callable[[], Any]) -> Any:
        d = self.memo
        if key not in d:
            d[key] = fn()
        return d[key]
