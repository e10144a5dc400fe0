"""How simlab completes what the Dreadnought text lacks: the DPT, the CRT and the unit values.

Everything here is *provisional* (see ``shared/DATA-NOTES.md``): the transcription lost the charts
and the counters. The values are derived by the stated rules below, so they can be reproduced and
replaced; the data pack files ``data/dpt_crt.toml`` and ``data/classes.toml`` are generated from
this module (``python -m simlab.games.dreadnought.provisional --write``) and a test checks that
they still match it.

Damage Point Table (Rule 5.8)
    ``DP(roll, band) = round_half_up(mid(band) * 0.28 * (roll - 3) / 3)`` for rolls above 3, else
    0, where ``mid`` is the middle of the printed attack band (0-5 -> 2.5, ..., 61-80 -> 70.5, 81+
    -> 90, taken as 81-99). It keeps every printed cell: row 2 all 0, row 3 all 0 (printed for the
    first seven columns), and Rule 5.6's cell (column 31-40, roll 6) = 10; it rises with the roll
    and the attack band. Read: a ship scores about 0.37 of its strength on an average roll of 7,
    and 0.84 on a 12.

Combat Results Table (Rule 5.9)
    The severity of a cell is ``roll + column`` (column 1 for 1-1 ... 5 for 5-1): 7 or less no
    effect, 8 ``1G``, 9 one step (``1G`` in rows up to 4, ``1S`` from row 5, as printed), 10
    ``1G,1S``, 11 ``2G``, 12 ``2G,1S``, 13 or more ``E``. This reproduces all printed cells (rows
    2-5) and is monotonic in roll and ratio. Consequences: at 1-1 any damage needs a 7 (58%), an
    ``E`` needs a 12; at 5-1 an ``E`` comes on 8 or more.

Unit values (Rules 3.21-3.24, 9.51)
    One method for every unit, with inputs from standard references listed in
    ``method/classes.csv`` (approximate; they are inputs of a provisional method, not the game's):

    * movement = floor(knots / 4) (Rule 3.4: one MP is 4 knots);
    * range = floor(r_f * gun range in km / 1.8) (Rule 3.4: a hex is 1,800 m), with the range of
      the main guns at the highest elevation their mountings reached in service;
    * attack = round_half_up(a_f * W * F(year)), W = sum over the unit's ships of guns bearing on
      a broadside x calibre (inches) cubed / 1000 (shell weight goes with the cube of the calibre;
      wing turrets on the far side do not count, Designer's Notes 13.0);
    * defense = round_half_up(d_f * P * Fd(year)), P = sum over the unit's ships of displacement
      (thousands of tons) x sqrt((belt inches + 1) / 13);
    * F and Fd are fire-control and protection era factors: 1 up to 1914, then linear in the year.

    Calibration (exact by construction): capital ships on Iron Duke (Rule 9.51: 18/6/5, year 1914
    fixes a_f and d_f) and Bismarck (Rule 3.21: 61/20/20/7, year 1940 fixes the slopes of F and
    Fd); screen units use the same F and Fd with their own a_f, d_f, r_f calibrated on the 2-CA
    unit C33 (Rule 3.22: 16/6/12/8); capital ships use r_f = 1. Checks (not used to fit): Leonardo
    da Vinci's A+D+M = 26 (11.9); the 49 VPs of Jutland (10.7) for Indefatigable and Queen Mary;
    the publicly reported printed ranges (US 14in/45 classes 17, New Mexico 18, Japanese 21-23).
    :func:`calibration_checks` reports them.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "BANDS",
    "BAND_LOW",
    "CRT_COLUMNS",
    "ClassInput",
    "calibration_checks",
    "constants",
    "crt_cell",
    "derive_class",
    "dpt_cell",
    "example_values",
    "load_inputs",
    "render_classes_toml",
    "render_dpt_crt_toml",
]

HERE = Path(__file__).parent
INPUTS = HERE / "method" / "classes.csv"
DATA = HERE / "data"

# ---- Damage Point Table (Rule 5.8)
BANDS = ("0-5", "6-10", "11-15", "16-20", "21-25", "26-30", "31-40", "41-50", "51-60", "61-80", "81+")
BAND_LOW = (0, 6, 11, 16, 21, 26, 31, 41, 51, 61, 81)
# twice the middle of each band (81+ taken as 81-99)
_MID2 = (5, 16, 26, 36, 46, 56, 71, 91, 111, 141, 180)
CRT_COLUMNS = ("1-1", "2-1", "3-1", "4-1", "5-1")


def dpt_cell(roll: int, band: int) -> int:
    """Provisional DPT value: damage points for a 2d6 ``roll`` (2..12) in attack ``band`` (0..10)."""
    if roll <= 3:
        return 0
    # round_half_up(mid * 0.28 * (roll - 3) / 3) = (mid2 * 28 * (roll - 3) + 300) // 600
    return (_MID2[band] * 28 * (roll - 3) + 300) // 600


def dpt_provenance(roll: int, band: int) -> tuple[str, str]:
    """``(provenance, note)`` of a DPT cell: printed cells are ``rulebook:5.8``, 5.6's is ``example:5.6``."""
    if roll == 2:
        return "rulebook:5.8", ""
    if roll == 3 and band <= 6:
        return "rulebook:5.8", ""
    if roll == 6 and band == 6:
        return "example:5.6", "5.6: attack 36, roll 8 - 2 = 6 -> 10 damage points"
    return "provisional", ("truncated in the transcription; round(mid(band) x 0.28 x (roll - 3) / 3), "
                           "which keeps every printed cell (see simlab/games/dreadnought/provisional.py)")


