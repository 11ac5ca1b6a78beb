"""Build hook for the optional C extensions (the rest is in pyproject.toml): the trec_eval drop-in's
``metaeval.treceval._trecscan`` (its run scanner) and ``metaeval.treceval._trecfmt`` (its per-topic
lines), and the shared ``metaeval._reader`` (the hot loops of metaeval's own reader,
``metaeval.io._cext``); the first and the last share C's number parsing, ``src/metaeval/_cnum.h``.

``optional=True``: without a C compiler (or Python headers) their build is skipped with a warning
and metaeval installs anyway; ``metaeval.treceval.ranking`` then reads runs with its pure-numpy path
(docs/io.md, "trec_eval run scanner"), ``metaeval trec_eval`` prints with Python's '%' and every
other reader takes its numpy code.
"""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("metaeval.treceval._trecscan", ["src/metaeval/treceval/_trecscan.c"], optional=True,
              extra_compile_args=["-O2"], include_dirs=["src/metaeval"], depends=["src/metaeval/_cnum.h"]),
    Extension("metaeval.treceval._trecfmt", ["src/metaeval/treceval/_trecfmt.c"], optional=True,
              extra_compile_args=["-O2"]),
    # metaeval's own reader (shares _cnum.h with the trec_eval scanner)
    Extension("metaeval._reader", ["src/metaeval/_reader.c"], optional=True, extra_compile_args=["-O2"],
              depends=["src/metaeval/_cnum.h"]),
])
