"""Exact odds of one Mar Rojo combat (Rule 5.3.1 steps 4, 8-10, the lucky hit, 10.2).

``simlab odds mar-rojo --weapon torpedo --dice 2 --distance short --target destroyer --armour L``
prints the exact distribution of the hits that stand after saving rolls and, for torpedoes, the
probability that the target is sunk outright. Everything is computed with exact fractions from
the rule tables of the data pack (so ``--data`` overrides apply). The module knows nothing of the
command line: :func:`odds` returns plain values, :data:`ODDS_OPTIONS` types the command's options
and :func:`odds_report` gives the table and line the CLI prints.

``--dice`` is the number of dice the weapon rolls *now* (after damage and stress, 5.3.2); 0
means the value was reduced to zero, which still rolls for a lucky hit (a 6, then 4+; never at
night). Anti-submarine attacks include the submarine's evasion roll (step 4: 5+ cancels the
attack). Against torpedoes armour plays no part: escorts (destroyers, auxiliaries) make their
special 5+ save before the effect roll, other ships none; capital ships add 1 to the effect roll.
Not included: the target's light AA fire at a bombing aircraft (step 7), support cards other than
Optics, and interruption cards.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from ...errors import SpecError
from ..odds import OddsOption, Table
from .enums import ARMOUR_NAMES, ROW_NAMES, TYPE_NAMES, WEAPON_NAMES
from .layout import (
    R_ESCORT_TORP_SAVE,
    R_HIT,
    R_LUCKY_FIRST,
    R_LUCKY_SECOND,
    R_NIGHT_MOD,
    R_OPTICS,
    R_SUB_EVASION,
    R_TORP_CAPITAL,
    RT_SAVE,
    RT_TORP,
)

__all__ = ["ODDS_OPTIONS", "odds", "odds_report"]

_SURFACE = ("capital", "destroyer", "auxiliary", "merchant")
_TARGETS = {
    "main": _SURFACE, "secondary": _SURFACE, "torpedo": _SURFACE, "bombing": _SURFACE,
    "aa": ("aircraft",), "air": ("aircraft",), "asw": ("submarine",),
}


def _p_at_least(need: int) -> Fraction:
    if need <= 1:
        return Fraction(1)
    if need > 6:
        return Fraction(0)
    return Fraction(7 - need, 6)


def _binomial(n: int, p: Fraction) -> list[Fraction]:
    out = [Fraction(0)] * (n + 1)
    out[0] = Fraction(1)
    for _ in range(n):
        nxt = [Fraction(0)] * (n + 1)
        for k, q in enumerate(out):
            if q:
                nxt[k] += q * (1 - p)
                if k + 1 <= n:
                    nxt[k + 1] += q * p
        out = nxt
    return out


def _rules(data: str | Path | None):
    from .game import GAME
    from .rules import compile_tables
    if data is not None and not Path(data).is_file():
        raise SpecError(f"data pack override not found: {data}")
    pack = GAME.load_data(data)
    rt, _ = compile_tables(pack.view())
    return rt


def odds(weapon: str, dice: int, distance: str | None = None, target: str = "capital", armour: str = "X",
         optics: bool = False, night: bool = False, data: str | Path | None = None) -> dict:
    """Exact distribution of one attack's hits after saves (Rule 5.3.1).

    Args:
        weapon: main, secondary, torpedo, aa, asw, air or bombing.
        dice: dice rolled now (0-30); 0 rolls for a lucky hit (by day).
        distance: combat distance short, medium or long (default: medium for aircraft attacks,
            which are always at Medium, else short).
        target: capital, destroyer, auxiliary, submarine, merchant or aircraft.
        armour: the target's armour / save class X, L, H, S or E.
        optics: the Optics support card (+1 to each hit die).
        night: night combat (one more needed to hit, no lucky hit, Rule 10.2).
        data: a data-pack override file.

    Returns:
        ``{"method": "exact", "hits": {k: p}, "p_sunk": p, "mean_hits": m, "p_hit": p, ...}``:
        ``hits[k]`` is the probability that exactly ``k`` hits stand and the target is not sunk
        by a torpedo's Sunk result (``p_sunk``); the ``hits`` values and ``p_sunk`` sum to 1.
        ``need`` is the least die that hits, ``p_die`` one die's chance.

    Raises:
        SpecError: on an unknown weapon, target, distance or armour, a weapon that cannot attack
            that target (5.3.1 step 1) or fire at that distance (step 2), or dice outside 0-30.
    """
    if weapon not in WEAPON_NAMES:
        raise SpecError(f"--weapon {weapon!r}: use one of {', '.join(WEAPON_NAMES)}")
    if target not in TYPE_NAMES:
        raise SpecError(f"--target {target!r}: use one of {', '.join(TYPE_NAMES)}")
    if armour not in ARMOUR_NAMES:
        raise SpecError(f"--armour {armour!r}: use one of {', '.join(ARMOUR_NAMES)}")
    if isinstance(dice, bool) or not isinstance(dice, int) or not 0 <= dice <= 30:
        raise SpecError(f"--dice {dice!r}: use a whole number of dice from 0 to 30")
    if target not in _TARGETS[weapon]:
        raise SpecError(f"weapon {weapon} cannot target a {target} (Rule 5.3.1 step 1: it targets "
                        f"{' or '.join(_TARGETS[weapon])})")
    aircraft_attack = weapon in ("air", "bombing")
    if distance is None:
        distance = "medium" if aircraft_attack else "short"
    if distance not in ROW_NAMES:
        raise SpecError(f"--distance {distance!r}: use one of {', '.join(ROW_NAMES)}")
    if aircraft_attack and distance != "medium":
        raise SpecError("attacks by aircraft are always at the Medium combat distance (Rule 5.3.1 step 2)")
    if distance == "long" and weapon != "main":
        raise SpecError("only main armament may fire at the Long combat distance (Rule 5.3.1 step 2)")
    rt = _rules(data)
    penalty = 1 if ((weapon in ("secondary", "torpedo") and distance == "medium")
                    or (weapon == "main" and distance == "long")) else 0
    bonus = int(rt[R_OPTICS]) if optics else 0
    need = int(rt[R_HIT]) + penalty - bonus + (int(rt[R_NIGHT_MOD]) if night else 0)
    p_die = _p_at_least(need)
    if dice > 0:
        raw = _binomial(dice, p_die)
    else:
        lucky = Fraction(0) if night else _p_at_least(int(rt[R_LUCKY_FIRST])) * _p_at_least(int(rt[R_LUCKY_SECOND]))
        raw = [1 - lucky, lucky]
    p_evaded = Fraction(0)
    if weapon == "asw":
        p_evaded = _p_at_least(int(rt[R_SUB_EVASION]))
        raw = [q * (1 - p_evaded) for q in raw]
        raw[0] += p_evaded
    hits: dict[int, Fraction] = {}
    p_sunk = Fraction(0)
    if weapon == "torpedo":
        escort = target in ("destroyer", "auxiliary")
        p_pass = 1 - _p_at_least(int(rt[R_ESCORT_TORP_SAVE])) if escort else Fraction(1)
        add = int(rt[R_TORP_CAPITAL]) if target == "capital" else 0
        effect: dict[int, Fraction] = {}  # damage of one torpedo hit; -1 = Sunk
        effect[0] = 1 - p_pass
        for r in range(1, 7):
            e = int(rt[RT_TORP + min(7, r + add)])
            effect[e] = effect.get(e, Fraction(0)) + p_pass * Fraction(1, 6)
        for n, q in enumerate(raw):
            if not q:
                continue
            dist = {0: Fraction(1)}
            sunk = Fraction(0)
            for _ in range(n):
                nxt: dict[int, Fraction] = {}
                for h, qh in dist.items():
                    for e, qe in effect.items():
                        if e < 0:
                            sunk += qh * qe
                        else:
                            nxt[h + e] = nxt.get(h + e, Fraction(0)) + qh * qe
                dist = nxt
            p_sunk += q * sunk
            for h, qh in dist.items():
                hits[h] = hits.get(h, Fraction(0)) + q * qh
    else:
        ns = int(rt[RT_SAVE + ARMOUR_NAMES.index(armour)])
        p_save = _p_at_least(ns) if ns <= 6 else Fraction(0)
        for n, q in enumerate(raw):
            if not q:
                continue
            for k, qk in enumerate(_binomial(n, 1 - p_save)):
                if qk:
                    hits[k] = hits.get(k, Fraction(0)) + q * qk
    keys = sorted(hits)
    total = sum(hits.values()) + p_sunk
    if total != 1:  # pragma: no cover - a bug
        raise RuntimeError("mar-rojo odds do not sum to one")
    mean = sum(k * hits[k] for k in keys)
    return {
        "method": "exact",
        "weapon": weapon, "dice": dice, "distance": distance, "target": target, "armour": armour,
        "optics": optics, "night": night,
        "need": need, "p_die": float(p_die), "lucky_hit": dice == 0 and not night,
        "hits": {k: float(hits[k]) for k in keys},
        "hits_exact": {k: str(hits[k]) for k in keys},
        "p_sunk": float(p_sunk), "p_sunk_exact": str(p_sunk),
        "p_evaded": float(p_evaded),
        "p_hit": float(1 - hits.get(0, Fraction(0))),
        "mean_hits": float(mean),
    }


#: the options of ``simlab odds mar-rojo`` (keywords of :func:`odds`)
ODDS_OPTIONS = (
    OddsOption("weapon", str, required=True, doc="main | secondary | torpedo | aa | asw | air | bombing"),
    OddsOption("dice", int, required=True, doc="dice rolled now, after damage and stress (0: lucky hit only)"),
    OddsOption("target", str, required=True, doc="capital | destroyer | auxiliary | submarine | merchant | aircraft"),
    OddsOption("armour", str, "X", doc="the target's armour / save: X | L | H | S | E"),
    OddsOption("distance", str, doc="combat distance: short | medium | long (default: medium for aircraft, else short)"),
    OddsOption("optics", bool, doc="the Optics support card: +1 to each hit die"),
    OddsOption("night", bool, doc="night combat (Rule 10.2)"),
    OddsOption("data", str, doc="data pack override (TOML)"),
)


def odds_report(res: dict) -> list[str | Table]:
    """The human-readable form of an :func:`odds` result: hits that stand after saves (probability
    and exact fraction; torpedoes also sink outright) and one line on the die and the mean."""
    optics, night = bool(res["optics"]), bool(res["night"])
    t = Table(("hits that stand", "probability", "exact"), right=("hits that stand", "probability", "exact"),
              title=f"{res['weapon']} x{res['dice']} at {res['distance']} vs {res['target']} ({res['armour']})"
                    + (" + Optics" if optics else "") + (" at night" if night else ""))
    for k, p in res["hits"].items():
        t.add_row(str(k), f"{100 * p:.3f}%", res["hits_exact"][k])
    if res["weapon"] == "torpedo":
        t.add_row("Sunk", f"{100 * res['p_sunk']:.3f}%", res["p_sunk_exact"])
    line = (f"each die hits on {res['need']}+ ({100 * res['p_die']:.1f}%); mean {res['mean_hits']:.4f} hits"
            + ("; lucky hit roll" if res["lucky_hit"] else "")
            + (f"; submarine evades {100 * res['p_evaded']:.1f}%" if res["p_evaded"] else ""))
    return [t, line]
