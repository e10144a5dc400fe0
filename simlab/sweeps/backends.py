"""Where chunks are played: in this process, on local worker processes, or on a Dask cluster.

A backend takes chunk tasks (:class:`simlab.sweeps.chunks.ChunkTask`) and hands back, for each, the
chunk's summary or a one-line error. Workers write their own Parquet parts; only the summaries
(a few numbers per chunk) come back, whatever the backend.

* ``local``, 1 worker: :class:`InProcess` plays chunks one after another in this process; a
  writer thread writes each chunk's parts while the next one plays.
* ``local``, N workers: :class:`Threads` runs N threads in this process. The game kernels release
  the GIL (``@njit(nogil=True)``) and pyarrow releases it while writing Parquet, so N chunks play
  at once with no worker start-up, one chunk's writing overlaps the others' play, and a script
  needs no ``if __name__ == "__main__":`` guard. A chunk that kills its process takes the sweep
  with it (a retried chunk still runs in a child process of its own).
* ``processes``: :class:`Processes` runs a pool of N spawned processes (each pays ~2 s of start-up:
  imports and numba's cache), for fault isolation: a chunk that crashes its process kills one
  worker, and the sweep goes on.
* ``dask``: :class:`Dask` submits chunks to a ``dask.distributed`` cluster: the scheduler at
  ``scheduler`` (an address such as ``tcp://10.0.0.5:8786``, or a ``distributed.Client``), or a
  ``LocalCluster`` bound to 127.0.0.1 with N single-threaded worker processes, started and stopped
  with the sweep.

The first attempt of a chunk runs on the backend's workers; a retry (``attempt=2``) runs
:func:`simlab.sweeps.isolate.play_isolated`, which plays the chunk in a child process of its own
(started by a thread of this process for the local backend, by a Dask worker for dask), so a
chunk that kills its process on every try kills only that child, never a second worker.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import re
import signal
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._version import __version__
from ..errors import SpecError
from .chunks import ChunkTask, die_with_parent, play_chunk, play_chunk_tables, write_parts
from .isolate import one_line, play_isolated

if TYPE_CHECKING:  # pragma: no cover - the process pool (and multiprocessing) is imported where one is made
    from concurrent.futures import ProcessPoolExecutor

__all__ = ["BACKENDS", "Backend", "Dask", "InProcess", "Outcome", "Processes", "Threads", "check_backend",
           "default_workers",
           "current_backend", "dask_client", "make_backend", "sweep_backend"]


def default_workers() -> int:
    """Cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


BACKENDS = ("local", "processes", "dask")
#: worker processes one machine may be asked for
MAX_WORKERS = 1024
#: seconds a dask sweep waits while its cluster has no worker at all before it stops (``--dask-timeout``)
DASK_TIMEOUT_S = 60.0


class WorkersLost(Exception):
    """The dask cluster has had no worker for the backend's timeout while chunks were waiting."""


#: how long to try to reach a dask scheduler before giving up
CONNECT_TIMEOUT = "10s"
_ADDRESS = re.compile(r"^(?:(?:tcp|tls|ucx|inproc|ws|wss)://)?[A-Za-z0-9_.\-\[\]:]+(?::\d{1,5})?/?$")


@dataclass
class Outcome:
    """What became of one attempt at a chunk: ``result`` (its summary) or ``error`` (one line).

    ``lost`` marks an attempt that never reported because the worker running it died (which on a
    retry means another chunk killed that worker: the retry itself runs in a child process and
    reports its own death as an ``error``).
    """

    task: ChunkTask
    attempt: int
    result: dict | None = None
    error: str | None = None
    lost: bool = False


def run_attempt(task: ChunkTask, attempt: int) -> dict:
    """Play a chunk where this function runs: directly on the first attempt, in a child process
    on a retry. Returns the summary or ``{"error": ...}`` (only a first attempt can raise)."""
    if attempt == 1:
        return play_chunk(task)
    return play_isolated(task)


def _as_outcome(task: ChunkTask, attempt: int, r: dict) -> Outcome:
    if "error" in r:
        return Outcome(task, attempt, error=r["error"])
    return Outcome(task, attempt, result=r)


