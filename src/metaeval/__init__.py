"""metaeval: evaluate information-retrieval evaluation metrics.

Layers (each importable alone):

* :mod:`metaeval.io` -- files (TREC / NTCIR qrels and runs) -> :class:`metaeval.collection.Collection`
* :mod:`metaeval.collection` -- the labelled collection as (run x topic x rank) arrays
* :mod:`metaeval.metrics` -- per-topic metric matrices (run x topic) for every measure at once
* :mod:`metaeval.meta` -- meta-evaluation: Kendall's tau, bootstrap sensitivity, swap, stability
* :mod:`metaeval.tables`, :mod:`metaeval.figures` -- published outputs
* :mod:`metaeval.simulate` -- deterministic NTCIR-like default collections
* :mod:`metaeval.kishida` -- Kishida (2005) indicators and analyses
"""

__version__ = "0.1.0"


def __getattr__(name):
    """``metaeval.compare(scores, ...)``: :func:`metaeval.meta.compare.compare`, imported on first use."""
    if name == "compare":
        from .meta.compare import compare

        return compare
    raise AttributeError(f"module 'metaeval' has no attribute {name!r}")
