"""Exceptions simlab raises for bad input.

Every error a user can cause with a malformed experiment, battle file, data pack or CLI argument
is a :class:`InputError` (or a subclass). The CLI prints its message as one line on stderr and
exits with status 2; library users catch it like any exception.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad user input: the message is one line a user can act on."""

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))


class SpecError(InputError):
    """A malformed experiment spec or sweep argument."""


class DataPackError(InputError):
    """A malformed data pack or override pack."""


class ScenarioError(InputError):
    """A malformed scenario or battle file."""


class SweepStateError(InputError):
    """An output directory that cannot be used as asked (busy, or resumed with another spec)."""


class PartialSweepWarning(UserWarning):
    """``simlab.load(..., allow_partial=True)`` returned fewer games than the manifest says were
    written (a deleted part or cell folder, or a sweep still running): the message names the cells
    and the missing game ranges."""


class SweepStopped(RuntimeError):
    """A sweep stopped before its end for a reason outside its input (its cluster lost every
    worker): complete chunks are kept and ``--resume`` finishes it. The CLI prints the message as
    one line and exits with status 1."""

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))
