"""The meta-evaluation methods as pipeline stages, one module each (``NAME.py``: ``STAGE``, a
:class:`metaeval.stages.StageInfo` with its parameters, tables, cost and ``run``), indexed by
:data:`metaeval.stages.INDEX`; :mod:`.common` declares the parameters they share.  Importing a
stage module loads the standard library only (numpy and pandas inside ``run``), so that the
Snakefile and the option parsers read the declarations cheaply.  docs/architecture.md, "Add a
stage", lists the files a new one touches."""
