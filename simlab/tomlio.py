"""Reading a user's TOML file with one-line errors (experiments, scenarios, battle files, data packs)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from .errors import InputError

__all__ = ["read_toml"]


def read_toml(path: str | Path, error: type[InputError], what: str) -> dict:
    """Parse a TOML file.

    Args:
        path: the file.
        error: the :class:`InputError` subclass to raise (ScenarioError, SpecError, DataPackError).
        what: what the file is, for messages ("battle file", "experiment file", ...).

    Returns:
        The document as a dict.

    Raises:
        error: on a missing file, a directory, a path the system cannot read, a TOML syntax error
            (duplicate keys included), a document nested too deeply, or a file that is not UTF-8,
            with a one-line message.
    """
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise error(f"{what} not found: {p}") from None
    except IsADirectoryError:
        raise error(f"{what} is a directory: {p}") from None
    except tomllib.TOMLDecodeError as e:
        raise error(f"{p.name}: TOML syntax error: {e}") from None
    except UnicodeDecodeError:
        raise error(f"{p.name}: not a UTF-8 text file") from None
    except PermissionError:
        raise error(f"{what} is not readable: {p}") from None
    except RecursionError:
        raise error(f"{p.name}: nested too deeply to read") from None
    except OSError as e:  # a file where a folder should be, a name too long, an unreadable device
        raise error(f"{what} cannot be read: {p}: {e.strerror or e}") from None
    except ValueError as e:  # e.g. a NUL byte in the path
        raise error(f"{what}: bad path {str(p)!r}: {e}") from None