def crt_cell(roll: int, col: int) -> str:
    """Provisional CRT cell for a 2d6 ``roll`` and ratio column ``col`` (1 for 1-1 ... 5 for 5-1)."""
    s = roll + col
    if s <= 7:
        return ""
    if s == 8:
        return "1G"
    if s == 9:
        return "1G" if roll <= 4 else "1S"
    if s == 10:
        return "1G,1S"
    if s == 11:
        return "2G"
    if s == 12:
        return "2G,1S"
    return "E"


def crt_provenance(roll: int, col: int) -> tuple[str, str]:
    """``(provenance, note)`` of a CRT cell: rows 2-5 are printed (``rulebook:5.9``)."""
    if roll <= 5:
        return "rulebook:5.9", ""
    return "provisional", ("rows 6-12 are missing from the transcription; severity roll + column: "
                           "<=7 none, 8 1G, 9 1S (1G up to row 4), 10 1G,1S, 11 2G, 12 2G,1S, >=13 E")


# ---- unit values (Rules 3.21-3.24)
@dataclass(frozen=True)
class ClassInput:
    """One row of ``method/classes.csv``: the historical inputs of a class's values."""

    code: str
    name: str
    family: str      # capital | screen
    type: str        # capital | CA | CL | DD
    ships: int       # ships in one unit (1, 2 cruisers, 5 destroyers; Rule 8.0)
    year: int        # completion (or refit) year of the configuration
    guns: tuple[tuple[int, float], ...]   # (guns bearing on a broadside, calibre in inches) per ship
    knots: float
    displacement_t: float   # per ship, normal or standard, tons
    belt_in: float
    range_km: float
    torpedo: str     # "", "1:1" or "2:1" (Rule 8.0)

    @property
    def weight(self) -> float:
        """W: broadside calibre-cubed sum of the whole unit (inches cubed / 1000)."""
        return self.ships * sum(n * c ** 3 for n, c in self.guns) / 1000.0

    @property
    def protection(self) -> float:
        """P: displacement (thousands of tons) x sqrt((belt + 1) / 13), summed over the unit."""
        return self.ships * self.displacement_t / 1000.0 * math.sqrt((self.belt_in + 1.0) / 13.0)


def _guns(text: str) -> tuple[tuple[int, float], ...]:
    out = []
    for part in text.split("+"):
        n, c = part.lower().split("x")
        out.append((int(n), float(c)))
    return tuple(out)


