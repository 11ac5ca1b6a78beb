"""Small shared helpers: atomic output files and folders, gzip-transparent opening."""

from __future__ import annotations

import contextlib
import errno
import gzip
import io
import os
import stat
from pathlib import Path
from typing import IO
from collections.abc import Iterator, Sequence


def open_text(path: str | os.PathLike) -> IO[str]:
    """A UTF-8 text file opened for reading, the one text reader of every input: its bytes read once
    (:func:`source_bytes`: a FIFO or process substitution too), gzip (by magic number, any suffix)
    decompressed, a leading byte-order mark dropped (``utf-8-sig``) and CRLF read as LF."""
    global _LAST_OPENED
    path = Path(path)
    _LAST_OPENED = path
    return io.TextIOWrapper(io.BytesIO(text_bytes(path)), encoding="utf-8-sig", errors="strict")


# ------------------------------------------------------------------ every input read once
#: bytes read by a sniffing step, kept for the parser: ``{path: (identity, bytes)}``
_SOURCES: dict[str, tuple[tuple, bytes]] = {}


def _identity(st: os.stat_result) -> tuple:
    """What tells a kept read from a changed file: a regular file's inode, size and time; a stream
    (FIFO, process substitution, device) can be read once only, so its kept bytes are the input."""
    if stat.S_ISREG(st.st_mode):
        return ("file", st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    return ("stream", st.st_dev, st.st_ino)


def source_bytes(path: str | os.PathLike, keep: bool = False) -> bytes:
    """The raw bytes of the input ``path`` (a regular file, a FIFO, ``<(cmd)``'s ``/dev/fd/N``),
    read once: a sniffing step asks with ``keep=True`` and the parser gets the same bytes, without
    opening the path again (a stream could not be read twice; a file could change in between).  A
    regular file's kept bytes are handed over once (the parser's call drops them); a stream's stay,
    since no second read could give them.  ``OSError`` as ``open`` raises it."""
    key = os.path.abspath(os.fspath(path))
    st = os.stat(key)
    ident = _identity(st)
    held = _SOURCES.get(key)
    if held is not None and held[0] == ident:
        if not keep and ident[0] == "file":
            del _SOURCES[key]
        return held[1]
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
    with open(key, "rb") as fh:
        data = fh.read()
    if keep or ident[0] == "stream":
        _SOURCES[key] = (ident, data)
    return data


def release_sources() -> None:
    """Drop the bytes kept by sniffing steps whose parser never came (a cache hit, an error)."""
    _SOURCES.clear()


def is_input_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` is readable as one input: a regular file, or a stream (a FIFO, ``<(cmd)``'s
    ``/dev/fd/N``, a device) -- anything that exists and is not a folder."""
    try:
        return not stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def broken_link(path: str | os.PathLike) -> str | None:
    """Why ``path`` cannot be followed -- ``"a dangling symbolic link"``, ``"a symbolic link loop"``
    -- or None (a path that is no link, or one that resolves)."""
    if not os.path.islink(path):
        return None
    try:
        os.stat(path)
    except OSError as e:
        return "a symbolic link loop" if e.errno == errno.ELOOP else "a dangling symbolic link"
    return None


def folder_files(folder: str | os.PathLike, what: str = "input") -> list[Path]:
    """The input files of ``folder`` in name order (hidden names left out): regular files and
    streams; a symbolic link that cannot be followed is an
    :class:`~metaeval.errors.InputError` naming it, not a file silently left out."""
    from .errors import InputError

    out = []
    for p in sorted(Path(folder).iterdir()):
        if p.name.startswith("."):
            continue
        why = broken_link(p)
        if why is not None:
            raise InputError(f"{why} in the {what} folder (remove it or point it at a file)", p)
        if is_input_file(p):
            out.append(p)
    return out


def check_input_link(path: str | os.PathLike, what: str = "input") -> None:
    """A named ``path`` that is a symbolic link that cannot be followed: an
    :class:`~metaeval.errors.InputError` saying so."""
    from .errors import InputError

    why = broken_link(path)
    if why is not None:
        raise InputError(f"{what} is {why}", path)


# ------------------------------------------------------------------ sizes against memory
def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def available_memory() -> int | None:
    """Bytes this process may still allocate: the machine's available memory, lowered by an
    address-space limit (``ulimit -v``) less what the process already maps; None if unknown."""
    avail = _meminfo_available()
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):
        soft = -1
    if soft not in (-1, getattr(resource, "RLIM_INFINITY", -1)) and soft > 0:
        used = 0
        try:
            with open("/proc/self/status", encoding="ascii") as fh:
                for line in fh:
                    if line.startswith("VmSize:"):
                        used = int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            pass
        left = max(0, soft - used)
        avail = left if avail is None else min(avail, left)
    return avail


def human_bytes(n: float) -> str:
    """``n`` bytes in binary units, three significant digits (``1.5 GiB``)."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} EiB"


def check_memory(n_bytes: float, what: str, option: str) -> None:
    """Refuse, before allocating them, ``n_bytes`` that this process cannot have
    (:func:`available_memory`): an :class:`~metaeval.errors.InputError` in one line saying how
    much ``what`` would need, how much there is, and the option to lower -- not numpy's
    ``_ArrayMemoryError`` traceback."""
    avail = available_memory()
    if avail is None or n_bytes <= avail:
        return
    from .errors import InputError

    raise InputError(f"{what} would need {human_bytes(n_bytes)} of memory, {human_bytes(avail)} available: "
                     f"lower {option}")


def file_args(value, what: str) -> list[str]:
    """``value`` -- a path, or a list of paths -- as the list of paths an API function that reads
    files takes; a DataFrame (or anything else that is no path) is a ``TypeError`` in one line
    naming ``what``, not its columns or its printout taken for file names."""
    items = [value] if isinstance(value, (str, os.PathLike)) or hasattr(value, "columns") else value
    try:
        items = list(items)
    except TypeError:
        items = [items]
    for v in items:
        if not isinstance(v, (str, os.PathLike)):
            kind = "a DataFrame" if hasattr(v, "columns") else f"a {type(v).__name__}"
            raise TypeError(f"{what}: {kind} where a file path is expected; this function reads files (write "
                            f"the frame with DataFrame.to_csv(path, sep=' ', header=False, index=False))")
    return [os.fspath(v) for v in items]


def gunzip(raw: bytes) -> bytes:
    """gzip data decompressed: ISA-L's gzip (2-3x faster than zlib's) when installed (imported
    here, not with the module: most files read are plain).  ``OSError``/``EOFError`` when corrupt."""
    try:
        from isal import igzip
    except ImportError:  # pragma: no cover - depends on the environment
        return gzip.decompress(raw)
    return igzip.decompress(raw)


def text_bytes(path: str | os.PathLike, keep: bool = False) -> bytes:
    """:func:`source_bytes` with gzip (by magic number) decompressed."""
    raw = source_bytes(path, keep)
    return gunzip(raw) if raw[:2] == b"\x1f\x8b" else raw


#: the file :func:`open_text` opened last (named by the command line when reading it fails midway)
_LAST_OPENED: Path | None = None


def last_opened() -> Path | None:
    """The file :func:`open_text` opened last, or None."""
    return _LAST_OPENED


def current_umask() -> int:
    """The process's file mode creation mask (read without changing it where Linux allows)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def public_mkstemp(**kwargs) -> tuple[int, str]:
    """:func:`tempfile.mkstemp` whose file gets the mode any ``open()`` would give it (0666 minus the
    umask: 0644 under umask 022) instead of mkstemp's private 0600."""
    import tempfile                   # here: the commands that only read need none of it

    fd, tmp = tempfile.mkstemp(**kwargs)
    os.fchmod(fd, 0o666 & ~current_umask())
    return fd, tmp


def public_mkdtemp(**kwargs) -> str:
    """:func:`tempfile.mkdtemp` whose folder gets the mode ``mkdir`` would give it (0777 minus the
    umask: 0755 under umask 022) instead of mkdtemp's private 0700."""
    import tempfile

    tmp = tempfile.mkdtemp(**kwargs)
    os.chmod(tmp, 0o777 & ~current_umask())
    return tmp


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", **kwargs) -> Iterator[IO]:
    """Write ``path`` via a temporary file in the same folder, renamed into place on success.

    On any exception the temporary file is removed and ``path`` is untouched, so a rejected input
    never leaves a half-written output behind.  The file gets the mode ``open()`` would give it
    (the umask applies), not mkstemp's private 0600.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = public_mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_dir_outputs(paths: Sequence[str | os.PathLike]) -> Iterator[None]:
    """Remove every path in ``paths`` if the block raises (for multi-file outputs)."""
    try:
        yield
    except BaseException:
        for p in paths:
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                os.unlink(p)
        raise


# ------------------------------------------------------------------ whole-folder replacement
_KINDS = (".new-", ".ready-", ".old-")      # sibling temporary folders: .NAME.KIND-PID-XXXX
#: the temporary folders this process is writing now (not stale though they carry its pid)
_WRITING: set[Path] = set()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2(RENAME_EXCHANGE)``); False if unsupported."""
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return False
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    AT_FDCWD, RENAME_EXCHANGE = -100, 2
    if fn(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) != 0:
        err = ctypes.get_errno()
        if err in (22, 38, 95):             # EINVAL/ENOSYS/EOPNOTSUPP: the file system cannot exchange
            return False
        raise OSError(err, os.strerror(err), str(a))
    return True


def clean_stale(path: str | os.PathLike) -> None:
    """Remove the sibling temporary folders ``.NAME.new-PID-*`` (and ``.ready-``/``.old-``) left
    by earlier runs of :func:`replace_dir` that were killed (their process is gone).  Where atomic
    exchange is unsupported, a kill between moving the old folder away and moving the complete new
    one (``.ready-``) in is completed: the new folder is moved into place."""
    import shutil

    path = Path(path)
    parent = path.parent
    if not parent.is_dir():
        return
    for p in sorted(parent.glob(f".{glob_escape(path.name)}.*-*-*")):
        rest = p.name[len(path.name) + 1:]
        kind = next((k for k in _KINDS if rest.startswith(k)), None)
        if kind is None:
            continue
        try:
            pid = int(rest[len(kind):].split("-")[0])
        except ValueError:
            continue
        if (pid != os.getpid() and _pid_alive(pid)) or p in _WRITING:
            continue                         # another run (or this process) is writing right now
        if kind == ".ready-" and not path.exists():
            os.rename(p, path)
            continue
        shutil.rmtree(p, ignore_errors=True)


def glob_escape(name: str) -> str:
    import glob

    return glob.escape(name)


def _merge_into(src: Path, dst: Path) -> None:
    """Move every entry of the folder ``src`` into the existing folder ``dst``, entry by entry: a
    file (or link) replaces its namesake atomically (``os.replace``); a sub-folder that ``dst`` lacks
    is renamed in whole (atomically), one it has is merged the same way.  Entries of ``dst`` that
    ``src`` does not hold -- other commands' outputs in a shared folder, the user's files -- are
    never touched."""
    import errno
    import shutil

    for e in sorted(src.iterdir()):
        d = dst / e.name
        if e.is_dir() and not e.is_symlink():
            if d.is_dir() and not d.is_symlink():
                _merge_into(e, d)
                continue
            if d.is_symlink() or d.exists():
                os.unlink(d)                        # a file where this output has a folder
            try:
                os.rename(e, d)
            except OSError as err:                  # made meanwhile by another command: merged
                if err.errno not in (errno.EEXIST, errno.ENOTEMPTY) or not d.is_dir():
                    raise
                _merge_into(e, d)
            continue
        if d.is_dir() and not d.is_symlink():
            shutil.rmtree(d)                        # a folder where this output has a file
        os.replace(e, d)


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """``SIGINT`` and ``SIGTERM`` received inside the block are delivered when it ends (in the main
    thread; elsewhere the block runs as is): the few renames that publish an output are not cut in
    two by Ctrl-C or a scheduler's ``SIGTERM``."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []
    old = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) is not signal.SIG_IGN:
            old[sig] = signal.signal(sig, lambda signum, frame: got.append(signum))
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        for signum in dict.fromkeys(got):
            signal.raise_signal(signum)


def published_name(folder) -> str:
    """The name ``folder`` has once published: a folder :func:`replace_dir` writes under its
    temporary name ``.NAME.new-PID-XXXX`` (or within another's, ``..NAME.new-PID-X.new-PID-Y``) is
    ``NAME``; any other folder its own name."""
    import re

    name = Path(folder).name
    while (m := re.match(r"^\.(.+)\.new-\d+-[^/.]*$", name)):     # nested: ..NAME.new-1-x.new-1-y
        name = m.group(1)
    return name


@contextlib.contextmanager
def replace_dir(path: str | os.PathLike, *, keep_old: bool = True) -> Iterator[Path]:
    """Write an output folder at once: yields a fresh sibling folder ``.NAME.new-PID-XXXX`` to write
    into; when the block ends without an exception its entries are published in ``path``.

    * ``path`` absent: the folder is renamed into place as a whole (atomically).
    * ``path`` present (``keep_old``, the default): the written entries are committed into it one
      by one (:func:`_merge_into`): each file replaces its namesake atomically, a sub-folder
      ``path`` lacks is renamed in whole, one it has is merged the same way.  Nothing else in
      ``path`` is removed or rewritten: the folder may be shared -- the pipeline's jobs write their
      tables side by side in ``COLLECTION/tables/``, even at the same time -- and the user's own
      files stay.  ``SIGINT``/``SIGTERM`` arriving during the renames take effect after them.
    * ``keep_old=False``: ``path`` is the command's alone and is replaced as a whole, by one atomic
      ``renameat2(RENAME_EXCHANGE)`` on Linux (a process killed at any moment leaves the complete
      old or the complete new folder); elsewhere: rename the old folder away, then the new one in
      (a kill between the two is completed by the next run, see :func:`clean_stale`).
    * Temporary folders of earlier killed runs are removed first (:func:`clean_stale`).
    * ``path`` naming an existing file (not a folder) is an :class:`~metaeval.errors.InputError`.
    * On an exception the temporary folder is removed and ``path`` is untouched.
    """
    import errno
    import shutil

    path = Path(path)
    check_out(path, "folder", "output path")
    parent = path.parent
    made = _make_parents(parent)
    try:
        clean_stale(path)
        tmp = Path(public_mkdtemp(prefix=f".{path.name}.new-{os.getpid()}-", dir=parent))
    except BaseException:
        _remove_made(made)
        raise
    writing = tmp
    _WRITING.add(writing)
    try:
        yield tmp
        if not path.is_dir():
            try:
                os.rename(tmp, path)
                return
            except OSError as err:                  # made meanwhile by another command: merged below
                if err.errno not in (errno.EEXIST, errno.ENOTEMPTY) or not path.is_dir():
                    raise
        if keep_old:
            with _signals_deferred():
                _merge_into(tmp, path)
            shutil.rmtree(tmp, ignore_errors=True)      # the folders emptied by the merge
            return
        if _exchange(tmp, path):
            shutil.rmtree(tmp, ignore_errors=True)      # tmp now holds the old output
            return
        ready = Path(str(tmp).replace(".new-", ".ready-", 1))
        os.rename(tmp, ready)
        tmp = ready
        old = Path(str(tmp).replace(".ready-", ".old-", 1))
        os.rename(path, old)
        os.rename(ready, path)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        _remove_made(made)
        raise
    finally:
        _WRITING.discard(writing)


def _make_parents(parent: Path) -> list[Path]:
    """Make ``parent`` and its missing ancestors; the folders made, deepest first."""
    made = []
    p = parent
    while not p.exists() and p != p.parent:
        made.append(p)
        p = p.parent
    parent.mkdir(parents=True, exist_ok=True)
    return made


def _remove_made(made: list[Path]) -> None:
    for p in made:                                  # deepest first; a folder someone filled stays
        with contextlib.suppress(OSError):
            p.rmdir()


def check_out(path: str | os.PathLike, kind: str = "folder", option: str = "--out") -> None:
    """Refuse an output path before any input is read (:class:`~metaeval.errors.InputError`, one
    line): ``kind`` ``"folder"``: ``path`` a folder or absent; ``"file"``: a file or absent;
    ``"any"``: either; and the nearest existing folder above it one this process may write in (its
    missing folders are made when the output is written)."""
    from .errors import InputError

    path = Path(path)
    if kind == "folder" and path.exists() and not path.is_dir():
        raise InputError(f"{option} exists and is not a folder", path)
    if kind == "file" and path.is_dir():
        raise InputError(f"{option} is a folder, not a file", path)
    p = path.parent
    while not p.exists() and p != p.parent:
        p = p.parent
    if not p.is_dir():
        raise InputError(f"{option}: {p} is not a folder", path)
    if not os.access(p, os.W_OK | os.X_OK):
        raise InputError(f"{option}: cannot write in {p} (permission denied)", path)
    try:                                   # what access() cannot tell (root, read-only mounts, /proc)
        import tempfile

        with tempfile.TemporaryFile(dir=p):
            pass
    except OSError as e:
        raise InputError(f"{option}: cannot write in {p} ({e.strerror or e})", path) from None


def file_name(name: str, what: str = "name") -> str:
    """``name`` (a set name, label, run or measure name) as the one file or folder name it becomes:
    returned unchanged, or refused (``ValueError``, one line naming ``what``) when it is empty,
    ``.`` or ``..``, or holds a path separator, ``..`` or a control character -- a name never
    reaches outside the folder it is written in, nor makes folders of its own."""
    import unicodedata

    text = str(name)
    bad = None
    if text in ("", ".", ".."):
        bad = "is not a file name"
    elif "/" in text or "\\" in text or (os.altsep and os.altsep in text):
        bad = "holds a path separator"
    elif ".." in text:
        bad = "holds '..'"
    elif any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in text):
        bad = "holds a control character"
    if bad is not None:
        raise ValueError(f"{what} {text!r} {bad}; it names a file, so give a plain name")
    return text
