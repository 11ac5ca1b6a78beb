"""Build hook for the optional C extensions (the rest is in pyproject.toml): ``metaeval._trecscan``
(trec_eval's run scanner) and ``metaeval._trecfmt`` (trec_eval's per-topic lines).

``optional=True``: without a C compiler (or Python headers) their build is skipped with a warning
and metaeval installs anyway; ``metaeval.io.treceval`` then reads runs with its pure-numpy path
(docs/io.md, "trec_eval run scanner") and ``metaeval trec_eval`` prints with Python's '%'.
"""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("metaeval._trecscan", ["src/metaeval/_trecscan.c"], optional=True, extra_compile_args=["-O2"]),
    Extension("metaeval._trecfmt", ["src/metaeval/_trecfmt.c"], optional=True, extra_compile_args=["-O2"]),
])
