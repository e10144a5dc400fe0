"""Dreadnought's policies as data: the presets of policies.toml reproduce the named policies the
kernels played before (codes and knobs exactly), every knob reaches a kernel slot, knobs at their
bounds play legal games; the kernel modules' cache list names every module with kernels."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import numpy as np
import pytest

from simlab.games.dreadnought import layout as L
from simlab.games.dreadnought import runtime
from simlab.rng import game_seeds

#: the named policies as the kernels read them before policies.toml (simlab 0.x game.POLICIES and
#: campaign.WITHDRAW): movement, fire, torpedo use, formation; the knobs that differ from the base
#: (issue 14: the fire knobs threat, suppress and objective replace the 0.x focus weight)
BASE = {L.K_RANGE: 2.0, L.K_BROADSIDE: 0.6, L.K_TORP_MIN: 1.0, L.K_NEAR: 0.1, L.K_SAFE: 1.0, L.K_THREAT: 1.0,
        L.K_SCREEN_RANGE: 2.0, L.K_PARALLEL: 0.4, L.K_TURNCOST: 0.3, L.K_SUPPORT: 8.0,
        # numbers that were literals in the policy kernels
        L.K_SPEED: 0.01, L.K_ON_GOAL: 5.0, L.K_RUN_SPEED: 0.05, L.K_SPREAD: 1000.0, L.K_DEFENSIVE: 0.5,
        L.K_BOMBARD_HOLD: 0.0, L.K_DELAY: 2.0, L.K_SUPPRESS: 0.5,
        # campaign: agree to conclude after 8 Game-Turns without damage (9.43, issue 14)
        L.K_AGREE: 8.0,
        # issue 28's tactical knobs (12.41): the tow taken beyond the visibility, cruisers 8 hexes preferred
        L.K_TOW_CLEAR: 1.0, L.K_TOW_CAPITAL: 8.0}
LEGACY = {
    "close-and-engage": ((0, 0, 0, 0), {L.K_WITHDRAW: 0.35}, (1, 0)),
    "hold-range": ((1, 1, 1, 0), {L.K_BROADSIDE: 1.0, L.K_WITHDRAW: 0.6}, (1, 0)),
    "break-contact": ((2, 2, 2, 1), {L.K_WITHDRAW: 0.0}, (1, 0)),
    "make-for-objective": ((3, 0, 0, 0), {L.K_WITHDRAW: 0.35, L.K_BOMBARD_HOLD: 1.0, L.K_OBJECTIVE: 30.0}, (1, 0)),
    # issue 28: random-legal agrees (9.43) and holds the bombardment force's fire (11.3) on coin flips
    "random-legal": ((4, 3, 3, -1), {L.K_WITHDRAW: 0.0, L.K_DELAY: -1.0, L.K_AGREE: -1.0, L.K_AGREE_HIST: -1.0,
                                     L.K_BOMBARD_HOLD: -1.0}, (2, 3)),
}


def test_the_presets_are_the_legacy_policies_exactly():
    assert runtime.preset_names() == tuple(LEGACY)
    for name, (codes, knobs, (builder, allocation)) in LEGACY.items():
        pc, kn = runtime.pack_policies({"a": name, "b": name}, ("a", "b"))
        want = np.zeros(L.NKN, dtype=np.float64)
        for slot, v in {**BASE, **knobs}.items():
            want[slot] = v
        # keep_slow, keep_damaged, displace, displaced_stays, flagship, merge, rejoin, smoke 0: as before issue 28
        assert tuple(pc[0]) == codes + (0,) * 8, name
        assert kn[0].tobytes() == want.tobytes(), name
        pol = runtime.as_policy(name, "north")
        assert (pol.value("builder"), pol.value("allocation")) == (builder, allocation)


def test_every_knob_has_one_slot_and_every_slot_one_knob():
    fam = runtime.policy_book().families["scripted"]
    names = [k.name for k in fam.knobs]
    slots = L.POLICY_PACKING.check(runtime.policy_book())  # {row: {knob: slot}}, found by name in the layout
    assert set(names) == set(slots["pc"]) | set(slots["kn"]) | set(runtime.CAMPAIGN_KNOBS)
    assert not set(slots["pc"]) & set(slots["kn"])
    assert sorted(slots["kn"].values()) == list(range(L.NKN))
    assert sorted(slots["pc"].values()) == list(range(L.NPC))
    assert slots["pc"]["movement"] == L.PC_MOVE and slots["kn"]["agree_historical"] == L.K_AGREE_HIST
    for k in fam.knobs:
        assert k.doc, k.name
        assert k.kind is (int if k.name in slots["pc"] or k.name in runtime.CAMPAIGN_KNOBS
                          or k.name in ("bombard_hold", "delay", "wrecks", "agree", "agree_historical", "sb") else float), k.name


def test_a_named_knob_reaches_its_slot():
    pol = runtime.policy_book().resolve("british", "close-and-engage", {"threat": 2.5, "movement": 1})
    pc, kn = runtime.pack_policies({"british": pol, "german": "hold-range"}, ("british", "german"))
    assert kn[0, L.K_THREAT] == 2.5 and pc[0, L.PC_MOVE] == 1 and pc[1, L.PC_FIRE] == 1


# "hi" once hung (game 13 of seed 5, Dogger Bank): random-legal movement (movement 4) with
# keep_slow 1 merged formations whose ships' speed ranges (Rule 6.11) did not meet, and the
# random plot then drew a speed from an empty range forever. can_join_nb now refuses such joins.
@pytest.mark.parametrize("end", ["lo", "hi"])
def test_knobs_at_their_bounds_play_legal_games(end):
    from simlab.games import get_game
    game = get_game("dreadnought")
    fam = runtime.policy_book().families["scripted"]
    settings = {k.name: getattr(k, end) for k in fam.knobs}
    for scen in ("dogger-bank", "singora"):
        sc = game.load_scenario(scen)
        setup, rules = sc.payload
        pols = {s: runtime.policy_book().resolve(s, "close-and-engage", settings) for s in sc.sides}
        out, _ = runtime.run_games(setup, rules, pols, game_seeds(5, 1, 0, 16), {}, check=True)
        assert out[:, L.O_VIOLATIONS].max() == 0
        assert (out[:, L.O_TURNS] >= 1).all()


def test_kernel_modules_name_every_module_with_kernels():
    from simlab.games import get_game
    here = Path(runtime.__file__).parent
    have = {".".join(("simlab", "games", "dreadnought") + p.relative_to(here).with_suffix("").parts)
            for p in here.rglob("*.py") if re.search(r"^@(kernel|njit)\b", p.read_text(), re.M)}
    found = set(get_game("dreadnought").kernel_modules)   # found in the folder (kernel_cache.find_kernel_modules)
    assert have <= found and {f"simlab.games.dreadnought.{m}" for m in ("enums", "layout", "policies.bundles")} <= found
    for m in have:
        assert len(Path(importlib.import_module(m).__file__).read_text().splitlines()) <= 800, m
