"""Where a sweep's files live: a local directory or any fsspec URL (a shared filesystem or an object store).

A :class:`Store` is the output directory of one sweep. Every file the runner and the workers
write goes through it, under fixed relative names (``manifest.json``, ``.lock``,
``games/cell-<id>/part-...``, ``events/<table>/cell-<id>/part-...``); a relative name made of
anything but plain components raises, so no spec or game can make a sweep write outside its
directory.

Writes are atomic: on a local filesystem a temporary file (``.<name>.tmp-<pid>``) is renamed into
place; on an object store an object appears only once its upload completes, so it is written in
place. Either way a file that exists is complete.

The lock that keeps a second sweep out of a directory is ``flock`` on ``.lock`` for a local
directory (released by the kernel when the process dies, even by SIGKILL), and a lease object
``.lock`` elsewhere: it names its holder and is renewed every 20 s while the sweep runs; a lease
not renewed for 90 s is stale and may be taken over. Object stores offer no atomic
create-if-absent, so the lease is best-effort: two sweeps started within the same instant may both
get it. Keep one sweep per output URL.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import re
import shutil
import socket
import stat
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from ..errors import SpecError, SweepStateError

__all__ = ["Store", "is_url"]

#: one path component the runner may create: letters, digits, ``_ . = -``, not starting with a dot
#: (the hidden files are the lock and the writers' temporary files, which never go through ``path``)
_COMPONENT = re.compile(r"^[A-Za-z0-9_=\-][A-Za-z0-9_.=\-]*$")
_HIDDEN = {".lock"}
LEASE_RENEW_S = 20.0
#: the largest manifest or summary read (a larger one, or an endless file behind a symlink, is refused)
MAX_TEXT = 512 * 2**20
#: columns written without a dictionary: the games table's game index and seed (unique per row)
PLAIN_COLUMNS = frozenset({"game_index", "seed"})
LEASE_STALE_S = 90.0
#: rows of one Parquet row group (pyarrow's default for ``write_table``)
ROW_GROUP_ROWS = 1024 * 1024
#: a table of at most this many rows is handed to the Parquet writer as one batch a column
#: (``write_batch_size``; pyarrow's default, kept for larger tables, is 1,024 values). The writer
#: checks its 1 MiB page and dictionary limits between batches (a 300,000-row column with a
#: distinct double a row gives up its dictionary at another row), and a column of 65,536 values
#: of up to 8 bytes (512 KiB) reaches neither, so such a part (every automatic chunk: at most
#: 50,000 games) is written byte for byte as with the default; about 8% less writing time for a measured battle part
#: (fewer per-batch checks of page size, levels and validity).
WRITE_BATCH_ROWS = 64 * 1024


def is_url(out: str | os.PathLike) -> bool:
    """True when ``out`` names a filesystem by protocol (``s3://``, ``memory://``, ``file://``...)."""
    return isinstance(out, str) and "://" in out


def _check_rel(rel: str) -> str:
    parts = rel.split("/")
    for p in parts:
        if p in _HIDDEN or _COMPONENT.match(p):
            continue
        raise ValueError(f"refusing to write {rel!r}: not a plain relative name under the output directory")
    return rel


def _local_files(base: str) -> list[str]:
    """Every file under a local folder (or the file itself), as ``base/...`` paths, like fsspec's ``find``."""
    if not os.path.isdir(base):
        return [base]
    out = []
    for d, dirs, files in os.walk(base):
        out += [f"{d}/{f}" for f in files]
        for sub in dirs:  # a linked folder is not walked into (no loops), but its files are listed, so
            link = f"{d}/{sub}"  # verify can name them as reached through a link
            if os.path.islink(link) and os.path.isdir(link):
                out += [f"{link}/{f}" for f in os.listdir(link) if os.path.isfile(f"{link}/{f}")]
    return sorted(out)


class Store:
    """An output directory on a local disk or behind an fsspec URL.

    Args:
        out: a local path (``str`` or ``Path``) or an fsspec URL (``file:///...``, ``memory://...``,
            ``s3://bucket/prefix``: object stores need their fsspec package, e.g. ``s3fs``).

    Attributes:
        url: what workers are given to reach the same directory: an absolute local path, or the URL.
        display: the directory as the user wrote it (for messages).
        local: True when the directory is on a local (or mounted shared) filesystem.

    Raises:
        SpecError: an unknown protocol, or one whose fsspec package is not installed.
    """

    def __init__(self, out: str | os.PathLike):
        if not str(out).strip():
            raise SpecError("--out must not be empty")
        self.display = str(out)
        self._fs = None  # a local directory is read and written with os calls: fsspec is imported when asked for
        if is_url(out):
            import fsspec
            from fsspec.implementations.local import LocalFileSystem
            try:
                self._fs, root = fsspec.core.url_to_fs(out)
            except ImportError as e:
                raise SpecError(f"--out {out}: {' '.join(str(e).split())}") from None
            except (ValueError, TypeError) as e:
                raise SpecError(f"--out {out}: {' '.join(str(e).split())}") from None
            self.local = isinstance(self._fs, LocalFileSystem)
        else:
            root, self.local = os.path.abspath(os.fspath(out)), True
        self.root = root.rstrip("/") or "/"
        if self.local:
            self.url = self.root
        else:
            proto = self.fs.protocol if isinstance(self.fs.protocol, str) else self.fs.protocol[0]
            self.url = out if isinstance(out, str) else f"{proto}://{self.root}"

    @property
    def fs(self):
        """The directory's fsspec filesystem (``LocalFileSystem`` for a local path, made on first use)."""
        if self._fs is None:
            from fsspec.implementations.local import LocalFileSystem
            self._fs = LocalFileSystem()
        return self._fs

    # ------------------------------------------------------------------ paths
    def path(self, rel: str = "") -> str:
        """The full path of a relative name (checked: plain components only)."""
        if not rel:
            return self.root
        return f"{self.root}/{_check_rel(rel)}"

    def exists(self, rel: str = "") -> bool:
        return os.path.exists(self.path(rel)) if self.local else self.fs.exists(self.path(rel))

    def is_dir(self, rel: str = "") -> bool:
        return os.path.isdir(self.path(rel)) if self.local else self.fs.isdir(self.path(rel))

    def is_empty(self) -> bool:
        """True when the directory is missing or holds nothing but a lock file."""
        if not self.exists():
            return True
        if self.local:
            names = os.listdir(self.root) if os.path.isdir(self.root) else [os.path.basename(self.root)]
        else:
            names = [p.rstrip("/").rsplit("/", 1)[-1] for p in self.fs.ls(self.root, detail=False)]
        return self.is_dir() and all(n == ".lock" for n in names)

    def find(self, rel: str, suffix: str = ".parquet") -> list[str]:
        """Relative names of the files under ``rel`` ending in ``suffix`` (temporary files excluded), sorted."""
        base = self.path(rel)
        if not self.exists(rel):
            return []
        out = []
        for p in (_local_files(base) if self.local else self.fs.find(base)):
            name = p.rsplit("/", 1)[-1]
            if name.endswith(suffix) and not name.startswith("."):
                out.append(p[len(self.root) + 1:] if p.startswith(self.root + "/") else _relative(p, self.root))
        return sorted(out)

    # ------------------------------------------------------------------ reading and writing
    def open(self, rel: str, mode: str = "rb"):
        """A file of the directory, opened (``"rb"`` or ``"wb"``; a local file with :func:`open`)."""
        return open(self.path(rel), mode) if self.local else self.fs.open(self.path(rel), mode)

    def read_text(self, rel: str, limit: int = MAX_TEXT) -> str:
        """A text file of the directory (a manifest, a summary), at most ``limit`` bytes.

        Raises:
            ValueError: a local path that is not a regular file (a FIFO, /dev/zero behind a
                symlink) or a file over ``limit`` bytes; OSError as :func:`open`.
        """
        if self.local:
            st = os.stat(self.path(rel))
            if not stat.S_ISREG(st.st_mode):
                raise ValueError(f"{rel} is not a regular file")
        with self.open(rel) as fh:
            data = fh.read(limit + 1)
        if len(data) > limit:
            raise ValueError(f"{rel} is larger than {limit // 2**20} MiB")
        return data.decode()

    def read_json(self, rel: str) -> Any:
        return json.loads(self.read_text(rel))

    def makedirs(self, rel: str = "") -> None:
        if self.local:
            os.makedirs(self.path(rel), exist_ok=True)
        elif rel == "":
            self.fs.makedirs(self.path(rel), exist_ok=True)

    def write_bytes(self, rel: str, data: bytes) -> None:
        """Write a file atomically (see the module docstring)."""
        path = self.path(rel)
        if self.local:
            parent = os.path.dirname(path)
            os.makedirs(parent, exist_ok=True)
            # process and thread in the name: threads of one process write parts at once
            tmp = os.path.join(parent, f".{os.path.basename(path)}.tmp-{os.getpid()}-{threading.get_ident()}")
            try:
                with open(tmp, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, path)
            except BaseException:  # a full disk, an interrupt: leave no temporary file behind
                with contextlib.suppress(OSError):
                    os.remove(tmp)
                raise
        else:
            with self.fs.open(path, "wb") as fh:
                fh.write(data)

    def write_json(self, rel: str, obj: Any) -> None:
        self.write_bytes(rel, (json.dumps(obj, indent=2, default=str) + "\n").encode())

    def write_parquet(self, rel: str, table) -> None:
        """Write a pyarrow Table as an lz4-compressed Parquet file, atomically.

        Every column is dictionary-encoded but those of :data:`PLAIN_COLUMNS` (one distinct
        value a row: a dictionary there costs writing time and saves no space). The
        encoding is Parquet's own: every reader gets the same values and types.

        A ``dictionary<..., string>`` column (how :func:`simlab.sweeps.chunks.build_games_table`
        builds its string columns, which saves the writer hashing a string a row) is written as its
        values' type: the file's Arrow schema (``ARROW:schema``) is the table's with each dictionary
        type replaced by its value type, so every reader gets ``string``, as for a plain string
        column. When the dictionary holds the values used, in order of first use (as
        :func:`~simlab.sweeps.chunks._labels` builds it), the file is byte for byte the one the plain
        strings give. The table's schema metadata (``simlab``) is the file's key-value metadata.
        A table of up to :data:`WRITE_BATCH_ROWS` rows is written one batch a column (same file)."""
        plain = [c for c in table.column_names if c in PLAIN_COLUMNS]
        opts = {"compression": "lz4", "write_page_checksum": True,  # CRCs: verify finds a flipped bit
                "use_dictionary": [c for c in table.column_names if c not in PLAIN_COLUMNS] if plain else True,
                **({"write_batch_size": WRITE_BATCH_ROWS} if table.num_rows <= WRITE_BATCH_ROWS else {})}
        path = self.path(rel)
        if self.local:
            parent = os.path.dirname(path)
            os.makedirs(parent, exist_ok=True)
            # process and thread in the name: threads of one process write parts at once
            tmp = os.path.join(parent, f".{os.path.basename(path)}.tmp-{os.getpid()}-{threading.get_ident()}")
            _write_parquet(table, tmp, opts)
            os.replace(tmp, path)
        else:
            buf = io.BytesIO()
            _write_parquet(table, buf, opts)
            with self.fs.open(path, "wb") as fh:
                fh.write(buf.getvalue())

    def read_parquet(self, rel: str, columns: list[str] | None = None):
        import pyarrow.parquet as pq
        with self.open(rel) as fh:
            return pq.read_table(fh, columns=columns)

    def remove(self, rel: str) -> None:
        """Delete a file or a folder tree (missing is fine)."""
        path = self.path(rel)
        with contextlib.suppress(FileNotFoundError, OSError):
            if not self.local:
                if self.fs.exists(path):
                    self.fs.rm(path, recursive=True)
            elif os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            elif os.path.lexists(path):
                os.remove(path)

    def clean_tmp(self) -> None:
        """Delete temporary files left by writers that died (local directories only)."""
        if not self.local:
            return
        for sub in ("games", "events"):
            d = Path(self.root) / sub
            if d.exists():
                for p in d.rglob(".*.tmp-*"):
                    with contextlib.suppress(OSError):
                        p.unlink()
        for p in Path(self.root).glob(".*.tmp-*"):
            with contextlib.suppress(OSError):
                p.unlink()

    def dataset(self, files: list[str]):
        """A pyarrow dataset over relative file names."""
        import pyarrow.dataset as ds
        fmt = ds.ParquetFileFormat(  # a page whose CRC fails raises instead of giving altered rows
            default_fragment_scan_options=ds.ParquetFragmentScanOptions(page_checksum_verification=True))
        if self.local:
            return ds.dataset([self.path(f) for f in files], format=fmt)
        return ds.dataset([self.path(f) for f in files], format=fmt, filesystem=self.fs)

    # ------------------------------------------------------------------ locking
    def lock(self) -> _FlockLock | _LeaseLock:
        """A context manager holding the directory for one sweep.

        Raises:
            SweepStateError: (on entry) another sweep holds it.
        """
        return _FlockLock(self) if self.local else _LeaseLock(self)

    def check_free(self) -> None:
        """Raise SweepStateError if another sweep holds the directory now (writes nothing)."""
        if not self.exists(".lock"):
            return
        if self.local:
            try:
                fh = open(self.path(".lock"))
            except OSError:
                return
            with fh:
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    raise SweepStateError(_busy(self, fh.read().strip())) from None
                fcntl.flock(fh, fcntl.LOCK_UN)
        else:
            _LeaseLock(self).check()


def _write_parquet(table, where, opts: dict) -> None:
    """``pq.write_table(table, where, **opts)`` for a table whose dictionary columns are to be read
    as their value type (see :meth:`Store.write_parquet`)."""
    import base64

    import pyarrow as pa
    import pyarrow.parquet as pq
    schema = table.schema
    if not any(pa.types.is_dictionary(f.type) for f in schema):
        pq.write_table(table, where, **opts)
        return
    stored = pa.schema([f.with_type(f.type.value_type) if pa.types.is_dictionary(f.type) else f for f in schema],
                       metadata=schema.metadata)
    if table.num_rows > ROW_GROUP_ROWS:
        # several row groups: each slice would carry the whole dictionary (not the labels its rows
        # use, in their order), so the file would differ from the plain strings' one; write those
        pq.write_table(table.cast(stored), where, **opts)
        return
    bare = table.replace_schema_metadata(None)
    with pq.ParquetWriter(where, bare.schema, store_schema=False, **opts) as w:
        # what the writer stores itself, in its order: the Arrow schema, then the table's metadata
        w.add_key_value_metadata({"ARROW:schema": base64.b64encode(stored.serialize().to_pybytes()).decode()})
        if schema.metadata:
            w.add_key_value_metadata({k.decode(): v.decode() for k, v in schema.metadata.items()})
        w.write_table(bare)


def _relative(p: str, root: str) -> str:
    # some filesystems return paths without the leading slash the root has (or the reverse)
    a, b = p.lstrip("/"), root.lstrip("/")
    return a[len(b) + 1:] if a.startswith(b + "/") else a


def _busy(store: Store, holder: str) -> str:
    who = f" (process {holder})" if holder else ""
    return f"another sweep{who} is writing to {store.display}; wait for it to finish or choose another --out"


class _FlockLock:
    def __init__(self, store: Store):
        self.store = store
        self.fh = None

    def __enter__(self):
        path = self.store.path(".lock")
        self.fh = open(path, "a+")
        try:
            fcntl.flock(self.fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = ""
            with contextlib.suppress(OSError):
                self.fh.seek(0)
                holder = self.fh.read().strip()
            self.fh.close()
            raise SweepStateError(_busy(self.store, holder)) from None
        self.fh.seek(0)
        self.fh.truncate()
        self.fh.write(f"{socket.gethostname()}:{os.getpid()}\n")
        self.fh.flush()
        return self

    def __exit__(self, *exc):
        with contextlib.suppress(OSError):
            fcntl.flock(self.fh, fcntl.LOCK_UN)
        self.fh.close()
        return False


class _LeaseLock:
    def __init__(self, store: Store):
        self.store = store
        self.token = uuid.uuid4().hex
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def _write(self) -> None:
        self.store.write_json(".lock", {"token": self.token, "host": socket.gethostname(), "pid": os.getpid(),
                                        "renewed": time.time()})

    def check(self) -> None:
        """Raise SweepStateError if a live lease is there."""
        if self.store.exists(".lock"):
            try:
                old = self.store.read_json(".lock")
                age = time.time() - float(old.get("renewed", 0))
            except (OSError, ValueError, TypeError, AttributeError):
                old, age = {}, LEASE_STALE_S + 1
            if age <= LEASE_STALE_S:
                raise SweepStateError(
                    _busy(self.store, f"{old.get('host')}:{old.get('pid')}, lease renewed {age:.0f} s ago"))

    def __enter__(self):
        self.check()
        self._write()
        self.thread = threading.Thread(target=self._renew, name="simlab-lease", daemon=True)
        self.thread.start()
        return self

    def _renew(self) -> None:
        while not self.stop.wait(LEASE_RENEW_S):
            with contextlib.suppress(Exception):
                self._write()

    def __exit__(self, *exc):
        self.stop.set()
        if self.thread is not None:
            self.thread.join(timeout=5)
        with contextlib.suppress(Exception):
            if self.store.read_json(".lock").get("token") == self.token:
                self.store.remove(".lock")
        return False
