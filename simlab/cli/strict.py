"""Command-line checks click does not make: a single-valued option given twice."""

from __future__ import annotations

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
