"""Play one chunk in a child process of its own (how a failed chunk is retried).

``python -m simlab.sweeps.isolate`` reads one JSON object from stdin (``{"sys_path": [...],
"task": {...ChunkTask fields...}}``), plays the chunk, and prints its summary as JSON on stdout
(exit 0). On an exception it prints one line ``Type: message`` on stderr and exits 1; if the game
kills the process, the parent sees the signal. Only JSON crosses the pipe: no pickle.
"""

from __future__ import annotations

import dataclasses
import json
import signal
import subprocess
import sys

from ..games.policy import Policy
from .chunks import ChunkTask

__all__ = ["play_isolated", "task_from_json", "task_to_json"]


def task_to_json(task: ChunkTask) -> dict:
    """A ChunkTask as plain JSON data."""
    return dataclasses.asdict(task)


def task_from_json(d: dict) -> ChunkTask:
    """The inverse of :func:`task_to_json`."""
    d = dict(d)
    d["grid_options"] = tuple(d["grid_options"])
    d["policies"] = {s: Policy.from_json(p) for s, p in d["policies"].items()}
    return ChunkTask(**d)


def one_line(e: BaseException, limit: int = 300) -> str:
    """``Type: message`` on one line, at most ``limit`` characters."""
    msg = " ".join(f"{type(e).__name__}: {e}".split())
    return msg if len(msg) <= limit else msg[: limit - 3] + "..."


def describe_exit(rc: int) -> str:
    """Words for a child's exit status (negative: killed by a signal)."""
    if rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = f"signal {-rc}"
        return f"worker process died ({name})"
    return f"worker process exited with status {rc}"


def play_isolated(task: ChunkTask, timeout: float | None = None) -> dict:
    """Play a chunk in a fresh child process; the caller survives whatever the chunk does.

    Args:
        task: the chunk.
        timeout: seconds before the child is killed (None: no limit).

    Returns:
        The chunk summary of :func:`simlab.sweeps.chunks.play_chunk`, or ``{"error": "<one line>"}``
        when the child raised, died or timed out.
    """
    payload = json.dumps({"sys_path": list(sys.path), "task": task_to_json(task)}).encode()
    try:
        proc = subprocess.run([sys.executable, "-m", "simlab.sweeps.isolate"], input=payload,
                              capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"chunk did not finish within {timeout:g} s"}
    if proc.returncode == 0:
        try:
            return json.loads(proc.stdout)
        except ValueError:
            return {"error": "worker process printed no summary"}
    err = proc.stderr.decode(errors="replace").strip().splitlines()
    if proc.returncode == 1 and err:
        return {"error": err[-1]}
    return {"error": describe_exit(proc.returncode)}


def _main() -> int:  # pragma: no cover - runs in the child (covered by the fault tests)
    from .chunks import die_with_parent, play_chunk
    die_with_parent()
    try:
        doc = json.loads(sys.stdin.buffer.read())
        for p in doc.get("sys_path", []):
            if p not in sys.path:
                sys.path.append(p)
        summary = play_chunk(task_from_json(doc["task"]))
    except Exception as e:  # report any failure as one line: the parent records it
        print(one_line(e), file=sys.stderr)
        return 1
    sys.stdout.write(json.dumps(summary))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(_main())
