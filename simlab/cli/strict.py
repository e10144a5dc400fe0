"""Command-line checks click does not make (a single-valued option given twice), the exception
classes of click, and a closed or broken stdout."""

from __future__ import annotations

import functools
import os
import sys

import click
import typer

try:  # typer >= 0.20 vendors its own copy of click; older typer uses click itself
    from typer import _click as _typer_click
except ImportError:  # pragma: no cover
    _typer_click = None

from ..errors import InputError


def refuse_repeated_options(cmd, argv: list[str]) -> None:
    """Refuse a single-valued option (``--games``, ``--seed``, ``--exploit``...) given twice.

    Click keeps the last value of a repeated option silently; repeatable ones (``--grid``,
    ``--policy``, ``--set``) and on/off flags are left alone.

    Raises:
        InputError: naming the option given twice.
    """
    i = 0
    while i < len(argv) and hasattr(cmd, "get_command") and not argv[i].startswith("-"):
        sub = cmd.get_command(None, argv[i])  # type: ignore[arg-type]
        if sub is None:
            return
        cmd, i = sub, i + 1
    takes: dict[str, object] = {}
    single: dict[str, object] = {}
    for p in getattr(cmd, "params", []):
        if getattr(p, "param_type_name", "") != "option":
            continue
        for o in p.opts:
            if not p.is_flag and not getattr(p, "count", False):
                takes[o] = p
                if not p.multiple:
                    single[o] = p
    seen: dict[object, str] = {}
    while i < len(argv):
        tok = argv[i]
        if tok == "--":
            return
        name, eq, _ = tok.partition("=")
        if name in single:
            p = single[name]
            if p in seen:
                raise InputError(f"{name} given twice (it takes one value; give it once)")
            seen[p] = name
        i += 2 if (name in takes and not eq) else 1


def click_errors() -> dict[str, tuple[type, ...]]:
    """Exception classes of click and of the click that typer may vendor (``typer._click``)."""
    mods = [click.exceptions] + ([_typer_click.exceptions] if _typer_click is not None else [])

    def cls(name):
        return tuple(getattr(m, name) for m in mods if hasattr(m, name))

    return {"help": cls("NoArgsIsHelpError"), "usage": cls("UsageError"), "click": cls("ClickException"),
            "exit": cls("Exit") + (typer.Exit,), "abort": cls("Abort") + (typer.Abort,)}


def quiet_closed_stdout(fn):
    """Wrap the CLI's ``main`` so that a closed stdout (``simlab sweep ... >&-``) or a reader that
    went away (``| head -0``) ends the command quietly: what went to stdout is dropped, the exit
    status is the command's own (0 when only the printing failed), and no traceback is printed."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if sys.stdout is None:  # descriptor 1 closed at start: Python left no stdout at all
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives until exit
        try:
            rc = fn(*args, **kwargs)
        except SystemExit as e:  # click's own answer to EPIPE is sys.exit(1) after a BrokenPipeError
            if not isinstance(e.__context__, BrokenPipeError):
                raise
            _drop_stdout()
            return 0
        try:
            if sys.stdout is not None:
                sys.stdout.flush()
        except (BrokenPipeError, ValueError):
            _drop_stdout()
        except OSError:  # pragma: no cover - e.g. EBADF on a descriptor closed under us
            _drop_stdout()
        return rc
    return wrapper


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's own flush at exit fails no more."""
    with_null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(with_null, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives until exit
    finally:
        os.close(with_null)