def load_inputs(path: str | Path = INPUTS) -> dict[str, ClassInput]:
    """The method's inputs by class code (in file order)."""
    out: dict[str, ClassInput] = {}
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            out[r["class"]] = ClassInput(
                code=r["class"], name=r["name"], family=r["family"], type=r["type"], ships=int(r["ships"]),
                year=int(r["year"]), guns=_guns(r["guns"]), knots=float(r["knots"]),
                displacement_t=float(r["displacement_t"]), belt_in=float(r["belt_in"]),
                range_km=float(r["range_km"]), torpedo=r["torpedo"].strip(),
            )
    return out


def _round_half_up(x: float) -> int:
    return int(math.floor(x + 0.5 + 1e-9))


@dataclass(frozen=True)
class Constants:
    a_cap: float
    d_cap: float
    f_slope: float   # F(year) = 1 + f_slope * (year - 1914) after 1914
    fd_slope: float
    a_scr: float
    d_scr: float
    r_scr: float

    def F(self, year: int) -> float:
        return 1.0 + self.f_slope * max(0, year - 1914)

    def Fd(self, year: int) -> float:
        return 1.0 + self.fd_slope * max(0, year - 1914)


def constants(inputs: dict[str, ClassInput] | None = None) -> Constants:
    """The method's constants, calibrated on Iron Duke (080), Bismarck (740) and C33 (class C30)."""
    inp = inputs or load_inputs()
    idk, bis, c30 = inp["080"], inp["740"], inp["C30"]
    a_cap = 18.0 / idk.weight
    d_cap = 6.0 / idk.protection
    f1940 = 61.0 / (a_cap * bis.weight)
    fd1940 = 20.0 / (d_cap * bis.protection)
    k = Constants(a_cap, d_cap, (f1940 - 1.0) / 26.0, (fd1940 - 1.0) / 26.0, 0.0, 0.0, 0.0)
    a_scr = 16.0 / (c30.weight * k.F(c30.year))
    d_scr = 6.0 / (c30.protection * k.Fd(c30.year))
    r_scr = 12.5 / (c30.range_km / 1.8)
    return Constants(a_cap, d_cap, k.f_slope, k.fd_slope, a_scr, d_scr, r_scr)


def derive_class(ci: ClassInput, k: Constants | None = None) -> dict:
    """The method's values of one class: ``{attack, defense, range, movement, torpedo, type, name}``."""
    k = k or constants()
    cap = ci.family == "capital"
    a = (k.a_cap if cap else k.a_scr) * ci.weight * k.F(ci.year)
    d = (k.d_cap if cap else k.d_scr) * ci.protection * k.Fd(ci.year)
    r = (1.0 if cap else k.r_scr) * ci.range_km / 1.8
    return {
        "name": ci.name, "type": ci.type,
        "attack": max(1, _round_half_up(a)), "defense": max(1, _round_half_up(d)),
        "range": max(1, int(math.floor(r + 1e-9))), "movement": int(math.floor(ci.knots / 4.0 + 1e-9)),
        "torpedo": ci.torpedo,
    }


# values the rulebook prints, by class and field, with their section
KNOWN = {
    ("740", "attack"): ("rulebook:3.21", 61), ("740", "defense"): ("rulebook:3.21", 20),
    ("740", "range"): ("rulebook:3.21", 20), ("740", "movement"): ("rulebook:3.21", 7),
    ("080", "attack"): ("rulebook:9.51", 18), ("080", "defense"): ("rulebook:9.51", 6),
    ("080", "movement"): ("rulebook:9.51", 5),
    ("C30", "attack"): ("rulebook:3.22", 16), ("C30", "defense"): ("rulebook:3.22", 6),
    ("C30", "range"): ("rulebook:3.22", 12), ("C30", "movement"): ("rulebook:3.22", 8),
    ("C30", "type"): ("rulebook:3.22", "CA"),
    ("D70", "torpedo"): ("rulebook:3.23", "1:1"),
}


