"""A sweep manifest's seal: a digest of its fields, so that a hand edit is detected (issue 32).

Kept apart from :mod:`simlab.sweeps.manifest` (which re-exports it) so that both the manifest reader
and :mod:`simlab.sweeps.verify` can use it without importing each other.
"""

from __future__ import annotations

__all__ = ["SEAL", "check_seal", "seal"]

MANIFEST = "manifest.json"
#: the manifest key holding its seal (see :func:`seal`)
SEAL = "seal"


def _seal_of(man: dict) -> str:
    import hashlib
    import json
    body = json.loads(json.dumps({k: v for k, v in man.items() if k != SEAL}, default=str))  # as read back
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:32]


def seal(man: dict) -> dict:
    """Stamp ``man`` with a digest of all its other fields (``man["seal"]``), in place, and return it.

    simlab seals every manifest it writes, so a hand edit of any field (games written, sides, crn,
    game, format, schema, provenance counts, version, the spec, a cell's knobs) is detected by
    :func:`check_seal`: ``simlab verify`` names it, and ``--resume``/``--extend`` refuse the sweep.
    """
    man[SEAL] = _seal_of(man)
    return man


def check_seal(man: dict) -> str | None:
    """None when ``man``'s seal matches its fields (or it has none: written by an older simlab),
    else one line saying the manifest was edited since simlab wrote it."""
    have = man.get(SEAL)
    if have is None:
        return None
    if have != _seal_of(man):
        return (f"{MANIFEST} was edited after simlab wrote it (its seal {str(have)[:12]}... no longer matches "
                "its fields): restore it, or play the sweep again into another --out")
    return None
