"""The C/W/L family and its drop-in ``metaeval cwl_eval`` (cwl_eval 1.0.12; Azzopardi, Thomas & Moffat
2019), one package:

* :mod:`.reader` -- cwl_eval's gain, result, cost and metrics files;
* :mod:`.measures` -- the metrics (continuation, weights, the five quantities) in cwl_eval's order,
  with :mod:`.dot`, the fixed-order dot products that stand for cwl_eval's BLAS ``ddot``;
* :mod:`.adapter` -- the measures in the registry as ``cwl.NAME`` (loaded by the registry);
* :mod:`.cli` -- the command ``metaeval cwl_eval``.

Over the shared toolkit: :mod:`metaeval.io._text` (the tokenizer), :mod:`metaeval.detmath`.
Nothing is imported here, so the command loads only what it uses.
"""
