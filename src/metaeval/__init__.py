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

One call from a notebook (``docs/python.md``): :func:`metaeval.evaluate` (qrels + runs, paths or
pandas DataFrames -> tidy ``run, topic, measure, value``) and :func:`metaeval.meta_evaluate`
(scores -> every meta-evaluation table as a DataFrame, ``.write(out_dir)`` for files and figures);
every call that computes tables returns a :class:`metaeval.Result` (``.tables``, ``.write(out)``).
"""

from . import _plugins
from ._lazy import lazy_attributes

__version__ = "0.2.0"


def _measure_families() -> None:
    """Import every module that registers measures, in the registry's order: the one place that
    names them (:mod:`metaeval.metrics.registry` calls this on its first use; a new family of
    measures is one more import here)."""
    from .metrics import ranked  # noqa: F401
    from .kishida import measures  # noqa: F401
    from .metrics import diversity, irm  # noqa: F401
    from .treceval import adapter  # noqa: F401
    from .cwl import adapter as cwl_adapter  # noqa: F401


_plugins.MEASURE_FAMILIES.append(_measure_families)

# The one-call API, imported on first use so that ``import metaeval`` stays fast and loads neither
# pandas, matplotlib nor Snakemake: evaluate / meta_evaluate (metaeval.api), compare
# (metaeval.meta.compare) and rank_correlation (metaeval.meta.rankcorr).
_API = {"evaluate": "api", "meta_evaluate": "api", "MetaResult": "api", "Result": "api", "compare": "api",
        "rank_correlation": "meta.rankcorr", "incompleteness": "api",
        "judgments": "api",                 # judgments as a dimension: assessors, LLM judges, hybrids
        "standardisation": "api",           # score standardisation experiments (Urbano et al. 2019)
        "test_errors": "api",               # simulated error rates of the tests (Urbano et al. 2019)
        "ppi": "api",                       # prediction-powered intervals of a judge's scores
        "reproducibility": "api",           # was it reproduced? (Breuer et al. 2020)
        "bayes": "api",                     # Bayesian inference (Sakai 2017; Benham et al. 2020)
        "run_stage": "api"}                 # a stage with a job of its own (a plug-in's own job)
__all__ = ["__version__", *_API]  # noqa: PLE0604 - the names of the lazy table

__getattr__, __dir__ = lazy_attributes(__name__, _API)
