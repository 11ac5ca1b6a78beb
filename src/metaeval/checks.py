"""Checks of a pipeline configuration against its input files, run before any job starts.

``check_collections(config)`` finds, at Snakemake's parse time, the input errors that would
otherwise fail inside a job: a missing or unreadable qrels file, a run directory or glob without
files, and gains that do not fit the qrels (the gains rule of docs/io.md: the number of gains is H,
gains must not decrease, the qrels may not use a level above H).  ``schema_error(config, schema)``
words a schema violation in at most two lines (the key, and its allowed neighbours).
"""

from __future__ import annotations

from .errors import InputError

__all__ = ["check_collection", "check_collections", "schema_error"]


def _read_qrels(qrels, form, max_level):
    """The qrels of a configured collection, read in its form (``qrels_form``)."""
    if form == "intents":
        from .io.intents import read_intent_qrels

        return read_intent_qrels(qrels, max_level)
    if form == "ec":
        from .io.ec import read_ec_qrels

        return read_ec_qrels(qrels, max_level)[0]
    from .io.qrels import read_qrels

    return read_qrels(qrels, max_level=max_level)


def check_collection(name: str, qrels, runs, gains=None, max_level=None, qrels_form=None) -> None:
    """Raise :class:`InputError` (message starting ``collections.NAME:``) if the inputs of one
    configured collection are unusable.  Reads the qrels (cheap) and lists the run files; it does
    not parse runs."""
    from .metrics.registry import check_gain_order, parse_gains
    from .io.runs import expand_runs

    def fail(e: Exception) -> InputError:
        return InputError(f"collections.{name}: {e}")

    try:
        expand_runs(runs)
        q = _read_qrels(qrels, qrels_form or "auto", max_level)
        if gains is not None:
            g = parse_gains(gains)
            check_gain_order(g, gains)
            if max_level is not None and int(max_level) != len(g):
                raise InputError(f"gains {gains!r} give H = {len(g)} but max_level is {max_level}")
            if len(g) < q.max_level:
                raise InputError(f"gains {gains!r} give H = {len(g)} but the qrels use level "
                                 f"L{q.max_level}: labels above H are an error", str(qrels))
            if max_level is None:
                import warnings

                from .errors import InputWarning
                from .metrics.registry import warn_extra_gains

                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", InputWarning)
                    warn_extra_gains(g, q.max_level, gains)
                for w in caught:
                    warnings.warn(f"collections.{name}: {w.message}", InputWarning, stacklevel=2)
    except (InputError, ValueError) as e:
        raise fail(e) from None


def check_collections(config: dict, error: type[Exception] | None = None) -> None:
    """:func:`check_collection` for every non-simulated collection of a validated config; with
    ``error`` (e.g. Snakemake's ``WorkflowError``) the message is re-raised as that type."""
    for name, c in (config.get("collections") or {}).items():
        if "simulate" in c:
            continue
        try:
            check_collection(name, c["qrels"], c["runs"], c.get("gains"), c.get("max_level"),
                             c.get("qrels_form"))
        except InputError as e:
            if error is None:
                raise
            raise error(f"config: {e}") from None


def _where(path) -> str:
    return ".".join(str(p) for p in path) or "top level"


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def validate_config(config: dict, schema: dict) -> str | None:
    """Validate ``config`` against ``schema`` (JSON Schema 2020-12) and fill in the schema's
    defaults, as ``snakemake.utils.validate(config, schema_file)`` does (jsonschema's validator
    extended to set each property's ``default``, the recipe of jsonschema's FAQ) -- on the schema
    already read, not read again: the workflow is parsed by Snakemake and by every job on a
    cluster.  Returns None, else the violation in one or two lines (:func:`schema_error`)."""
    import jsonschema
    from jsonschema import validators

    base = jsonschema.Draft202012Validator
    check_properties = base.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, sub):
        for name, subschema in properties.items():
            if "default" in subschema:
                instance.setdefault(name, subschema["default"])
        yield from check_properties(validator, properties, instance, sub)

    filling = validators.extend(base, {"properties": set_defaults})
    try:
        filling(schema).validate(config)
    except jsonschema.exceptions.ValidationError:
        return schema_error(config, schema) or "config: does not validate against workflow/schemas/config.schema.yaml"
    return None


def schema_error(config: dict, schema: dict) -> str | None:
    """The first violation of ``schema`` (JSON Schema 2020-12) by ``config`` as one or two lines
    (``None`` if it validates): an unknown key with its closest spelling and the keys allowed there,
    a missing key, or the violated rule -- never the schema itself."""
    import difflib

    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    err = jsonschema.exceptions.best_match(validator.iter_errors(config))
    if err is None:
        return None
    where = _where(err.absolute_path)
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        allowed = list(err.schema.get("properties", {}))
        unknown = [k for k in err.instance if k not in allowed]
        key = unknown[0] if unknown else "?"
        near = difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.6) or \
            [a for a in allowed if a.lower() == str(key).lower()]
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        return (f"config: {where}: unknown key {key!r}{hint}\n"
                f"  allowed {'top-level keys' if where == 'top level' else f'keys of {where}'}: "
                f"{', '.join(allowed)}")
    if err.validator == "oneOf" and "simulate" in err.schema.get("oneOf", [{}])[0].get("required", []):
        inst = err.instance if isinstance(err.instance, dict) else {}
        if "simulate" in inst:
            return (f"config: {where}: give either `simulate:` (a simulated collection) or `qrels:` and "
                    f"`runs:` (a real one), not both")
        missing = [k for k in ("qrels", "runs") if k not in inst]
        return (f"config: {where}: `{'` and `'.join(missing)}:` missing (a real collection needs `qrels:` "
                f"and `runs:`, a simulated one `simulate:`)")
    if err.validator == "propertyNames":
        return f"config: {where}: name {err.instance!r} not allowed: {_short(err.message)}"
    return f"config: {where}: {_short(err.message)}"
