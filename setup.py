"""Build hook for the optional C extensions (the rest is in pyproject.toml): ``metaeval._trecscan``
(trec_eval's run scanner), ``metaeval._trecfmt`` (trec_eval's per-topic lines) and
``metaeval._reader`` (the hot loops of metaeval's own reader, ``metaeval.io._cext``).

``optional=True``: without a C compiler (or Python headers) their build is skipped with a warning
and metaeval installs anyway; ``metaeval.io.treceval`` then reads runs with its pure-numpy path
(docs/io.md, "trec_eval run scanner"), ``metaeval trec_eval`` prints with Python's '%' and every
other reader takes its numpy code.
"""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("metaeval._trecscan", ["src/metaeval/_trecscan.c"], optional=True, extra_compile_args=["-O2"],
              depends=["src/metaeval/_cnum.h"]),
    Extension("metaeval._trecfmt", ["src/metaeval/_trecfmt.c"], optional=True, extra_compile_args=["-O2"]),
    # issue 27, "one reader": metaeval's own reader (shares _cnum.h with _trecscan)
    Extension("metaeval._reader", ["src/metaeval/_reader.c"], optional=True, extra_compile_args=["-O2"],
              depends=["src/metaeval/_cnum.h"]),
])
