"""Dreadnought's records (layout.py) and codes (enums.py): each record's width is its names, each
code list is its names' indices."""

from __future__ import annotations

import pytest

from simlab.games.dreadnought import enums as E
from simlab.games.dreadnought import layout as L

#: constants with a record's prefix that are not slots of it
NOT_SLOTS = {"SH_MINUS_ONE", "PS_NONE", "PS_FLEET", "PS_DAMAGED", "PS_LOST", "PS_SCHEDULED"}


@pytest.mark.parametrize("prefix,width", [
    ("ST_", "NST"), ("SH_", "NSH"), ("FM_", "NFM"), ("SC_", "NSC"), ("RL_", "NRL"), ("DY_", "NDY"), ("O_", "NOUT"),
    ("E_", "NEV"), ("TR_", "NTR"), ("K_", "NKN"), ("PC_", "NPC"), ("PO_", "NPO"), ("PS_", "NPS"), ("CP_", "NCP"),
    ("TA_", "NTA"), ("RS_", "NRS")])
def test_each_record_width_is_its_names(prefix, width):
    slots = sorted(v for k, v in vars(L).items() if k.startswith(prefix) and k not in NOT_SLOTS and isinstance(v, int))
    assert slots == list(range(getattr(L, width)))


def test_the_game_record_holds_the_treasuries_after_its_names():
    slots = sorted(v for k, v in vars(L).items() if k.startswith("GO_") and not k.startswith("GO_TREAS"))
    assert slots == list(range(L.GO_TREAS0))
    assert L.NGO == L.GO_TREAS0 + 26


def test_codes_are_their_names_indices():
    assert (E.N, E.NW, len(E.FACING_NAMES)) == (0, 5, 6)
    assert E.RESULT_NAMES[E.RES_E_2G1S] == "E:2G,1S" and E.RESULT_NAMES[E.RES_2G2S] == "2G,2S"
    assert E.BUILDER_NAMES[E.BUILD_RANDOM] == "random" and E.ALLOCATION_NAMES[E.ALLOC_RANDOM] == "random"
    assert E.EXTENDED_END_NAMES[E.EXT_LOOP_CAP] == "loop_cap" and E.CAMPAIGN_SCENARIOS[E.SCEN_D] == "D"