def deployment_speeds(folder: str | Path = HERE / "scenarios") -> dict[str, tuple[int, str]]:
    """Highest speed each class is deployed at in the historical scenarios (undamaged ships).

    A scenario's deployment speed (Rule 10.x) cannot exceed the counter's Movement Allowance, so it
    is a lower bound on the movement value (provenance ``example:10.x``).

    Returns:
        ``{class code: (speed, section)}``.
    """
    import tomllib
    out: dict[str, tuple[int, str]] = {}
    for f in sorted(Path(folder).glob("*.toml")):
        with open(f, "rb") as fh:
            doc = tomllib.load(fh)
        sec = str(doc.get("section", ""))
        for u in doc.get("units", []):
            for sh in u["ships"]:
                if isinstance(sh, dict):
                    if sh.get("damage"):
                        continue
                    uid = sh["id"]
                else:
                    uid = sh.split()[0]
                cls = uid[:2] + "0"
                sp = int(u["speed"])
                if sp > out.get(cls, (-1, ""))[0]:
                    out[cls] = (sp, sec)
    return out


#: speeds the sample campaign (11.9) plots, lower bounds on a class's Movement Allowance like the
#: deployment speeds of Rule 10: ``{class: (speed, section, what the example says)}``
EXAMPLE_SPEEDS = {"900": (6, "11.9", "11.9 plots the D. Alighieri NE at speed six in Scenario A")}

#: Victory Point values (Rule 9.51: attack + defense + movement) the sample campaign (11.9) prints
#: or implies: ``{class: (value, fields kept, what the example says)}``. The method's attack and
#: defense are scaled to meet the value (movement, and a defense the example confirms, kept);
#: the split stays provisional, the sum is the example's (ruling DN-C16)
EXAMPLE_VALUES = {
    "C10": (12, ("movement",), "11.9 D: the French CA, sunk (conceded), scores 12 VPs, 100% of its value (9.52)"),
    "C50": (12, ("movement",), "11.9 D: the wrecked Italian CA scores 9 VPs, 80% of its value with fractions "
                               "dropped (9.52); only 12 gives 9"),
    "500": (25, ("movement", "defense"), "11.9 C: Jean Bart's one permanent damage state scores 5 VPs, 20% of "
                                         "its value (9.52): 25-29, the least taken; its defense 5 (five states "
                                         "removed, 5.44) is the method's"),
}


def example_values(vals: dict, code: str) -> dict:
    """A class's derived values with the 11.9 value met (:data:`EXAMPLE_VALUES`): the fields not
    kept (attack, and defense unless kept) are scaled by the same factor, attack rounded half up,
    defense taking the rest (at least 1). Other classes are returned unchanged.

    Raises:
        ValueError: if the kept fields alone reach the value.
    """
    if code not in EXAMPLE_VALUES:
        return vals
    want, kept, _ = EXAMPLE_VALUES[code]
    out = dict(vals)
    free = [f for f in ("attack", "defense") if f not in kept]
    room = want - sum(out[f] for f in ("attack", "defense", "movement") if f not in free)
    if room < len(free):
        raise ValueError(f"class {code}: the kept values leave {room} for {free}")
    if free == ["attack"]:
        out["attack"] = room
        return out
    scale = room / (out["attack"] + out["defense"])
    out["attack"] = max(1, min(room - 1, int(out["attack"] * scale + 0.5)))
    out["defense"] = room - out["attack"]
    return out


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_dpt_crt_toml() -> str:
    """The text of ``data/dpt_crt.toml`` (Damage Point Table and Combat Results Table)."""
    lines = [
        "# Damage Point Table (Rule 5.8) and Combat Results Table (Rule 5.9).",
        "# GENERATED by `python -m simlab.games.dreadnought.provisional --write`: change the method in",
        "# provisional.py (or override values with `--data FILE`), not this file.",
        "# dpt: key = 2d6 roll after modifiers; field = attack band as printed; value = damage points.",
        "# crt: key = 2d6 roll; field = combat ratio column; value = the result as printed.",
        "",
    ]
    for roll in range(2, 13):
        lines.append(f'[dpt."{roll}"]')
        for b, band in enumerate(BANDS):
            prov, note = dpt_provenance(roll, b)
            extra = f", note = {_toml_str(note)}" if note else ""
            lines.append(f'"{band}" = {{ value = {dpt_cell(roll, b)}, provenance = "{prov}"{extra} }}')
        lines.append("")
    for roll in range(2, 13):
        lines.append(f'[crt."{roll}"]')
        for c, col in enumerate(CRT_COLUMNS, start=1):
            prov, note = crt_provenance(roll, c)
            extra = f", note = {_toml_str(note)}" if note else ""
            lines.append(f'"{col}" = {{ value = {_toml_str(crt_cell(roll, c))}, provenance = "{prov}"{extra} }}')
        lines.append("")
    return "\n".join(lines)


