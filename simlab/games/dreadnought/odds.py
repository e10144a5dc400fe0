"""Exact odds of one Dreadnought attack on an undamaged target (Rules 5.3-5.9, 7.1, 8.0, 8.32).

``simlab odds dreadnought --attack 36 --defense 10 --range 7 [--fired-upon] [--arc bow]
[--halved] [--torpedo 1:1|2:1] [--combing] [--json] [--data FILE]`` enumerates every pair of
dice exactly, from the active data pack (``--data`` applies an override pack first). This module
knows nothing of the command line: :func:`odds` returns plain values, :data:`ODDS_OPTIONS` types
the command's options and :func:`odds_report` gives the lines and table the CLI prints.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from ...errors import SpecError
from ..odds import OddsOption, Table
from . import layout as L
from .enums import CRT_E, RES_E_2G1S, RES_E_SUNK
from .provisional import BANDS
from .rules import RuleArrays

OUTCOMES = ("none", "1G", "1S", "1G1S", "2G", "2S", "2G1S", "1G2S", "2G2S", "sunk")
_CODE_TO_OUTCOME = {0: "none", 1: "1G", 2: "1S", 3: "1G1S", 4: "2G", 5: "2S", 6: "2G1S", 7: "1G2S", 8: "2G2S",
                    RES_E_SUNK: "sunk", RES_E_2G1S: "2G1S"}
_D36 = [(a, b) for a in range(1, 7) for b in range(1, 7)]


def _crt_outcomes(rules: RuleArrays, col: int, penalty: int) -> dict[str, Fraction]:
    """Exact outcome distribution of one CRT roll at ``col`` with ``penalty`` off the roll."""
    rl = rules.rl
    out = dict.fromkeys(OUTCOMES, Fraction(0))
    col = min(col, rules.ncols)
    sink = Fraction(sum(1 for a, b in _D36 if a + b in (rl[L.RL_E_SINK_A], rl[L.RL_E_SINK_B])), 36)
    for a, b in _D36:
        r = min(12, max(2, a + b - penalty))
        code = int(rules.crt[r, col])
        p = Fraction(1, 36)
        if code == CRT_E:
            out["sunk"] += p * sink
            out["2G1S"] += p * (1 - sink)
        else:
            out[_CODE_TO_OUTCOME[code]] += p
    return out


def modified_strength(rules: RuleArrays, attack: int, hexes: int, halved: bool) -> int:
    """Attack Strength after the multiple-fire halving (5.31) and range (5.5)."""
    a = attack // 2 if halved else attack
    for mx, mul, div in rules.range_tab:
        if hexes <= mx:
            return a * int(mul) // int(div)
    mx, mul, div = rules.range_tab[-1]
    return a * int(mul) // int(div)


def band_of(rules: RuleArrays, strength: int) -> int:
    """DPT column (attack band) of a modified strength."""
    b = 0
    for k, lo in enumerate(rules.band_low):
        if strength >= lo:
            b = k
    return b


def shot_distribution(rules: RuleArrays, attack: int = 0, defense: int = 1, hexes: int = 1, fired_upon: bool = False,
                      arc: str = "broadside", halved: bool = False, torpedo: str | None = None,
                      combing: bool = False) -> dict:
    """Exact distribution of one attack on an undamaged target.

    Args:
        rules: the compiled data pack.
        attack: the firer's Attack Strength (after damage); defense: the target's Defense Strength.
        hexes: range in hexes; fired_upon: the firer is fired at this phase (5.6: -2);
        arc: broadside, bow or stern (7.1: -1 in the bow and stern arcs); halved: not the
            designated firer of a multiple attack (5.31).
        torpedo: "1:1" or "2:1" for a torpedo attack (8.0; the DPT is not used); combing: the
            target combs the wakes (8.32: -3).

    Returns:
        ``{"outcomes": {name: Fraction}, "damage_points": {dp: Fraction}, "strength": int|None,
        "band": str|None, "dpt_modifier": int}``.
    """
    rl = rules.rl
    if torpedo is not None:
        col = {"1:1": 1, "2:1": 2}[torpedo]
        pen = -int(rl[L.RL_COMBING]) if combing else 0
        return {"outcomes": _crt_outcomes(rules, col, pen), "damage_points": {}, "strength": None, "band": None,
                "dpt_modifier": 0, "crt_modifier": -pen, "column": f"{col}-1"}
    strength = modified_strength(rules, attack, hexes, halved)
    mod = (int(rl[L.RL_FIRED_UPON]) if fired_upon else 0) + (int(rl[L.RL_BOW_STERN]) if arc != "broadside" else 0)
    out = dict.fromkeys(OUTCOMES, Fraction(0))
    dps: dict[int, Fraction] = {}
    if strength <= 0:
        out["none"] = Fraction(1)
        return {"outcomes": out, "damage_points": {0: Fraction(1)}, "strength": strength, "band": None,
                "dpt_modifier": mod}
    b = band_of(rules, strength)
    cache: dict[int, dict[str, Fraction]] = {}
    for a, c in _D36:
        r = min(12, max(2, a + c + mod))
        dp = int(rules.dpt[r, b])
        p = Fraction(1, 36)
        dps[dp] = dps.get(dp, Fraction(0)) + p
        ratio = dp // defense
        if ratio < 1:
            out["none"] += p
            continue
        if ratio not in cache:
            cache[ratio] = _crt_outcomes(rules, ratio, 0)
        for k, v in cache[ratio].items():
            out[k] += p * v
    return {"outcomes": out, "damage_points": dict(sorted(dps.items())), "strength": strength, "band": BANDS[b],
            "dpt_modifier": mod}


def odds(attack: int | None = None, defense: int | None = None, range: int | None = None,  # noqa: A002
         fired_upon: bool = False, arc: str = "broadside", halved: bool = False, torpedo: str | None = None,
         combing: bool = False, data: str | Path | None = None) -> dict:
    """``simlab.odds("dreadnought", attack=..., defense=..., range=...)``: exact odds of one attack.

    Returns:
        ``{"method": "exact", "game": "dreadnought", "inputs": {...}, "strength", "band",
        "dpt_modifier", "outcomes": {none, 1G, 1S, 1G1S, 2G, 2S, 2G1S, 1G2S, 2G2S, sunk: float},
        "outcomes_exact": {...: "p/q"}, "p_damage", "damage_points": {dp: float}, "data": {...}}``.

    Raises:
        SpecError: on a missing or out-of-range input or an option that does not apply to
            torpedo attacks; DataPackError: on a bad override pack.
    """
    from .game import GAME, rules_for
    if defense is None:
        raise SpecError("--defense is required (the target's Defense Strength)")
    if defense < 1:
        raise SpecError(f"--defense must be at least 1, got {defense}")
    if arc not in ("broadside", "bow", "stern"):
        raise SpecError(f"--arc must be broadside, bow or stern, got {arc!r}")
    if torpedo is not None:
        if torpedo not in ("1:1", "2:1"):
            raise SpecError(f"--torpedo must be 1:1 or 2:1, got {torpedo!r}")
        if fired_upon or halved or arc != "broadside":
            raise SpecError("torpedo attacks are read straight on the CRT: --fired-upon, --halved and --arc do not apply")
    else:
        if combing:
            raise SpecError("--combing applies to torpedo attacks only (give --torpedo 1:1 or 2:1)")
        if attack is None or range is None:
            raise SpecError("gunfire needs --attack and --range (or give --torpedo 1:1|2:1)")
        if attack < 0:
            raise SpecError(f"--attack must be 0 or more, got {attack}")
        if range < 1:
            raise SpecError(f"--range must be at least 1 hex, got {range}")
    if data is not None and not Path(data).is_file():
        raise SpecError(f"data pack override not found: {data}")
    pack = GAME.load_data(data)
    rules, used = rules_for(pack)
    d = shot_distribution(rules, attack or 0, defense, range or 1, fired_upon, arc, halved, torpedo, combing)
    outcomes = d["outcomes"]
    res = {
        "method": "exact",
        "game": "dreadnought",
        "inputs": {"attack": attack, "defense": defense, "range": range, "fired_upon": fired_upon, "arc": arc,
                   "halved": halved, "torpedo": torpedo, "combing": combing},
        "strength": d["strength"],
        "band": d["band"],
        "dpt_modifier": d["dpt_modifier"],
        "outcomes": {k: float(v) for k, v in outcomes.items()},
        "outcomes_exact": {k: f"{v.numerator}/{v.denominator}" for k, v in outcomes.items()},
        "p_damage": float(1 - outcomes["none"]),
        "damage_points": {str(k): float(v) for k, v in d["damage_points"].items()},
        "data": pack.summary(used),
    }
    if torpedo is not None:
        res["column"] = d["column"]
        res["crt_modifier"] = d["crt_modifier"]
    return res


#: the options of ``simlab odds dreadnought`` (keywords of :func:`odds`)
ODDS_OPTIONS = (
    OddsOption("attack", int, doc="firer's Attack Strength after damage (5.41)"),
    OddsOption("defense", int, doc="target's Defense Strength"),
    OddsOption("range", int, doc="range in hexes (5.5)"),
    OddsOption("fired_upon", bool, doc="the firer is fired at this phase: -2 (5.6)"),
    OddsOption("arc", str, "broadside", doc="arc of the target from the firer: broadside, bow or stern (7.1)"),
    OddsOption("halved", bool, doc="not the designated firer of a multiple attack (5.31)"),
    OddsOption("torpedo", str, doc="torpedo attack at 1:1 or 2:1 on the CRT (8.0)"),
    OddsOption("combing", bool, doc="target combing the wakes: -3 (8.32)"),
    OddsOption("data", str, doc="data pack override (TOML)"),
)


def odds_report(res: dict) -> list[str | Table]:
    """The human-readable form of an :func:`odds` result: the attack, the outcome table (probability
    and exact fraction of each CRT result), the Damage Point Table roll and the provisional values used."""
    inp = res["inputs"]
    if inp["torpedo"]:
        head = (f"torpedo attack at {inp['torpedo']}" + (" (combing, -3)" if inp["combing"] else "")
                + f" on defense {inp['defense']}")
    else:
        head = (f"attack {inp['attack']} at {inp['range']} hexes -> strength {res['strength']} (DPT column "
                f"{res['band']}), DPT roll modifier {res['dpt_modifier']:+d}, defense {inp['defense']}")
    t = Table(("outcome", "probability", "exact"), right=("probability", "exact"))
    for k in OUTCOMES:
        t.add_row(k, f"{res['outcomes'][k]:.4f}", res["outcomes_exact"][k])
    out: list[str | Table] = [head, t]
    if res["damage_points"]:
        dp = ", ".join(f"{k}: {v:.3f}" for k, v in res["damage_points"].items())
        out.append("Damage Point Table roll (2d6, before dividing by the target's Defense Strength), "
                   f"damage points: probability — {dp}")
    c = res["data"]["counts"]
    out.append(f"data pack {res['data']['name']} ({res['data']['hash']}): {c['provisional']} provisional values used")
    return out
