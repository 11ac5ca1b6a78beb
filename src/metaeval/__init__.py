"""metaeval: evaluate information-retrieval evaluation metrics.

Layers (each importable alone; see docs/architecture.md):

* :mod:`metaeval.io` -- files (TREC / NTCIR qrels and runs) -> :class:`metaeval.collection.Collection`
* :mod:`metaeval.collection` -- the labelled collection as (run x topic x rank) arrays
* :mod:`metaeval.metrics` -- per-topic metric matrices (run x topic) for every measure at once
* :mod:`metaeval.meta` -- meta-evaluation: Kendall's tau, bootstrap sensitivity, swap, stability
* :mod:`metaeval.outputs` -- the declaration of every published table and figure
* :mod:`metaeval.report` -- writes them (CSV / Markdown / LaTeX tables, PNG / PDF figures)
* :mod:`metaeval.simulate` -- deterministic NTCIR-like default collections
* :mod:`metaeval.kishida` -- Kishida (2005) indicators and analyses
"""

__version__ = "0.1.0"
