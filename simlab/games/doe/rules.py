"""Dawn of Empire data-pack schema and loaders (Rule 3.4, 6.0).

The pack in ``data/`` serves both ``doe-battle`` and ``dawn-of-empire``. Each table's rows are
checked by a pydantic model; :func:`check_pack` checks references across tables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ...datapack import DataPack, PackSchema, TableSchema
from ...errors import DataPackError
from .enums import TYPE_NAMES

DATA_DIR = Path(__file__).parent / "data"
SIDES = ("us", "spain")

UnitType = Literal[TYPE_NAMES]  # type: ignore[valid-type]


class UnitRow(BaseModel):
    """A ship unit (Rule 3.4.1): side, type, attack, defense, movement (MP), start, entry turn."""

    model_config = ConfigDict(extra="forbid")
    side: Literal["us", "spain", "germany"]
    type: UnitType
    attack: int = Field(ge=0, le=20)
    defense: int = Field(ge=0, le=20)
    movement: int = Field(ge=0, le=20)
    start: str | None = None
    entry_turn: int | None = Field(default=None, ge=1, le=9)
    optional: Literal["", "extra-warships", "germans"] = ""


class LeaderRow(BaseModel):
    """A leader (Rule 6.0): side and stars (command rate)."""

    model_config = ConfigDict(extra="forbid")
    side: Literal["us", "spain", "germany"]
    stars: int = Field(ge=0, le=6)
    start: str | None = None
    optional: Literal["", "extra-warships", "germans"] = ""


def check_pack(pack: DataPack) -> None:
    """Cross-table checks of a DoE pack.

    Raises:
        DataPackError: if a table the game needs is missing.
    """
    for t in ("units", "leaders"):
        if not pack.tables.get(t):
            raise DataPackError(f"data pack {pack.name}: table '{t}' is missing or empty")


SCHEMA = PackSchema(
    game="dawn-of-empire",
    tables={
        "units": TableSchema(UnitRow, open=True, doc="ship units: side, type, attack, defense, movement (MP)"),
        "leaders": TableSchema(LeaderRow, open=True, doc="leaders: side and stars"),
    },
    check=check_pack,
)