class Backend:
    """Plays chunk tasks. ``submit`` queues one; ``wait`` blocks until at least one attempt ended."""

    name = "backend"
    #: worker slots (processes or threads that play chunks at once)
    workers: int = 1

    @property
    def slots(self) -> int:
        """Chunks to keep in flight: two per worker, so memory stays flat for any number of chunks."""
        return 2 * self.workers

    def submit(self, task: ChunkTask, attempt: int) -> None:
        raise NotImplementedError

    def pending(self) -> int:
        raise NotImplementedError

    def wait(self) -> list[Outcome]:
        raise NotImplementedError

    def check_visible(self, url: str, run_id: str, files: list[str]) -> None:
        """Check that every worker sees the output directory and the input ``files`` (scenario
        and data-pack files) at the same paths (raises SweepStateError)."""

    def stop(self) -> list[Outcome]:
        """On Ctrl-C: drop what is queued and return the outcomes of attempts that cannot be
        stopped and were let finish (the thread backend's running chunks); [] elsewhere."""
        return []

    def close(self, cancel: bool = False) -> None:
        """Stop the workers (``cancel``: drop what is still queued)."""

    def describe(self) -> dict:
        return {"backend": self.name, "workers": self.workers}


class InProcess(Backend):
    """Chunks one after another in this process (``--workers 1``): a game that kills its process
    takes the sweep with it, but an exception in a chunk is retried once like everywhere else.

    A chunk's Parquet parts are written by a writer thread while the next chunk plays (the kernels
    and pyarrow's writer both release the GIL), so writing costs the sweep little time. A chunk is
    reported done only once its parts are written; the next chunk's parts are written only after
    that report (a failed write, a full disk, is seen by the runner before anything more is
    written), so at most one played chunk waits in memory."""

    name = "local"
    #: play the next chunk while the last is written (off for a precision target, where the next
    #: chunk may not be needed: the runner sets it per sweep)
    overlap = True

    def __init__(self):
        self.workers = 1
        self.queue: deque[tuple[ChunkTask, int]] = deque()
        self.ready: tuple | None = None     # (task, attempt, writes, summary): played, not yet written
        self.writing: tuple | None = None   # (future, task, attempt, summary): being written
        self.writer: ThreadPoolExecutor | None = None

    @property
    def slots(self) -> int:
        return 2 if self.overlap else 1  # one chunk playing, the one before it being written

    def submit(self, task, attempt):
        self.queue.append((task, attempt))

    def pending(self):
        return len(self.queue) + (self.ready is not None) + (self.writing is not None)

    def wait(self):
        out: list[Outcome] = []
        if self.ready is None and self.queue:
            task, attempt = self.queue.popleft()
            if attempt > 1:  # a retry plays and writes in a child process of its own
                out.append(self._run(task, attempt, play_isolated))
            else:
                try:
                    writes, summary = play_chunk_tables(task)
                except Exception as e:
                    out.append(Outcome(task, attempt, error=one_line(e)))
                else:
                    self.ready = (task, attempt, writes, summary)
        # the write that ran while this chunk played is waited for (or, with nothing played, the last one)
        if self.writing is not None and (self.ready is not None or not out):
            o = self._written(*self.writing)
            self.writing = None
            out.append(o)
            if o.error is not None:
                return out  # the runner decides (stop on a full disk, retry) before anything more is written
        if self.ready is not None and self.writing is None:
            task, attempt, writes, summary = self.ready
            self.ready = None
            if self.writer is None:
                self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="simlab-writer")
            self.writing = (self.writer.submit(write_parts, task.out, writes), task, attempt, summary)
        return out

    @staticmethod
    def _run(task, attempt, fn) -> Outcome:
        try:
            return _as_outcome(task, attempt, fn(task))
        except Exception as e:
            return Outcome(task, attempt, error=one_line(e))

    @staticmethod
    def _written(f, task, attempt, summary) -> Outcome:
        e = f.exception()
        return Outcome(task, attempt, result=summary) if e is None else Outcome(task, attempt, error=one_line(e))

    def stop(self):
        # Ctrl-C: drop what is queued or played but unwritten; a part being written is finished and reported
        self.queue.clear()
        self.ready = None
        if self.writing is None:
            return []
        o = self._written(*self.writing)
        self.writing = None
        return [o]

    def close(self, cancel=False):
        self.queue.clear()
        self.ready = None
        if self.writer is not None:
            self.writer.shutdown(wait=True)  # a part being written is finished (each write is atomic)
            self.writer = None
        self.writing = None


