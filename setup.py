"""Build hook for the optional C extension ``metaeval._trecscan`` (the rest is in pyproject.toml).

``optional=True``: without a C compiler (or Python headers) the build of the extension is skipped
with a warning and metaeval installs anyway; ``metaeval.io.treceval`` then reads runs with its
pure-numpy path (docs/io.md, "trec_eval run scanner").
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("metaeval._trecscan", ["src/metaeval/_trecscan.c"], optional=True,
                             extra_compile_args=["-O2"])])
