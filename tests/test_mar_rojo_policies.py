"""Mar Rojo's policies as data: policies.toml against the kernels' layout, today's presets, and
legal games at every knob's bounds (the engine checks every activation a policy picks)."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.errors import SpecError
from simlab.games import get_game
from simlab.games.mar_rojo import enums, layout
from simlab.games.mar_rojo.runtime import (
    pack_policies,
    policy_book,
    preset_names,
    resolve_policy,
)
from simlab.rng import game_seeds

GAME = get_game("mar-rojo")
SIDES = enums.SIDE_NAMES


def test_book_matches_the_kernels():
    book = policy_book()
    assert set(book.families) == set(enums.FAMILY_NAMES)
    slots = layout.POLICY_PACKING.check(book)["pp"]  # knob -> its PP_<NAME> (or alias) slot
    assert set(slots) == {k.name for k in book.families["greedy"].knobs}
    assert sorted(slots.values()) == list(range(layout.NPP))
    assert slots["draw"] == layout.PP_DRAW and slots["torpedo_weight"] == layout.PP_TORP
    assert book.families["random-legal"].knobs == () and book.families["solo-ai"].knobs == ()
    assert preset_names() == ("random-legal", "aggressive", "cautious", "torpedo-first", "convoy", "solo-ai")
    for k in book.families["greedy"].knobs:
        assert k.doc and "(" in k.doc, k.name  # every knob says its unit


def test_presets_hold_the_values_of_the_old_table():
    legacy = {  # the POLICY_PARAMS rows before policies were data (PP_DRAW .. PP_RETREAT_CARD)
        "aggressive": (0.35, 0, 0.0, 1.0, 0.0, 3, 1.0, 2, 0, 0.04, 0.9, 0.02, 0.25, 0.3, 1),
        "cautious": (0.8, 2, 0.6, 0.0, 1.0, 2, 1.0, 1, 1, 0.15, 0.6, 0.08, 0.5, 0.15, 1),
        "torpedo-first": (0.5, 1, 0.3, 0.6, 0.3, 3, 2.0, 1, 0, 0.08, 0.9, 0.03, 0.35, 0.3, 1),
    }
    for name, row in legacy.items():
        pols, pp = pack_policies({"nationalist": name, "republican": name})
        assert (pols == enums.FAM_GREEDY).all()
        assert tuple(pp[0, :15]) == row
        assert pp[0, layout.PP_HOLD_CABO] == (name == "torpedo-first")
        assert pp[0, layout.PP_DEPLOY_BACK] == (name == "cautious")
    pols, pp = pack_policies({"nationalist": "random-legal", "republican": "solo-ai"})
    assert tuple(pols) == (enums.FAM_RANDOM, enums.FAM_SOLO)
    fill = layout.POLICY_PACKING.fill_row("pp")  # the greedy defaults, torpedo_weight 1, stress_cost 0
    assert (pp[0] == fill).all() and (pp[1] == fill).all()
    # no zero row (issue 15): torpedo shots count in full, and the solo AI takes no stress (12.1)
    assert pp[0, layout.PP_TORP] == 1.0 and pp[0, layout.PP_STRESS_COST] == 0.0
    assert pp[0, layout.PP_DAMAGE_WEIGHT] == 0.25 and pp[0, layout.PP_STAKE] == 4.0


def test_a_policy_object_and_a_knob_setting_reach_the_kernel():
    pol = policy_book().resolve("nationalist", "aggressive", {"draw": 1.5, "hold": 3})
    pols, pp = pack_policies({"nationalist": pol, "republican": "cautious"})
    assert pp[0, layout.PP_DRAW] == 1.5 and pp[0, layout.PP_HOLD] == 3
    assert resolve_policy("republican", pol) is pol
    with pytest.raises(SpecError):
        policy_book().resolve("nationalist", "aggressive", {"draw": 99.0})
    with pytest.raises(SpecError):
        pack_policies({"nationalist": "no-such-policy", "republican": "cautious"})


def _bounds_policy(side: str, which: str, rng: np.random.Generator | None = None):
    fam = policy_book().families["greedy"]
    vals = {}
    for k in fam.knobs:
        if which == "lo":
            v = k.lo
        elif which == "hi":
            v = k.hi
        else:
            v = k.lo if rng.random() < 0.5 else k.hi
        vals[k.name] = int(v) if k.kind is int else float(v)
    return policy_book().resolve(side, "aggressive", vals)


@pytest.mark.parametrize("which", ["lo", "hi", "mixed"])
def test_every_knob_at_its_bounds_plays_legal_games(which):
    rng = np.random.default_rng(7)
    on = {"check_invariants": True, "card_events": True, "faccioso_cabo_palos": True, "initial_reveal": True}
    for scenario in GAME.scenarios:
        sc = GAME.load_scenario(scenario)
        opts = GAME.resolve_options(on)
        pols = {s: _bounds_policy(s, which, rng) for s in SIDES}
        for opp in ("random-legal", "solo-ai"):
            for pair in (pols, {"nationalist": pols["nationalist"], "republican": opp}):
                batch = GAME.play_batch(sc, opts, pair, game_seeds(11, 5, 0, 12))
                assert (batch.games["invariant_violation"] == 0).all(), (scenario, which, opp)
                assert GAME.invariant_violations(sc, batch, opts) == []


def test_record_widths_come_from_the_names():
    assert layout.NC == len(layout.CARD_COLUMNS) and layout.C_DATE == layout.NC - 1
    assert layout.NS == len(layout.STATE_COLUMNS) and layout.S_UPPED == layout.NS - 1
    assert layout.NQ == len(layout.SETUP_FIELDS) and layout.NPP == len(policy_book().families["greedy"].knobs)
    assert enums.NAK == len(enums.ACTION_KIND_COLUMNS)
    assert len(layout.CONSTANT_NAMES) <= layout.NCONST
    g_slots = sorted(v for k, v in vars(layout).items() if k.startswith("G_") and isinstance(v, int))
    assert g_slots[-1] < layout.NG and len(set(g_slots)) == len(g_slots)
    o_slots = sorted(v for k, v in vars(layout).items() if k.startswith("O_") and isinstance(v, int))
    assert o_slots[-1] == layout.NOUT - 1


def test_a_knob_set_through_play_batch_changes_play():
    sc = GAME.load_scenario("cabo-de-palos")
    opts = GAME.resolve_options({})
    seeds = game_seeds(3, 9, 0, 40)
    base = GAME.play_batch(sc, opts, {"nationalist": "aggressive", "republican": "aggressive"}, seeds)
    pols = GAME.resolve_policies(SIDES, {}, {"republican": {"forward": 0.0, "draw": 5.0}})
    other = GAME.play_batch(sc, opts, pols, seeds)
    same = GAME.play_batch(sc, opts, GAME.resolve_policies(SIDES, {}), seeds)
    assert all((base.games[c] == same.games[c]).all() for c in base.games)
    assert any((base.games[c] != other.games[c]).any() for c in base.games)


def test_solo_ai_is_marked_as_taking_no_stress():
    """12.1: the solo AI's cards never take stress; the family's caveat says so wherever a
    comparison is shown (simlab games lists it, meta's summary carries it)."""
    book = policy_book()
    assert "12.1" in book.caveat("solo-ai") and "stress" in book.caveat("solo-ai")
    assert book.caveat("aggressive") == "" and book.caveat("random-legal") == "" and book.caveat("nope") == ""
    desc = GAME.describe()
    fams = {f["name"]: f for f in desc["policy_families"]}
    assert "caveat" in fams["solo-ai"] and "caveat" not in fams["greedy"]
    rows = {r["name"]: r for r in desc["presets"]["nationalist"]}
    assert "caveat" in rows["solo-ai"] and "caveat" not in rows["convoy"]
