"""The drop-in for NTCIREVAL's single-topic ``ntcir_eval`` (``metaeval ntcir``; Sakai 2011), one package:

* :mod:`.cli` -- ``label`` and ``compute``;
* :mod:`.diversity` -- ``glabel``, ``gcompute``, ``irec`` and the ``-ec`` forms;
* :mod:`._common` -- what both read (a file or stdin, relevance labels, value lists).

NTCIREVAL's measures are the library's own (:mod:`metaeval.metrics.ranked`, printed by
:mod:`metaeval.metrics.ntcir`) and its relevance files are read by :mod:`metaeval.io.qrels`: the
package adds the command line.  Nothing is imported here, so the command loads only what it uses.
"""