class Threads(Backend):
    """A pool of ``workers`` threads in this process (see the module docstring). First attempts
    run on the pool; a retry runs in a child process of its own (:func:`play_isolated`, started by
    a thread of a second pool), as with :class:`Processes`."""

    name = "local"

    def __init__(self, workers: int):
        self.workers = workers
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="simlab-chunk")
        self.retries = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="simlab-retry")
        self.futures: dict[Any, tuple[ChunkTask, int]] = {}

    def submit(self, task, attempt):
        f = self.retries.submit(play_isolated, task) if attempt > 1 else self.pool.submit(play_chunk, task)
        self.futures[f] = (task, attempt)

    def pending(self):
        return len(self.futures)

    def wait(self, everything: bool = False):
        done, _ = wait(list(self.futures), return_when="ALL_COMPLETED" if everything else FIRST_COMPLETED)
        out = []
        for f in done:
            task, attempt = self.futures.pop(f)
            e = f.exception()
            out.append(_as_outcome(task, attempt, f.result()) if e is None else Outcome(task, attempt, error=one_line(e)))
        return out

    def stop(self):
        # a thread cannot be stopped inside a kernel: drop the queued chunks, let the running
        # ones finish (a chunk is a second or so) and report them, so every part written is counted
        for f in list(self.futures):
            if f.cancel():
                del self.futures[f]
        return self.wait(everything=True) if self.futures else []

    def close(self, cancel=False):
        self.pool.shutdown(wait=True, cancel_futures=cancel)
        self.retries.shutdown(wait=True, cancel_futures=cancel)
        self.futures = {}

    def describe(self):
        return {"backend": "local", "workers": self.workers, "pool": "threads"}


def _init_worker() -> None:  # pragma: no cover - runs in children
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()


class Processes(Backend):
    """A pool of spawned worker processes on this machine. A worker that dies breaks the pool:
    every first attempt in flight is lost, and a fresh pool takes the next ones. Retries run
    outside the pool (a thread here starts a child process per retry), so a pool that breaks
    again cannot take a retry with it."""

    name = "processes"

    def __init__(self, workers: int):
        self.workers = workers
        self.ex: ProcessPoolExecutor | None = None
        self.retries = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="simlab-retry")
        self.futures: dict[Any, tuple[ChunkTask, int]] = {}

    def _pool(self) -> ProcessPoolExecutor:
        from concurrent.futures import ProcessPoolExecutor
        from multiprocessing import get_context
        if self.ex is None:
            self.ex = ProcessPoolExecutor(max_workers=self.workers, mp_context=get_context("spawn"),
                                          initializer=_init_worker)
        return self.ex

    def submit(self, task, attempt):
        from concurrent.futures.process import BrokenProcessPool
        if attempt > 1:
            f = self.retries.submit(play_isolated, task)
        else:
            try:
                f = self._pool().submit(play_chunk, task)
            except BrokenProcessPool:
                self._drop_pool()
                f = self._pool().submit(play_chunk, task)
        self.futures[f] = (task, attempt)

    def pending(self):
        return len(self.futures)

    def _drop_pool(self) -> None:
        if self.ex is not None:
            self.ex.shutdown(wait=False, cancel_futures=True)
            self.ex = None

    def wait(self):
        from concurrent.futures.process import BrokenProcessPool
        done, _ = wait(list(self.futures), return_when=FIRST_COMPLETED)
        out = []
        broken = False
        for f in done:
            task, attempt = self.futures.pop(f)
            e = f.exception()
            if e is None:
                out.append(_as_outcome(task, attempt, f.result()))
            elif isinstance(e, BrokenProcessPool):
                broken = True
                out.append(Outcome(task, attempt, error="worker process died", lost=True))
            else:
                out.append(Outcome(task, attempt, error=one_line(e)))
        if broken:
            # every future of a broken pool fails; a fresh pool takes the next submissions
            self._drop_pool()
        return out

    def close(self, cancel=False):
        self.retries.shutdown(wait=not cancel, cancel_futures=cancel)
        if self.ex is None:
            return
        if cancel:
            procs = list((getattr(self.ex, "_processes", None) or {}).values())
            self.ex.shutdown(wait=False, cancel_futures=True)
            for p in procs:
                with contextlib.suppress(Exception):
                    p.terminate()
        else:
            self.ex.shutdown(wait=True)
        self.ex = None