def _method_note(ci: ClassInput, field: str) -> str:
    g = " + ".join(f"{n} x {c:g}in" for n, c in ci.guns)
    base = f"method (provisional.py) from {ci.name}, {ci.year}"
    if field == "attack":
        return f"{base}: broadside {g}, {ci.ships} ship(s)"
    if field == "defense":
        return f"{base}: {ci.displacement_t:g} t, belt {ci.belt_in:g}in, {ci.ships} ship(s)"
    if field == "range":
        return f"{base}: gun range {ci.range_km:g} km / 1.8 km per hex"
    if field == "movement":
        return f"{base}: {ci.knots:g} knots / 4 knots per MP"
    if field == "torpedo":
        if ci.type == "DD":
            return "destroyer units carry 1:1T like the printed D72 (3.23); Japanese D80 2:1T for the Type 93 torpedo"
        return ("BRAVO (German/Japanese) cruiser units kept torpedo tubes: 1:1T; ALPHA cruiser units none"
                if ci.torpedo else "no torpedo rating: ALPHA cruiser units and capital ships (8.0: only screens launch)")
    if field == "type":
        return "capital ship (dreadnought counter)" if ci.type == "capital" else f"screen unit of {ci.ships} {ci.type}s (8.0)"
    return base


def render_classes_toml(inputs: dict[str, ClassInput] | None = None) -> str:
    """The text of ``data/classes.toml`` (one row per ship class and screen-unit class)."""
    inp = inputs or load_inputs()
    k = constants(inp)
    lines = [
        "# Ship classes and screen-unit classes (Rules 3.21-3.24, 8.0, List of Dreadnoughts).",
        "# GENERATED by `python -m simlab.games.dreadnought.provisional --write` from method/classes.csv:",
        "# change the method or its inputs, or override values with `--data FILE`, not this file.",
        "# A unit's class is its ID's leading digits: 081 Iron Duke -> class 080; C33 -> class C30.",
        "# Printed values (Bismarck 3.21, Iron Duke 9.51, C33 3.22, D72's 1:1T 3.23) are tagged rulebook.",
        "",
    ]
    bounds = deployment_speeds()
    for code, ci in inp.items():
        method = derive_class(ci, k)
        vals = example_values(method, code)
        lines.append(f'[classes."{code}"]')
        lines.append(f'name = {{ value = {_toml_str(ci.name)}, provenance = "provisional", note = "a representative ship of the class" }}')
        for field in ("type", "attack", "defense", "range", "movement", "torpedo"):
            v = vals[field]
            if (code, field) in KNOWN:
                prov, v = KNOWN[(code, field)]
                note = {"740": "Bismarck's counter (3.21)", "080": "Iron Duke: 18 + 6 + 5 = 29 VPs (9.51)",
                        "C30": "the sample 2-CA counter C33 (3.22); every C3x unit is of its class",
                        "D70": "D72 is marked 1:1T (3.23); every D7x unit is of its class"}[code]
            elif field == "type":
                prov = "rulebook:3.2" if ci.type == "capital" else "rulebook:3.23"
                note = ("a dreadnought counter (List of Dreadnoughts)" if ci.type == "capital"
                        else f"{ci.code[0]} units are {ci.ships} {ci.type}s (3.22-3.23, 8.0)")
            elif field in ("attack", "defense") and vals[field] != method[field]:
                want, kept, what = EXAMPLE_VALUES[code]
                prov = "provisional"
                note = (f"{what} (example:11.9): the method's attack and defense scaled to a value of {want}; "
                        f"the method gives {method['attack']} + {method['defense']} + {method['movement']} = "
                        f"{method['attack'] + method['defense'] + method['movement']}")
            elif field == "movement" and code in EXAMPLE_SPEEDS and EXAMPLE_SPEEDS[code][0] > v:
                sp, sec, what = EXAMPLE_SPEEDS[code]
                prov = f"example:{sec}"
                note = (f"{what}, so the Movement Allowance is at least {sp}; "
                        f"the method gives {v} ({ci.knots:g} knots / 4)")
                v = sp
            elif field == "movement" and code in bounds and bounds[code][0] > v:
                sp, sec = bounds[code]
                prov = f"example:{sec}"
                note = (f"deployed at speed {sp} in {sec}, so the Movement Allowance is at least {sp}; "
                        f"the method gives {v} ({ci.knots:g} knots / 4)")
                v = sp
            elif field == "torpedo" and ci.family == "capital":
                prov, note = "rulebook:8.0", "only screen units make torpedo attacks"
            else:
                prov, note = "provisional", _method_note(ci, field)
            val = _toml_str(v) if isinstance(v, str) else str(v)
            lines.append(f"{field} = {{ value = {val}, provenance = \"{prov}\", note = {_toml_str(note)} }}")
        lines.append("")
    return "\n".join(lines)


