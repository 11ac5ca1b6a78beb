"""The one publisher of output folders: every command's ``--out`` (:func:`metaeval.cli.run_command`)
and the API's ``.write(out)`` / ``out=`` go through :func:`publishing`.

The output is written into a fresh folder beside the target (``.NAME.new-PID-XXXX``) and committed
when complete (docs/io.md, "Output folders"):

* **Ownership.**  The manifest ``OUT/.metaeval-manifest.json`` lists, per command, the files that
  command wrote into ``OUT``.  A rerun of a command replaces exactly the files it writes now and
  removes the ones it wrote last time and does not write now (stale); it never touches a file it
  does not own: such a file at a path it writes (or a file where it writes a folder) is a clash,
  refused with one line naming it before anything moves (:class:`~metaeval.errors.InputError`).
* **Adoption.**  A command without an entry in the manifest (a folder written by an older
  metaeval, without a manifest, or by other commands) takes over the files at exactly the paths
  it writes -- an earlier run's output -- unless another command owns them; nothing else.
* **All or nothing.**  The old files it replaces or removes are first moved aside, then the new
  ones in, then the manifest is written; a failing move (a read-only sub-folder, a full disk) or a
  signal (``SIGINT``, ``SIGTERM``, ``SIGHUP``, ``SIGQUIT``: deferred while committing) moves
  everything back: the earlier output stays byte-identical and nothing is left beside it.
* **Paths.**  ``--out`` empty, a FIFO, a device or a symbolic link to anything but a folder is a
  usage error (:func:`check_target`); a link to a folder is published in the folder it names.
  Errors name the final path, never the temporary folder.

Standard library only.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

from .errors import ConfigError, InputError, UsageError
from .util import _WRITING, _make_parents, _remove_made, check_out, clean_stale, public_mkdtemp, public_mkstemp

#: the file of an output folder that lists which command wrote which of its files
MANIFEST = ".metaeval-manifest.json"
_FORMAT = 1
#: the signals deferred while a commit runs (each rolls it back, then takes effect)
_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")


def check_target(path: str | os.PathLike, option: str = "--out") -> None:
    """Refuse (:class:`~metaeval.errors.UsageError`, exit 2) an output path that names no place a
    folder or file can be written: empty, a FIFO, a device or socket, or a symbolic link to anything
    but a folder (a link to a folder is followed)."""
    text = os.fspath(path)
    if text == "" or (isinstance(text, str) and not text.strip()):
        raise UsageError(f"{option}: empty path; name the output folder")
    p = Path(text)
    try:
        st = os.lstat(p)
    except OSError:                       # absent, or below a file: :func:`metaeval.util.check_out` says which
        return
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.stat(p)
        except OSError:
            raise UsageError(f"{option} {text}: a symbolic link to nothing; give a folder") from None
        if not stat.S_ISDIR(target.st_mode):
            raise UsageError(f"{option} {text}: a symbolic link to {_kind(target.st_mode)}, not a folder; "
                             "give a folder") from None
        return
    if not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
        raise UsageError(f"{option} {text}: {_kind(st.st_mode)}, not a folder or file; give a folder")


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISREG(mode):
        return "a file"
    return "a special file"


@contextlib.contextmanager
def publishing(path: str | os.PathLike, owner: str, *, shown: str | None = None,
               option: str = "output folder", accumulate: bool = False) -> Iterator[Path]:
    """Yield a fresh folder beside ``path`` to write the output of command ``owner`` into; when the
    block ends without an exception it is committed into ``path`` (:func:`commit`; ``accumulate``:
    the files it wrote before and does not write now are kept, a folder of one file per measure
    that grows run by run, as ``metaeval matrices`` writes).  On an exception
    the folder is removed and ``path`` is untouched; an error naming a path inside it names the
    final path (``shown``: how the user wrote ``path``) instead."""
    check_target(path, option)
    check_out(path, "folder", option)
    dest = Path(path)
    shown = os.fspath(path) if shown is None else shown
    if dest.is_symlink():                      # a link to a folder: published where it points
        dest = Path(os.path.realpath(dest))
    made = _make_parents(dest.parent)
    try:
        clean_stale(dest)
        tmp = Path(public_mkdtemp(prefix=f".{dest.name}.new-{os.getpid()}-", dir=dest.parent))
    except BaseException:
        _remove_made(made)
        raise
    _WRITING.add(tmp)
    try:
        try:
            yield tmp
            commit(tmp, dest, owner, shown, accumulate=accumulate)
        except OSError as e:
            raise _mapped(e, tmp, dest, shown) from None
        except (InputError, ConfigError) as e:
            if str(tmp) in str(e):
                raise type(e)(_text(str(e), tmp, dest, shown)) from None
            raise
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        _remove_made(made)
        raise
    finally:
        _WRITING.discard(tmp)
        shutil.rmtree(tmp, ignore_errors=True)           # after a merge: the folders it emptied


def _text(text: str, tmp: Path, dest: Path, shown: str) -> str:
    return text.replace(str(tmp), shown).replace(str(dest), shown)


def _mapped(e: OSError, tmp: Path, dest: Path, shown: str) -> OSError:
    """``e`` with its file names inside the temporary folder (or ``dest``) named as the user wrote
    ``--out``."""
    for attr in ("filename", "filename2"):
        name = getattr(e, attr, None)
        if isinstance(name, str):
            setattr(e, attr, _text(name, tmp, dest, shown))
    return e


# ------------------------------------------------------------------ the manifest
def _files(folder: Path) -> list[str]:
    """The files (and symbolic links) under ``folder``, as sorted ``/``-separated relative paths;
    the manifest at its top left out."""
    out = []
    for root, dirs, files in os.walk(folder):
        r = Path(root)
        for d in list(dirs):
            if (r / d).is_symlink():
                dirs.remove(d)
                files.append(d)
        out += [(r / f).relative_to(folder).as_posix() for f in files]
    return sorted(f for f in out if f != MANIFEST)


def read_manifest(folder: str | os.PathLike, shown: str | None = None) -> dict[str, list[str]]:
    """``{command: [relative paths]}`` of ``folder``'s manifest (empty: none)."""
    p = Path(folder) / MANIFEST
    name = f"{shown or folder}/{MANIFEST}"
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (ValueError, UnicodeDecodeError) as e:
        raise InputError(f"not a metaeval manifest ({e}); remove it to let metaeval adopt the files", name) from None
    owners = data.get("owners") if isinstance(data, dict) else None
    if not isinstance(owners, dict) or not all(isinstance(v, list) and all(isinstance(f, str) for f in v)
                                               for v in owners.values()):
        raise InputError("not a metaeval manifest (no 'owners' object of file lists); remove it to let "
                         "metaeval adopt the files", name)
    return {str(k): list(v) for k, v in owners.items()}