def _worker_info() -> dict:  # pragma: no cover - runs on dask workers
    import platform
    return {"simlab": __version__, "python": platform.python_version(), "pid": os.getpid()}


def _worker_sees(url: str, run_id: str, files: list[str]) -> str | None:  # pragma: no cover - on dask workers
    from .store import Store
    for f in files:
        if not os.path.isfile(f):
            return f"cannot read {f}: scenario and data files must be at the same path on every worker"
    try:
        man = Store(url).read_json("manifest.json")
    except Exception as e:
        return f"cannot read {url}/manifest.json ({one_line(e)}): --out must be a path every worker reaches " \
               "at the same name (a shared filesystem) or an object-store URL"
    if man.get("run_id") != run_id:
        return f"{url}/manifest.json is another sweep's: --out must name the same folder on every worker"
    return None


class Dask(Backend):
    """Chunks on a dask.distributed cluster (see the module docstring).

    Args:
        scheduler: an address (``tcp://host:8786``), a ``distributed.Client`` (used as is, not
            closed), or None to start a LocalCluster on 127.0.0.1.
        workers: worker processes of the LocalCluster (ignored with a scheduler).

    Raises:
        SpecError: dask is not installed, the address is malformed or unreachable, or the workers
            run another simlab version.
    """

    name = "dask"

    def __init__(self, scheduler: Any = None, workers: int | None = None, timeout: float | None = None):
        self.timeout = float(DASK_TIMEOUT_S if timeout is None else timeout)
        try:
            import distributed
        except ImportError:
            raise SpecError("the dask backend needs dask.distributed: pip install 'simlab[dask]'") from None
        self.distributed = distributed
        self.cluster = None
        self.own_client = True
        self.address = None
        if isinstance(scheduler, distributed.Client):
            self.client = scheduler
            self.own_client = False
        elif scheduler is not None:
            self.address = str(scheduler)
            try:
                self.client = distributed.Client(self.address, timeout=CONNECT_TIMEOUT)
            except Exception as e:  # refused, timed out, or something that is not a dask scheduler
                raise SpecError(f"cannot reach the dask scheduler at {self.address}: {one_line(e)}") from None
        else:
            import dask
            # allowed-failures 0: a chunk whose worker dies fails at once, and simlab retries it once
            # in a child process (the scheduler's default would rerun it on 3 more workers first)
            with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
                self.cluster = distributed.LocalCluster(
                    n_workers=workers or 1, threads_per_worker=1, processes=True, host="127.0.0.1",
                    dashboard_address="127.0.0.1:0", silence_logs=logging.CRITICAL)
            self.client = distributed.Client(self.cluster)
        try:
            self.workers = self._check_workers()
        except BaseException:
            self.close(cancel=True)
            raise
        self.futures: dict[Any, tuple[ChunkTask, int]] = {}

    def _check_workers(self) -> int:
        nthreads = self.client.nthreads()
        if not nthreads:
            try:
                self.client.wait_for_workers(1, timeout=30)
            except (TimeoutError, OSError):
                raise SpecError(f"the dask scheduler {self.where} has no workers") from None
            nthreads = self.client.nthreads()
        try:
            info = self.client.run(_worker_info)
        except Exception as e:
            raise SpecError(f"dask workers of {self.where} cannot run simlab ({one_line(e)}); "
                            "install simlab on every worker") from None
        for addr, d in info.items():
            if d.get("simlab") != __version__:
                raise SpecError(f"dask worker {addr} runs simlab {d.get('simlab')}, this client {__version__}; "
                                "install the same version everywhere")
        return max(1, sum(nthreads.values()))

    @property
    def where(self) -> str:
        return self.address or "LocalCluster(127.0.0.1)"

    def check_visible(self, url, run_id, files):
        from ..errors import SweepStateError
        seen = self.client.run(_worker_sees, url, run_id, files)
        for addr, problem in sorted(seen.items()):
            if problem is not None:
                raise SweepStateError(f"dask worker {addr}: {problem}")

    def submit(self, task, attempt):
        f = self.client.submit(run_attempt, task, attempt, pure=False,
                               key=f"simlab-chunk-{task.cell}-{task.start}-{attempt}-{os.urandom(4).hex()}")
        self.futures[f] = (task, attempt)

    def pending(self):
        return len(self.futures)

    def wait(self):
        lost_since = None
        while True:
            try:
                done, _ = self.distributed.wait(list(self.futures), timeout=min(5.0, self.timeout),
                                                return_when="FIRST_COMPLETED")
                break
            except TimeoutError:
                pass
            # nothing finished: fine while workers run the chunks, a stop once none is left
            if self.client.nthreads():
                lost_since = None
                continue
            lost_since = lost_since or time.monotonic()
            if time.monotonic() - lost_since >= self.timeout:
                raise WorkersLost(f"the dask cluster {self.where} has had no workers for {self.timeout:g} s "
                                  f"with {len(self.futures)} chunk(s) waiting")
        out = []
        for f in done:
            task, attempt = self.futures.pop(f)
            if f.status == "finished":
                out.append(_as_outcome(task, attempt, f.result()))
            else:
                try:
                    e = f.exception()
                except Exception as exc:  # cancelled futures raise here
                    e = exc
                if isinstance(e, self.distributed.KilledWorker):
                    out.append(Outcome(task, attempt, error="worker process died (dask KilledWorker)", lost=True))
                elif f.status == "cancelled":
                    out.append(Outcome(task, attempt, error="chunk cancelled by the scheduler", lost=True))
                else:
                    out.append(Outcome(task, attempt, error=one_line(e) if e is not None else f"chunk {f.status}"))
            f.release()
        return out

    def close(self, cancel=False):
        if self.futures and cancel:
            with contextlib.suppress(Exception):
                self.client.cancel(list(self.futures))
        self.futures = {}
        if self.own_client:
            with contextlib.suppress(Exception):
                self.client.close()
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.close()
            self.cluster = None

    def describe(self):
        return {"backend": "dask", "workers": self.workers, "scheduler": self.address or
                ("LocalCluster" if self.cluster is not None else "client")}