def calibration_checks(inputs: dict[str, ClassInput] | None = None) -> dict:
    """What the method gives against facts it was not fitted to.

    Returns:
        ``{"cavour_sum": (method, 26), "jutland_49": (method V(200)+V(210), 49),
        "ranges": {class: (method, reported)}, "sample_campaign": {fact: (method, 11.9)}}``. The
        sample campaign (11.9) implies: Jean Bart (class 500) has defense 5 (it removed five
        damage states and kept the sixth) and a value of 25-29 (20% of it is 5 VPs); the French
        CA (C10) is worth 12 (sunk: 12 VPs) and the Italian CA (C50) 12 (wrecked: 80% = 9 VPs);
        the D. Alighieri (900) reaches 11 hexes (it fires at 11) and moves at least 6 MP.
    """
    inp = inputs or load_inputs()
    k = constants(inp)
    v = {c: derive_class(ci, k) for c, ci in inp.items()}

    def value(c):
        return v[c]["attack"] + v[c]["defense"] + v[c]["movement"]

    reported = {"350": "17", "370": "17", "380": "17", "400": "18", "790": "21-23", "800": "21-23",
                "820": "21-23", "830": "21-23", "860": "21-23", "880": "21-23"}
    sample = {}
    if {"500", "900", "C10", "C50"} <= set(v):
        sample = {"jean_bart_defense": (v["500"]["defense"], "5"), "jean_bart_value": (value("500"), "25-29"),
                  "french_ca_value": (value("C10"), "12"), "italian_ca_value": (value("C50"), "12"),
                  "alighieri_range": (v["900"]["range"], ">= 11"), "alighieri_movement": (v["900"]["movement"], ">= 6")}
    return {
        "sample_campaign": sample,
        "cavour_sum": (value("910"), 26),
        "jutland_49": (value("200") + value("210"), 49),
        "ranges": {c: (v[c]["range"], r) for c, r in reported.items() if c in v},
    }


def _write(check: bool) -> int:
    files = {DATA / "dpt_crt.toml": render_dpt_crt_toml(), DATA / "classes.toml": render_classes_toml()}
    bad = 0
    for p, text in files.items():
        if check:
            if not p.exists() or p.read_text() != text:
                print(f"{p} is out of date")
                bad += 1
        else:
            p.write_text(text)
            print(f"wrote {p}")
    return bad


if __name__ == "__main__":  # pragma: no cover - developer helper
    import sys
    raise SystemExit(1 if _write("--check" in sys.argv) else 0)