def _manifest_text(owners: dict[str, list[str]]) -> str:
    body = {"format": _FORMAT, "written_by": "metaeval (docs/io.md, 'Output folders')",
            "owners": {k: sorted(v) for k, v in sorted(owners.items()) if v}}
    return json.dumps(body, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


# ------------------------------------------------------------------ the commit
class _Interrupted(KeyboardInterrupt):
    """A signal arrived while committing: roll back, then let it take effect."""


@contextlib.contextmanager
def _deferred_signals() -> Iterator[list[int]]:
    """The signals of :data:`_SIGNALS` received inside the block are recorded (the list yielded)
    and delivered when it ends, in the main thread (elsewhere the block runs as is)."""
    import signal
    import threading

    got: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield got
        return
    old = {}
    for name in _SIGNALS:
        sig = getattr(signal, name, None)
        if sig is not None and signal.getsignal(sig) is not signal.SIG_IGN:
            old[sig] = signal.signal(sig, lambda signum, frame: got.append(signum))
    try:
        yield got
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        for signum in dict.fromkeys(got):
            signal.raise_signal(signum)


def _check(got: list[int]) -> None:
    if got:
        raise _Interrupted


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """An exclusive lock on ``folder`` (commands publishing into one folder at once, as the
    pipeline's jobs do, commit one after the other)."""
    import fcntl

    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def commit(tmp: Path, dest: Path, owner: str, shown: str | None = None, *, accumulate: bool = False) -> None:
    """Publish the files of the folder ``tmp`` as command ``owner``'s output in ``dest`` (see the
    module's docstring); ``tmp`` is left empty or holding only what it did not publish."""
    shown = str(dest) if shown is None else shown
    new = _files(tmp)
    with _deferred_signals() as got:
        if not dest.is_dir():
            os.rename(_stage_manifest(tmp, _manifest_text({owner: new})), tmp / MANIFEST)
            try:
                os.rename(tmp, dest)
            except OSError as err:                  # made meanwhile by another command: merged below
                if err.errno not in (errno.EEXIST, errno.ENOTEMPTY) or not dest.is_dir():
                    raise
                os.unlink(tmp / MANIFEST)
            else:
                if got:                             # interrupted as it happened: undone
                    os.rename(dest, tmp)
                    raise _Interrupted
                return
        with _locked(dest):
            _merge(tmp, dest, owner, new, got, shown, accumulate)


def _clash(path: str, why: str) -> InputError:
    return InputError(f"{why}; metaeval does not replace a file it did not write (move it away or choose "
                      "another --out)", path)


def _plan(dest: Path, owner: str, new: list[str], owners: dict[str, list[str]],
          shown: str) -> tuple[list[str], list[str]]:
    """The files of ``dest`` the commit replaces and the stale ones it removes; a clash raised."""
    mine = set(owners.get(owner, ()))
    others = {f: o for o, files in owners.items() if o != owner for f in files}
    adopting = owner not in owners
    replaced = []
    checked: set[str] = set()
    for rel in new:
        parts = rel.split("/")
        for i in range(1, len(parts)):
            anc = "/".join(parts[:i])
            if anc in checked:
                continue
            checked.add(anc)
            p = dest / anc
            if os.path.lexists(p) and (p.is_symlink() or not p.is_dir()):
                raise _clash(f"{shown}/{anc}", "exists and is not a folder, where this output writes the folder "
                                               f"{anc}/")
        p = dest / rel
        if not os.path.lexists(p):
            continue
        if p.is_dir() and not p.is_symlink():
            raise _clash(f"{shown}/{rel}", "is a folder, where this output writes a file")
        if rel in mine or (adopting and rel not in others):
            replaced.append(rel)
            continue
        raise _clash(f"{shown}/{rel}", f"written by `metaeval {others[rel]}`" if rel in others
                     else f"not written by this command (not in {MANIFEST})")
    stale = [rel for rel in sorted(mine - set(new))
             if os.path.lexists(dest / rel) and ((dest / rel).is_symlink() or not (dest / rel).is_dir())]
    return replaced, stale


def _merge(tmp: Path, dest: Path, owner: str, new: list[str], got: list[int], shown: str,
           accumulate: bool = False) -> None:
    owners = read_manifest(dest, shown)
    replaced, stale = _plan(dest, owner, new, owners, shown)
    taken = set(new)
    after = {o: [f for f in files if f not in taken] for o, files in owners.items() if o != owner}
    after[owner] = new
    if accumulate:                                      # the earlier files stay, still its own
        after[owner] = sorted(taken | set(stale))
        stale = []
    staged = _stage_manifest(dest, _manifest_text(after))      # first: a full disk fails before any move
    backup = Path(public_mkdtemp(prefix=f".{dest.name}.old-{os.getpid()}-", dir=dest.parent))
    moved_out: list[str] = []
    moved_in: list[str] = []
    made: list[Path] = []
    placed = False
    had = (dest / MANIFEST).is_file()
    try:
        if had:                                         # kept in place (a kill mid-way leaves it), linked aside
            os.link(dest / MANIFEST, backup / MANIFEST)
        for rel in replaced + stale:
            (backup / rel).parent.mkdir(parents=True, exist_ok=True)     # the old files aside, to the end
            os.rename(dest / rel, backup / rel)
            moved_out.append(rel)
            _check(got)
        for rel in new:                                 # the new ones in
            made += _mkdirs(dest, Path(rel).parent)
            os.rename(tmp / rel, dest / rel)
            moved_in.append(rel)
            _check(got)
        os.rename(staged, dest / MANIFEST)
        placed = True
        _check(got)
    except BaseException:
        if placed:                                      # undone in reverse
            with contextlib.suppress(OSError):
                if had:
                    os.replace(backup / MANIFEST, dest / MANIFEST)
                else:
                    os.unlink(dest / MANIFEST)
        for rel in reversed(moved_in):
            with contextlib.suppress(OSError):
                os.rename(dest / rel, tmp / rel)
        for d in reversed(made):
            with contextlib.suppress(OSError):
                d.rmdir()
        for rel in reversed(moved_out):
            with contextlib.suppress(OSError):
                os.rename(backup / rel, dest / rel)
        raise
    finally:
        with contextlib.suppress(OSError):
            os.unlink(staged)
        shutil.rmtree(backup, ignore_errors=True)
    _prune(dest, stale)


def _stage_manifest(folder: Path, text: str) -> Path:
    """``text`` written to a temporary file in ``folder`` (renamed onto the manifest as the commit's
    last move)."""
    fd, tmp = public_mkstemp(prefix=f"{MANIFEST}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return Path(tmp)


def _mkdirs(dest: Path, rel: Path) -> list[Path]:
    """Make ``dest/rel`` and its missing parents below ``dest``; the folders made, outermost first."""
    made = []
    for part in reversed([rel, *rel.parents]):
        if str(part) in ("", "."):
            continue
        p = dest / part
        if not p.is_dir():
            p.mkdir()
            made.append(p)
    return made


def _prune(dest: Path, stale: list[str]) -> None:
    """Remove the folders below ``dest`` that removing ``stale`` left empty."""
    folders = {dest / p for rel in stale for p in Path(rel).parents if str(p) not in ("", ".")}
    for d in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):
            d.rmdir()