def check_backend(backend: str | None, scheduler: Any, workers: int | None) -> str:
    """Check the backend arguments before anything is started or written.

    Returns:
        The backend name: ``"local"``, ``"processes"`` or ``"dask"`` (a scheduler without a
        backend means dask).

    Raises:
        SpecError: an unknown backend, a scheduler with the local backend, a malformed scheduler
            address, fewer than 1 worker, or the dask backend without dask installed.
    """
    if backend is None:
        backend = "dask" if scheduler is not None else "local"
    if backend not in BACKENDS:
        raise SpecError(f"unknown backend {backend!r} (backends: {', '.join(BACKENDS)})")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise SpecError(f"--workers must be at least 1 (got {workers})")
    if workers is not None and workers > MAX_WORKERS:
        raise SpecError(f"--workers must be at most {MAX_WORKERS} (got {workers})")
    if backend != "dask" and scheduler is not None:
        raise SpecError("--scheduler needs --backend dask")
    if backend == "dask":
        try:
            import distributed
        except ImportError:
            raise SpecError("the dask backend needs dask.distributed: pip install 'simlab[dask]'") from None
        if isinstance(scheduler, str) and not _ADDRESS.match(scheduler):
            raise SpecError(f"--scheduler {scheduler!r}: expected an address like tcp://10.0.0.5:8786")
        if scheduler is not None and not isinstance(scheduler, (str, distributed.Client)):
            raise SpecError("scheduler must be an address or a distributed.Client")
    return backend


def make_backend(backend: str, workers: int, scheduler: Any = None, dask_timeout: float | None = None) -> Backend:
    """The backend object for :func:`simlab.sweeps.runner.run_sweep` (arguments already checked):
    ``local`` plays in this process (1 worker) or on threads, ``processes`` on spawned worker
    processes (even 1, for fault isolation), ``dask`` on a cluster (``dask_timeout``: seconds
    without any worker before the sweep stops, default :data:`DASK_TIMEOUT_S`)."""
    if backend == "dask":
        return Dask(scheduler, workers, dask_timeout)
    if backend == "processes":
        return Processes(workers)
    return InProcess() if workers == 1 else Threads(workers)


