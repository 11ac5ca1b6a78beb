"""The drop-in for TREC's ``ndeval`` 4.5 (``metaeval ndeval``), one package:

* :mod:`.reader` -- qrels and runs as ndeval reads them;
* :mod:`.dropin` -- ndeval's rows, means and risk-sensitive mode, printed as ndeval prints them;
* :mod:`.cli` -- the command line.

The measures themselves are :mod:`metaeval.metrics.ndeval` (shared with the diversity measures of
:mod:`metaeval.metrics.diversity`); the tokenizer is :mod:`metaeval.io._text`'s.  Nothing is
imported here, so the command loads only what it uses.
"""
