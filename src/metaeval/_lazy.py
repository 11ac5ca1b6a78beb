"""Names of a package imported on first use (PEP 562), so that importing the package stays fast:
``__getattr__, __dir__ = lazy_attributes(__name__, {name: submodule})`` in its ``__init__``."""

from __future__ import annotations


def lazy_attributes(package: str, table: dict[str, str]):
    """``(__getattr__, __dir__)`` of ``package``: each name of ``table`` is looked up in its
    submodule (relative to ``package``) when first asked for."""

    def __getattr__(name):
        if name in table:
            from importlib import import_module

            return getattr(import_module(f"{package}.{table[name]}"), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        import sys

        return sorted(set(vars(sys.modules[package])) | set(table))

    return __getattr__, __dir__


def moved_module(old: str, new: str) -> None:
    """Make the module ``old`` (a path kept for one release after its code moved) the module ``new``
    itself: ``sys.modules[old]`` is ``new``'s module object, so every name, private ones too, and
    every monkeypatch reach the one module.  Warns once (``DeprecationWarning``) naming the new path."""
    import sys
    import warnings
    from importlib import import_module

    warnings.warn(f"{old} moved to {new}; the old path goes in the next release", DeprecationWarning,
                  stacklevel=3)
    sys.modules[old] = import_module(new)