@contextlib.contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """A ``distributed.Client`` to pass as ``scheduler=`` to many sweeps (``simlab tune`` and
    ``compare`` start one cluster, not one per sweep).

    Args:
        scheduler: an address, or None for a LocalCluster on 127.0.0.1 with ``workers`` processes
            (default: every core) and the same retry settings as ``run_sweep`` uses.

    Raises:
        SpecError: as :class:`Dask`.
    """
    check_backend("dask", scheduler, workers)
    d = Dask(scheduler, workers or default_workers())
    try:
        yield d.client
    finally:
        d.close()


class Kept(Backend):
    """A backend kept across many sweeps (:func:`kept_backend`): a sweep's ``close`` leaves its
    worker processes running for the next sweep; only leaving the ``with`` block stops them."""

    def __init__(self, inner: Backend):
        self.inner = inner
        self.name = inner.name
        self.workers = inner.workers

    @property
    def slots(self) -> int:
        return self.inner.slots

    def submit(self, task, attempt):
        self.inner.submit(task, attempt)

    def pending(self):
        return self.inner.pending()

    def wait(self):
        return self.inner.wait()

    def check_visible(self, url, run_id, files):
        self.inner.check_visible(url, run_id, files)

    def stop(self):
        return self.inner.stop()

    def close(self, cancel=False):
        if cancel and isinstance(self.inner, Processes):
            self.inner._drop_pool()
        elif cancel and isinstance(self.inner, Threads):
            self.inner.stop()  # drop the queued chunks; the running ones finish
            self.inner.futures = {}
        elif cancel and isinstance(self.inner, InProcess):
            self.inner.stop()  # drop the queued chunks; the parts being written are finished

    def describe(self):
        return self.inner.describe()


_CURRENT: contextvars.ContextVar[tuple[str | None, Any]] = contextvars.ContextVar("simlab_sweep_backend",
                                                                                 default=(None, None))


def current_backend() -> tuple[str | None, Any]:
    """``(backend, scheduler)`` set by the innermost :func:`sweep_backend`, or ``(None, None)``."""
    return _CURRENT.get()


@contextlib.contextmanager
def sweep_backend(backend: str | None = None, scheduler: Any = None, workers: int | None = None) -> Iterator[None]:
    """Play every sweep started inside on this backend: each ``run_sweep`` call that names no
    backend and no scheduler of its own (those of ``simlab tune``, ``compare`` and ``meta``).

    With ``dask`` one cluster serves them all: the scheduler at ``scheduler``, or a LocalCluster on
    127.0.0.1 with ``workers`` processes started here and stopped on exit.

    Raises:
        SpecError: as :func:`check_backend` and :class:`Dask` (before anything is started).
    """
    name = check_backend(backend, scheduler, workers)
    if name != "dask" or (scheduler is not None and not isinstance(scheduler, str)):
        token = _CURRENT.set((name, scheduler))
        try:
            yield
        finally:
            _CURRENT.reset(token)
        return
    with dask_client(scheduler, workers or default_workers()) as client:
        token = _CURRENT.set(("dask", client))
        try:
            yield
        finally:
            _CURRENT.reset(token)


@contextlib.contextmanager
def kept_backend(workers: int | None = None) -> Iterator[None]:
    """Inside the block, sweeps that name no backend of their own and would run on local worker
    processes share one pool of ``workers`` processes (default: every core), started once instead
    of once per sweep (``simlab solve`` plays hundreds of small sweeps). Under a dask
    :func:`sweep_backend` it does nothing. The rows do not depend on it.

    Raises:
        SpecError: a bad worker count.
    """
    name, scheduler = _CURRENT.get()
    check_backend(None, None, workers)
    if name == "dask" or scheduler is not None:
        yield
        return
    w = workers or default_workers()
    # threads start at no cost, but keeping one pool also keeps its retry pool and threads warm
    inner: Backend = InProcess() if w == 1 else Threads(w)
    token = _CURRENT.set(("local", Kept(inner)))
    try:
        yield
    finally:
        _CURRENT.reset(token)
        inner.close()
